/* The Godot side of the library: the interface tables Godot handed over at start-up, and
 * conversions between Variants and C values. */
#ifndef AVALON_GODOT_H
#define AVALON_GODOT_H

#include "gdnative_abi.h"

extern const gdn_core_api *godot_core;
extern const gdn_nativescript_api *godot_nativescript;

#define GODOT_CORE(position, signature) ((signature)godot_core->functions[position])

gdn_variant variant_of_real(double value);
gdn_variant variant_of_bool(bool value);
gdn_variant variant_of_int(int64_t value);
gdn_variant variant_of_vector3(gdn_vector3 value);
double real_of(const gdn_variant *value);
int64_t int_of(const gdn_variant *value);
bool bool_of(const gdn_variant *value);
gdn_vector3 vector3_of(const gdn_variant *value);
/* The user data of the NativeScript instance `value` holds (NULL if it holds none). */
void *native_instance_of(const gdn_variant *value);

/* The object `value` holds (NULL if none). */
gdn_object *object_of(const gdn_variant *value);

/* The engine's method `class_name.method_name`, for call_engine (NULL if there is none). */
gdn_method_bind *engine_method(const char *class_name, const char *method_name);
/* Calls it on `instance` with `arguments` (pointers to C values) and, unless `result` is NULL,
 * stores what it returns there. */
void call_engine(gdn_method_bind *method, gdn_object *instance, const void **arguments, void *result);

/* Registers the NativeScript class `name` (extending the engine class `base`): `create` makes each
 * instance's user data, `destroy` frees it. */
void register_native_class(void *handle, const char *name, const char *base,
		void *(*create)(gdn_object *, void *), void (*destroy)(gdn_object *, void *, void *));

/* Defines `function`, a method without arguments that returns `expression` of `self` (the
 * instance's user data, a `const type *`). */
#define NATIVE_GETTER(function, type, expression) \
	static gdn_variant function(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) { \
		(void)owner; \
		(void)method_data; \
		(void)count; \
		(void)a; \
		const type *self = user_data; \
		return expression; \
	}

/* Registers `method` as `class_name.method_name` (not callable over the network). */
void register_native_method(void *handle, const char *class_name, const char *method_name, gdn_method method);

#endif
