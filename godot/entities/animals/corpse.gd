extends RigidBody
# What a knocked-out animal leaves behind (entities/animals/animal.gd): a body that falls, can be
# pushed and, when light enough, carried. A prey's body is food: grasp it and bring it to the
# head to eat it (+`energy`, as for fruit; agent/mechanics.gd does the eating).

export var kind = ""  # the species
export var is_food = false
export var energy = 1.0
export var size = Vector3(0.5, 0.5, 0.5)
var mesh = null


func _ready():
	add_to_group("graspable")
	add_to_group("animal_bodies")
	if is_food:
		add_to_group("food")
	var shape = BoxShape.new()
	shape.extents = size / 2.0
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
