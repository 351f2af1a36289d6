/* The terrain's surface, as the height-field collider has it. No Godot: tests call it directly. */
#ifndef AVALON_SURFACE_H
#define AVALON_SURFACE_H

#include <stdint.h>

/* The height at (x, z) m of the surface over a grid of `cols` x `rows` heights (row-major, rows
 * along +z), `cell_size_m` apart and centred on the origin (`half_size_m` = half the grid's side):
 * the plane of the triangle holding the point, each cell split along the diagonal from
 * (row, col + 1) to (row + 1, col). Points off the grid take the edge's height. The grid
 * coordinates are clamped in single precision, the rest computed in double precision from the
 * float heights, in the order GDScript evaluated it before: the same bits as the GDScript
 * look-up this replaces. */
double avalon_surface_height(const float *heights, int64_t cols, int64_t rows, double cell_size_m,
		double half_size_m, double x, double z);

#endif
