extends RigidBody
# What a knocked-out animal leaves behind (entities/animals/animal.gd): a body that falls, can be
# pushed and, when light enough, carried. A prey's body is food: grasp it and bring it to the
# head to eat it (+`energy`, as for fruit; agent/mechanics.gd does the eating).

export var kind = ""  # the species
export var is_food = false
export var energy = 1.0
export var size = Vector3(0.5, 0.5, 0.5)
var mesh = null
const MIN_HALF_EXTENT_M = 0.1


func _ready():
	add_to_group("graspable")
	add_to_group("animal_bodies")
	if is_food:
		add_to_group("food")
	var shape = BoxShape.new()
	# At least MIN_HALF_EXTENT_M thick every way: physics steps at 10 Hz, and a rock landing on a
	# thinner body (a frog's is 0.1 m tall) pressed it through the terrain's height map in one step.
	shape.extents = Vector3(max(size.x, 2.0 * MIN_HALF_EXTENT_M), max(size.y, 2.0 * MIN_HALF_EXTENT_M), max(size.z, 2.0 * MIN_HALF_EXTENT_M)) / 2.0
	var shape_node = CollisionShape.new()
	shape_node.name = "Shape"
	shape_node.shape = shape
	add_child(shape_node)
	var instance = MeshInstance.new()
	instance.name = "Mesh"
	instance.mesh = mesh
	instance.material_override = preload("res://entities/animals/animal_material_two_sided.tres")  # it may be held to the face
	instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	add_child(instance)
