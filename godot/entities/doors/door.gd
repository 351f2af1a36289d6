extends Spatial
# A door filling a doorway (docs/doors.md; its numbers come from avalon/rules/doors.py through its
# mechanism's scene, entities/doors/<mechanism>.tscn, and generated/protocol.gd). Its origin is the
# bottom centre of the opening in the middle of the wall, its front faces +z. It builds its leaf
# (a door_part.gd turning on a hinge or sliding; one mesh with its handles) and puts on it the locks
# the world gives it (entities/doors/<lock>.tscn: bolt and bar on the leaf's front, the button on
# the wall beside the latch edge). It keeps the door's state: the latch, and whether a lock is
# engaged; while one is, the leaf does not move and its handles cannot be grasped.

const Protocol = preload("res://generated/protocol.gd")
const DoorPart = preload("res://entities/doors/door_part.gd")
const DoorMesh = preload("res://entities/doors/door_mesh.gd")
# The lock scenes by kind (generated; never a path made from a world's values).
const LOCK_SCENES = {
	"bolt": preload("res://entities/doors/bolt.tscn"),
	"bar": preload("res://entities/doors/bar.tscn"),
	"button": preload("res://entities/doors/button.tscn"),
}

# The mechanism's row (its scene)
export var mechanism = ""
export var motion = "hinged"  # "hinged" or "sliding"
export var push_rad = 0.0  # how far a hinged leaf turns away from the front, radians
export var pull_rad = 0.0  # ...and toward it
export var leaf_color = Color(0.55, 0.36, 0.2)
export var handle_color = Color(0.15, 0.13, 0.12)
export var leaf_mass_kg = 30.0
# This door (the world's door entity)
export var width_m = 1.4  # the opening's
export var height_m = 2.5
export var wall_thickness_m = 0.2
export var hinge_side = "left"  # seen from the front: the side a hinged leaf turns on, a sliding one slides to
export var latch = "none"  # "none", "once" (until first grasped), "always" (again after each release)
export var locks = PoolStringArray()  # some of "bolt", "bar", "button"

var leaf  # door_part.gd
var lock_parts = []  # the bolt and bar (door_part.gd)
var button = null  # door_button.gd
var button_frames_left = 0  # physics frames the button keeps the door unlocked
var latched = false
var handles = []  # the handles' centres in the leaf's frame
var _rids = []


func _ready():
	var problem = _problem()
	if problem != "":
		push_error("door %s: %s (avalon/rules/doors.py)" % [name, problem])
		return
	latched = latch != "none"
	_build_leaf()
	for kind in locks:
		var lock = LOCK_SCENES[kind].instance()
		if kind == "button":
			_place_button(lock)
		else:
			_place_on_leaf(lock)
	_rids = [leaf.get_rid()]
	for part in lock_parts:
		_rids.append(part.get_rid())
	if button != null:
		_rids.append(button.get_rid())


func _problem():
	if not mechanism in ["hinged_both", "hinged_push", "hinged_pull", "sliding"] or not motion in ["hinged", "sliding"]:
		return "unknown mechanism %s" % mechanism
	if not hinge_side in Protocol.SIDES:
		return "hinge_side %s is not one of %s" % [hinge_side, Protocol.SIDES]
	if not latch in Protocol.LATCHES:
		return "latch %s is not one of %s" % [latch, Protocol.LATCHES]
	var seen = []
	for kind in locks:
		if not kind in Protocol.LOCK_KINDS or not kind in LOCK_SCENES or kind in seen:
			return "locks %s: expected distinct kinds of %s" % [locks, Protocol.LOCK_KINDS]
		seen.append(kind)
	return ""


# The leaf's width (across the opening), metres.
func leaf_length():
	if motion == "sliding":
		return width_m + 2.0 * Protocol.SLIDING_OVERLAP_M
	return width_m - Protocol.HINGE_GAP_M - Protocol.LATCH_GAP_M


# +1 when the hinge (or where it slides to) is on the left seen from the front (-x), else -1.
func _side():
	return 1.0 if hinge_side == "left" else -1.0


