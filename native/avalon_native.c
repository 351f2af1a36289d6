/* The simulator's native library: classes GDScript uses where the interpreter is too slow
 * (docs/native.md). TerrainSampler (terrain.c): the terrain's surface height and static obstacles.
 * AnimalBody (animal_body.c, animal_mind.c): one animal's step on the terrain and its state machine.
 * DataCheck (data_check.c): checks of a world folder's data files before Godot decodes them. */
#include <stddef.h>

#include "animal_body.h"
#include "data_check.h"
#include "godot.h"
#include "terrain.h"

void godot_gdnative_init(const gdn_init_options *options) {
	godot_core = options->api;
	godot_nativescript = NULL;
	for (unsigned int i = 0; i < godot_core->num_extensions; i++) {
		if (godot_core->extensions[i]->type == GDN_API_NATIVESCRIPT)
			godot_nativescript = (const gdn_nativescript_api *)godot_core->extensions[i];
	}
}

void godot_gdnative_terminate(const void *options) {
	(void)options;
	godot_core = NULL;
	godot_nativescript = NULL;
}

void godot_nativescript_init(void *handle) {
	terrain_register(handle);
	animal_body_register(handle);
	animal_mind_register(handle);
	data_check_register(handle);
}
