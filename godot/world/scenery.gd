tool
extends Spatial
# Trees, bushes, flowers and mushrooms of a generated world, built from `data_file` beside
# world.tscn (written by avalon/datagen/export/scenery_data.py): one MultiMeshInstance per part
# of each kind (baked shading, per-instance colour), and a cylinder collider per tree trunk.

export var data_file = "scenery.bin"


func _ready():
	if Engine.editor_hint and get_child_count() == 0 and owner != null:
		load_data(owner.filename.get_base_dir())


# Builds the scenery from the data file in `world_dir`; returns "" or what went wrong.
func load_data(world_dir):
	var path = world_dir.plus_file(data_file)
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return "cannot open %s" % path
	var data = file.get_var()
	file.close()
	if typeof(data) != TYPE_DICTIONARY or not data.has("parts") or not data.has("colliders"):
		return "%s is not a scenery data file this simulator reads" % path
	var material = SpatialMaterial.new()
	material.flags_unshaded = true
	material.vertex_color_use_as_albedo = true
	material.vertex_color_is_srgb = true
	for part in data.parts:
		var arrays = []
		arrays.resize(Mesh.ARRAY_MAX)
		arrays[Mesh.ARRAY_VERTEX] = part.vertices
		arrays[Mesh.ARRAY_COLOR] = part.colors
		arrays[Mesh.ARRAY_INDEX] = part.indices
		var mesh = ArrayMesh.new()
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
		var multimesh = MultiMesh.new()
		multimesh.transform_format = MultiMesh.TRANSFORM_3D
		multimesh.color_format = MultiMesh.COLOR_FLOAT
		multimesh.mesh = mesh
		multimesh.instance_count = part.instance_colors.size()
		multimesh.transform_array = part.transforms
		multimesh.color_array = part.instance_colors
		var instance = MultiMeshInstance.new()
		instance.name = part.name
		instance.multimesh = multimesh
		instance.material_override = material
		instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
		add_child(instance)
	var trees = StaticBody.new()
	trees.name = "Trees"
	trees.add_to_group("trees")
	for collider in data.colliders:
		for i in range(collider.bases.size()):
			var scale = collider.scales[i]
			var trunk = CylinderShape.new()
			trunk.radius = collider.radius_m * scale
			trunk.height = collider.height_m * scale
			var shape = CollisionShape.new()
			shape.shape = trunk
			shape.translation = collider.bases[i] + Vector3(0.0, trunk.height / 2.0, 0.0)
			trees.add_child(shape)
	add_child(trees)
	return ""
