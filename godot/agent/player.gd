extends Spatial
# The embodied agent (minimal for now): a capsule body that walks, turns and jumps; a head that
# crouches, pitches and rolls relative to the body and carries the camera; two hands that move
# and turn relative to the body within arm's reach and collide with the world.
# All limits come from res://generated/protocol.gd (avalon/rules/mechanics.py).

const Protocol = preload("res://generated/protocol.gd")
const RgbdCamera = preload("res://render/rgbd_camera.gd")
const Grasp = preload("res://agent/grasp.gd")
const Mechanics = preload("res://agent/mechanics.gd")
const MouseKeyboard = preload("res://agent/mouse_keyboard.gd")

const TOUCH_MARGIN_M = 0.02
const STANDING_PROBE_M = 0.05
const FLOOR_MAX_ANGLE_RAD = deg2rad(45.0)  # Godot's default: steeper ground is a wall
# Feature offsets of body, head, left hand, right hand (deltas) and of head and hands (relative).
const DELTA_POSITION_OFFSETS = [Protocol.F_BODY_DELTA_POSITION, Protocol.F_HEAD_DELTA_POSITION, Protocol.F_LEFT_HAND_DELTA_POSITION, Protocol.F_RIGHT_HAND_DELTA_POSITION]
const DELTA_ROTATION_OFFSETS = [Protocol.F_BODY_DELTA_ROTATION, Protocol.F_HEAD_DELTA_ROTATION, Protocol.F_LEFT_HAND_DELTA_ROTATION, Protocol.F_RIGHT_HAND_DELTA_ROTATION]
const RELATIVE_POSITION_OFFSETS = [Protocol.F_HEAD_RELATIVE_POSITION, Protocol.F_LEFT_HAND_RELATIVE_POSITION, Protocol.F_RIGHT_HAND_RELATIVE_POSITION]
const RELATIVE_ROTATION_OFFSETS = [Protocol.F_HEAD_RELATIVE_ROTATION, Protocol.F_LEFT_HAND_RELATIVE_ROTATION, Protocol.F_RIGHT_HAND_RELATIVE_ROTATION]

var body
var head
var hands = []
var body_yaw = 0.0
var vertical_speed = 0.0
var head_height = Protocol.HEAD_DEFAULT_HEIGHT_M
var head_pitch = 0.0
var head_roll = 0.0
var hand_positions = [Protocol.LEFT_HAND_REST_M, Protocol.RIGHT_HAND_REST_M]  # body frame, metres
var hand_rotations = [Vector3.ZERO, Vector3.ZERO]  # (pitch, yaw, roll) relative to the body
var hand_colliding = [false, false]
var previous_transforms = []
var previous_eulers = []  # get_euler() of previous_transforms
var touch_query = PhysicsShapeQueryParameters.new()
var _own_rids = []
var touch_shape = SphereShape.new()  # held here: the query keeps only its RID
var _touch_exclude = []  # what touch_query.exclude was last set to
var space_state = null  # the episode's PhysicsDirectSpaceState (set at spawn: the world does not change)
var mechanics = Mechanics.new(self)  # falls, climbing, movement work, achievements, and its parts:
var holds = mechanics.holds  # what the hands hold: grasping, carrying, throwing, climbing holds, eating
var loose_items = mechanics.loose_items  # pushing, thrown items' hits, stacking
var mouse_keyboard = MouseKeyboard.new(self, holds)  # the mouse-and-keyboard action as the VR one


func _init():
	body = KinematicBody.new()
	body.name = "Body"
	var capsule = CapsuleShape.new()
	capsule.radius = Protocol.BODY_RADIUS_M
	capsule.height = Protocol.BODY_HEIGHT_M - 2.0 * Protocol.BODY_RADIUS_M
	var body_shape = CollisionShape.new()
	body_shape.shape = capsule
	body_shape.rotation_degrees = Vector3(90, 0, 0)  # Godot capsules lie along z; stand it up
	body_shape.translation = Vector3(0, Protocol.BODY_HEIGHT_M / 2.0, 0)
	body.add_child(body_shape)
	add_child(body)
	head = Spatial.new()
	head.name = "Head"
	body.add_child(head)
	head.add_child(RgbdCamera.new())
	for hand_name in ["LeftHand", "RightHand"]:
		hands.append(_make_hand(hand_name))
	_own_rids = [body.get_rid(), hands[0].get_rid(), hands[1].get_rid()]
	touch_shape.radius = Protocol.HAND_RADIUS_M + TOUCH_MARGIN_M
	touch_query.set_shape(touch_shape)


