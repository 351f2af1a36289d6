/* AnimalBody: one animal's step on the terrain, the rules of animal.gd's former _move (see
 * docs/animals.md). Its state machine (animal_mind.c) decides where it wants to go (m/s); move() takes the step
 * on the terrain's surface without physics queries, keeping ground animals out of water and off
 * slopes steeper than MAX_WALK_SLOPE, unless the step could bring it into contact with a static
 * obstacle: then GDScript moves it with move_and_slide and hands back where it ended up
 * (after_query). What GDScript has to do after each step comes back as bits (animal_body.h).
 *
 * The arithmetic keeps GDScript's precisions so that every decision is the same as before:
 * Vector3 values and their operations in single precision, GDScript floats in double, and the
 * built-ins min, max and clamp in single precision (Godot 3.2's real_t). */
#include "animal_body.h"

#include <math.h>
#include <stdlib.h>

#include "godot.h"
#include "terrain.h"

const gdn_vector3 ZERO_VECTOR3 = {0.0f, 0.0f, 0.0f};

float vector3_length_squared(gdn_vector3 v) {
	float x2 = v.x * v.x, y2 = v.y * v.y, z2 = v.z * v.z;
	return x2 + y2 + z2;
}

float vector3_length(gdn_vector3 v) {
	return sqrtf(vector3_length_squared(v));
}

static gdn_vector3 add(gdn_vector3 a, gdn_vector3 b) {
	return (gdn_vector3){a.x + b.x, a.y + b.y, a.z + b.z};
}

static gdn_vector3 scaled(gdn_vector3 a, float factor) {
	return (gdn_vector3){a.x * factor, a.y * factor, a.z * factor};
}

static float distance(gdn_vector3 a, gdn_vector3 b) {
	return vector3_length((gdn_vector3){b.x - a.x, b.y - a.y, b.z - a.z});
}

