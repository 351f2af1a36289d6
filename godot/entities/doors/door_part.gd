extends RigidBody
# A part of a door that moves along one degree of freedom (docs/doors.md): the leaf (turning on its
# hinge or sliding), a bolt (sliding along the leaf) or a bar (turning about its pivot on the leaf).
# Kinematic: Bullet never moves it. A hand that grasps it drags it (agent/holds.gd calls
# grasp_mechanism, follow_hand, release_mechanism); the body or a hand walking into a free leaf
# pushes it (agent/loose_items.gd calls pushed_by_agent). Its door (door.gd) says when it may move
# and be grasped. Every move is swept: in sub-steps of at most SWEEP_TURN_RAD or SWEEP_SLIDE_M, it
# stops short of any body it would overlap (the agent's body, an animal, an item; not static walls
# and ground, which a door fills by construction), so it neither pushes nor passes through them.
# The properties a lock's scene sets (entities/doors/<lock>.tscn) come from avalon/rules/doors.py.

const Protocol = preload("res://generated/protocol.gd")
const DoorMesh = preload("res://entities/doors/door_mesh.gd")

export var kind = "leaf"  # "leaf", or a lock kind: "bolt", "bar"
export var size = Vector3(0.3, 0.06, 0.05)  # a lock's box, metres
export var color = Color(0.5, 0.5, 0.5)
export var unlocked_color = Color(0, 0, 0)
export var height_m = 1.0  # a lock's centre above the floor
export var travel = 0.0  # a lock's range: metres (bolt) or radians (bar)
export var unlocked_from = 0.0  # from here on a lock no longer locks (same unit)

var door  # door.gd
var joint = "turn_y"  # "turn_y" (about the vertical through `pivot`), "turn_z" (about the leaf's normal), "slide"
var pivot = Vector3.ZERO  # in the parent's frame: the origin at value 0
var turn_sign = 1.0  # a turn joint turns by turn_sign * value
var slide_direction = Vector3.RIGHT  # a slide joint moves along this (parent's frame)
var low = 0.0
var high = 0.0
var value = 0.0
var grip = null  # the grasped point in this part's frame while a hand holds it
var grips = 0  # hands holding it
var pushed_frame = -1  # the physics frame of the last push (one push per step)
var _query = PhysicsShapeQueryParameters.new()


func _ready():
	mode = RigidBody.MODE_KINEMATIC
	add_to_group("graspable")


# Sets the joint (in the parent's frame: its origin at value 0, its turn sign or slide direction,
# its range's top; the bottom stays 0 unless the door sets `low`) and poses the part at its value.
func configure(owner_door, joint_kind, origin, sign_or_direction, range_high):
	door = owner_door
	joint = joint_kind
	pivot = origin
	if joint == "slide":
		slide_direction = sign_or_direction
	else:
		turn_sign = sign_or_direction
	high = range_high
	transform = pose(value)


# Its transform in the parent's frame at `at`.
func pose(at):
	match joint:
		"turn_y":
			return Transform(Basis(Vector3.UP, turn_sign * at), pivot)
		"turn_z":
			return Transform(Basis(Vector3.BACK, turn_sign * at), pivot)
	return Transform(Basis(), pivot + slide_direction * at)


func locks():
	return kind != "leaf" and value < unlocked_from


func can_grasp_at(position):
	return door.may_grasp(self, to_local(position))


func grasp_mechanism(hand_position):
	grip = to_local(hand_position)
	grips += 1
	door.on_grasped(self)


func release_mechanism():
	grips = max(0, grips - 1)
	if grips == 0:
		grip = null
	door.on_released(self)


# The hand holding it is at `hand_position`: it moves toward the value that brings the grasped
# point nearest the hand. False when the part was held back so far that the hand slips off.
func follow_hand(hand_position, exclude):
	if grip == null:
		return false
	if door.may_move(self, false):
		drive_to(_value_toward(get_parent().global_transform.xform_inv(hand_position)), exclude)
	return global_transform.xform(grip).distance_to(hand_position) <= Protocol.GRIP_SLIP_M


