/* The part of Godot 3.2's GDNative interface this library uses, declared by us.
 *
 * Godot hands a native library a table of C function pointers (the core API, version 1.0, with
 * versions 1.1 and 1.2 chained after it) and a list of extensions, of which NativeScript lets the
 * library register classes that GDScript instantiates like its own. Debian ships no headers for
 * Godot 3.2, so the few structures and function positions needed are declared here from the
 * interface's published description (modules/gdnative/gdnative_api.json, core 1.0: the list's
 * order is the table's). Every function declared here is used, and the tests drive each through
 * the real Godot process (every test that loads an island, tests/game/entities/animals/test_animals.py above all).
 */
#ifndef AVALON_GDNATIVE_ABI_H
#define AVALON_GDNATIVE_ABI_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	unsigned int major;
	unsigned int minor;
} gdn_api_version;

/* The header every API table starts with. */
typedef struct gdn_api_header {
	unsigned int type;
	gdn_api_version version;
	const struct gdn_api_header *next; /* the same API's next version, or NULL */
} gdn_api_header;

enum { GDN_API_CORE = 0, GDN_API_NATIVESCRIPT = 1 };

/* Core API 1.0: the header, the extension list, then 744 function pointers. */
enum { GDN_CORE_FUNCTION_COUNT = 744 };
typedef struct {
	gdn_api_header header;
	unsigned int num_extensions;
	const gdn_api_header **extensions;
	void *functions[GDN_CORE_FUNCTION_COUNT];
} gdn_core_api;

/* Positions in core 1.0 of the functions used (their C signatures: see the call sites). */
enum {
	GDN_POOL_BYTE_ARRAY_READ = 165,
	GDN_POOL_BYTE_ARRAY_SIZE = 169,
	GDN_POOL_BYTE_ARRAY_DESTROY = 170,
	GDN_POOL_INT_ARRAY_READ = 181,
	GDN_POOL_INT_ARRAY_SIZE = 185,
	GDN_POOL_INT_ARRAY_DESTROY = 186,
	GDN_POOL_REAL_ARRAY_READ = 197,
	GDN_POOL_REAL_ARRAY_SIZE = 201,
	GDN_POOL_REAL_ARRAY_DESTROY = 202,
	GDN_POOL_VECTOR3_ARRAY_READ = 245,
	GDN_POOL_VECTOR3_ARRAY_SIZE = 249,
	GDN_POOL_VECTOR3_ARRAY_DESTROY = 250,
	GDN_POOL_COLOR_ARRAY_READ = 261,
	GDN_POOL_COLOR_ARRAY_SIZE = 265,
	GDN_POOL_COLOR_ARRAY_DESTROY = 266,
	GDN_POOL_BYTE_ARRAY_READ_ACCESS_PTR = 268,
	GDN_POOL_BYTE_ARRAY_READ_ACCESS_DESTROY = 270,
	GDN_POOL_INT_ARRAY_READ_ACCESS_PTR = 272,
	GDN_POOL_INT_ARRAY_READ_ACCESS_DESTROY = 274,
	GDN_POOL_REAL_ARRAY_READ_ACCESS_PTR = 276,
	GDN_POOL_REAL_ARRAY_READ_ACCESS_DESTROY = 278,
	GDN_POOL_VECTOR3_ARRAY_READ_ACCESS_PTR = 288,
	GDN_POOL_VECTOR3_ARRAY_READ_ACCESS_DESTROY = 290,
	GDN_POOL_COLOR_ARRAY_READ_ACCESS_PTR = 292,
	GDN_POOL_COLOR_ARRAY_READ_ACCESS_DESTROY = 294,
	GDN_VARIANT_GET_TYPE = 507,
	GDN_VARIANT_NEW_BOOL = 510,
	GDN_VARIANT_NEW_INT = 512,
	GDN_VARIANT_NEW_REAL = 513,
	GDN_VARIANT_NEW_VECTOR3 = 517,
	GDN_ARRAY_SET = 332,
	GDN_ARRAY_SIZE = 356,
	GDN_ARRAY_DESTROY = 361,
	GDN_VARIANT_AS_BOOL = 537,
	GDN_VARIANT_AS_INT = 539,
	GDN_VARIANT_AS_REAL = 540,
	GDN_VARIANT_AS_VECTOR3 = 544,
	GDN_VARIANT_AS_OBJECT = 554,
	GDN_VARIANT_AS_ARRAY = 556,
	GDN_VARIANT_AS_POOL_BYTE_ARRAY = 557,
	GDN_VARIANT_AS_POOL_INT_ARRAY = 558,
	GDN_VARIANT_AS_POOL_REAL_ARRAY = 559,
	GDN_VARIANT_AS_POOL_VECTOR3_ARRAY = 562,
	GDN_VARIANT_AS_POOL_COLOR_ARRAY = 563,
	GDN_METHOD_BIND_GET_METHOD = 732,
	GDN_METHOD_BIND_PTRCALL = 733,
	GDN_METHOD_BIND_CALL = 734,
};