static bool same(gdn_vector3 a, gdn_vector3 b) {
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* GDScript's min, max and clamp (real_t). */
static float min_real(double a, double b) {
	float x = (float)a, y = (float)b;
	return x < y ? x : y;
}

static float max_real(double a, double b) {
	float x = (float)a, y = (float)b;
	return x > y ? x : y;
}

static float clamp_real(double value, double low, double high) {
	float v = (float)value, l = (float)low, h = (float)high;
	return v < l ? l : (v > h ? h : v);
}

static gdn_method_bind *set_transform; /* Spatial.set_transform, found at the first setup */

/* Writes the node's transform (the parent, Entities, sits at the world origin): at its origin,
 * turned by its yaw about +y, the basis exactly as Godot's Basis(Vector3.UP, yaw) makes it (single
 * precision: rows (c, 0, s), (0, 1, 0), (-s, 0, c)), through Spatial.set_transform. */
static void place(const animal_body *body) {
	float yaw = (float)body->yaw;
	float c = cosf(yaw), s = sinf(yaw);
	gdn_transform transform = {{{c, 0.0f, s}, {0.0f, 1.0f, 0.0f}, {-s, 0.0f, c}}, body->origin};
	const void *arguments[] = {&transform};
	call_engine(set_transform, body->node, arguments, NULL);
}

void body_report_value(const animal_body *body, int offset, double value) {
	if (!body->reports)
		return;
	gdn_variant number = variant_of_real(value); /* (a number: nothing to destroy) */
	GODOT_CORE(GDN_ARRAY_SET, void (*)(gdn_array *, int, const gdn_variant *))(
			(gdn_array *)&body->features, (int)(body->slot + offset), &number);
}

/* Its position in its slot of the features (animal.gd: join). */
static void report(const animal_body *body) {
	body_report_value(body, 0, body->origin.x);
	body_report_value(body, 1, body->origin.y);
	body_report_value(body, 2, body->origin.z);
}

static double surface(const animal_body *body, float x, float z) {
	return terrain_surface_height(body->terrain, x, z);
}

static void set_yaw(animal_body *body, double yaw) {
	body->yaw = yaw;
	body->forward_x = -sin(yaw);
	body->forward_z = -cos(yaw);
}

/* The yaw it faces after a step at `desired` (m/s): it turns to face where it goes when that is
 * more than the minimum turn off (setting a transform is not free), tested on the cosine. */
static double heading(const animal_body *body, gdn_vector3 desired) {
	double speed_sq = (double)desired.x * desired.x + (double)desired.z * desired.z;
	double min_speed = body->rules.face_min_speed_m_per_s;
	if (speed_sq > min_speed * min_speed &&
			desired.x * body->forward_x + desired.z * body->forward_z < body->rules.cos_face_min_turn * sqrt(speed_sq))
		return atan2(-(double)desired.x, -(double)desired.z);
	return body->yaw;
}

/* `point`, whose ground is at `ground`, is in water: so is the ground within wet_depth / max_slope
 * of it, which spares look-ups at the shore. */
static void remember_wet(animal_body *body, gdn_vector3 point, double ground) {
	body->wet_point = point;
	body->wet_depth = body->shore_m - ground - body->rules.height_bound_tolerance_m;
}

/* Whether the step (step_x, step_z) m, step_sq its length squared, keeps the animal out of contact
 * with the static obstacles listed for `cell`: the closest approach of the step to each, against
 * the animal's reach + the obstacle's radius. A step that does not take it nearer one is clear of it. */
static bool clear_of_near(const animal_body *body, int64_t cell, double step_x, double step_z, double step_sq) {
	const terrain_data *terrain = body->terrain;
	double x = body->origin.x, z = body->origin.z;
	for (int64_t i = terrain->near_start[cell]; i < terrain->near_start[cell + 1]; i += 3) {
		const float *obstacle = terrain->near_values + i;
		double dx = x - obstacle[0];
		double dz = z - obstacle[1];
		double along = dx * step_x + dz * step_z;
		if (along < 0.0) {
			double t = min_real(1.0, -along / step_sq);
			dx += t * step_x;
			dz += t * step_z;
			double touch = body->reach_m + obstacle[2];
			if (dx * dx + dz * dz <= touch * touch)
				return false;
		}
	}
	return true;
}

/* Whether a step of `horizontal` (m/s) from where it stands keeps it clear of static obstacles,
 * by the terrain's grid of clearances, then, only if that is not enough, by the obstacles near. */
static bool step_is_clear(const animal_body *body, gdn_vector3 horizontal) {
	const terrain_data *terrain = body->terrain;
	if (terrain == NULL || terrain->clearance == NULL || body->climbing)
		return false;
	double gx = (body->origin.x + terrain->half_size_m) / terrain->cell_size_m;
	double gz = (body->origin.z + terrain->half_size_m) / terrain->cell_size_m;
	int64_t cell_cols = terrain->cols - 1, cell_rows = terrain->rows - 1;
	if (!(gx >= 0.0 && gz >= 0.0 && gx < (double)cell_cols && gz < (double)cell_rows))
		return false;
	int64_t cell = (int64_t)gz * cell_cols + (int64_t)gx;
	double step_x = horizontal.x * body->rules.dt;
	double step_z = horizontal.z * body->rules.dt;
	double step_sq = step_x * step_x + step_z * step_z;
	double span = body->reach_m + sqrt(step_sq);
	return span < terrain->clearance[cell] ||
			(span <= body->rules.obstacle_margin_m && clear_of_near(body, cell, step_x, step_z, step_sq));
}

/* Whether `point` lies within one of its no-go rectangles widened by its reach, while where it
 * stands does not (an animal that found itself inside may walk out). */
static bool enters_no_go(const animal_body *body, gdn_vector3 point) {
	bool to = false, from = false;
	for (int64_t i = 0; i < body->no_go_count; i++) {
		const double *rect = body->no_go + 4 * i;
		double reach = body->reach_m;
		to = to || (point.x > rect[0] - reach && point.x < rect[2] + reach && point.z > rect[1] - reach && point.z < rect[3] + reach);
		from = from || (body->origin.x > rect[0] - reach && body->origin.x < rect[2] + reach &&
				body->origin.z > rect[1] - reach && body->origin.z < rect[3] + reach);
	}
	return to && !from;
}

int body_move(animal_body *body, gdn_vector3 desired, bool active) {
	const rules *r = &body->rules;
	if (body->settled && desired.x == 0.0f && desired.z == 0.0f && (!body->flies || (active && desired.y == 0.0f))) {
		/* Given no step where its last one ended, it stays. */
		body->velocity = ZERO_VECTOR3;
		return 0;
	}
	int code = 0;
	gdn_vector3 origin = body->origin;
	gdn_vector3 horizontal = desired; /* a flying animal's velocity; a ground animal's horizontal one */
	double next_ground = INFINITY; /* the surface height where the step ends, once known */
	if (body->flies) {
		if (!active) { /* cruise at the flying height */
			double ground = body->terrain != NULL ? surface(body, origin.x, origin.z) : 0.0;
			desired.y = clamp_real((ground + body->fly_height_m + body->half_height_m - origin.y) / r->dt,
					-body->idle_speed_m_per_s - 1.0, body->idle_speed_m_per_s + 1.0);
			horizontal = desired;
			next_ground = ground; /* (here, not where the step ends) */
		}
		body->velocity = desired;
	} else {
		horizontal = (gdn_vector3){desired.x, 0.0f, desired.z};
		double speed = sqrt((double)desired.x * desired.x + (double)desired.z * desired.z);
		/* No step into a building's footprint (from outside it) for an animal that never goes inside. */
		bool barred = speed > 0.0 && body->no_go_count > 0 &&
				enters_no_go(body, add(origin, scaled(horizontal, (float)r->dt)));
		if ((body->terrain != NULL || barred) && speed > 0.0) {
			/* No step ending in water or a little before it, nor up a slope steeper than
			 * max_walk_slope (climbers in pursuit climb anything). The ground rises at most
			 * max_slope per metre: near the point last found in water the ground is water too,
			 * and with the step's end high enough above the water, so is the ground ahead. */
			gdn_vector3 ahead = add(origin, scaled(horizontal, (float)r->water_lookahead_s));
			gdn_vector3 end = add(origin, scaled(horizontal, (float)r->dt));
			bool refused = barred || distance(ahead, body->wet_point) * body->max_slope < body->wet_depth ||
					distance(end, body->wet_point) * body->max_slope < body->wet_depth;
			if (!refused) {
				next_ground = surface(body, end.x, end.z);
				if (next_ground < body->shore_m) {
					refused = true;
					remember_wet(body, end, next_ground);
				} else if (next_ground - (origin.y - body->half_height_m) > speed * r->dt * r->max_walk_slope &&
						!(body->can_climb && active)) {
					refused = true;
				} else if (next_ground - body->max_slope * speed * (r->water_lookahead_s - r->dt) <
						body->shore_m + r->height_bound_tolerance_m) {
					double ahead_ground = surface(body, ahead.x, ahead.z);
					if (ahead_ground < body->shore_m) {
						refused = true;
						remember_wet(body, ahead, ahead_ground);
					}
				}
			}
			if (refused) {
				code |= MOVE_REFUSED;
				if (body->settled) { /* it stays where it stands, turning to face its way */
					body->velocity = ZERO_VECTOR3;
					double yaw = heading(body, desired);
					if (yaw != body->yaw) {
						set_yaw(body, yaw);
						place(body);
					}
					return code;
				}
				next_ground = INFINITY;
				horizontal = ZERO_VECTOR3;
			}
		}
		if (body->climbing)
			body->vertical_speed = body->active_speed_m_per_s * r->climb_speed_factor;
		else
			body->vertical_speed -= r->gravity_m_per_s2 * r->dt;
		body->velocity = horizontal;
	}
	if (!step_is_clear(body, horizontal)) {
		body->query_desired = desired;
		body->query_velocity = body->flies ? desired
				: add(horizontal, (gdn_vector3){0.0f, (float)body->vertical_speed, 0.0f});
		return code | MOVE_QUERY;
	}
	gdn_vector3 next = add(origin, scaled(horizontal, (float)r->dt));
	if (body->flies) {
		/* Never below the surface: no look-up when high enough above the ground where it took
		 * off (cruising). */
		if (next_ground == INFINITY || next.y - body->half_height_m < next_ground + r->height_bound_tolerance_m +
				body->max_slope * sqrt((double)horizontal.x * horizontal.x + (double)horizontal.z * horizontal.z) * r->dt)
			next.y = max_real(next.y, surface(body, next.x, next.z) + body->half_height_m);
		body->settled = true;
	} else {
		if (next_ground == INFINITY)
			next_ground = surface(body, next.x, next.z);
		/* It walks the surface, or falls to it (compared before storing in single precision). */
		double surface_y = next_ground + body->half_height_m;
		double fall_y = origin.y + body->vertical_speed * r->dt;
		body->settled = fall_y <= surface_y;
		if (body->settled) {
			next.y = (float)surface_y;
			body->vertical_speed = 0.0;
		} else {
			next.y = (float)fall_y;
		}
	}
	double yaw = heading(body, desired);
	bool moved = !same(next, origin), turned = yaw != body->yaw;
	if (moved) {
		body->origin = next;
		report(body);
	}
	if (turned)
		set_yaw(body, yaw);
	if (moved || turned)
		place(body);
	return code;
}

/* After move_and_slide: where it ended up (`moved_to`), the velocity it returned, whether it
 * stands on the floor and whether it now climbs. Never below the surface. */
void body_after_query(animal_body *body, gdn_vector3 moved_to, gdn_vector3 velocity, bool on_floor, bool climbing) {
	body->velocity = velocity;
	if (!body->flies) {
		body->vertical_speed = on_floor ? 0.0 : velocity.y;
		body->climbing = climbing;
	}
	body->settled = false;
	double yaw = heading(body, body->query_desired);
	gdn_vector3 next = moved_to; /* (move_and_slide has placed the node there) */
	if (body->terrain != NULL) {
		next.y = max_real(next.y, surface(body, next.x, next.z) + body->half_height_m);
		if (next.y != moved_to.y)
			body->vertical_speed = 0.0;
	}
	body->origin = next;
	bool turned = yaw != body->yaw;
	if (turned)
		set_yaw(body, yaw);
	if (turned || !same(next, moved_to))
		place(body);
	report(body);
}

/* The distance between its reach and the agent's capsule (feet at `feet`). */
double body_gap(const animal_body *body, gdn_vector3 feet) {
	const rules *r = &body->rules;
	float y = clamp_real(body->origin.y, feet.y + r->agent_radius_m, feet.y + r->agent_height_m - r->agent_radius_m);
	return distance(body->origin, (gdn_vector3){feet.x, y, feet.z}) - r->agent_radius_m - body->attack_reach_radius_m;
}

/* Horizontally away from `point` at `speed` (m/s); straight ahead when on it. */
gdn_vector3 body_away_from(const animal_body *body, gdn_vector3 point, double speed) {
	gdn_vector3 away = {body->origin.x - point.x, body->origin.y - point.y, body->origin.z - point.z};
	away.y = 0.0f;
	float length = distance(ZERO_VECTOR3, away);
	if (length < 1e-4) {
		away = (gdn_vector3){(float)body->forward_x, 0.0f, (float)body->forward_z};
		length = distance(ZERO_VECTOR3, away);
	}
	if (length != 0.0f)
		away = (gdn_vector3){away.x / length, away.y / length, away.z / length};
	else
		away = ZERO_VECTOR3;
	return scaled(away, (float)speed);
}

/* Toward the agent (feet at `feet`) at its active speed, coming to a stop just within attack
 * reach (chase_stop_gap_m) instead of shoving it; a flyer aims at the agent's chest. */
gdn_vector3 body_chase_velocity(const animal_body *body, gdn_vector3 feet) {
	const rules *r = &body->rules;
	double dx = (double)feet.x - body->origin.x;
	double dz = (double)feet.z - body->origin.z;
	gdn_vector3 to_target = {(float)dx, 0.0f, (float)dz};
	if (body->flies)
		to_target.y = (float)(feet.y + r->agent_height_m * 0.6 - body->origin.y);
	double speed = clamp_real((body_gap(body, feet) - r->chase_stop_gap_m) / r->dt, 0.0, body->active_speed_m_per_s);
	double length = distance(ZERO_VECTOR3, to_target);
	return length > 1e-4 ? scaled(to_target, (float)(speed / length)) : ZERO_VECTOR3;
}

/* ---- The class ---------------------------------------------------------------------------- */

static void *create(gdn_object *owner, void *method_data) {
	(void)owner;
	(void)method_data;
	return calloc(1, sizeof(animal_body));
}

static void destroy(gdn_object *owner, void *method_data, void *user_data) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (body != NULL && body->reports)
		GODOT_CORE(GDN_ARRAY_DESTROY, void (*)(gdn_array *))(&body->features);
	if (body != NULL)
		free(body->no_go);
	free(body);
}

