extends Reference
# Reads and checks a buildings data file (buildings.bin, written by
# avalon/datagen/export/building_data.py) before buildings.gd builds anything from it. A world
# folder may come from anyone (docs/security.md): whatever the file holds, the answer is a
# message naming the problem, never a crash. As for terrain.bin (terrain_file.gd): the length
# prefix must match the file's size, the encoding's layout is checked natively before bytes2var
# decodes it (no objects, bounded nesting), and every value buildings.gd uses is checked for its
# type, sizes, index ranges and range (native loops over the large arrays).

const DataCheck = preload("res://native/data_check.gdns")  # native/data_check.c

const FORMAT_VERSION = 1  # avalon/datagen/export/building_data.py BUILDINGS_FORMAT_VERSION
const MAX_FILE_BYTES = 1 << 30
const MAX_DEPTH = 5  # data, buildings, building, mesh or box set, arrays
const MAX_BUILDINGS = 256
const MAX_BOXES = 100000  # per set of one building
# The ranges of avalon/datagen/export/scene_ranges.py: coordinates; a box's half extent; a rotation.
const MAX_COORDINATE_M = 1000000.0
const MIN_EXTENT_M = 0.0001
const MAX_EXTENT_M = 10000.0
const MAX_ANGLE_RAD = 3.2
const COORDINATE = "a coordinate within +-1000000 m"
const BOX_SETS = ["solid", "climbable"]


# {"error": "", "data": the checked Dictionary}, or {"error": what is wrong, naming the file}.
static func read(world_dir, data_file):
	if typeof(data_file) != TYPE_STRING or not _is_plain_file_name(data_file):
		return {"error": "the buildings' data_file %s is not the plain name of a file inside the world folder" % var2str(data_file)}
	var path = world_dir.plus_file(data_file)
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return {"error": "cannot open %s" % path}
	var size = file.get_len()
	if size < 4 or size > MAX_FILE_BYTES:
		file.close()
		return {"error": "%s holds %d bytes: not a buildings data file" % [path, size]}
	var length = file.get_32()
	var bytes = file.get_buffer(length) if length == size - 4 else PoolByteArray()
	file.close()
	if length != size - 4:
		return {"error": "%s holds %d bytes after its length prefix, which says %d: truncated or altered" % [path, size - 4, length]}
	var check = DataCheck.new()
	if check == null:
		return {"error": "the simulator's native library did not load (godot/native/libavalon_native.so): run `make setup`"}
	var bad_at = check.variant_layout_error(bytes, MAX_DEPTH)
	if bad_at != 0:
		return {"error": "%s is not a buildings data file this simulator reads: its encoding is malformed at byte %d" % [path, 4 + bad_at - 1]}
	var data = bytes2var(bytes, false)
	var error = _data_error(data, check)
	if error != "":
		return {"error": "%s: %s" % [path, error]}
	return {"error": "", "data": data}


static func _is_plain_file_name(name):
	return name != "" and not name.begins_with(".") and not ("/" in name) and not ("\\" in name) and not (":" in name)


static func _data_error(data, check):
	if typeof(data) != TYPE_DICTIONARY:
		return "not a buildings data file (it holds no dictionary)"
	if typeof(data.get("format_version")) != TYPE_INT or data.format_version != FORMAT_VERSION:
		return "format_version %s, this simulator reads %d; regenerate the world" % [var2str(data.get("format_version")), FORMAT_VERSION]
	var buildings = data.get("buildings")
	if typeof(buildings) != TYPE_ARRAY or buildings.empty() or buildings.size() > MAX_BUILDINGS:
		return "buildings is not an array of 1 to %d buildings" % MAX_BUILDINGS
	for i in range(buildings.size()):
		var building = buildings[i]
		if typeof(building) != TYPE_DICTIONARY:
			return "building %d is not a dictionary" % i
		var error = _mesh_error(building.get("mesh"), check)
		if error != "":
			return "building %d's mesh: %s" % [i, error]
		for name in BOX_SETS:
			error = _boxes_error(building.get(name), check)
			if error != "":
				return "building %d's %s colliders: %s" % [i, name, error]
	return ""


static func _mesh_error(mesh, check):
	if typeof(mesh) != TYPE_DICTIONARY:
		return "not a dictionary"
	var vertices = mesh.get("vertices")
	var colors = mesh.get("colors")
	var indices = mesh.get("indices")
	if typeof(vertices) != TYPE_VECTOR3_ARRAY or typeof(colors) != TYPE_COLOR_ARRAY or typeof(indices) != TYPE_INT_ARRAY:
		return "its vertices, colours or indices are missing or not arrays of the right type"
	if vertices.empty() or colors.size() != vertices.size():
		return "%d vertices and %d colours" % [vertices.size(), colors.size()]
	if indices.empty() or indices.size() % 3 != 0:
		return "%d indices, not whole triangles" % indices.size()
	if not check.indices_below(indices, vertices.size()):
		return "its indices reach outside its %d vertices" % vertices.size()
	if not check.all_within(vertices, -MAX_COORDINATE_M, MAX_COORDINATE_M):
		return _outside("a vertex", vertices, -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE)
	if not check.all_within(colors, 0.0, 1.0):
		return _outside("a colour", colors, 0.0, 1.0, "components in [0, 1]")
	return ""


static func _boxes_error(boxes, check):
	if typeof(boxes) != TYPE_DICTIONARY:
		return "not a dictionary"
	var centres = boxes.get("centres")
	var extents = boxes.get("extents")
	var rotations = boxes.get("rotations")
	if typeof(centres) != TYPE_VECTOR3_ARRAY or typeof(extents) != TYPE_VECTOR3_ARRAY or typeof(rotations) != TYPE_VECTOR3_ARRAY:
		return "centres, extents or rotations are missing or not arrays of Vector3"
	if extents.size() != centres.size() or rotations.size() != centres.size() or centres.size() > MAX_BOXES:
		return "%d centres, %d extents and %d rotations: expected as many of each, at most %d" % [centres.size(), extents.size(), rotations.size(), MAX_BOXES]
	if centres.empty():
		return ""  # (the native check refuses an empty array)
	if not check.all_within(centres, -MAX_COORDINATE_M, MAX_COORDINATE_M):
		return _outside("a centre", centres, -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE)
	if not check.all_within(extents, MIN_EXTENT_M, MAX_EXTENT_M):
		return _outside("a half extent", extents, MIN_EXTENT_M, MAX_EXTENT_M, "from 0.0001 to 10000 m")
	if not check.all_within(rotations, -MAX_ANGLE_RAD, MAX_ANGLE_RAD):
		return _outside("a rotation", rotations, -MAX_ANGLE_RAD, MAX_ANGLE_RAD, "an angle within +-3.2 rad")
	return ""


# What is wrong with the first component of `values` (Vector3s or colours) that is not finite or
# outside [low, high]; looped in GDScript only for a refusal, once the native check found one.
static func _outside(what, values, low, high, expected):
	var type = typeof(values)
	for i in range(values.size()):
		var components = [values[i].x, values[i].y, values[i].z] if type == TYPE_VECTOR3_ARRAY else [values[i].r, values[i].g, values[i].b, values[i].a]
		for component in components:
			if is_nan(component) or is_inf(component):
				return "%s is not finite (item %d: %s)" % [what, i, var2str(component)]
			if component < low or component > high:
				return "%s is out of range (item %d: %s), expected %s" % [what, i, var2str(component), expected]
	return "%s is out of range, expected %s" % [what, expected]
