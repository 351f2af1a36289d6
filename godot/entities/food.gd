extends RigidBody
# A piece of food: a physical body the agent picks up and eats. Its origin is at its centre and
# `radius` bounds it; it rests `radius` above the ground (a buried food's local ground level is
# y = -radius: its root is below it). Each kind's scene (entities/food/<kind>.tscn, generated from
# its row of avalon/rules/foods.py) sets every property below; a world may override any of them.
# The rules of the paper's Table 2 are data of a few kinds, applied here from physics contacts
# (docs/items.md lists each food's; this script never branches on the food's name):
#   splatter_speed_m_per_s > 0   splatters (inedible) on an impact at least that fast
#   opening "impact"             inedible until an impact >= open_speed_m_per_s opens it (only from
#                                a body in group `opened_by` when that is set, e.g. "rock")
#   opening "fall"               inedible until it lands falling (its own downward speed) at
#                                >= open_speed_m_per_s
#   dirty_on_ground              gets dirty (inedible) when it touches the ground (groups "terrain"
#                                or "ground")
#   buried_fraction > 0          grows in the ground, locked in place, until a hand grasps it at its
#                                leaves (look "root")
# Any food may hang in a fruit tree (`hanging`, set by the generator): locked in place like a
# growing root, until a hand grasps it or something strikes it at HANGING_FOOD_KNOCK_SPEED_M_PER_S
# or more (a thrown item or an animal, from the physics contacts; a swung tool calls on_hit); then
# it drops from where it hung and the rules above apply to its fall.
# The agent side (godot/agent) calls is_edible, can_grasp_at, on_grasped, on_released; held tools
# (entities/tools/tool.gd) call on_hit.

const Protocol = preload("res://generated/protocol.gd")
const Impacts = preload("res://entities/impacts.gd")

export var kind = ""
export var radius = 0.15
export var color = Color(0.8, 0.1, 0.1)
export var changed_color = Color(0.5, 0.5, 0.5)  # splattered, opened or dirty
export var energy = 1.0
export var look = "sphere"  # avalon/rules/foods.py: LOOKS
export var stem_color = Color(0.35, 0.25, 0.1)  # also its leaves, its stalk when hanging and its pit
export var stem_length = 0.3  # relative to the radius; 0 for none
# Its rule (see above).
export var splatter_speed_m_per_s = 0.0  # 0: it never splatters
export var opening = "none"  # avalon/rules/foods.py: OPENINGS
export var open_speed_m_per_s = 0.0
export var opened_by = ""  # a group ("rock"); "": any body
export var pit_when_opened = false
export var dirty_on_ground = false
export var buried_fraction = 0.0  # of its root's length below the ground while it grows
# Asleep, it stays where the generator put it (even on a slope or hanging in a tree) until
# something touches it; awake, it falls at once.
export var start_asleep = true
# Hanging in a fruit tree: it stays where it was placed, whatever touches it, until it is grasped or
# knocked down. `stalk_length_m` is the stalk drawn from its top up to the branch (0: none).
export var hanging = false
export var stalk_length_m = 0.0

var splattered = false
var opened = false
var dirty = false
var in_ground = false  # a buried food until it is grasped
var impacts = Impacts.new()
var _stem = null
var _stalk = null  # the hanging stalk: it stays with the tree, so it goes when the food falls


func _ready():
	add_to_group("food")
	add_to_group("graspable")
	contact_monitor = true
	contacts_reported = 4
	continuous_cd = true
	sleeping = start_asleep
	in_ground = buried_fraction > 0.0
	if in_ground or hanging:
		_set_locked(true)
	if hanging and stalk_length_m > 0.0:
		_stalk = _cylinder(radius * 0.1, stalk_length_m, stem_color)
		_stalk.translation = Vector3(0, radius + stalk_length_m / 2.0, 0)
		add_child(_stalk)
	if stem_length > 0.0:
		_stem = _cylinder(radius * 0.08, radius * stem_length, stem_color)
		_stem.translation = Vector3(0, radius * (0.8 + stem_length / 2.0), 0)
		add_child(_stem)
	if look == "root":
		_build_root()
	else:
		var shape = SphereShape.new()
		shape.radius = radius
		$Shape.shape = shape
	_update_look()


