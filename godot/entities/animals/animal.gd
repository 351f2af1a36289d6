extends KinematicBody
# One animal of the paper's Appendix A.5 (Tables 3 and 4); docs/animals.md explains every rule.
# The species scene (entities/animals/<species>.tscn, generated from avalon/rules/animals.py) sets
# every exported property; a world may override any of them per instance. The origin is the
# centre of the bounding box `size`; the animal faces -z.
#
# Driven by entities/animals/animals.gd once per step, in scene order, after the agent has moved
# (never by _process: the order and the inputs are fixed, so runs are deterministic). Its state
# machine and its step on the terrain are native code (AnimalBody: native/animal_mind.c,
# native/animal_body.c); this script builds it, answers what needs the scene (sight by ray casts,
# physics queries near static obstacles) or its random generator, and acts on what a step brings
# (after_think). Random choices come from its own generator, seeded by the exporter from the world
# seed and its name.

const Protocol = preload("res://generated/protocol.gd")
const Corpse = preload("res://entities/animals/corpse.gd")
const AnimalMesh = preload("res://entities/animals/animal_mesh.gd")
const AnimalMaterial = preload("res://entities/animals/animal_material.tres")  # back faces culled
const TwoSidedMaterial = preload("res://entities/animals/animal_material_two_sided.tres")
const AnimalBody = preload("res://native/animal_body.gdns")  # native/animal_body.c
# The protocol's constants read every step, copied here: these are folded into the code when the
# script compiles, while `Protocol.NAME` is a look-up by name at run time (several times slower).
const STATE_ACTIVE = Protocol.STATE_ACTIVE
const STATE_KNOCKED_OUT = Protocol.STATE_KNOCKED_OUT
const STATE_IDLE = Protocol.STATE_IDLE
const STATE_RESPITE = Protocol.STATE_RESPITE
const STATE_AVOIDING = Protocol.STATE_AVOIDING
const STATE_EATEN = Protocol.STATE_EATEN
const STEPS_PER_SECOND = Protocol.STEPS_PER_SECOND
const STEP_SECONDS = Protocol.STEP_SECONDS  # one step, s
const BODY_RADIUS_M = Protocol.BODY_RADIUS_M
const BODY_HEIGHT_M = Protocol.BODY_HEIGHT_M
const ATTACK_REACH_M = Protocol.ATTACK_REACH_M
const CHASE_STOP_GAP_M = Protocol.CHASE_STOP_GAP_M
const PATH_RADIUS_M = Protocol.PATH_RADIUS_M
const WANDER_RADIUS_M = Protocol.WANDER_RADIUS_M
const STILL_SPEED_M_PER_S = Protocol.STILL_SPEED_M_PER_S
const OUT_OF_REACH_HEIGHT_M = Protocol.OUT_OF_REACH_HEIGHT_M
const OBSTACLE_MARGIN_M = Protocol.OBSTACLE_MARGIN_M
const OBSTACLE_CONTACT_MARGIN_M = Protocol.OBSTACLE_CONTACT_MARGIN_M
const GRAVITY_M_PER_S2 = Protocol.GRAVITY_M_PER_S2
const CLIMB_SPEED_FACTOR = Protocol.CLIMB_SPEED_FACTOR
const AVOID_MARGIN_M = Protocol.AVOID_MARGIN_M
const DEPTH_NEAR_M = Protocol.DEPTH_NEAR_M