/* setup(arguments) -> bool, the arguments of avalon/sim/native_interface.py's "setup" in their
 * order (native/generated/animal_interface.h reads them; animal.gd passes them by name); false if
 * they are not all there. The terrain sampler (or null) must outlive the body. */
static gdn_variant setup_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	setup_arguments args;
	if (!read_setup_arguments(count, a, &args))
		return variant_of_bool(false);
	body->terrain = args.terrain;
	body->flies = args.flies;
	body->can_climb = args.can_climb;
	body->half_height_m = args.half_height_m;
	body->fly_height_m = args.fly_height_m;
	body->idle_speed_m_per_s = args.idle_speed_m_per_s;
	body->active_speed_m_per_s = args.active_speed_m_per_s;
	body->shore_m = args.shore_m;
	body->reach_m = args.reach_m;
	body->max_slope = args.max_slope;
	body->origin = args.origin;
	set_yaw(body, args.yaw);
	body->rules = (rules){.dt = args.dt, .water_lookahead_s = args.water_lookahead_s,
			.max_walk_slope = args.max_walk_slope, .height_bound_tolerance_m = args.height_bound_tolerance_m,
			.gravity_m_per_s2 = args.gravity_m_per_s2, .climb_speed_factor = args.climb_speed_factor,
			.obstacle_margin_m = args.obstacle_margin_m, .face_min_speed_m_per_s = args.face_min_speed_m_per_s,
			.cos_face_min_turn = args.cos_face_min_turn, .agent_radius_m = args.agent_radius_m,
			.agent_height_m = args.agent_height_m, .chase_stop_gap_m = args.chase_stop_gap_m};
	body->attack_reach_radius_m = args.attack_reach_radius_m;
	body->node = args.node;
	body->eye_near_sq = args.eye_near_sq;
	if (set_transform == NULL)
		set_transform = engine_method("Spatial", "set_transform");
	if (body->node == NULL || set_transform == NULL)
		return variant_of_bool(false);
	body->velocity = ZERO_VECTOR3;
	body->wet_point = ZERO_VECTOR3;
	body->wet_depth = 0.0;
	body->vertical_speed = 0.0;
	body->settled = false;
	body->climbing = false;
	return variant_of_bool(true);
}

