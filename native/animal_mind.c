/* An animal's state machine, once per step (docs/animals.md explains every rule): activation and
 * deactivation by its conditions, idling, the step of its body (animal_body.c) as it chases, flees
 * or idles, its attacks, and whether it is to be drawn two-sided. What needs the engine's scene or
 * the animal's random generator is asked of its script through a FuncRef (animal.gd: _answer): the
 * sight conditions (ray casts) and a wanderer's next target, each a few times per episode for most
 * animals. What the script has to do afterwards comes back as bits (animal_body.h).
 *
 * It makes the same decisions as the GDScript it replaces, in the same order and with the same
 * precisions (docs/native.md): GDScript floats are doubles, Vector2 and Vector3 values and their
 * operations single precision, min and max single precision. */
#include <math.h>
#include <stddef.h>

#include "animal_body.h"
#include "godot.h"

/* The bits think and resume return: what the script has to act on. */
enum { SCRIPT_BITS = MOVE_QUERY | THINK_ESCAPED | THINK_ATTACKED | THINK_KNOCK_OUT | THINK_SIDES | THINK_TWO_SIDED };

static gdn_method_bind *call_func; /* FuncRef.call_func, found at the first setup_mind */

/* The script's answer to `question` (a bool or a Vector3: nothing to destroy). */
static gdn_variant ask(const animal_mind *mind, int question) {
	gdn_variant argument = variant_of_int(question);
	const gdn_variant *arguments[] = {&argument};
	gdn_call_error error;
	return GODOT_CORE(GDN_METHOD_BIND_CALL,
			gdn_variant (*)(gdn_method_bind *, gdn_object *, const gdn_variant **, int, gdn_call_error *))(
			call_func, mind->answers, arguments, 1, &error);
}

static bool ask_whether(const animal_mind *mind, int question) {
	gdn_variant answer = ask(mind, question);
	return bool_of(&answer);
}

/* GDScript's Vector2(x, z).length(): the components rounded to single precision, then sqrtf. */
static float flat_length(double x, double z) {
	float fx = (float)x, fz = (float)z;
	return sqrtf(fx * fx + fz * fz);
}

/* Horizontally from its origin to `point`, in double precision. */
static double horizontal_distance(const animal_body *body, gdn_vector3 point) {
	double dx = (double)point.x - body->origin.x;
	double dz = (double)point.z - body->origin.z;
	return sqrt(dx * dx + dz * dz);
}

static bool in_territory(const animal_mind *mind, gdn_vector3 point) {
	return flat_length((double)point.x - mind->home.x, (double)point.z - mind->home.z) <= mind->territory_radius_m;
}

/* Out of its domain: up a tree (or on anything high) for a ground animal that cannot climb. ("No
 * inside" needs buildings, which do not exist yet.) */
static bool outside_domain(const animal_body *body, gdn_vector3 feet) {
	if (body->flies || body->can_climb)
		return false;
	return (double)feet.y - ((double)body->origin.y - body->half_height_m) > body->mind.rules.out_of_reach_height_m;
}

/* Any of its deactivation conditions holds (`distance`: horizontally to the agent's feet). */
static bool deactivated(const animal_body *body, gdn_vector3 feet, double speed, double distance) {
	const animal_mind *mind = &body->mind;
	if (mind->de_radius && distance > mind->deactivation_radius_m)
		return true;
	if (mind->de_territory && !in_territory(mind, feet))
		return true;
	if (mind->de_domain && outside_domain(body, feet))
		return true;
	if (mind->de_still && speed < mind->rules.still_speed_m_per_s)
		return true;
	if (mind->de_seen && ask_whether(mind, ASK_SEES_ME))
		return true;
	/* Once it has seen the agent it keeps track of it while in line of sight. */
	if (mind->de_cant_see && !ask_whether(mind, ASK_LINE_TO_HEAD))
		return true;
	return false;
}

/* All of its activation conditions hold, and it would not deactivate at once. */
static bool activates(const animal_body *body, gdn_vector3 feet, double speed, double distance) {
	const animal_mind *mind = &body->mind;
	if (mind->never_activates || distance > mind->activation_radius_m)
		return false;
	if (mind->act_territory && !in_territory(mind, feet))
		return false;
	if (deactivated(body, feet, speed, distance))
		return false;
	if (mind->act_unseen && ask_whether(mind, ASK_SEES_ME))
		return false;
	if (mind->act_must_see && !ask_whether(mind, ASK_SEES_AGENT))
		return false;
	return true;
}