const RETARGET_FRAMES = 50  # a wanderer picks a new target at least this often
const ARRIVED_M = 0.5
const FACE_MIN_SPEED_M_PER_S = 0.05
const FACE_MIN_TURN_RAD = 0.02
const COS_FACE_MIN_TURN = cos(FACE_MIN_TURN_RAD)
const WATER_LOOKAHEAD_S = Protocol.WATER_LOOKAHEAD_S
const WATER_MARGIN_M = Protocol.WATER_MARGIN_M
const HEIGHT_BOUND_TOLERANCE_M = 1e-3  # for bounds on the ground's height from the terrain's steepest slope (float rounding)
const MAX_WALK_SLOPE = 1.0  # rise over run: 45 degrees
const SEE_THROUGH_MARGIN_M = 0.1  # see _near_eye_m
# What AnimalBody's steps leave to the script, bits, and what it asks (_answer): from
# avalon/sim/native_interface.py, as native/generated/animal_interface.h. The body writes the
# animal's transform and reports its position and state itself.
const MOVE_QUERY = Protocol.MOVE_QUERY  # move it with move_and_slide, then resume
const THINK_ESCAPED = Protocol.THINK_ESCAPED
const THINK_ATTACKED = Protocol.THINK_ATTACKED
const THINK_KNOCK_OUT = Protocol.THINK_KNOCK_OUT
const THINK_SIDES = Protocol.THINK_SIDES
const THINK_TWO_SIDED = Protocol.THINK_TWO_SIDED
const ASK_SEES_ME = Protocol.ASK_SEES_ME
const ASK_SEES_AGENT = Protocol.ASK_SEES_AGENT
const ASK_LINE_TO_HEAD = Protocol.ASK_LINE_TO_HEAD
const ASK_NEW_TARGET = Protocol.ASK_NEW_TARGET
const NOT_HIT = 0  # what after_physics returns
const HIT = 1
const KNOCKED_OUT = 2
# What a native class's refusal of its setup most likely means (animals.gd says it too).
const NATIVE_LIBRARY_STALE = "is godot/native/libavalon_native.so older than native/? Run `make setup`"

export var species = ""
export var is_predator = true
export(String, "ground", "air") var domain = "ground"
export var can_climb = false
export var no_inside = false
export var activation = PoolStringArray()
export var activation_radius_m = 5.0
export var deactivation_radius_m = 7.5
export var deactivation = PoolStringArray()
export var idle = "slow_random"
export var territory_radius_m = 0.0
export var idle_speed_m_per_s = 1.0
export var active_speed_m_per_s = 6.0
export var attack_damage = 0.0
export(String, "persistent", "temporary", "permanent", "none") var respite = "none"
export var respite_s = 0.0
export var hits_to_ko = 1  # 0: indestructible
export var fly_height_m = 0.0
export var size = Vector3(0.5, 0.5, 0.5)
export var mass_kg = 1.0
export var parts = PoolRealArray()  # 10 per part: shape (0 box, 1 wedge), centre xyz, size xyz, rgb
export var rng_seed = 0
export var water_height_m = -1000000.0  # ground animals keep out of cells below this

var hits = 0
var home = Vector3.ZERO
var corpse = null  # the body left behind once knocked out
var rng = RandomNumberGenerator.new()
var half_height = 0.25
var reach_radius = 0.25  # half the longest horizontal side: attacks land from this far + the agent's radius
var cos_half_fov = 0.5
var _flies = false  # domain == "air", compared once
var _tan_half_view = tan(deg2rad(Protocol.CAMERA_FOV_DEG) / 2.0)

var _features = []  # holds its slot of the `animals` feature from _slot (see join); kept up to date as it changes
var _slot = 0
var _struck = []  # the manager's list of the animals hit this step (see on_hit)
var _down = []  # the manager's list of the knocked-out animals (see knock_out)
var _agent = {}  # the manager's: what the animals see of the agent this step (see _answer)
var _path_angle = 0.0  # where a periodic path starts (its body keeps it from then on)
var _hit_ready_step = 0  # hits count again from this step
var _clock = [0]  # the manager's: this step of the episode, counted from 1 (see join)
var _pending_hits = 0
var _mesh = null
var _mesh_instance = null
var _mesh_box = AABB()  # the mesh's bounds, in the animal's frame
var _near_eye_m = 0.3  # see the materials (after_think)
var _far_eye_sq = 0.0  # squared, from the origin: beyond this the eye is never within _near_eye_m of the mesh
var _body = null  # its AnimalBody: its state machine and how it moves (see set_terrain, after_think)
var _answers = null  # a FuncRef to _answer, for its body
var _reach = 0.25  # half the diagonal of its box's horizontal sides (the box at any yaw) + OBSTACLE_CONTACT_MARGIN_M: what must clear a static obstacle
# Activation (all must hold) and deactivation (any ends activity) conditions.
var _never_activates = false
var _sampler = null  # the terrain's TerrainSampler (null: flat ground): the body it leaves keeps above its surface
var _act_territory = false
var _act_must_see = false
var _act_unseen = false
var _de_radius = false
var _de_territory = false
var _de_domain = false
var _de_seen = false
var _de_still = false
var _de_cant_see = false
var _avoidant = false
var _random = false
var _periodic = false