func is_opened():
	return opened or opening == "none"


func is_edible():
	return is_opened() and not splattered and not dirty


# A buried food is held only by its leaves (its top, above the crown); everything else anywhere.
func can_grasp_at(world_position):
	if buried_fraction <= 0.0:
		return true
	return to_local(world_position).y >= _root_crown_y()


func on_grasped():
	if in_ground:
		in_ground = false  # pulled out: from now on an ordinary body
		_set_locked(false)
	if hanging:
		_fall_from_tree()  # picked: the hand holds it from now on


# A held tool swung into it (tools/tool.gd): the tool's speed over the step.
func on_hit(speed):
	if hanging and speed >= Protocol.HANGING_FOOD_KNOCK_SPEED_M_PER_S:
		_fall_from_tree()


func _fall_from_tree():
	if not hanging:
		return
	hanging = false
	_set_locked(false)
	impacts.reset(Vector3.ZERO)
	if _stalk != null:
		_stalk.queue_free()
		_stalk = null


func on_released():
	impacts.reset(linear_velocity)


func velocity_before_step(age = 0):
	return impacts.velocity_before_step(age)


func _integrate_forces(state):
	var contacts = impacts.contacts(state)
	if mode != MODE_RIGID or in_ground:
		return
	if hanging:
		var knocked = false
		for contact in contacts:
			# Held items (kinematic) strike through on_hit, which tells a blow from drawing back.
			var held = contact.collider is RigidBody and contact.collider.mode == MODE_KINEMATIC
			knocked = knocked or (not held and contact.speed >= Protocol.HANGING_FOOD_KNOCK_SPEED_M_PER_S)
		if not knocked:
			return
		call_deferred("_fall_from_tree")  # not from inside the physics callback
		# ...and the blow itself counts below (a rock that knocks down an orange also opens it).
	var changed = false
	for contact in contacts:
		var collider = contact.collider
		if splatter_speed_m_per_s > 0.0 and not splattered and contact.speed >= splatter_speed_m_per_s:
			splattered = true
			changed = true
		if opening != "none" and not opened and _opens(contact):
			opened = true
			changed = true
		if dirty_on_ground and not dirty and collider != null \
				and (collider.is_in_group("terrain") or collider.is_in_group("ground")):
			dirty = true
			changed = true
	if changed:
		if opened:
			add_to_group("opened_food")  # the agent's open_food achievement looks for this group
		call_deferred("_update_look")


# Whether `contact` opens it: an impact (from a body in group `opened_by`, if set) or its landing
# (its own downward speed), at least open_speed_m_per_s fast.
func _opens(contact):
	if opening == "fall":
		return -contact.own_velocity.y >= open_speed_m_per_s
	if opened_by != "" and (contact.collider == null or not contact.collider.is_in_group(opened_by)):
		return false
	return contact.speed >= open_speed_m_per_s


func _set_locked(locked):
	for axis in [PhysicsServer.BODY_AXIS_LINEAR_X, PhysicsServer.BODY_AXIS_LINEAR_Y, PhysicsServer.BODY_AXIS_LINEAR_Z,
			PhysicsServer.BODY_AXIS_ANGULAR_X, PhysicsServer.BODY_AXIS_ANGULAR_Y, PhysicsServer.BODY_AXIS_ANGULAR_Z]:
		set_axis_lock(axis, locked)
	if not locked:
		sleeping = false


# A buried food's geometry (a carrot): `buried_fraction` of its root is below the local ground
# (y = -radius), its leaves stand above the crown.
func _root_length():
	return radius * 1.6


func _root_crown_y():
	return -radius + (1.0 - buried_fraction) * _root_length()