/* add_no_go(x0, z0, x1, z1) -> bool: a rectangle (metres, x0 < x1, z0 < z1) it never steps into
 * from outside (animal.gd: a building's footprint, for an animal that never goes inside); false
 * (nothing added) for arguments that are not four finite reals in order. */
static gdn_variant add_no_go_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (count != 4)
		return variant_of_bool(false);
	double rect[4];
	for (int i = 0; i < 4; i++) {
		rect[i] = real_of(a[i]);
		if (!isfinite(rect[i]))
			return variant_of_bool(false);
	}
	if (rect[0] >= rect[2] || rect[1] >= rect[3])
		return variant_of_bool(false);
	double *grown = realloc(body->no_go, (size_t)(body->no_go_count + 1) * 4 * sizeof(double));
	if (grown == NULL)
		return variant_of_bool(false);
	body->no_go = grown;
	for (int i = 0; i < 4; i++)
		body->no_go[4 * body->no_go_count + i] = rect[i];
	body->no_go_count++;
	return variant_of_bool(true);
}

/* MOVE_EYE_NEAR if the eye (at `eye`) is within eye_near_sq of where it now is. */
int body_eye_bit(const animal_body *body, gdn_vector3 eye) {
	gdn_vector3 to_eye = {eye.x - body->origin.x, eye.y - body->origin.y, eye.z - body->origin.z};
	return (double)vector3_length_squared(to_eye) <= body->eye_near_sq ? MOVE_EYE_NEAR : 0;
}