func _ready():
	add_to_group("animals")
	for name in ["activation_radius_m", "deactivation_radius_m", "territory_radius_m", "idle_speed_m_per_s",
			"active_speed_m_per_s", "attack_damage", "respite_s", "fly_height_m", "mass_kg", "water_height_m"]:
		set(name, float(get(name)))
	_never_activates = activation.size() == 0 or not _has(activation, "within_radius")
	_act_territory = _has(activation, "within_territory")
	_act_must_see = _has(activation, "must_see_you")
	_act_unseen = _has(activation, "you_dont_see_it")
	_de_radius = _has(deactivation, "outside_radius")
	_de_territory = _has(deactivation, "outside_territory")
	_de_domain = _has(deactivation, "outside_domain")
	_de_seen = _has(deactivation, "you_see_it")
	_de_still = _has(deactivation, "you_stop_moving")
	_de_cant_see = _has(deactivation, "cant_see_you")
	_flies = domain == "air"
	_avoidant = idle == "static_avoidant"
	_periodic = idle.ends_with("periodic_fixed")
	_random = idle.ends_with("random")
	half_height = size.y / 2.0
	reach_radius = max(size.x, size.z) / 2.0
	_reach = Vector2(size.x, size.z).length() / 2.0 + OBSTACLE_CONTACT_MARGIN_M
	cos_half_fov = cos(deg2rad(Protocol.ANIMAL_FOV_DEG) / 2.0)
	rng.seed = int(rng_seed)
	home = transform.origin
	_path_angle = rng.randf_range(0.0, 2.0 * PI)
	var shape = BoxShape.new()
	shape.extents = size / 2.0
	var shape_node = CollisionShape.new()
	shape_node.name = "Shape"
	shape_node.shape = shape
	add_child(shape_node)
	_mesh = AnimalMesh.build(parts)
	var mesh_instance = MeshInstance.new()
	mesh_instance.name = "Mesh"
	mesh_instance.mesh = _mesh
	mesh_instance.material_override = AnimalMaterial
	mesh_instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	add_child(mesh_instance)
	_mesh_instance = mesh_instance
	_mesh_box = _mesh.get_aabb()
	# Back faces are culled (see animal_mesh.gd), which draws the same image as long as the camera sees
	# the animal from outside its parts; a camera inside one, or whose near plane cuts one, would see
	# through it. So while the eye is within reach of that (the near plane's corners, this far from
	# the eye, + SEE_THROUGH_MARGIN_M, from the mesh's bounds) its body has it drawn two-sided
	# (native/animal_mind.c: update_sides; after_think swaps the material).
	_near_eye_m = DEPTH_NEAR_M * sqrt(1.0 + 2.0 * _tan_half_view * _tan_half_view) + SEE_THROUGH_MARGIN_M
	var corner_m = 0.0  # the mesh's farthest corner from the origin
	for i in range(8):
		corner_m = max(corner_m, _mesh_box.get_endpoint(i).length())
	_far_eye_sq = (corner_m + _near_eye_m) * (corner_m + _near_eye_m)


static func _has(names, name):
	for n in names:
		if n == name:
			return true
	return false


func is_down():
	return _body.state() >= STATE_KNOCKED_OUT



# The manager hands over the simulation's features with this animal's slot of the `animals`
# feature (from `offset`; a scratch array for an animal past MAX_REPORTED_ANIMALS), its lists of
# the animals hit this step and of those knocked out, its clock ([the step of the episode]) and
# what the animals see of the agent (`agent`, see animals.gd). The animal writes its slot now and
# then keeps it up to date itself: its position and state as they change (its body:
# AnimalBody.report_to), its hits as they land (after_physics); the manager rewrites the slots of
# knocked-out animals every step (their bodies move and are eaten).
func join(features, offset, struck, down, clock, agent):
	_features = features
	_slot = offset
	_struck = struck
	_down = down
	_clock = clock
	_agent = agent
	_body.report_to(features, offset)
	features[offset + 4] = float(hits)