/* Godot 3.2's wrapf (doubles). */
static double wrap(double value, double low, double high) {
	double range = high - low;
	return fabs(range) < 0.00001 ? low : value - (range * floor((value - low) / range));
}

/* Its velocity while not active (m/s): backing away (static avoidant), along its circle
 * (periodic), toward its target (random), or still. Sets its state to idle or avoiding. */
static gdn_vector3 idle_velocity(animal_body *body, gdn_vector3 feet, double distance) {
	animal_mind *mind = &body->mind;
	gdn_vector3 origin = body->origin;
	if (mind->avoidant) {
		if (distance <= mind->activation_radius_m + mind->rules.avoid_margin_m && !mind->never_activates) {
			mind->state = mind->states.avoiding;
			return body_away_from(body, feet, body->idle_speed_m_per_s);
		}
		mind->state = mind->states.idle;
		return ZERO_VECTOR3;
	}
	mind->state = mind->states.idle;
	if (mind->periodic) {
		mind->path_angle = wrap(mind->path_angle + body->idle_speed_m_per_s / mind->rules.path_radius_m * body->rules.dt,
				0.0, 2.0 * M_PI);
		float radius = (float)mind->rules.path_radius_m;
		gdn_vector3 on_circle = {(float)cos(mind->path_angle), 0.0f, (float)sin(mind->path_angle)};
		mind->target = (gdn_vector3){mind->home.x + on_circle.x * radius, mind->home.y + on_circle.y * radius,
				mind->home.z + on_circle.z * radius};
	} else if (mind->random) {
		mind->target_frames -= 1;
		if (mind->target_frames <= 0 ||
				flat_length((double)mind->target.x - origin.x, (double)mind->target.z - origin.z) < mind->rules.wander_arrived_m) {
			gdn_variant target = ask(mind, ASK_NEW_TARGET);
			mind->target = vector3_of(&target);
			mind->target_frames = mind->rules.retarget_frames;
		}
	} else {
		return ZERO_VECTOR3;
	}
	gdn_vector3 to_target = {mind->target.x - origin.x, 0.0f, mind->target.z - origin.z};
	float length = vector3_length(to_target);
	float wanted = (float)(body->idle_speed_m_per_s * (mind->periodic ? 1.5 : 1.0));
	float reachable = (float)(length / body->rules.dt);
	float speed = wanted < reachable ? wanted : reachable; /* (GDScript's min: single precision) */
	if (!(length > 1e-4))
		return ZERO_VECTOR3;
	return (gdn_vector3){to_target.x / length * speed, to_target.y / length * speed, to_target.z / length * speed};
}

/* How far `at` lies outside [low, high], 0 inside: GDScript's max(0.0, max(low - at, at - high))
 * (the differences in double, max in single precision). */
static float beyond(float at, float low, float high) {
	float below = (float)((double)low - at), above = (float)((double)at - high);
	float outside = below > above ? below : above;
	return 0.0f > outside ? 0.0f : outside;
}

/* Whether the eye is near enough to see through its culled back faces: then it is drawn
 * two-sided (animal.gd: the materials). THINK_SIDES (and THINK_TWO_SIDED) when that changes. */
static int update_sides(animal_body *body, gdn_vector3 eye) {
	animal_mind *mind = &body->mind;
	float yaw = (float)body->yaw;
	float c = cosf(yaw), s = sinf(yaw);
	gdn_vector3 v = {eye.x - body->origin.x, eye.y - body->origin.y, eye.z - body->origin.z};
	/* Basis(Vector3.UP, yaw).xform_inv(v): rows (c, 0, s), (0, 1, 0), (-s, 0, c), transposed. */
	gdn_vector3 local = {c * v.x + 0.0f * v.y + -s * v.z, 0.0f * v.x + 1.0f * v.y + 0.0f * v.z,
			s * v.x + 0.0f * v.y + c * v.z};
	gdn_vector3 outside = {beyond(local.x, mind->box_position.x, mind->box_end.x),
			beyond(local.y, mind->box_position.y, mind->box_end.y), beyond(local.z, mind->box_position.z, mind->box_end.z)};
	bool near = (double)vector3_length_squared(outside) < mind->near_eye_m * mind->near_eye_m;
	if (near == mind->two_sided)
		return 0;
	mind->two_sided = near;
	return THINK_SIDES | (near ? THINK_TWO_SIDED : 0);
}

