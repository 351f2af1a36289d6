#include "terrain.h"

#include <stdlib.h>
#include <string.h>

#include "godot.h"
#include "surface.h"

double terrain_surface_height(const terrain_data *terrain, double x, double z) {
	return avalon_surface_height(terrain->heights, terrain->cols, terrain->rows, terrain->cell_size_m,
			terrain->half_size_m, x, z);
}

static void *create(gdn_object *owner, void *method_data) {
	(void)owner;
	(void)method_data;
	return calloc(1, sizeof(terrain_data));
}

static void free_obstacles(terrain_data *terrain) {
	free(terrain->clearance);
	free(terrain->near_start);
	free(terrain->near_values);
	terrain->clearance = NULL;
	terrain->near_start = NULL;
	terrain->near_values = NULL;
}

static void destroy(gdn_object *owner, void *method_data, void *user_data) {
	(void)owner;
	(void)method_data;
	terrain_data *terrain = user_data;
	if (terrain != NULL) {
		free(terrain->heights);
		free_obstacles(terrain);
		free(terrain);
	}
}

/* A copy of the PoolRealArray `value` holds, and its length in *size (NULL if it holds none). */
static float *copy_of_reals(const gdn_variant *value, int64_t *size) {
	*size = 0;
	if (GODOT_CORE(GDN_VARIANT_GET_TYPE, int (*)(const gdn_variant *))(value) != GDN_TYPE_POOL_REAL_ARRAY)
		return NULL;
	gdn_pool_real_array array = GODOT_CORE(GDN_VARIANT_AS_POOL_REAL_ARRAY, gdn_pool_real_array (*)(const gdn_variant *))(value);
	*size = GODOT_CORE(GDN_POOL_REAL_ARRAY_SIZE, int (*)(const gdn_pool_real_array *))(&array);
	float *copy = malloc((size_t)(*size > 0 ? *size : 1) * sizeof(float));
	if (copy != NULL && *size > 0) {
		gdn_pool_access *read = GODOT_CORE(GDN_POOL_REAL_ARRAY_READ, gdn_pool_access *(*)(const gdn_pool_real_array *))(&array);
		memcpy(copy, GODOT_CORE(GDN_POOL_REAL_ARRAY_READ_ACCESS_PTR, const float *(*)(const gdn_pool_access *))(read),
				(size_t)*size * sizeof(float));
		GODOT_CORE(GDN_POOL_REAL_ARRAY_READ_ACCESS_DESTROY, void (*)(gdn_pool_access *))(read);
	}
	GODOT_CORE(GDN_POOL_REAL_ARRAY_DESTROY, void (*)(gdn_pool_real_array *))(&array);
	return copy;
}

/* load(heights: PoolRealArray, cols: int, rows: int, cell_size_m: float, size_m: float) -> bool:
 * copies the grid; false (and nothing loaded) unless it is at least 2 x 2, `heights` holds
 * cols * rows values and the cell size is positive. */
static gdn_variant load(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	terrain_data *terrain = user_data;
	if (count != 5)
		return variant_of_bool(false);
	int64_t cols = int_of(arguments[1]);
	int64_t rows = int_of(arguments[2]);
	double cell_size_m = real_of(arguments[3]);
	int64_t size;
	float *heights = copy_of_reals(arguments[0], &size);
	if (heights == NULL || cols < 2 || rows < 2 || size != cols * rows || !(cell_size_m > 0.0)) {
		free(heights);
		return variant_of_bool(false);
	}
	free(terrain->heights);
	free_obstacles(terrain);
	terrain->heights = heights;
	terrain->cols = cols;
	terrain->rows = rows;
	terrain->cell_size_m = cell_size_m;
	terrain->half_size_m = real_of(arguments[4]) / 2.0;
	return variant_of_bool(true);
}

/* surface_height(x: float, z: float) -> float (NaN before a successful load). */
static gdn_variant surface_height(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	const terrain_data *terrain = user_data;
	if (terrain->heights == NULL || count != 2)
		return variant_of_real(__builtin_nan(""));
	return variant_of_real(terrain_surface_height(terrain, real_of(arguments[0]), real_of(arguments[1])));
}

/* set_obstacles(clearance: PoolRealArray, near: PoolRealArray) -> bool: the clearance of each
 * cell ((cols - 1) x (rows - 1) values) and the obstacles near cells, as runs of
 * [cell, count, x, z, radius, x, z, radius, ...] in any order of cells. False (nothing set) if
 * the sizes do not fit the loaded grid. */
static gdn_variant set_obstacles(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	terrain_data *terrain = user_data;
	if (count != 2 || terrain->heights == NULL)
		return variant_of_bool(false);
	int64_t cells = (terrain->cols - 1) * (terrain->rows - 1);
	int64_t clearance_size, near_size;
	float *clearance = copy_of_reals(arguments[0], &clearance_size);
	float *near = copy_of_reals(arguments[1], &near_size);
	int64_t *start = calloc((size_t)cells + 1, sizeof(int64_t));
	float *values = malloc((size_t)(near_size > 0 ? near_size : 1) * sizeof(float));
	bool fits = clearance != NULL && near != NULL && start != NULL && values != NULL && clearance_size == cells;
	/* Count each cell's obstacles, then lay the runs out in cell order. */
	for (int64_t i = 0; fits && i < near_size;) {
		int64_t cell = (int64_t)near[i];
		int64_t n = i + 1 < near_size ? (int64_t)near[i + 1] : -1;
		if (cell < 0 || cell >= cells || n < 0 || i + 2 + 3 * n > near_size) {
			fits = false;
			break;
		}
		start[cell + 1] += 3 * n;
		i += 2 + 3 * n;
	}
	for (int64_t cell = 0; fits && cell < cells; cell++)
		start[cell + 1] += start[cell];
	if (fits) {
		int64_t *filled = calloc((size_t)cells, sizeof(int64_t));
		fits = filled != NULL;
		for (int64_t i = 0; fits && i < near_size;) {
			int64_t cell = (int64_t)near[i];
			int64_t n = (int64_t)near[i + 1];
			memcpy(values + start[cell] + filled[cell], near + i + 2, (size_t)(3 * n) * sizeof(float));
			filled[cell] += 3 * n;
			i += 2 + 3 * n;
		}
		free(filled);
	}
	free(near);
	if (!fits) {
		free(clearance);
		free(start);
		free(values);
		return variant_of_bool(false);
	}
	free_obstacles(terrain);
	terrain->clearance = clearance;
	terrain->near_start = start;
	terrain->near_values = values;
	return variant_of_bool(true);
}

void terrain_register(void *handle) {
	register_native_class(handle, "TerrainSampler", "Reference", create, destroy);
	register_native_method(handle, "TerrainSampler", "load", load);
	register_native_method(handle, "TerrainSampler", "surface_height", surface_height);
	register_native_method(handle, "TerrainSampler", "set_obstacles", set_obstacles);
}