# The body or a hand moving at `velocity` (world) ran into it (contact `normal`, out of it): a
# free hinged leaf turns away from the push as if pushed at PUSH_LEVER_FRACTION of its width.
func pushed_by_agent(normal, velocity, exclude):
	var frame = Engine.get_physics_frames()
	if joint != "turn_y" or pushed_frame == frame or not door.may_move(self, true):
		return
	var push = Vector3(-normal.x, 0.0, -normal.z).normalized()
	var front = global_transform.basis.z
	var speed = velocity.dot(push)
	if speed <= 0.0 or abs(push.dot(front)) < 0.5:
		return  # not into a face of the leaf
	pushed_frame = frame
	var turn = speed * Protocol.STEP_SECONDS / (Protocol.PUSH_LEVER_FRACTION * door.leaf_length())
	drive_to(value + (turn if push.dot(front) < 0.0 else -turn), exclude)


# The value that brings the grasped point nearest `local` (a point in the parent's frame).
func _value_toward(local):
	var hand = local - pivot
	var held = pose(value).basis.xform(grip)  # the grasped point, from the pivot, as the part stands
	match joint:
		"turn_y":
			return value + turn_sign * wrapf(atan2(-hand.z, hand.x) - atan2(-held.z, held.x), -PI, PI)
		"turn_z":
			return value + turn_sign * wrapf(atan2(hand.y, hand.x) - atan2(held.y, held.x), -PI, PI)
	return (hand - grip).dot(slide_direction)


# Drives it toward `target` (clamped to its range and to the fastest a door moves in a step), in
# sub-steps, stopping before the first pose that overlaps a body other than its own door's parts
# and `exclude` (the agent's hands).
func drive_to(target, exclude):
	var slide = joint == "slide"
	var most = (Protocol.MAX_DOOR_SLIDE_M_PER_S if slide else Protocol.MAX_DOOR_TURN_RAD_PER_S) * Protocol.STEP_SECONDS
	target = clamp(clamp(target, value - most, value + most), low, high)
	var steps = int(ceil(abs(target - value) / (Protocol.SWEEP_SLIDE_M if slide else Protocol.SWEEP_TURN_RAD)))
	var start = value
	for k in range(1, steps + 1):
		var next = start + (target - start) * float(k) / steps
		if _overlaps(pose(next), exclude):
			break
		value = next
	transform = pose(value)


# Whether the part at `local_pose` overlaps a body. The leaf is tested as its box shrunk by
# SWEEP_INSET_M on every side, so it stops at static walls in its way (a wall beside the doorway in
# its swing, a corner of a hallway) but not at the opening it fills, 2-5 cm clear of it; a bolt
# and a bar reach into the wall by design, and are stopped by movable bodies only.
func _overlaps(local_pose, exclude):
	var parent_transform = get_parent().global_transform
	_query.exclude = exclude + door.own_rids()
	for swept in _swept_shapes():
		_query.set_shape(swept[0])
		_query.transform = parent_transform * local_pose * swept[1]
		for hit in get_world().direct_space_state.intersect_shape(_query, 8):
			var body = hit.collider
			if body == null:
				continue
			if kind == "leaf" or not (body is StaticBody or (body is RigidBody and body.mode == RigidBody.MODE_STATIC)):
				return true
	return false


var _swept = null  # [shape, transform] per collision shape, as swept


func _swept_shapes():
	if _swept != null:
		return _swept
	_swept = []
	for child in get_children():
		if not child is CollisionShape or not child.shape is BoxShape:
			continue
		var shape = child.shape
		if kind == "leaf":
			shape = BoxShape.new()
			var inset = Vector3.ONE * Protocol.SWEEP_INSET_M
			shape.extents = (child.shape.extents - inset).abs() + Vector3.ONE * 0.001
			shape.margin = 0.001
		_swept.append([shape, child.transform])
	return _swept


# A lock's box and mesh, centred `centre` in its own frame.
func build_lock(centre):
	add_child(DoorMesh.box_shape(centre, size))
	add_child(DoorMesh.mesh_instance([[centre, size, color]]))
