extends StaticBody
# A static box (an obstacle, landmark or climbable block). Its origin is at its centre.
# `face_colors` (+x, -x, +y, -y, +z, -z) carry baked lighting from the exporter
# (avalon/datagen/lighting.py), so the box is drawn unshaded; without them it is lit by Godot.

export var size = Vector3(1, 1, 1)
export var color = Color(0.6, 0.6, 0.6)
export var face_colors = PoolColorArray()
export var climbable = false  # the agent's hands can hold its faces (group "climbable")


func _ready():
	if climbable:
		add_to_group("climbable")
	var cube = CubeMesh.new()
	cube.size = size
	var material = SpatialMaterial.new()
	if face_colors.size() == 6:
		$Mesh.mesh = _baked_mesh(cube)
		material.flags_unshaded = true
		material.vertex_color_use_as_albedo = true
		material.vertex_color_is_srgb = true
	else:
		$Mesh.mesh = cube
		material.albedo_color = color
	$Mesh.material_override = material
	var shape = BoxShape.new()
	shape.extents = size / 2.0
	$Shape.shape = shape


func _baked_mesh(cube):
	var arrays = cube.get_mesh_arrays()
	var normals = arrays[Mesh.ARRAY_NORMAL]
	var colors = PoolColorArray()
	colors.resize(normals.size())
	for i in range(normals.size()):
		colors[i] = face_colors[_face_index(normals[i])]
	arrays[Mesh.ARRAY_COLOR] = colors
	var mesh = ArrayMesh.new()
	mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	return mesh


static func _face_index(normal):
	var axis = normal.abs().max_axis()
	return axis * 2 + (0 if normal[axis] > 0.0 else 1)