func _make_hand(hand_name):
	var hand = KinematicBody.new()
	hand.name = hand_name
	hand.set_as_toplevel(true)
	var sphere = SphereShape.new()
	sphere.radius = Protocol.HAND_RADIUS_M
	var shape = CollisionShape.new()
	shape.shape = sphere
	hand.add_child(shape)
	var mesh = SphereMesh.new()
	mesh.radius = Protocol.HAND_RADIUS_M
	mesh.height = 2.0 * Protocol.HAND_RADIUS_M
	mesh.radial_segments = 8
	mesh.rings = 4
	var material = SpatialMaterial.new()
	material.albedo_color = Color(0.87, 0.67, 0.52)
	var visual = MeshInstance.new()
	visual.mesh = mesh
	visual.material_override = material
	visual.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	hand.add_child(visual)
	add_child(hand)
	return hand


# Places the agent at a spawn transform (its yaw is kept, pitch and roll are dropped).
func spawn(spawn_transform):
	body_yaw = spawn_transform.basis.get_euler().y
	body.global_transform = Transform(Basis(Vector3.UP, body_yaw), spawn_transform.origin)
	_update_head()
	for i in range(2):
		hands[i].global_transform = _hand_target(i)
		hands[i].add_collision_exception_with(body)
		body.add_collision_exception_with(hands[i])
	hands[0].add_collision_exception_with(hands[1])
	hands[1].add_collision_exception_with(hands[0])
	touch_query.exclude = _own_rids
	_touch_exclude = _own_rids
	space_state = body.get_world().direct_space_state
	previous_transforms = _part_transforms()
	previous_eulers = _eulers(previous_transforms)
	mechanics.on_spawn()


# The body's and hands' RIDs (one shared array: callers copy it before changing it).
func own_rids():
	return _own_rids


func apply_action(action, action_space):
	var dt = Protocol.STEP_SECONDS
	if action_space != "vr":
		action = mouse_keyboard.to_vr(action)
	mechanics.begin_step()
	_turn(Vector3(action[Protocol.VR_HEAD_ROTATION], action[Protocol.VR_HEAD_ROTATION + 1], action[Protocol.VR_HEAD_ROTATION + 2]), dt)
	head_height += action[Protocol.VR_HEAD_POSITION + 1] * Protocol.MAX_HEAD_VERTICAL_SPEED_M_PER_S * dt
	_update_head()
	var hand_rates = [_vector_at(action, Protocol.VR_LEFT_HAND_POSITION), _vector_at(action, Protocol.VR_RIGHT_HAND_POSITION)]
	var jump = action[Protocol.VR_JUMP] >= 0.5
	if holds.is_hanging():
		mechanics.hang(hand_rates, dt)
	else:
		_walk(Vector3(action[Protocol.VR_HEAD_POSITION], 0.0, action[Protocol.VR_HEAD_POSITION + 2]), jump, dt)
	for i in range(2):
		var rotation_rate = _vector_at(action, Protocol.VR_LEFT_HAND_ROTATION if i == 0 else Protocol.VR_RIGHT_HAND_ROTATION)
		if holds.is_anchored(i):
			holds.keep_anchored(i)
		else:
			_move_hand(i, hand_rates[i], rotation_rate, dt)
	mechanics.end_step([action[Protocol.VR_LEFT_GRASP] >= 0.5, action[Protocol.VR_RIGHT_GRASP] >= 0.5], dt)


func _vector_at(action, offset):
	return Vector3(action[offset], action[offset + 1], action[offset + 2])