func _build_leaf():
	var length = leaf_length()
	var thickness = Protocol.DOOR_THICKNESS_M
	var leaf_height = height_m - Protocol.FLOOR_GAP_M - (Protocol.TOP_GAP_M if motion == "hinged" else 0.0)
	leaf = DoorPart.new()
	leaf.name = "Leaf"
	leaf.mass = leaf_mass_kg
	var centre_x = _side() * length / 2.0 if motion == "hinged" else 0.0
	var latch_x = _latch_x()
	var handle_size = Protocol.HANDLE_SIZE_M
	var boxes = [[Vector3(centre_x, leaf_height / 2.0, 0.0), Vector3(length, leaf_height, thickness), leaf_color]]
	for face in [1.0, -1.0]:
		var handle = Vector3(latch_x + _inward() * Protocol.HANDLE_INSET_M, Protocol.HANDLE_HEIGHT_M - Protocol.FLOOR_GAP_M,
				face * (thickness + handle_size.z) / 2.0)
		handles.append(handle)
		boxes.append([handle, handle_size, handle_color])
	leaf.add_child(DoorMesh.box_shape(boxes[0][0], boxes[0][1]))
	leaf.add_child(DoorMesh.mesh_instance(boxes))
	add_child(leaf)
	leaf.kind = "leaf"
	if motion == "hinged":
		var hinge = Vector3(-_side() * (width_m / 2.0 - Protocol.HINGE_GAP_M), Protocol.FLOOR_GAP_M, 0.0)
		leaf.configure(self, "turn_y", hinge, _side(), push_rad)
		leaf.low = -pull_rad
	else:
		var front = wall_thickness_m / 2.0 + Protocol.SLIDING_WALL_GAP_M + thickness / 2.0
		leaf.configure(self, "slide", Vector3(0.0, Protocol.FLOOR_GAP_M, front), Vector3(-_side(), 0.0, 0.0),
				width_m + Protocol.SLIDING_OVERLAP_M)


# The leaf's latch edge (a hinged leaf's free edge; a sliding leaf's edge away from where it
# slides), x in the leaf's frame; both on the side opposite the hinge (or where it slides to).
func _latch_x():
	if motion == "hinged":
		return _side() * leaf_length()
	return _side() * leaf_length() / 2.0


# The direction along x from the latch edge into the leaf.
func _inward():
	return -_side()


# A bolt or bar on the leaf's front at its latch edge: the bolt slides inward, the bar turns up
# about its inner end; each reaches past the latch edge while it locks.
func _place_on_leaf(lock):
	var latch_x = _latch_x()
	var inward = _inward()
	var y = lock.height_m - Protocol.FLOOR_GAP_M
	var z = (Protocol.DOOR_THICKNESS_M + lock.size.z) / 2.0
	leaf.add_child(lock)
	if lock.kind == "bolt":
		var centre_x = latch_x - inward * (lock.unlocked_from - lock.size.x / 2.0)
		lock.configure(self, "slide", Vector3(centre_x, y, z), Vector3(inward, 0.0, 0.0), lock.travel)
		lock.build_lock(Vector3.ZERO)
	else:
		var pivot_x = latch_x + inward * (lock.size.x - Protocol.BAR_REACH_M)
		lock.configure(self, "turn_z", Vector3(pivot_x, y, z), -inward, lock.travel)
		lock.build_lock(Vector3(-inward * lock.size.x / 2.0, 0.0, 0.0))
	lock_parts.append(lock)


# The button on the wall's front face beside the opening's latch-side edge.
func _place_button(lock):
	lock.translation = Vector3(_side() * (width_m / 2.0 + Protocol.BUTTON_SIDE_OFFSET_M), lock.height_m,
			(wall_thickness_m + lock.size.z) / 2.0)
	lock.door = self
	add_child(lock)
	button = lock


func own_rids():
	return _rids


func is_locked():
	if button != null and button_frames_left <= 0:
		return true
	for part in lock_parts:
		if part.locks():
			return true
	return false


func may_grasp(part, local_point):
	if part != leaf:
		return true
	if is_locked():
		return false
	for handle in handles:
		if local_point.distance_to(handle) <= Protocol.HANDLE_GRASP_M:
			return true
	return false


# Whether `part` may move now: moved by a hand, or (`pushed`) pushed by the body or a hand.
func may_move(part, pushed):
	if part != leaf:
		return true
	return not is_locked() and (not pushed or not latched)


func on_grasped(part):
	if part == leaf:
		latched = false


func on_released(part):
	if part == leaf and part.grips == 0 and latch == "always":
		latched = true


# Touched: the button keeps the door unlocked for BUTTON_UNLOCK_S from now.
func press_button():
	button_frames_left = int(round(Protocol.BUTTON_UNLOCK_S * Protocol.STEPS_PER_SECOND))
	button.show_unlocked(true)


func _physics_process(_delta):
	if button != null and button_frames_left > 0:
		button_frames_left -= 1
		if button_frames_left == 0:
			button.show_unlocked(false)
