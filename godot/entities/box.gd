extends StaticBody
# A static box (an obstacle or landmark). Its origin is at its centre.

export var size = Vector3(1, 1, 1)
export var color = Color(0.6, 0.6, 0.6)


func _ready():
	var mesh = CubeMesh.new()
	mesh.size = size
	var material = SpatialMaterial.new()
	material.albedo_color = color
	$Mesh.mesh = mesh
	$Mesh.material_override = material
	var shape = BoxShape.new()
	shape.extents = size / 2.0
	$Shape.shape = shape
