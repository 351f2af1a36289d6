/* Checks of data files from world folders before Godot decodes or uses them (world/terrain_file.gd).
 * A world folder may come from anyone (docs/security.md): these keep a corrupt or crafted file
 * from crashing the simulator. The pure functions take no Godot values: tests call them directly. */
#ifndef AVALON_DATA_CHECK_H
#define AVALON_DATA_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/* Deepest nesting of arrays and dictionaries avalon_variant_layout_error accepts at most. */
#define AVALON_MAX_VARIANT_DEPTH 32

/* 0 if `bytes` (`size` of them) hold exactly one value in Godot 3.2's binary Variant encoding
 * (var2bytes) of the types the exporter writes (bool, int, float, string, Vector3, Dictionary,
 * Array, pool arrays of bytes, ints, floats, Vector3s and colours), with arrays and dictionaries
 * nested at most `max_depth` deep (at most AVALON_MAX_VARIANT_DEPTH) and every length within the
 * bytes; otherwise 1 + the offset of the first header that is wrong. Godot's own decoder
 * recurses without a limit and trusts what it decoded; after this check it can neither run out of
 * stack nor meet an object. */
int64_t avalon_variant_layout_error(const uint8_t *bytes, int64_t size, int max_depth);

/* Whether all `count` indices are in [0, vertex_count). */
bool avalon_indices_below(const int32_t *indices, int64_t count, int64_t vertex_count);

/* Whether all `count` floats are finite and within [low, high]. */
bool avalon_all_within(const float *values, int64_t count, double low, double high);

void data_check_register(void *handle);

#endif
