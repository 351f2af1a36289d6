#include "data_check.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "godot.h"

/* Variant types and the 64-bit flag of Godot 3.2's encoding (core/io/marshalls.cpp;
 * avalon/datagen/export/marshal.py writes it). */
enum {
	TYPE_BOOL = 1,
	TYPE_INT = 2,
	TYPE_REAL = 3,
	TYPE_STRING = 4,
	TYPE_VECTOR3 = 7,
	TYPE_DICTIONARY = 18,
	TYPE_ARRAY = 19,
	TYPE_POOL_BYTE_ARRAY = 20,
	TYPE_POOL_INT_ARRAY = 21,
	TYPE_POOL_REAL_ARRAY = 22,
	TYPE_POOL_VECTOR3_ARRAY = 25,
	TYPE_POOL_COLOR_ARRAY = 26,
};
#define FLAG_64 1u

static uint32_t u32_at(const uint8_t *bytes) {
	uint32_t value;
	memcpy(&value, bytes, sizeof value); /* little-endian, as the machine */
	return value;
}

static int64_t padded(int64_t size) {
	return (size + 3) & ~(int64_t)3;
}

int64_t avalon_variant_layout_error(const uint8_t *bytes, int64_t size, int max_depth) {
	/* Depth-first over the values; left[d]: values still to read in the container open at depth d. */
	int64_t left[AVALON_MAX_VARIANT_DEPTH + 1];
	if (max_depth < 0 || max_depth > AVALON_MAX_VARIANT_DEPTH || size < 0)
		return 1;
	int depth = 0;
	left[0] = 1;
	int64_t at = 0;
	while (depth >= 0) {
		if (left[depth] == 0) {
			depth--;
			continue;
		}
		left[depth]--;
		int64_t header_at = at;
		if (size - at < 4)
			return header_at + 1;
		uint32_t header = u32_at(bytes + at);
		uint32_t type = header & 0xFFFFu, flags = header >> 16;
		at += 4;
		if (flags != 0 && !(flags == FLAG_64 && (type == TYPE_INT || type == TYPE_REAL)))
			return header_at + 1;
		int64_t payload;
		if (type == TYPE_BOOL || type == TYPE_INT || type == TYPE_REAL) {
			payload = flags == FLAG_64 ? 8 : 4;
		} else if (type == TYPE_VECTOR3) {
			payload = 12;
		} else {
			/* The rest start with a u32 count. */
			if (size - at < 4)
				return header_at + 1;
			int64_t count = u32_at(bytes + at);
			at += 4;
			switch (type) {
				case TYPE_STRING:
				case TYPE_POOL_BYTE_ARRAY: payload = padded(count); break;
				case TYPE_POOL_INT_ARRAY:
				case TYPE_POOL_REAL_ARRAY: payload = 4 * count; break;
				case TYPE_POOL_VECTOR3_ARRAY: payload = 12 * count; break;
				case TYPE_POOL_COLOR_ARRAY: payload = 16 * count; break;
				case TYPE_DICTIONARY:
				case TYPE_ARRAY: {
					/* Each value takes at least 4 bytes: a count beyond what is left is wrong (this
					 * also refuses the "shared" bit, which the exporter never sets). */
					int64_t values = type == TYPE_DICTIONARY ? 2 * count : count;
					if (depth >= max_depth || values > (size - at) / 4)
						return header_at + 1;
					left[++depth] = values;
					continue;
				}
				default: return header_at + 1;
			}
		}
		if (payload > size - at)
			return header_at + 1;
		at += payload;
	}
	return at == size ? 0 : at + 1;
}

bool avalon_indices_below(const int32_t *indices, int64_t count, int64_t vertex_count) {
	for (int64_t i = 0; i < count; i++) {
		if (indices[i] < 0 || indices[i] >= vertex_count)
			return false;
	}
	return true;
}

bool avalon_all_within(const float *values, int64_t count, double low, double high) {
	/* Compared as floats, the bounds kept finite: NaN and infinities fail the comparisons too. */
	float lowest = low < -FLT_MAX ? -FLT_MAX : (float)low;
	float highest = high > FLT_MAX ? FLT_MAX : (float)high;
	for (int64_t i = 0; i < count; i++) {
		float value = values[i];
		if (!(value >= lowest && value <= highest))
			return false;
	}
	return true;
}

/* The Godot side: class DataCheck (a Reference without state) for world/terrain_file.gd. Each
 * method answers false for an argument of another type. */

static char no_state;

static void *create(gdn_object *owner, void *method_data) {
	(void)owner;
	(void)method_data;
	return &no_state;
}

static void destroy(gdn_object *owner, void *method_data, void *user_data) {
	(void)owner;
	(void)method_data;
	(void)user_data;
}

static int variant_type(const gdn_variant *value) {
	return GODOT_CORE(GDN_VARIANT_GET_TYPE, int (*)(const gdn_variant *))(value);
}

/* A pool array's read access: the pointer to its values while `access` is held. The pool array
 * types differ only in their functions' positions, given per type. */
typedef struct {
	int variant_type, as_array, read, size, destroy, read_access_ptr, read_access_destroy;
} pool_functions;

static const pool_functions POOL_BYTES = {TYPE_POOL_BYTE_ARRAY, GDN_VARIANT_AS_POOL_BYTE_ARRAY, GDN_POOL_BYTE_ARRAY_READ,
		GDN_POOL_BYTE_ARRAY_SIZE, GDN_POOL_BYTE_ARRAY_DESTROY, GDN_POOL_BYTE_ARRAY_READ_ACCESS_PTR,
		GDN_POOL_BYTE_ARRAY_READ_ACCESS_DESTROY};