/* It attacks (within reach, its cooldown over): per its respite, it leaves for a while, dies
 * (a bee) or waits for the next attack. */
static int attack(animal_body *body, int64_t now) {
	animal_mind *mind = &body->mind;
	switch (mind->respite) {
	case RESPITE_TEMPORARY:
		mind->state = mind->states.respite;
		mind->respite_frames = (int64_t)ceil(mind->respite_s * mind->rules.steps_per_second);
		return THINK_ATTACKED;
	case RESPITE_PERMANENT:
		mind->state = mind->states.knocked_out; /* (the script knocks it out) */
		return THINK_ATTACKED | THINK_KNOCK_OUT;
	default:
		mind->attack_ready_step = now + (int64_t)ceil(mind->rules.attack_interval_s * mind->rules.steps_per_second);
		return THINK_ATTACKED;
	}
}

/* The step's end, once the body has moved: its sides, its attack, its state in the features. */
static int finish(animal_body *body) {
	animal_mind *mind = &body->mind;
	int code = 0;
	if (mind->two_sided || body_eye_bit(body, mind->eye))
		code |= update_sides(body, mind->eye);
	if (mind->chasing && mind->now >= mind->attack_ready_step && body_gap(body, mind->feet) <= mind->rules.attack_reach_m)
		code |= attack(body, mind->now);
	if (mind->state < mind->states.knocked_out && mind->state != mind->reported_state) {
		body_report_value(body, 3, (double)mind->state);
		mind->reported_state = mind->state;
	}
	return code;
}

/* One step, the `now`th of the episode; `feet`, `eye`: where the agent's feet and camera are,
 * `speed` its horizontal speed (m/s). */
static int think(animal_body *body, gdn_vector3 feet, gdn_vector3 eye, double speed, int64_t now) {
	animal_mind *mind = &body->mind;
	const animal_states *states = &mind->states;
	if (mind->state >= states->knocked_out)
		return 0;
	int code = 0;
	double distance = -1.0; /* horizontally to the agent's feet, m: computed where a rule needs it */
	if (mind->state == states->active) {
		if (mind->deactivates) {
			distance = horizontal_distance(body, feet);
			if (deactivated(body, feet, speed, distance)) {
				mind->state = states->idle;
				if (mind->is_predator)
					code |= THINK_ESCAPED;
			}
		}
	} else if (mind->state == states->respite) {
		mind->respite_frames -= 1;
		if (mind->respite_frames <= 0)
			mind->state = states->idle;
	} else if (!mind->never_activates) {
		distance = horizontal_distance(body, feet);
		if (distance <= mind->activation_radius_m && activates(body, feet, speed, distance))
			mind->state = states->active;
	}
	/* A chaser toward the agent, coming to a stop just within attack reach; fleeing prey and a
	 * predator leaving after its attack (unhurried) away from it; otherwise as it idles. */
	mind->chasing = mind->state == states->active && mind->is_predator;
	mind->now = now;
	mind->feet = feet;
	mind->eye = eye;
	int step;
	if (mind->chasing) {
		step = body_move(body, body_chase_velocity(body, feet), true);
	} else if (mind->state == states->active) {
		step = body_move(body, body_away_from(body, feet, body->active_speed_m_per_s), true);
	} else if (mind->state == states->respite) {
		step = body_move(body, body_away_from(body, feet, body->idle_speed_m_per_s), false);
	} else {
		gdn_vector3 desired = idle_velocity(body, feet, distance >= 0.0 ? distance : horizontal_distance(body, feet));
		step = body_move(body, desired, mind->state == states->active);
	}
	if (step & MOVE_REFUSED)
		mind->target_frames = 0; /* a wanderer picks a new target */
	if (step & MOVE_QUERY)
		return (code | MOVE_QUERY) & SCRIPT_BITS; /* resume ends the step */
	return (code | finish(body)) & SCRIPT_BITS;
}

/* ---- The methods ------------------------------------------------------------------------- */

/* setup_mind(arguments) -> bool, the arguments of avalon/sim/native_interface.py's "setup_mind" in
 * their order (native/generated/animal_interface.h reads them; animal.gd passes them by name);
 * false if they are not all there. After setup; it starts idle at home. */