# Writes its slot: where it (or the body it left) is, its state (eaten once its body is gone), its
# hits.
func write_feature():
	var features = _features
	var offset = _slot
	var position = _body.origin()
	var reported = _body.state()
	if corpse != null:
		if is_instance_valid(corpse):
			position = corpse.global_transform.origin
		if reported == STATE_KNOCKED_OUT and not is_predator and (not is_instance_valid(corpse) or corpse.is_queued_for_deletion()):
			reported = STATE_EATEN
	features[offset] = position.x
	features[offset + 1] = position.y
	features[offset + 2] = position.z
	features[offset + 3] = float(reported)
	features[offset + 4] = float(hits)


# Thrown rocks and swung sticks call this (entities/tools/tool.gd) with their impact speed.
func on_hit(speed):
	if is_down() or _clock[0] < _hit_ready_step or speed < Protocol.HIT_MIN_SPEED_M_PER_S:
		return
	_hit_ready_step = _clock[0] + int(ceil(Protocol.HIT_COOLDOWN_S * STEPS_PER_SECOND))
	if _pending_hits == 0:
		_struck.append(self)
	_pending_hits += 1


# impacts.gd asks the bodies it touches how fast they were going.
func velocity_before_step(_age = 0):
	return _body.velocity() if _body != null else Vector3.ZERO


# After the physics step, for an animal hit in it (the manager's `struck`): count the hits it
# brought; enough of them knock the animal out. Returns what happened: NOT_HIT, HIT or KNOCKED_OUT
# (hit, and out).
func after_physics():
	if _pending_hits == 0:
		return NOT_HIT
	if is_down():
		_pending_hits = 0
		return NOT_HIT
	hits += _pending_hits
	_pending_hits = 0
	_features[_slot + 4] = float(hits)
	if hits_to_ko > 0 and hits >= hits_to_ko:
		knock_out()
		return KNOCKED_OUT
	return HIT


# ---- One step ---------------------------------------------------------------------------------

# The manager calls its body's think (native/animal_mind.c: decide, move, attack, see whether the
# eye is near enough to see through its culled faces) once per step; when that returns bits
# (`code`, rarely) it calls this to act on them. Returns the energy its attack took (0 without one).
func after_think(code):
	if code & MOVE_QUERY:
		code |= _query()
	if code & THINK_ESCAPED:
		_agent.escaped.append(species)
	if code & THINK_SIDES:
		_mesh_instance.material_override = TwoSidedMaterial if code & THINK_TWO_SIDED else AnimalMaterial
	if code & THINK_KNOCK_OUT:
		knock_out()  # a bee dies when it stings
	return attack_damage if code & THINK_ATTACKED else 0.0


# What its body asks while it thinks (`question`: an ASK_ constant), of what only the scene or its
# random generator knows.
func _answer(question):
	match question:
		ASK_SEES_ME:
			return _agent_sees_me(_agent)
		ASK_SEES_AGENT:
			return _i_see_agent(_agent)
		ASK_LINE_TO_HEAD:
			# Once it has seen the agent it keeps track of it while in line of sight (fleeing, it faces away).
			return _clear_line(_body.origin(), _agent.head, _agent)
		ASK_NEW_TARGET:
			return _new_target()
	return null


# The agent sees the animal: its centre is in the camera's view (the square image's field of
# view) and nothing hides it.
func _agent_sees_me(agent):
	var eye = agent.camera.global_transform
	var origin = _body.origin()
	var local = eye.xform_inv(origin)
	var depth = -local.z
	if depth <= DEPTH_NEAR_M or abs(local.x) > depth * _tan_half_view or abs(local.y) > depth * _tan_half_view:
		return false
	return _clear_line(eye.origin, origin, agent)


# The animal sees the agent: its head is within the animal's field of view and in line of sight.
func _i_see_agent(agent):
	var origin = _body.origin()
	var yaw = _body.yaw()
	var forward = Vector3(-sin(yaw), 0.0, -cos(yaw))
	var to_head = agent.head - origin
	var flat = Vector3(to_head.x, 0.0, to_head.z)
	if flat.length() > 1e-3 and Vector3(forward.x, 0.0, forward.z).normalized().dot(flat.normalized()) < cos_half_fov:
		return false
	return _clear_line(origin, agent.head, agent)


