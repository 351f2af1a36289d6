/* AnimalBody: one animal of entities/animals/animal.gd in native code: how it moves on the
 * terrain (animal_body.c) and its state machine (animal_mind.c). */
#ifndef AVALON_ANIMAL_BODY_H
#define AVALON_ANIMAL_BODY_H

#include "animal_mind.h"
#include "gdnative_abi.h"
#include "terrain.h"

/* What GDScript has to do after a step (MOVE_ and THINK_ bits) and what the body asks it (ASK_):
 * generated from avalon/sim/native_interface.py, as animal.gd's constants. */
#include "generated/animal_interface.h"

typedef struct {
	/* The rules' constants (animal.gd's, from the generated protocol: one source). */
	double dt, water_lookahead_s, max_walk_slope, height_bound_tolerance_m, gravity_m_per_s2, climb_speed_factor,
			obstacle_margin_m, face_min_speed_m_per_s, cos_face_min_turn;
	double agent_radius_m, agent_height_m, chase_stop_gap_m; /* the agent's capsule; where chasers stop */
} rules;

typedef struct {
	gdn_object *node; /* the animal (a KinematicBody), whose transform the body writes */
	gdn_array features; /* where it reports its position and state: features[slot..slot + 3] (report_to) */
	int64_t slot;
	bool reports;
	const terrain_data *terrain; /* NULL: no terrain (every step by physics) */
	rules rules;
	bool flies, can_climb;
	double half_height_m, fly_height_m, idle_speed_m_per_s, active_speed_m_per_s, shore_m, reach_m, max_slope;
	double attack_reach_radius_m; /* half its longest horizontal side: attacks land from this far + the agent's radius */
	double eye_near_sq; /* (m^2) an eye this near its origin may see through its mesh */
	gdn_vector3 origin, velocity, query_velocity, query_desired, wet_point;
	double yaw, forward_x, forward_z, vertical_speed, wet_depth;
	bool settled, climbing;
	/* Rectangles it never steps into (x0, z0, x1, z1 each; add_no_go): the buildings' footprints
	 * of an animal that never goes inside. */
	double *no_go;
	int64_t no_go_count;
	animal_mind mind;
} animal_body;

extern const gdn_vector3 ZERO_VECTOR3;
/* GDScript's Vector3 length_squared() and length(): single precision, (x*x + y*y) + z*z. */
float vector3_length_squared(gdn_vector3 v);
float vector3_length(gdn_vector3 v);

/* One step at `desired` (m/s; `active`: chasing or fleeing); the MOVE_ bits but MOVE_EYE_NEAR. */
int body_move(animal_body *body, gdn_vector3 desired, bool active);
/* After move_and_slide (body_move's MOVE_QUERY): where it ended up, the velocity it returned,
 * whether it stands on the floor, whether it now climbs. */
void body_after_query(animal_body *body, gdn_vector3 moved_to, gdn_vector3 velocity, bool on_floor, bool climbing);
/* Toward the agent (feet at `feet`) at its active speed, stopping just within attack reach. */
gdn_vector3 body_chase_velocity(const animal_body *body, gdn_vector3 feet);
/* Horizontally away from `point` at `speed` (m/s). */
gdn_vector3 body_away_from(const animal_body *body, gdn_vector3 point, double speed);
/* The distance between its reach and the agent's capsule (feet at `feet`), m. */
double body_gap(const animal_body *body, gdn_vector3 feet);
/* MOVE_EYE_NEAR if the eye (at `eye`) is within eye_near_sq of its origin, else 0. */
int body_eye_bit(const animal_body *body, gdn_vector3 eye);
/* Writes a number into its slot of the features (offset within the slot). */
void body_report_value(const animal_body *body, int offset, double value);

void animal_body_register(void *handle);
/* Registers the state machine's methods on AnimalBody (animal_mind.c). */
void animal_mind_register(void *handle);

#endif
