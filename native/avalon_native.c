/* The simulator's native library: classes GDScript uses where the interpreter is too slow.
 *
 * TerrainSampler: the terrain's surface height (surface.c), for the animals, which look it up
 * several times per step. GDScript:
 *     var sampler = preload("res://native/terrain_sampler.gdns").new()
 *     sampler.load(heights, cols, rows, cell_size_m, size_m)  # false: the grid does not fit
 *     var y = sampler.surface_height(x, z)
 */
#include <stdlib.h>
#include <string.h>

#include "gdnative_abi.h"
#include "surface.h"

static const gdn_core_api *core;
static const gdn_nativescript_api *nativescript;

#define CORE(position, signature) ((signature)core->functions[position])

typedef struct {
	float *heights; /* NULL until loaded */
	int64_t cols, rows;
	double cell_size_m, half_size_m;
} terrain_sampler;

static gdn_variant real_variant(double value) {
	gdn_variant result;
	CORE(GDN_VARIANT_NEW_REAL, void (*)(gdn_variant *, double))(&result, value);
	return result;
}

static gdn_variant bool_variant(bool value) {
	gdn_variant result;
	CORE(GDN_VARIANT_NEW_BOOL, void (*)(gdn_variant *, bool))(&result, value);
	return result;
}

static double as_real(const gdn_variant *value) {
	return CORE(GDN_VARIANT_AS_REAL, double (*)(const gdn_variant *))(value);
}

static int64_t as_int(const gdn_variant *value) {
	return CORE(GDN_VARIANT_AS_INT, int64_t (*)(const gdn_variant *))(value);
}

static void *sampler_create(gdn_object *owner, void *method_data) {
	(void)owner;
	(void)method_data;
	return calloc(1, sizeof(terrain_sampler));
}

static void sampler_destroy(gdn_object *owner, void *method_data, void *user_data) {
	(void)owner;
	(void)method_data;
	terrain_sampler *sampler = user_data;
	if (sampler != NULL) {
		free(sampler->heights);
		free(sampler);
	}
}

/* load(heights: PoolRealArray, cols: int, rows: int, cell_size_m: float, size_m: float) -> bool:
 * copies the grid; false (and nothing loaded) unless it is at least 2 x 2, `heights` holds
 * cols * rows values and the cell size is positive. */
static gdn_variant sampler_load(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	terrain_sampler *sampler = user_data;
	if (count != 5 || CORE(GDN_VARIANT_GET_TYPE, int (*)(const gdn_variant *))(arguments[0]) != GDN_TYPE_POOL_REAL_ARRAY)
		return bool_variant(false);
	int64_t cols = as_int(arguments[1]);
	int64_t rows = as_int(arguments[2]);
	double cell_size_m = as_real(arguments[3]);
	double size_m = as_real(arguments[4]);
	gdn_pool_real_array heights = CORE(GDN_VARIANT_AS_POOL_REAL_ARRAY, gdn_pool_real_array (*)(const gdn_variant *))(arguments[0]);
	int64_t size = CORE(GDN_POOL_REAL_ARRAY_SIZE, int (*)(const gdn_pool_real_array *))(&heights);
	bool fits = cols >= 2 && rows >= 2 && size == cols * rows && cell_size_m > 0.0;
	float *copy = fits ? malloc((size_t)size * sizeof(float)) : NULL;
	if (copy != NULL) {
		gdn_pool_access *read = CORE(GDN_POOL_REAL_ARRAY_READ, gdn_pool_access *(*)(const gdn_pool_real_array *))(&heights);
		memcpy(copy, CORE(GDN_POOL_REAL_ARRAY_READ_ACCESS_PTR, const float *(*)(const gdn_pool_access *))(read),
				(size_t)size * sizeof(float));
		CORE(GDN_POOL_REAL_ARRAY_READ_ACCESS_DESTROY, void (*)(gdn_pool_access *))(read);
		free(sampler->heights);
		sampler->heights = copy;
		sampler->cols = cols;
		sampler->rows = rows;
		sampler->cell_size_m = cell_size_m;
		sampler->half_size_m = size_m / 2.0;
	}
	CORE(GDN_POOL_REAL_ARRAY_DESTROY, void (*)(gdn_pool_real_array *))(&heights);
	return bool_variant(copy != NULL);
}

/* surface_height(x: float, z: float) -> float (NaN before a successful load). */
static gdn_variant sampler_surface_height(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	const terrain_sampler *sampler = user_data;
	if (sampler->heights == NULL || count != 2)
		return real_variant(__builtin_nan(""));
	return real_variant(avalon_surface_height(sampler->heights, sampler->cols, sampler->rows, sampler->cell_size_m,
			sampler->half_size_m, as_real(arguments[0]), as_real(arguments[1])));
}

void godot_gdnative_init(const gdn_init_options *options) {
	core = options->api;
	nativescript = NULL;
	for (unsigned int i = 0; i < core->num_extensions; i++) {
		if (core->extensions[i]->type == GDN_API_NATIVESCRIPT)
			nativescript = (const gdn_nativescript_api *)core->extensions[i];
	}
}

void godot_gdnative_terminate(const void *options) {
	(void)options;
	core = NULL;
	nativescript = NULL;
}

void godot_nativescript_init(void *handle) {
	gdn_instance_create_func create = {sampler_create, NULL, NULL};
	gdn_instance_destroy_func destroy = {sampler_destroy, NULL, NULL};
	gdn_method_attributes attributes = {0};
	nativescript->register_class(handle, "TerrainSampler", "Reference", create, destroy);
	gdn_instance_method load = {sampler_load, NULL, NULL};
	nativescript->register_method(handle, "TerrainSampler", "load", attributes, load);
	gdn_instance_method surface_height = {sampler_surface_height, NULL, NULL};
	nativescript->register_method(handle, "TerrainSampler", "surface_height", attributes, surface_height);
}