# Yaw turns the whole agent; pitch and roll turn only the head, within their limits.
func _turn(rates, dt):
	var step = Protocol.MAX_HEAD_TURN_SPEED_RAD_PER_S * dt
	body_yaw = wrapf(body_yaw + rates.y * step, -PI, PI)
	body.global_transform.basis = Basis(Vector3.UP, body_yaw)
	head_pitch = clamp(head_pitch + rates.x * step, -Protocol.HEAD_MAX_PITCH_RAD, Protocol.HEAD_MAX_PITCH_RAD)
	head_roll = clamp(head_roll + rates.z * step, -Protocol.HEAD_MAX_ROLL_RAD, Protocol.HEAD_MAX_ROLL_RAD)


func _update_head():
	head_height = clamp(head_height, Protocol.HEAD_MIN_HEIGHT_M, Protocol.HEAD_MAX_HEIGHT_M)
	head.transform = Transform(Basis(Vector3(head_pitch, 0.0, head_roll)), Vector3(0.0, head_height, 0.0))


# Horizontal motion in the body frame (x right, z back), at most the maximum walking speed;
# the body rises only by jumping and falls under gravity.
func _walk(direction, jump, dt):
	if direction.length() > 1.0:
		direction = direction.normalized()
	var velocity = Basis(Vector3.UP, body_yaw).xform(direction * Protocol.MAX_WALK_SPEED_M_PER_S)
	vertical_speed -= Protocol.GRAVITY_M_PER_S2 * dt
	if jump and _is_standing():
		vertical_speed = Protocol.JUMP_SPEED_M_PER_S
		mechanics.on_jump(vertical_speed)
	velocity.y = vertical_speed
	# Finite inertia: loose items are solid underfoot (a stack of stones can be stood on) and
	# block the body; loose_items.push_items then shoves what the body walked into.
	vertical_speed = body.move_and_slide(velocity, Vector3.UP, true, 4, FLOOR_MAX_ANGLE_RAD, false).y
	loose_items.push_items(velocity)
	mechanics.after_body_motion(body.is_on_floor())


# On the floor after the last slide, or (e.g. on the first step after spawning) just above a
# floor. Only a floor counts: a body in the air touching a wall also "collides" when moved down,
# and once could jump again from there.
func _is_standing():
	if body.is_on_floor():
		return true
	var below = body.move_and_collide(Vector3(0.0, -STANDING_PROBE_M, 0.0), false, true, true)  # test only
	return below != null and below.normal.angle_to(Vector3.UP) <= FLOOR_MAX_ANGLE_RAD


func _hand_target(i):
	var basis = Basis(Vector3.UP, body_yaw) * Basis(hand_rotations[i])
	return Transform(basis, body.global_transform.xform(hand_positions[i]))


# The shoulders sink with the head when crouching, so a crouching agent reaches the ground.
func shoulder_height():
	return Protocol.SHOULDER_HEIGHT_M - (Protocol.HEAD_DEFAULT_HEIGHT_M - head_height)


func rest_position(i):
	return Protocol.LEFT_HAND_REST_M if i == 0 else Protocol.RIGHT_HAND_REST_M


# A hand position in the body frame moved back within arm's reach of its shoulder.
func reach_clamped(i, local):
	var shoulder = Vector3(Protocol.SHOULDER_HALF_WIDTH_M * (-1.0 if i == 0 else 1.0), shoulder_height(), 0.0)
	var reach = local - shoulder
	if reach.length() > Protocol.ARM_REACH_M:
		return shoulder + reach.normalized() * Protocol.ARM_REACH_M
	return local


