#include "godot.h"

#include <string.h>

const gdn_core_api *godot_core;
const gdn_nativescript_api *godot_nativescript;

gdn_variant variant_of_real(double value) {
	gdn_variant result;
	GODOT_CORE(GDN_VARIANT_NEW_REAL, void (*)(gdn_variant *, double))(&result, value);
	return result;
}

gdn_variant variant_of_bool(bool value) {
	gdn_variant result;
	GODOT_CORE(GDN_VARIANT_NEW_BOOL, void (*)(gdn_variant *, bool))(&result, value);
	return result;
}

gdn_variant variant_of_int(int64_t value) {
	gdn_variant result;
	GODOT_CORE(GDN_VARIANT_NEW_INT, void (*)(gdn_variant *, int64_t))(&result, value);
	return result;
}

gdn_variant variant_of_vector3(gdn_vector3 value) {
	gdn_variant result;
	GODOT_CORE(GDN_VARIANT_NEW_VECTOR3, void (*)(gdn_variant *, const gdn_vector3 *))(&result, &value);
	return result;
}

double real_of(const gdn_variant *value) {
	return GODOT_CORE(GDN_VARIANT_AS_REAL, double (*)(const gdn_variant *))(value);
}

int64_t int_of(const gdn_variant *value) {
	return GODOT_CORE(GDN_VARIANT_AS_INT, int64_t (*)(const gdn_variant *))(value);
}

bool bool_of(const gdn_variant *value) {
	return GODOT_CORE(GDN_VARIANT_AS_BOOL, bool (*)(const gdn_variant *))(value);
}

gdn_vector3 vector3_of(const gdn_variant *value) {
	gdn_vector3_bytes bytes = GODOT_CORE(GDN_VARIANT_AS_VECTOR3, gdn_vector3_bytes (*)(const gdn_variant *))(value);
	gdn_vector3 result;
	memcpy(&result, bytes.bytes, sizeof result);
	return result;
}

gdn_object *object_of(const gdn_variant *value) {
	return GODOT_CORE(GDN_VARIANT_AS_OBJECT, gdn_object *(*)(const gdn_variant *))(value);
}

void *native_instance_of(const gdn_variant *value) {
	gdn_object *object = object_of(value);
	return object != NULL ? godot_nativescript->get_userdata(object) : NULL;
}

gdn_method_bind *engine_method(const char *class_name, const char *method_name) {
	return GODOT_CORE(GDN_METHOD_BIND_GET_METHOD, gdn_method_bind *(*)(const char *, const char *))(class_name, method_name);
}

void call_engine(gdn_method_bind *method, gdn_object *instance, const void **arguments, void *result) {
	GODOT_CORE(GDN_METHOD_BIND_PTRCALL, void (*)(gdn_method_bind *, gdn_object *, const void **, void *))(
			method, instance, arguments, result);
}

void register_native_class(void *handle, const char *name, const char *base,
		void *(*create)(gdn_object *, void *), void (*destroy)(gdn_object *, void *, void *)) {
	gdn_instance_create_func create_func = {create, NULL, NULL};
	gdn_instance_destroy_func destroy_func = {destroy, NULL, NULL};
	godot_nativescript->register_class(handle, name, base, create_func, destroy_func);
}

void register_native_method(void *handle, const char *class_name, const char *method_name, gdn_method method) {
	gdn_method_attributes attributes = {0};
	gdn_instance_method instance_method = {method, NULL, NULL};
	godot_nativescript->register_method(handle, class_name, method_name, attributes, instance_method);
}