/* report_to(features: Array, offset: int) -> bool: from now on it writes its position into
 * features[offset], [offset + 1], [offset + 2] and its state into features[offset + 3] whenever
 * they change, and now (after setup_mind). */
static gdn_variant report_to_method(gdn_object *owner, void *method_data, void *user_data, int count, gdn_variant **a) {
	(void)owner;
	(void)method_data;
	animal_body *body = user_data;
	if (count != 2 || GODOT_CORE(GDN_VARIANT_GET_TYPE, int (*)(const gdn_variant *))(a[0]) != GDN_TYPE_ARRAY)
		return variant_of_bool(false);
	gdn_array features = GODOT_CORE(GDN_VARIANT_AS_ARRAY, gdn_array (*)(const gdn_variant *))(a[0]);
	int64_t offset = int_of(a[1]);
	if (offset < 0 || offset + 4 > GODOT_CORE(GDN_ARRAY_SIZE, int (*)(const gdn_array *))(&features)) {
		GODOT_CORE(GDN_ARRAY_DESTROY, void (*)(gdn_array *))(&features);
		return variant_of_bool(false);
	}
	if (body->reports)
		GODOT_CORE(GDN_ARRAY_DESTROY, void (*)(gdn_array *))(&body->features);
	body->features = features;
	body->slot = offset;
	body->reports = true;
	report(body);
	body_report_value(body, 3, (double)body->mind.state);
	body->mind.reported_state = body->mind.state;
	return variant_of_bool(true);
}

NATIVE_GETTER(origin_method, animal_body, variant_of_vector3(self->origin))
NATIVE_GETTER(yaw_method, animal_body, variant_of_real(self->yaw))
NATIVE_GETTER(velocity_method, animal_body, variant_of_vector3(self->velocity))
NATIVE_GETTER(query_velocity_method, animal_body, variant_of_vector3(self->query_velocity))

void animal_body_register(void *handle) {
	register_native_class(handle, "AnimalBody", "Reference", create, destroy);
	register_native_method(handle, "AnimalBody", "setup", setup_method);
	register_native_method(handle, "AnimalBody", "report_to", report_to_method);
	register_native_method(handle, "AnimalBody", "add_no_go", add_no_go_method);
	register_native_method(handle, "AnimalBody", "origin", origin_method);
	register_native_method(handle, "AnimalBody", "yaw", yaw_method);
	register_native_method(handle, "AnimalBody", "velocity", velocity_method);
	register_native_method(handle, "AnimalBody", "query_velocity", query_velocity_method);
}
