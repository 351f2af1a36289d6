tool
extends Spatial
# The static world of a generated island, built from `data_file` beside world.tscn (written by
# avalon/datagen/export/terrain_data.py): one unshaded, vertex-coloured mesh per chunk and level
# of detail holding terrain, water and scenery (one draw call per chunk), the open sea around,
# a full-detail height-field collider (at full detail the meshes match it triangle for
# triangle), a cylinder collider per tree trunk, and the climbability grid.

export var data_file = "terrain.bin"

const StaticWorldShader = preload("res://world/static_world.shader")
const TerrainSampler = preload("res://native/terrain_sampler.gdns")  # native/terrain.c
const TerrainFile = preload("res://world/terrain_file.gd")

const FOG_PARAMETERS = ["fog_enabled", "fog_color", "fog_begin_m", "fog_end_m"]  # static_world.shader's fog uniforms
const TRUNKS_PER_BODY = 16
const LOD_UPDATE_DISTANCE_M = 4.0  # reselect levels after the viewer moves this far
# Opaque materials are drawn in order of render priority: the static world after everything else
# (animals, items, the hands), so that llvmpipe rejects its fragments behind those by the depth
# test before shading them. The same picture (opaque, depth-tested), fewer fragments shaded.
const DRAWN_AFTER_OTHER_OPAQUES = 1

var rows = 0
var cols = 0
var cell_size_m = 1.0
var size_m = 0.0
var heights = PoolRealArray()
var max_slope = 0.0  # rise over run: the ground's height differs by at most this times the horizontal distance
var sampler = null  # TerrainSampler: surface_height(x, z), the collider's surface, in native code
var climbable = PoolByteArray()
var tree_obstacles = []  # [x, z, radius in metres] per tree trunk (the terrain node is not scaled or moved)
var lod_distances_m = []
var chunk_centres = []  # Vector3 per chunk
var chunk_half_sizes = []  # Vector3 per chunk: half its width along x and z
var chunk_levels = []  # per chunk: an Array of MeshInstance (null until first shown), finest first
var chunk_level_data = []  # per chunk: an Array of the levels' arrays (vertices, colours, indices)
var chunk_shown = []  # per chunk: the index of the visible level
var lod_viewer = Vector3(INF, INF, INF)
var static_material = null  # the ShaderMaterial of terrain, water and plants (its fog: see _static_material)
# AVALON_PROFILE=1 (`avalon world benchmark --profile`): what the renderer drew, summed over the
# frames of this world, printed to the log (stderr: unbuffered) when the world is freed.
var profiling = OS.get_environment("AVALON_PROFILE") == "1"
var profiled = [0, 0, 0, 0]  # frames, draw calls, vertices, objects


func _ready():
	if Engine.editor_hint and get_child_count() == 0 and owner != null:
		load_data(owner.filename.get_base_dir())  # show the terrain when the world opens in the editor


# Builds the terrain from the data file in `world_dir`; returns "" or what went wrong. The file is
# read and checked whole first (terrain_file.gd): a bad one is an error message, never a crash.
func load_data(world_dir):
	var read = TerrainFile.read(world_dir, data_file)
	if read.error != "":
		return read.error
	var data = read.data
	var path = world_dir.plus_file(data_file)
	rows = data.rows
	cols = data.cols
	cell_size_m = data.cell_size_m
	size_m = data.size_m
	heights = data.heights
	max_slope = data.max_slope
	climbable = data.climbable
	sampler = TerrainSampler.new()
	if sampler == null:
		return "the simulator's native library did not load (godot/native/libavalon_native.so): run `make setup`"
	if not sampler.load(heights, cols, rows, cell_size_m, size_m):
		return "%s: the native terrain sampler refused its %d x %d grid" % [path, rows, cols]
	var material = _static_material()
	static_material = material
	lod_distances_m = data.lod_distances_m
	# A level's mesh is made when it is first shown: a reset builds one level per chunk, mostly
	# the coarsest (most of an island is far away), and the same mesh whenever it is built.
	for chunk in data.chunks:
		var levels = []
		levels.resize(chunk.levels.size())
		chunk_centres.append(chunk.centre)
		chunk_half_sizes.append(chunk.half_size)
		chunk_levels.append(levels)
		chunk_level_data.append(chunk.levels)
		chunk_shown.append(-1)
	update_lod(Vector3.ZERO, true)
	_mesh_instance(data.sea, material).name = "Sea"
	_add_collider()
	_add_tree_colliders(data.tree_colliders)
	return ""