/* Variant types (godot_variant_get_type; GDScript's TYPE_ARRAY, TYPE_REAL_ARRAY). */
enum { GDN_TYPE_ARRAY = 19, GDN_TYPE_POOL_REAL_ARRAY = 22 };

/* Opaque values, by size (real_t is float in these builds). */
typedef struct { uint8_t bytes[24]; } gdn_variant;
typedef struct { float x, y, z; } gdn_vector3;
/* How Godot declares a Vector3 to C: 12 opaque bytes. Returned by value it comes back in integer
 * registers (a struct of three floats would in SSE ones), so calls returning one use this. */
typedef struct { uint8_t bytes[12]; } gdn_vector3_bytes;
typedef struct { void *handle; } gdn_pool_real_array;
typedef struct { void *handle; } gdn_pool_array; /* any pool array: all are one reference */
typedef struct { void *handle; } gdn_array; /* an Array: a reference to values shared with its copies */
typedef struct gdn_pool_access gdn_pool_access;
typedef void gdn_object;
typedef struct gdn_method_bind gdn_method_bind; /* an engine method, called with C arguments (ptrcall) */
/* How a call with Variants went (godot_method_bind_call): the error, the argument at fault, the
 * type expected. */
typedef struct { int error; int argument; int expected; } gdn_call_error;
/* A Transform: the basis's three rows, then the origin. */
typedef struct { gdn_vector3 rows[3]; gdn_vector3 origin; } gdn_transform;

/* NativeScript 1.0: registering classes and their methods. */
typedef struct {
	void *(*create)(gdn_object *owner, void *method_data);
	void *method_data;
	void (*free_method_data)(void *);
} gdn_instance_create_func;

typedef struct {
	void (*destroy)(gdn_object *owner, void *method_data, void *user_data);
	void *method_data;
	void (*free_method_data)(void *);
} gdn_instance_destroy_func;

typedef gdn_variant (*gdn_method)(gdn_object *owner, void *method_data, void *user_data, int argument_count,
		gdn_variant **arguments);

typedef struct {
	gdn_method method;
	void *method_data;
	void (*free_method_data)(void *);
} gdn_instance_method;

typedef struct {
	int rpc_mode; /* 0: not callable over the network */
} gdn_method_attributes;

typedef struct {
	gdn_api_header header;
	void (*register_class)(void *handle, const char *name, const char *base, gdn_instance_create_func create,
			gdn_instance_destroy_func destroy);
	void (*register_tool_class)(void *handle, const char *name, const char *base, gdn_instance_create_func create,
			gdn_instance_destroy_func destroy);
	void (*register_method)(void *handle, const char *class_name, const char *method_name,
			gdn_method_attributes attributes, gdn_instance_method method);
	void *register_property;
	void *register_signal;
	void *(*get_userdata)(gdn_object *instance); /* a NativeScript instance's user data, else NULL */
} gdn_nativescript_api;

/* What godot_gdnative_init receives. */
typedef struct {
	bool in_editor;
	uint64_t core_api_hash;
	uint64_t editor_api_hash;
	uint64_t no_api_hash;
	void *report_version_mismatch;
	void *report_loading_error;
	gdn_object *library;
	const gdn_core_api *api;
	const void *active_library_path;
} gdn_init_options;

#endif