# Moves a hand toward its new pose relative to the body, stopping where it hits something.
func _move_hand(i, translation_rate, rotation_rate, dt):
	var local = reach_clamped(i, hand_positions[i] + translation_rate * Protocol.MAX_HAND_SPEED_M_PER_S * dt)
	var rotation = hand_rotations[i] + rotation_rate * Protocol.MAX_HAND_TURN_SPEED_RAD_PER_S * dt
	var limit = Protocol.HAND_MAX_ANGLE_RAD
	hand_rotations[i] = Vector3(clamp(rotation.x, -limit, limit), clamp(rotation.y, -limit, limit), clamp(rotation.z, -limit, limit))
	hand_positions[i] = local
	var target = _hand_target(i)
	var hand = hands[i]
	hand.global_transform.basis = target.basis
	var motion = target.origin - hand.global_transform.origin
	motion *= holds.held_item_free_fraction(i, motion)  # a held item does not pass through things
	# Finite inertia: loose items stop the hand (it does not sink into them or drive them into the
	# ground), and loose_items.shove pushes what it ran into, as for the body.
	var collision = hand.move_and_collide(motion, false)
	if collision != null:
		loose_items.shove(collision.collider, collision.normal, motion / dt)
	hand_positions[i] = body.global_transform.xform_inv(hand.global_transform.origin)
	if reach_clamped(i, hand_positions[i]).distance_to(hand_positions[i]) > holds.SLIP_MARGIN_M:
		# Caught behind something while the body moved on: the hand lets go and the arm brings it back.
		holds.release(i)
		hand.global_transform.origin = target.origin
		hand_positions[i] = body.global_transform.xform_inv(target.origin)
	touch_query.transform = hand.global_transform
	var exclude = holds.agent_and_held_rids()  # a held item is not "touched"
	if exclude != _touch_exclude:  # (setting it rebuilds the query's RID set: only when it changes)
		_touch_exclude = exclude
		touch_query.exclude = exclude
	hand_colliding[i] = (collision != null and not holds.is_held(collision.collider)) or not space_state.intersect_shape(touch_query, 1).empty()


func _part_transforms():
	return [body.global_transform, head.global_transform, hands[0].global_transform, hands[1].global_transform]


static func _eulers(transforms):
	return [transforms[0].basis.get_euler(), transforms[1].basis.get_euler(), transforms[2].basis.get_euler(), transforms[3].basis.get_euler()]


# Writes the proprioceptive features (and ground truth) into `features` at the protocol offsets.
# Runs every step: vectors are written inline (a GDScript call costs more than the arithmetic),
# and last frame's Euler angles are kept rather than recomputed.
func write_features(features):
	var current = _part_transforms()
	var eulers = _eulers(current)
	var body_transform = current[0]
	var yaw_basis = body_transform.basis
	for part in range(4):
		var moved = yaw_basis.xform_inv(current[part].origin - previous_transforms[part].origin)
		var now = eulers[part]
		var before = previous_eulers[part]
		var offset = DELTA_POSITION_OFFSETS[part]
		features[offset] = moved.x
		features[offset + 1] = moved.y
		features[offset + 2] = moved.z
		offset = DELTA_ROTATION_OFFSETS[part]
		features[offset] = wrapf(now.x - before.x, -PI, PI)
		features[offset + 1] = wrapf(now.y - before.y, -PI, PI)
		features[offset + 2] = wrapf(now.z - before.z, -PI, PI)
	var body_inverse = body_transform.affine_inverse()
	for part in range(1, 4):
		var relative = body_inverse * current[part]
		var angles = relative.basis.get_euler()
		var offset = RELATIVE_POSITION_OFFSETS[part - 1]
		features[offset] = relative.origin.x
		features[offset + 1] = relative.origin.y
		features[offset + 2] = relative.origin.z
		offset = RELATIVE_ROTATION_OFFSETS[part - 1]
		features[offset] = angles.x
		features[offset + 1] = angles.y
		features[offset + 2] = angles.z
	features[Protocol.F_LEFT_HAND_IS_COLLIDING] = 1.0 if hand_colliding[0] else 0.0
	features[Protocol.F_RIGHT_HAND_IS_COLLIDING] = 1.0 if hand_colliding[1] else 0.0
	features[Protocol.F_LEFT_HAND_IS_GRASPING] = 1.0 if holds.is_grasping(0) else 0.0
	features[Protocol.F_RIGHT_HAND_IS_GRASPING] = 1.0 if holds.is_grasping(1) else 0.0
	features[Protocol.F_WORLD_BODY_POSITION] = body_transform.origin.x
	features[Protocol.F_WORLD_BODY_POSITION + 1] = body_transform.origin.y
	features[Protocol.F_WORLD_BODY_POSITION + 2] = body_transform.origin.z
	features[Protocol.F_WORLD_BODY_YAW] = body_yaw
	previous_transforms = current
	previous_eulers = eulers
