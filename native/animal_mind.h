/* An animal's state machine (activation, deactivation, idling, attacks: animal.gd's former think),
 * run by its AnimalBody once per step (animal_mind.c). */
#ifndef AVALON_ANIMAL_MIND_H
#define AVALON_ANIMAL_MIND_H

#include <stdbool.h>
#include <stdint.h>

#include "gdnative_abi.h"

/* The protocol's animal states (generated/protocol.gd, handed over by setup_mind: one source). */
typedef struct {
	int64_t active, knocked_out, idle, respite, avoiding;
} animal_states;

/* The rules' constants (animal.gd's, from the generated protocol). */
typedef struct {
	double avoid_margin_m, path_radius_m, wander_arrived_m, still_speed_m_per_s, out_of_reach_height_m,
			attack_reach_m, attack_interval_s, steps_per_second;
	int64_t retarget_frames;
} mind_rules;

typedef enum { RESPITE_NONE, RESPITE_TEMPORARY, RESPITE_PERMANENT } respite_kind;

typedef struct {
	bool ready; /* setup_mind has run */
	gdn_object *answers; /* a FuncRef to the animal's _answer (sight, new wander targets) */
	animal_states states;
	mind_rules rules;
	/* Its row of the tables (animal.gd's exported properties and what _ready derives from them). */
	bool is_predator, never_activates, act_territory, act_must_see, act_unseen;
	bool de_radius, de_territory, de_domain, de_seen, de_still, de_cant_see, deactivates;
	bool avoidant, random, periodic;
	respite_kind respite;
	double activation_radius_m, deactivation_radius_m, territory_radius_m, respite_s;
	gdn_vector3 home;
	gdn_vector3 box_position, box_end; /* the mesh's bounds, in its frame (see update_sides) */
	double near_eye_m;
	/* What changes. */
	int64_t state, reported_state, respite_frames, attack_ready_step, target_frames;
	gdn_vector3 target;
	double path_angle;
	bool two_sided;
	/* A step suspended for move_and_slide (think returned MOVE_QUERY; resume ends it). */
	bool chasing;
	int64_t now;
	gdn_vector3 feet, eye;
} animal_mind;

#endif
