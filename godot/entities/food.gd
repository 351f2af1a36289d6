extends RigidBody
# A piece of food: a physical body the agent will pick up and eat (eating arrives with the
# full embodiment). Its origin is at its centre.

export var radius = 0.15
export var color = Color(0.8, 0.1, 0.1)
export var energy = 1.0


func _ready():
	add_to_group("food")
	var mesh = SphereMesh.new()
	mesh.radius = radius
	mesh.height = 2.0 * radius
	mesh.radial_segments = 8
	mesh.rings = 4
	var material = SpatialMaterial.new()
	material.albedo_color = color
	$Mesh.mesh = mesh
	$Mesh.material_override = material
	var shape = SphereShape.new()
	shape.radius = radius
	$Shape.shape = shape