func _build_root():
	var crown = _root_crown_y()
	var length = _root_length()
	var shape = CylinderShape.new()
	shape.radius = radius * 0.35
	shape.height = radius - (crown - length)
	$Shape.shape = shape
	$Shape.translation = Vector3(0, (radius + crown - length) / 2.0, 0)
	for i in range(3):  # leaves: three thin green cones fanning out of the crown
		var leaf = CylinderMesh.new()
		leaf.top_radius = radius * 0.22
		leaf.bottom_radius = radius * 0.02
		leaf.height = radius - crown
		leaf.radial_segments = 4
		leaf.rings = 1
		var instance = MeshInstance.new()
		instance.mesh = leaf
		instance.material_override = _material(stem_color)
		instance.rotation = Vector3(0.3, i * 2.1, 0)
		instance.translation = Vector3(0, crown + leaf.height / 2.0, 0)
		instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
		add_child(instance)


# A thin four-sided upright cylinder (stems and stalks), centred on its origin.
func _cylinder(cylinder_radius, height, cylinder_color):
	var mesh = CylinderMesh.new()
	mesh.top_radius = cylinder_radius
	mesh.bottom_radius = cylinder_radius
	mesh.height = height
	mesh.radial_segments = 4
	mesh.rings = 1
	var instance = MeshInstance.new()
	instance.mesh = mesh
	instance.material_override = _material(cylinder_color)
	instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	return instance


func _update_look():
	var body_mesh
	var changed = splattered or dirty or opened
	$Mesh.transform = Transform()
	match look:
		"elongated":  # a banana: a long thin capsule lying along x
			body_mesh = CapsuleMesh.new()
			body_mesh.radius = radius * 0.3
			body_mesh.mid_height = radius * 1.4
			body_mesh.radial_segments = 6
			body_mesh.rings = 2
			$Mesh.rotation_degrees = Vector3(0, 90, 0)
		"hexagon":  # a honeycomb: a flat hexagonal prism
			body_mesh = CylinderMesh.new()
			body_mesh.top_radius = radius
			body_mesh.bottom_radius = radius
			body_mesh.height = radius * 0.8
			body_mesh.radial_segments = 6
			body_mesh.rings = 1
		"root":  # a carrot: a cone pointing down, mostly below the ground
			body_mesh = CylinderMesh.new()
			body_mesh.top_radius = radius * 0.35
			body_mesh.bottom_radius = 0.0
			body_mesh.height = _root_length()
			body_mesh.radial_segments = 6
			body_mesh.rings = 1
			$Mesh.translation = Vector3(0, _root_crown_y() - body_mesh.height / 2.0, 0)
		_:
			body_mesh = SphereMesh.new()
			body_mesh.radius = radius
			body_mesh.height = 2.0 * radius
			body_mesh.radial_segments = 8
			body_mesh.rings = 4
	if splattered:  # squashed flat on what it hit
		$Mesh.scale = Vector3(1.5, 0.3, 1.5)
		$Mesh.translation = Vector3(0, -0.7 * radius, 0)
	elif opened:  # split open: the flesh shows
		$Mesh.scale = Vector3(1.1, 0.6, 1.1)
		$Mesh.translation = Vector3(0, -0.4 * radius, 0)
		if pit_when_opened and get_node_or_null("Pit") == null:
			var pit = SphereMesh.new()
			pit.radius = radius * 0.4
			pit.height = radius * 0.8
			pit.radial_segments = 6
			pit.rings = 3
			var instance = MeshInstance.new()
			instance.name = "Pit"
			instance.mesh = pit
			instance.material_override = _material(stem_color)
			instance.translation = Vector3(0, -0.1 * radius, 0)
			add_child(instance)
	if _stem != null:
		_stem.visible = not changed
	$Mesh.mesh = body_mesh
	$Mesh.material_override = _material(changed_color if changed else color)


static func _material(albedo):
	var material = SpatialMaterial.new()
	material.albedo_color = albedo
	return material