static gdn_variant setup_mind_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	animal_mind *mind = &body->mind;
	setup_mind_arguments args;
	if (!read_setup_mind_arguments(count, a, &args))
		return variant_of_bool(false);
	if (call_func == NULL)
		call_func = engine_method("FuncRef", "call_func");
	mind->answers = args.answers;
	if (mind->answers == NULL || call_func == NULL)
		return variant_of_bool(false);
	mind->states = (animal_states){.active = args.state_active, .knocked_out = args.state_knocked_out,
			.idle = args.state_idle, .respite = args.state_respite, .avoiding = args.state_avoiding};
	mind->rules = (mind_rules){.avoid_margin_m = args.avoid_margin_m, .path_radius_m = args.path_radius_m,
			.wander_arrived_m = args.wander_arrived_m, .still_speed_m_per_s = args.still_speed_m_per_s,
			.out_of_reach_height_m = args.out_of_reach_height_m, .attack_reach_m = args.attack_reach_m,
			.attack_interval_s = args.attack_interval_s, .steps_per_second = args.steps_per_second,
			.retarget_frames = args.retarget_frames};
	mind->is_predator = args.is_predator;
	mind->never_activates = args.never_activates;
	mind->act_territory = args.act_territory;
	mind->act_must_see = args.act_must_see;
	mind->act_unseen = args.act_unseen;
	mind->de_radius = args.de_radius;
	mind->de_territory = args.de_territory;
	mind->de_domain = args.de_domain;
	mind->de_seen = args.de_seen;
	mind->de_still = args.de_still;
	mind->de_cant_see = args.de_cant_see;
	mind->deactivates = mind->de_radius || mind->de_territory || mind->de_domain || mind->de_seen || mind->de_still ||
			mind->de_cant_see;
	mind->avoidant = args.avoidant;
	mind->random = args.random;
	mind->periodic = args.periodic;
	mind->respite = args.respite_temporary ? RESPITE_TEMPORARY : (args.respite_permanent ? RESPITE_PERMANENT : RESPITE_NONE);
	mind->activation_radius_m = args.activation_radius_m;
	mind->deactivation_radius_m = args.deactivation_radius_m;
	mind->territory_radius_m = args.territory_radius_m;
	mind->respite_s = args.respite_s;
	mind->home = args.home;
	mind->box_position = args.box_position;
	mind->box_end = args.box_end;
	mind->near_eye_m = args.near_eye_m;
	mind->path_angle = args.path_angle;
	mind->state = mind->states.idle;
	mind->reported_state = -1;
	mind->respite_frames = 0;
	mind->attack_ready_step = 0;
	mind->target_frames = 0;
	mind->target = mind->home;
	mind->two_sided = false;
	mind->chasing = false;
	mind->ready = true;
	return variant_of_bool(true);
}

/* think(feet: Vector3, eye: Vector3, speed: float, now: int) -> int: one step (see think); the
 * bits the script acts on (animal_body.h), 0 for most steps; -1 before setup_mind. */
static gdn_variant think_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (count != 4 || !body->mind.ready)
		return variant_of_int(-1);
	return variant_of_int(think(body, vector3_of(a[0]), vector3_of(a[1]), real_of(a[2]), int_of(a[3])));
}

/* resume(moved_to: Vector3, velocity: Vector3, on_floor: bool, climbing: bool) -> int: after
 * move_and_slide (think's MOVE_QUERY) where it ended up, the velocity it returned, whether it
 * stands on the floor and whether it now climbs; ends the step and returns its bits. */
static gdn_variant resume_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (count != 4 || !body->mind.ready)
		return variant_of_int(-1);
	body_after_query(body, vector3_of(a[0]), vector3_of(a[1]), bool_of(a[2]), bool_of(a[3]));
	return variant_of_int(finish(body) & SCRIPT_BITS);
}

/* set_state(state: int): the script knocks it out (a hit, a sting). */
static gdn_variant set_state_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (count != 1)
		return variant_of_bool(false);
	body->mind.state = int_of(a[0]);
	return variant_of_bool(true);
}

NATIVE_GETTER(state_method, animal_body, variant_of_int(self->mind.state))

void animal_mind_register(void *handle) {
	register_native_method(handle, "AnimalBody", "setup_mind", setup_mind_method);
	register_native_method(handle, "AnimalBody", "think", think_method);
	register_native_method(handle, "AnimalBody", "resume", resume_method);
	register_native_method(handle, "AnimalBody", "set_state", set_state_method);
	register_native_method(handle, "AnimalBody", "state", state_method);
}
