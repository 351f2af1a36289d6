extends RigidBody
# What a knocked-out animal leaves behind (entities/animals/animal.gd): a body that falls, can be
# pushed and, when light enough, carried. A prey's body is food: grasp it and bring it to the
# head to eat it (+`energy`, as for fruit; agent/holds.gd does the eating).

export var kind = ""  # the species
export var is_food = false
export var energy = 1.0
export var size = Vector3(0.5, 0.5, 0.5)
var mesh = null
var sampler = null  # the terrain's TerrainSampler, or null (flat ground)
const MIN_HALF_EXTENT_M = 0.1
const DAMP = 2.0
# Physics frames a new body stays where the animal was before it falls: the rock that knocked the
# animal out may lie deep in it (physics steps at 10 Hz), and a light body pushed out of a heavy
# rock went through the terrain's height map; held still, the rock is pushed out of it instead.
const SETTLE_FRAMES = 5
var _settle_frames_left = SETTLE_FRAMES


func _ready():
	add_to_group("graspable")
	add_to_group("animal_bodies")
	if is_food:
		add_to_group("food")
	mode = RigidBody.MODE_STATIC
	continuous_cd = true
	linear_damp = DAMP
	angular_damp = DAMP
	var material = PhysicsMaterial.new()
	material.rough = true  # the rougher of the two surfaces' frictions: it does not skate down the terrain
	physics_material_override = material
	var shape = BoxShape.new()
	# A prey's body (food) at least MIN_HALF_EXTENT_M thick every way: physics steps at 10 Hz, and a
	# rock landing on a thinner one (a frog's is 0.1 m tall) pressed it through the terrain's height
	# map in one step. A predator's keeps its size (a bee's, larger, stood in the way of a hand
	# reaching for the food it fell by).
	var least = MIN_HALF_EXTENT_M if is_food else 0.0
	shape.extents = Vector3(max(size.x / 2.0, least), max(size.y / 2.0, least), max(size.z / 2.0, least))
	# The thicker box's bottom where the animal's was (not in the ground), the mesh where the animal
	# was (the box's extra height above it): the body is upside down, its local +y is down.
	var lift = shape.extents.y - size.y / 2.0
	global_transform.origin.y += lift
	var shape_node = CollisionShape.new()
	shape_node.name = "Shape"
	shape_node.shape = shape
	add_child(shape_node)
	var instance = MeshInstance.new()
	instance.name = "Mesh"
	instance.mesh = mesh
	instance.translation = Vector3(0.0, lift, 0.0)
	instance.material_override = preload("res://entities/animals/animal_material_two_sided.tres")  # it may be held to the face
	instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	add_child(instance)


func _physics_process(_delta):
	if _settle_frames_left > 0:
		_settle_frames_left -= 1
		if _settle_frames_left == 0 and mode == RigidBody.MODE_STATIC:  # not taken by a hand meanwhile (a held body is kinematic)
			mode = RigidBody.MODE_RIGID
	# A small body pressed into the height field (by a held item, the agent's capsule, a rock) goes
	# through it once its centre is below the surface, and falls for ever: put it back on top.
	if sampler != null and mode == RigidBody.MODE_RIGID:
		var origin = global_transform.origin
		var surface = sampler.surface_height(origin.x, origin.z)
		if origin.y < surface:
			global_transform.origin = Vector3(origin.x, surface + MIN_HALF_EXTENT_M, origin.z)
			linear_velocity = Vector3(linear_velocity.x, max(linear_velocity.y, 0.0), linear_velocity.z)