# The static world's material; its fog follows the world's Environment (one source: the exporter).
func _static_material():
	var material = ShaderMaterial.new()
	material.shader = StaticWorldShader
	material.render_priority = DRAWN_AFTER_OTHER_OPAQUES
	var holder = get_parent().get_node_or_null("Environment") if get_parent() != null else null
	if holder is WorldEnvironment and holder.environment != null and holder.environment.fog_enabled:
		var environment = holder.environment
		material.set_shader_param("fog_enabled", true)
		material.set_shader_param("fog_color", environment.fog_color)
		material.set_shader_param("fog_begin_m", environment.fog_depth_begin)
		material.set_shader_param("fog_end_m", environment.fog_depth_end)
	return material


# Gives `material` (of the static world's shader or its two-sided variant) the fog of `source`, a
# material of that shader (null: no fog, the shader's defaults).
static func copy_fog(source, material):
	for parameter in FOG_PARAMETERS:
		material.set_shader_param(parameter, source.get_shader_param(parameter) if source != null else null)


func _mesh_instance(arrays_by_name, material):
	var arrays = []
	arrays.resize(Mesh.ARRAY_MAX)
	arrays[Mesh.ARRAY_VERTEX] = arrays_by_name.vertices
	arrays[Mesh.ARRAY_COLOR] = arrays_by_name.colors
	arrays[Mesh.ARRAY_INDEX] = arrays_by_name.indices
	var mesh = ArrayMesh.new()
	mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	var instance = MeshInstance.new()
	instance.mesh = mesh
	instance.material_override = material
	instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	add_child(instance)
	return instance


# Trees collide (and will be climbable): a cylinder per trunk, in static bodies of at most
# TRUNKS_PER_BODY shapes under one "Trees" node. Bullet rebuilds a body's compound shape whenever a
# shape is added, so one body for every trunk of a Huge island cost ~0.4 s a reset.
func _add_tree_colliders(colliders):
	var trees = Spatial.new()
	trees.name = "Trees"
	var body = null
	for collider in colliders:
		for i in range(collider.bases.size()):
			if body == null or body.get_child_count() == TRUNKS_PER_BODY:
				body = StaticBody.new()
				body.add_to_group("trees")
				trees.add_child(body)
			var scale = collider.scales[i]
			var trunk = CylinderShape.new()
			trunk.radius = collider.radius_m * scale
			trunk.height = collider.height_m * scale
			var shape = CollisionShape.new()
			shape.shape = trunk
			shape.translation = collider.bases[i] + Vector3(0.0, trunk.height / 2.0, 0.0)
			body.add_child(shape)
			tree_obstacles.append([shape.translation.x, shape.translation.z, trunk.radius])
	add_child(trees)


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


# Shows, for every chunk, the level of detail for the horizontal distance of its nearest point from `viewer`.
# Cheap to call every step: it does nothing until the viewer has moved a few metres.
func update_lod(viewer, force = false):
	if profiling:
		profiled[0] += 1
		profiled[1] += int(Performance.get_monitor(Performance.RENDER_DRAW_CALLS_IN_FRAME))
		profiled[2] += int(Performance.get_monitor(Performance.RENDER_VERTICES_IN_FRAME))
		profiled[3] += int(Performance.get_monitor(Performance.RENDER_OBJECTS_IN_FRAME))
	if not force and Vector2(viewer.x - lod_viewer.x, viewer.z - lod_viewer.z).length() < LOD_UPDATE_DISTANCE_M:
		return
	lod_viewer = viewer
	for i in range(chunk_centres.size()):
		var centre = chunk_centres[i]
		var half_size = chunk_half_sizes[i]
		# To the chunk's nearest point: whatever stands within the first distance has full detail.
		var distance = Vector2(max(abs(centre.x - viewer.x) - half_size.x, 0.0), max(abs(centre.z - viewer.z) - half_size.z, 0.0)).length()
		var level = 0
		while level < lod_distances_m.size() and distance >= lod_distances_m[level]:
			level += 1
		level = min(level, chunk_levels[i].size() - 1)
		if level != chunk_shown[i]:
			if chunk_shown[i] >= 0:
				chunk_levels[i][chunk_shown[i]].visible = false
			if chunk_levels[i][level] == null:
				chunk_levels[i][level] = _mesh_instance(chunk_level_data[i][level], static_material)
			chunk_levels[i][level].visible = true
			chunk_shown[i] = level


func _exit_tree():
	if profiling and profiled[0] > 0:
		printerr("avalon profile: frames %d draw_calls %d vertices %d objects %d" % profiled)


# Whether the terrain surface at a world position can be climbed (nearest grid point).
func is_climbable(x, z):
	var c = int(round(clamp((x + size_m / 2.0) / cell_size_m, 0.0, cols - 1)))
	var r = int(round(clamp((z + size_m / 2.0) / cell_size_m, 0.0, rows - 1)))
	return climbable[r * cols + c] != 0