# Nothing but the agent and what it holds is between `from` and `to`.
func _clear_line(from, to, agent):
	if agent.exclude == null:  # (asked for once per step, the first time an animal needs it)
		agent.exclude = agent.holds.agent_and_held_rids()
	var excluded = agent.exclude.duplicate()
	excluded.append(get_rid())
	return get_world().direct_space_state.intersect_ray(from, to, excluded).empty()


# A wanderer's next target: a random point of its territory (or of WANDER_RADIUS_M around home).
func _new_target():
	var radius = territory_radius_m if territory_radius_m > 0.0 else WANDER_RADIUS_M
	var angle = rng.randf_range(0.0, 2.0 * PI)
	var r = radius * sqrt(rng.randf())
	return home + Vector3(cos(angle) * r, 0.0, sin(angle) * r)


# An animal that never goes inside (no_inside: the paper's Tables 3-4) is given the buildings'
# footprints ([x0, z0, x1, z1] each, world/buildings.gd), which its body never steps into from
# outside. Returns "" or what went wrong.
func keep_out_of(footprints):
	if not no_inside:
		return ""
	for rect in footprints:
		if not _body.add_no_go(rect[0], rect[1], rect[2], rect[3]):
			return "the native AnimalBody refused the footprint %s for %s: %s" % [str(rect), name, NATIVE_LIBRARY_STALE]
	return ""


# The manager hands over the world's terrain node (or null: flat ground, every step by physics)
# before the first step; the animal's body (AnimalBody) moves on its surface and runs its state
# machine. Each set-up method takes one Dictionary keyed by the argument names of
# avalon/sim/native_interface.py, which _native_call puts in the order the library reads them.
# Returns "" or what went wrong.
func set_terrain(node):
	_body = AnimalBody.new()
	_sampler = node.sampler if node != null else null
	var problem = _native_call("setup", Protocol.ANIMAL_SETUP_ARGUMENTS, {
		"terrain": node.sampler if node != null else null,
		"flies": _flies,
		"can_climb": can_climb,
		"half_height_m": half_height,
		"fly_height_m": fly_height_m,
		"idle_speed_m_per_s": idle_speed_m_per_s,
		"active_speed_m_per_s": active_speed_m_per_s,
		"shore_m": water_height_m + WATER_MARGIN_M,
		"reach_m": _reach,
		"max_slope": node.max_slope if node != null else 0.0,
		"origin": home,
		"yaw": transform.basis.get_euler().y,
		"dt": STEP_SECONDS,
		"water_lookahead_s": WATER_LOOKAHEAD_S,
		"max_walk_slope": MAX_WALK_SLOPE,
		"height_bound_tolerance_m": HEIGHT_BOUND_TOLERANCE_M,
		"gravity_m_per_s2": GRAVITY_M_PER_S2,
		"climb_speed_factor": CLIMB_SPEED_FACTOR,
		"obstacle_margin_m": OBSTACLE_MARGIN_M,
		"face_min_speed_m_per_s": FACE_MIN_SPEED_M_PER_S,
		"cos_face_min_turn": COS_FACE_MIN_TURN,
		"attack_reach_radius_m": reach_radius,
		"agent_radius_m": BODY_RADIUS_M,
		"agent_height_m": BODY_HEIGHT_M,
		"chase_stop_gap_m": CHASE_STOP_GAP_M,
		"node": self,
		"eye_near_sq": _far_eye_sq,
	})
	if problem != "":
		return problem
	_answers = funcref(self, "_answer")
	return _native_call("setup_mind", Protocol.ANIMAL_SETUP_MIND_ARGUMENTS, {
		"answers": _answers,
		"state_active": STATE_ACTIVE,
		"state_knocked_out": STATE_KNOCKED_OUT,
		"state_idle": STATE_IDLE,
		"state_respite": STATE_RESPITE,
		"state_avoiding": STATE_AVOIDING,
		"avoid_margin_m": AVOID_MARGIN_M,
		"path_radius_m": PATH_RADIUS_M,
		"wander_arrived_m": ARRIVED_M,
		"still_speed_m_per_s": STILL_SPEED_M_PER_S,
		"out_of_reach_height_m": OUT_OF_REACH_HEIGHT_M,
		"attack_reach_m": ATTACK_REACH_M,
		"attack_interval_s": Protocol.ATTACK_INTERVAL_S,
		"steps_per_second": STEPS_PER_SECOND,
		"retarget_frames": RETARGET_FRAMES,
		"is_predator": is_predator,
		"never_activates": _never_activates,
		"act_territory": _act_territory,
		"act_must_see": _act_must_see,
		"act_unseen": _act_unseen,
		"de_radius": _de_radius,
		"de_territory": _de_territory,
		"de_domain": _de_domain,
		"de_seen": _de_seen,
		"de_still": _de_still,
		"de_cant_see": _de_cant_see,
		"avoidant": _avoidant,
		"random": _random,
		"periodic": _periodic,
		"respite_temporary": respite == "temporary",
		"respite_permanent": respite == "permanent",
		"activation_radius_m": activation_radius_m,
		"deactivation_radius_m": deactivation_radius_m,
		"territory_radius_m": territory_radius_m,
		"respite_s": respite_s,
		"home": home,
		"box_position": _mesh_box.position,
		"box_end": _mesh_box.end,
		"near_eye_m": _near_eye_m,
		"path_angle": _path_angle,
	})


