extends Reference
# Reading a world folder's binary data file safely, and the checks its readers share
# (buildings_file.gd; terrain_file.gd does the same by itself). A world folder may come from
# anyone (docs/security.md): whatever the file holds, the answer is a message, never a crash.
# Godot 3.2.3's File.get_var() decodes a truncated file's missing tail as zeros and its decoder
# recurses without limit, so: the length prefix must match the file's size, the encoding's layout
# is checked natively before bytes2var decodes it (no objects, bounded nesting), and the large
# arrays are checked natively (native/data_check.c).

const DataCheck = preload("res://native/data_check.gdns")  # native/data_check.c

const MAX_FILE_BYTES = 1 << 30  # a pool array holds fewer than 2**31 bytes


# {"error": "", "data": the decoded value, "check": a DataCheck for the caller's checks}, or
# {"error": what is wrong, naming the file}. `what` names the file's kind ("buildings").
static func read(world_dir, data_file, what, max_depth):
	# Before anything touches the file system, so the answer never depends on what exists outside.
	if typeof(data_file) != TYPE_STRING or not is_plain_file_name(data_file):
		return {"error": "the %s' data_file %s is not the plain name of a file inside the world folder" % [what, var2str(data_file)]}
	var path = world_dir.plus_file(data_file)
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return {"error": "cannot open %s" % path}
	var size = file.get_len()
	if size < 4 or size > MAX_FILE_BYTES:
		file.close()
		return {"error": "%s holds %d bytes: not a %s data file" % [path, size, what]}
	var length = file.get_32()
	var bytes = file.get_buffer(length) if length == size - 4 else PoolByteArray()
	file.close()
	if length != size - 4:
		return {"error": "%s holds %d bytes after its length prefix, which says %d: truncated or altered" % [path, size - 4, length]}
	var check = DataCheck.new()
	if check == null:
		return {"error": "the simulator's native library did not load (godot/native/libavalon_native.so): run `make setup`"}
	var bad_at = check.variant_layout_error(bytes, max_depth)
	if bad_at != 0:
		return {"error": "%s is not a %s data file this simulator reads: its encoding is malformed at byte %d" % [path, what, 4 + bad_at - 1]}
	return {"error": "", "data": bytes2var(bytes, false), "check": check}


# Whether `name` names a file directly inside a folder: no separators, drive or scheme, not hidden.
static func is_plain_file_name(name):
	return name != "" and not name.begins_with(".") and not ("/" in name) and not ("\\" in name) and not (":" in name)


# What is wrong with a mesh (a Dictionary of vertices, colours and triangle indices), or "".
static func mesh_error(mesh, check, max_coordinate_m, coordinate):
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
	return within_error([["a vertex", vertices, -max_coordinate_m, max_coordinate_m, coordinate],
			["a colour", colors, 0.0, 1.0, "components in [0, 1]"]], check)


# What is wrong with the first of `checks` ([what, non-empty pool array, low, high, expected]
# each) whose array holds a component that is not finite or outside [low, high], or "".
static func within_error(checks, check):
	for item in checks:
		if not check.all_within(item[1], item[2], item[3]):
			return outside(item[0], item[1], item[2], item[3], item[4])
	return ""


# What is wrong with the first component of `values` (Vector3s or colours) that is not finite or
# outside [low, high]; looped in GDScript only for a refusal, once the native check found one.
static func outside(what, values, low, high, expected):
	var type = typeof(values)
	for i in range(values.size()):
		var components = [values[i].x, values[i].y, values[i].z] if type == TYPE_VECTOR3_ARRAY else [values[i].r, values[i].g, values[i].b, values[i].a]
		for component in components:
			if is_nan(component) or is_inf(component):
				return "%s is not finite (item %d: %s)" % [what, i, var2str(component)]
			if component < low or component > high:
				return "%s is out of range (item %d: %s), expected %s" % [what, i, var2str(component), expected]
	return "%s is out of range, expected %s" % [what, expected]