static const pool_functions POOL_INTS = {TYPE_POOL_INT_ARRAY, GDN_VARIANT_AS_POOL_INT_ARRAY, GDN_POOL_INT_ARRAY_READ,
		GDN_POOL_INT_ARRAY_SIZE, GDN_POOL_INT_ARRAY_DESTROY, GDN_POOL_INT_ARRAY_READ_ACCESS_PTR,
		GDN_POOL_INT_ARRAY_READ_ACCESS_DESTROY};
static const pool_functions POOL_REALS = {TYPE_POOL_REAL_ARRAY, GDN_VARIANT_AS_POOL_REAL_ARRAY, GDN_POOL_REAL_ARRAY_READ,
		GDN_POOL_REAL_ARRAY_SIZE, GDN_POOL_REAL_ARRAY_DESTROY, GDN_POOL_REAL_ARRAY_READ_ACCESS_PTR,
		GDN_POOL_REAL_ARRAY_READ_ACCESS_DESTROY};
static const pool_functions POOL_VECTOR3S = {TYPE_POOL_VECTOR3_ARRAY, GDN_VARIANT_AS_POOL_VECTOR3_ARRAY,
		GDN_POOL_VECTOR3_ARRAY_READ, GDN_POOL_VECTOR3_ARRAY_SIZE, GDN_POOL_VECTOR3_ARRAY_DESTROY,
		GDN_POOL_VECTOR3_ARRAY_READ_ACCESS_PTR, GDN_POOL_VECTOR3_ARRAY_READ_ACCESS_DESTROY};
static const pool_functions POOL_COLORS = {TYPE_POOL_COLOR_ARRAY, GDN_VARIANT_AS_POOL_COLOR_ARRAY,
		GDN_POOL_COLOR_ARRAY_READ, GDN_POOL_COLOR_ARRAY_SIZE, GDN_POOL_COLOR_ARRAY_DESTROY,
		GDN_POOL_COLOR_ARRAY_READ_ACCESS_PTR, GDN_POOL_COLOR_ARRAY_READ_ACCESS_DESTROY};

typedef struct {
	const pool_functions *functions;
	gdn_pool_array array;
	gdn_pool_access *access;
	const void *values; /* NULL if the Variant held another type */
	int64_t size;
} pool_view;

static pool_view view_pool(const pool_functions *functions, const gdn_variant *value) {
	pool_view view = {functions, {NULL}, NULL, NULL, 0};
	if (variant_type(value) != functions->variant_type)
		return view;
	view.array = GODOT_CORE(functions->as_array, gdn_pool_array (*)(const gdn_variant *))(value);
	view.size = GODOT_CORE(functions->size, int (*)(const gdn_pool_array *))(&view.array);
	view.access = GODOT_CORE(functions->read, gdn_pool_access *(*)(const gdn_pool_array *))(&view.array);
	view.values = GODOT_CORE(functions->read_access_ptr, const void *(*)(const gdn_pool_access *))(view.access);
	return view;
}

static void release_pool(pool_view *view) {
	if (view->access == NULL)
		return;
	GODOT_CORE(view->functions->read_access_destroy, void (*)(gdn_pool_access *))(view->access);
	GODOT_CORE(view->functions->destroy, void (*)(gdn_pool_array *))(&view->array);
	view->access = NULL;
}

/* variant_layout_error(bytes: PoolByteArray, max_depth: int) -> int: avalon_variant_layout_error. */
static gdn_variant variant_layout_error(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	(void)user_data;
	if (count != 2)
		return variant_of_int(1);
	pool_view bytes = view_pool(&POOL_BYTES, arguments[0]);
	int64_t max_depth = int_of(arguments[1]);
	int64_t error = bytes.values == NULL || max_depth < 0 || max_depth > AVALON_MAX_VARIANT_DEPTH
			? 1
			: avalon_variant_layout_error(bytes.values, bytes.size, (int)max_depth);
	release_pool(&bytes);
	return variant_of_int(error);
}

/* indices_below(indices: PoolIntArray, vertex_count: int) -> bool: avalon_indices_below. */
static gdn_variant indices_below(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	(void)user_data;
	if (count != 2)
		return variant_of_bool(false);
	pool_view indices = view_pool(&POOL_INTS, arguments[0]);
	bool below = indices.values != NULL && avalon_indices_below(indices.values, indices.size, int_of(arguments[1]));
	release_pool(&indices);
	return variant_of_bool(below);
}

/* all_within(values: PoolRealArray, PoolVector3Array or PoolColorArray, low: float, high: float)
 * -> bool: avalon_all_within over every component. */
static gdn_variant all_within(gdn_object *owner, void *method_data, void *user_data, int count,
		gdn_variant **arguments) {
	(void)owner;
	(void)method_data;
	(void)user_data;
	if (count != 3)
		return variant_of_bool(false);
	int type = variant_type(arguments[0]);
	const pool_functions *functions = type == TYPE_POOL_VECTOR3_ARRAY ? &POOL_VECTOR3S
			: type == TYPE_POOL_COLOR_ARRAY ? &POOL_COLORS
			: &POOL_REALS;
	int components = type == TYPE_POOL_VECTOR3_ARRAY ? 3 : type == TYPE_POOL_COLOR_ARRAY ? 4 : 1;
	pool_view values = view_pool(functions, arguments[0]);
	bool within = values.values != NULL
			&& avalon_all_within(values.values, values.size * components, real_of(arguments[1]), real_of(arguments[2]));
	release_pool(&values);
	return variant_of_bool(within);
}

void data_check_register(void *handle) {
	register_native_class(handle, "DataCheck", "Reference", create, destroy);
	register_native_method(handle, "DataCheck", "variant_layout_error", variant_layout_error);
	register_native_method(handle, "DataCheck", "indices_below", indices_below);
	register_native_method(handle, "DataCheck", "all_within", all_within);
}