# Calls its body's `method` with `arguments` (keyed by the generated `names`) in their order.
# Returns "" or what went wrong.
func _native_call(method, names, arguments):
	var ordered = []
	for argument in names:
		if not arguments.has(argument):
			return "animal.gd passes AnimalBody.%s no %s (avalon/sim/native_interface.py)" % [method, argument]
		ordered.append(arguments[argument])
	if arguments.size() != names.size():
		return "animal.gd passes AnimalBody.%s arguments it does not take: %s (avalon/sim/native_interface.py: %s)" \
				% [method, arguments.keys(), names]
	if not _body.callv(method, ordered):
		return "the native AnimalBody refused the %s of %s: %s" % [method, name, NATIVE_LIBRARY_STALE]
	return ""


# Its body's step could bring it into contact with a static obstacle (MOVE_QUERY; or there is no
# terrain): on terrain the body takes the step on the terrain's surface (the animal does not
# collide with the height field: Bullet's kinematic sweeps against it cost ~0.2 ms per animal and
# step), keeping ground animals out of water and, unless climbing, off slopes steeper than
# MAX_WALK_SLOPE, and writes the animal's transform; this step is taken here with move_and_slide,
# and the body ends the step from where it ended up. Returns the bits of the step's end.
func _query():
	var velocity = _body.query_velocity()
	if _flies:
		velocity = move_and_slide(velocity, Vector3.UP)
		return _body.resume(global_transform.origin, velocity, false, false)
	velocity = move_and_slide(velocity, Vector3.UP, true, 4, 0.8, true)
	var climbing = can_climb and _body.state() == STATE_ACTIVE and is_on_wall() and _wall_is_climbable()
	return _body.resume(global_transform.origin, velocity, is_on_floor(), climbing)


func _wall_is_climbable():
	for i in range(get_slide_count()):
		var collider = get_slide_collision(i).collider
		if collider != null and (collider.is_in_group("climbable") or collider.is_in_group("trees")):
			return true
	return false


# ---- Knocked out ------------------------------------------------------------------------------

# The animal stops for good and leaves a body that falls and can be carried; a prey's body is
# food (+1 energy when eaten).
func knock_out():
	_body.set_state(STATE_KNOCKED_OUT)
	var body = Corpse.new()
	body.name = name + "Body"
	body.kind = species
	body.is_food = not is_predator
	body.size = size
	body.mass = max(0.01, mass_kg)
	body.mesh = _mesh
	body.sampler = _sampler
	# Upside down: the same bounding box, clearly not standing any more.
	body.transform = Transform(Basis(Vector3.UP, _body.yaw()) * Basis(Vector3(0.0, 0.0, 1.0), PI), _body.origin())
	get_parent().add_child(body)
	corpse = body
	_down.append(self)
	$Shape.disabled = true
	visible = false
