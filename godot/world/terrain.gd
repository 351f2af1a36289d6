tool
extends Spatial
# The island of a generated world, built from `data_file` beside world.tscn (written by
# avalon/datagen/export/terrain_data.py): unshaded chunk meshes with baked vertex colours, a
# height-field collider that matches them triangle for triangle, the water plane, and the
# climbability grid the agent's hands will query.

export var data_file = "terrain.bin"

const WATER_COLOR = Color(0.16, 0.36, 0.55)
const WATER_EXTENT = 3.0  # the sea plane spans this many world sizes

var rows = 0
var cols = 0
var cell_size_m = 1.0
var size_m = 0.0
var heights = PoolRealArray()
var climbable = PoolByteArray()


func _ready():
	if Engine.editor_hint and get_child_count() == 0 and owner != null:
		load_data(owner.filename.get_base_dir())  # show the terrain when the world opens in the editor


# Builds the terrain from the data file in `world_dir`; returns "" or what went wrong.
func load_data(world_dir):
	var path = world_dir.plus_file(data_file)
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return "cannot open %s" % path
	var data = file.get_var()
	file.close()
	if typeof(data) != TYPE_DICTIONARY or not data.has("chunks") or data.get("format_version") != 1:
		return "%s is not a terrain data file this simulator reads" % path
	rows = data.rows
	cols = data.cols
	cell_size_m = data.cell_size_m
	size_m = data.size_m
	heights = data.heights
	climbable = data.climbable
	if heights.size() != rows * cols or climbable.size() != rows * cols:
		return "%s: grids do not match %d x %d" % [path, rows, cols]
	var material = SpatialMaterial.new()
	material.flags_unshaded = true
	material.vertex_color_use_as_albedo = true
	material.vertex_color_is_srgb = true
	for chunk in data.chunks:
		var arrays = []
		arrays.resize(Mesh.ARRAY_MAX)
		arrays[Mesh.ARRAY_VERTEX] = chunk.vertices
		arrays[Mesh.ARRAY_COLOR] = chunk.colors
		arrays[Mesh.ARRAY_INDEX] = chunk.indices
		var mesh = ArrayMesh.new()
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
		var instance = MeshInstance.new()
		instance.mesh = mesh
		instance.material_override = material
		instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
		add_child(instance)
	_add_collider()
	_add_water(data.water_height_m)
	return ""


func _add_collider():
	var shape = HeightMapShape.new()
	shape.map_width = cols
	shape.map_depth = rows
	shape.map_data = heights
	var collider = CollisionShape.new()
	collider.shape = shape
	collider.scale = Vector3(cell_size_m, 1.0, cell_size_m)  # height-field cells are 1 unit wide
	var body = StaticBody.new()
	body.name = "Ground"
	body.add_to_group("terrain")
	body.add_child(collider)
	add_child(body)


func _add_water(height_m):
	var plane = PlaneMesh.new()
	plane.size = Vector2(size_m, size_m) * WATER_EXTENT
	var material = SpatialMaterial.new()
	material.flags_unshaded = true
	material.albedo_color = WATER_COLOR
	var water = MeshInstance.new()
	water.name = "Water"
	water.mesh = plane
	water.material_override = material
	water.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	water.translation = Vector3(0.0, height_m, 0.0)
	add_child(water)


# Terrain height (bilinear) at a world position; the grid is centred on the world origin.
func height_at(x, z):
	var gx = clamp((x + size_m / 2.0) / cell_size_m, 0.0, cols - 1.001)
	var gz = clamp((z + size_m / 2.0) / cell_size_m, 0.0, rows - 1.001)
	var c = int(gx)
	var r = int(gz)
	var fx = gx - c
	var fz = gz - r
	var top = lerp(heights[r * cols + c], heights[r * cols + c + 1], fx)
	var bottom = lerp(heights[(r + 1) * cols + c], heights[(r + 1) * cols + c + 1], fx)
	return lerp(top, bottom, fz)


# Whether the terrain surface at a world position can be climbed (nearest grid point).
func is_climbable(x, z):
	var c = int(round(clamp((x + size_m / 2.0) / cell_size_m, 0.0, cols - 1)))
	var r = int(round(clamp((z + size_m / 2.0) / cell_size_m, 0.0, rows - 1)))
	return climbable[r * cols + c] != 0
