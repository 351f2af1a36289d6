/* TerrainSampler: one per world (world/terrain.gd). The terrain's height grid for surface heights
 * and, once the animals' manager hands them over, the static obstacles per terrain cell for the
 * animals' moves (animal_body.c). */
#ifndef AVALON_TERRAIN_H
#define AVALON_TERRAIN_H

#include <stdint.h>

typedef struct {
	float *heights; /* NULL until loaded */
	int64_t cols, rows;
	double cell_size_m, half_size_m;
	/* Per cell of the grid ((cols - 1) x (rows - 1), row-major): the clearance from static
	 * obstacles (m), and the obstacles near it, (x, z, radius) each, from near_start[cell] to
	 * near_start[cell + 1] in near_values. NULL until set (animals.gd: _obstacle_grid). */
	float *clearance;
	int64_t *near_start;
	float *near_values;
} terrain_data;

double terrain_surface_height(const terrain_data *terrain, double x, double z);
void terrain_register(void *handle);

#endif
