extends Reference
# Reads and checks a terrain data file (terrain.bin, written by avalon/datagen/export/terrain_data.py)
# before terrain.gd builds anything from it. A world folder may come from anyone (docs/security.md):
# the Python side checks the folder before every reset, and this is the second line: whatever the
# file holds, the answer is a message, never a crash.
#
# Where Godot 3.2.3 crashed: File.get_var() on a file shorter than its length prefix decodes the
# missing tail as zeros (get_buffer keeps the requested length), so terrain.gd met nulls where
# chunks should be and the release runner crashed using them (`centre.x` on null in update_lod:
# signal 11); its decoder also recurses without a depth limit. So: the length prefix must match the
# file's size; the encoding's layout (types, lengths, nesting) is checked natively before
# bytes2var decodes it, objects never decoded; and every value terrain.gd uses is checked here for
# its type, sizes, index ranges and range (native loops for the large arrays): numbers beyond what
# the simulator can hold (float32 vectors; Bullet's shapes) crash or hang it as surely as NaNs do.

const Protocol = preload("res://generated/protocol.gd")
const DataCheck = preload("res://native/data_check.gdns")  # native/data_check.c

const MAX_FILE_BYTES = 1 << 30  # a pool array holds fewer than 2**31 bytes
# A compressed file (avalon/datagen/export/marshal.py, store_compressed): this magic, the u32
# length of the encoding, then the encoding as a zstd frame. The length is allocated before
# decompressing, so it is bounded: 7x the largest file the exporter writes (the Huge island's).
const COMPRESSED_MAGIC = "AVZ1"
const MAX_DECOMPRESSED_BYTES = 1 << 28
const MAX_DEPTH = 8  # nested arrays and dictionaries; the format uses 5 (data, chunks, chunk, levels, level)
# The ranges of avalon/datagen/export/scene_ranges.py (tests/game/world/test_untrusted_worlds.py
# keeps them equal): coordinates and lengths, other numbers, scales.
const MAX_COORDINATE_M = 1000000.0
const MAX_MAGNITUDE = 1e9
const MIN_SCALE = 0.001
const MAX_SCALE = 1000.0
const COORDINATE = "a coordinate within +-1000000 m"  # (MAX_COORDINATE_M)
# Scalars: key -> [lowest, highest, what is expected]; a length must also be above 0.
const NUMBER_RANGES = {
	"cell_size_m": [0.0, MAX_COORDINATE_M, "a finite number above 0, at most 1000000 m"],
	"size_m": [0.0, MAX_COORDINATE_M, "a finite number above 0, at most 1000000 m"],
	"water_height_m": [-MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE],
	"max_slope": [0.0, MAX_MAGNITUDE, "a finite slope from 0 to 1e9"],
}


# {"error": "", "data": the checked Dictionary}, or {"error": what is wrong, naming the file}.
static func read(world_dir, data_file):
	# Before anything touches the file system, so the answer never depends on what exists outside.
	if typeof(data_file) != TYPE_STRING or not is_plain_file_name(data_file):
		return {"error": "the terrain's data_file %s is not the plain name of a file inside the world folder" % var2str(data_file)}
	var path = world_dir.plus_file(data_file)
	var file = File.new()
	if file.open(path, File.READ) != OK:
		return {"error": "cannot open %s" % path}
	var size = file.get_len()
	if size < 4 or size > MAX_FILE_BYTES:
		file.close()
		return {"error": "%s holds %d bytes: not a terrain data file" % [path, size]}
	var compressed = file.get_buffer(4).get_string_from_ascii() == COMPRESSED_MAGIC
	if not compressed:
		file.seek(0)
	var header = 8 if compressed else 4
	var length = file.get_32() if size >= header else 0
	var stored = size - header
	var valid_length = length <= MAX_DECOMPRESSED_BYTES and length > 0 if compressed else length == stored
	var bytes = file.get_buffer(stored) if valid_length and stored > 0 else PoolByteArray()
	file.close()
	if compressed and not valid_length:
		return {"error": "%s says it decompresses to %d bytes, expected 1 to %d: not a terrain data file this simulator reads" % [path, length, MAX_DECOMPRESSED_BYTES]}
	if not valid_length:
		return {"error": "%s holds %d bytes after its length prefix, which says %d: truncated or altered" % [path, stored, length]}
	if compressed:
		bytes = bytes.decompress(length, File.COMPRESSION_ZSTD) if stored > 0 else PoolByteArray()
		if bytes.size() != length:
			return {"error": "%s does not decompress to the %d bytes it says: truncated or altered" % [path, length]}
		header = 0  # positions below are in the decompressed encoding
	var check = DataCheck.new()
	if check == null:
		return {"error": "the simulator's native library did not load (godot/native/libavalon_native.so): run `make setup`"}
	var bad_at = check.variant_layout_error(bytes, MAX_DEPTH)
	if bad_at != 0:
		return {"error": "%s is not a terrain data file this simulator reads: its encoding is malformed at byte %d%s" % [
			path, header + bad_at - 1, " of its decompressed encoding" if compressed else ""]}
	var data = bytes2var(bytes, false)
	var error = _data_error(data, check)
	if error != "":
		return {"error": "%s: %s" % [path, error]}
	return {"error": "", "data": data}


# Whether `name` names a file directly inside a folder: no separators, drive or scheme, not hidden.
static func is_plain_file_name(name):
	return name != "" and not name.begins_with(".") and not ("/" in name) and not ("\\" in name) and not (":" in name)


static func _data_error(data, check):
	if typeof(data) != TYPE_DICTIONARY:
		return "not a terrain data file (it holds no dictionary)"
	if typeof(data.get("format_version")) != TYPE_INT or data.format_version != Protocol.TERRAIN_FORMAT_VERSION:
		return "format_version %s, this simulator reads %d; regenerate the world" % [var2str(data.get("format_version")), Protocol.TERRAIN_FORMAT_VERSION]
	for key in NUMBER_RANGES:
		var bounds = NUMBER_RANGES[key]
		var value = data.get(key)
		if not _is_finite_number(value) or value < bounds[0] or value > bounds[1] or (key.ends_with("size_m") and value <= 0):
			return "%s is %s, expected %s" % [key, var2str(value), bounds[2]]
	var heights = data.get("heights")
	if typeof(heights) != TYPE_REAL_ARRAY or typeof(data.get("climbable")) != TYPE_RAW_ARRAY:
		return "heights or climbable is missing or not an array of the right type"
	var rows = data.get("rows")
	var cols = data.get("cols")
	# Each side at most the point count, so their product cannot overflow.
	if typeof(rows) != TYPE_INT or typeof(cols) != TYPE_INT or rows < 2 or cols < 2 or rows > heights.size() or cols > heights.size():
		return "the grid of %s x %s points is not at least 2 x 2 and at most its %d heights" % [var2str(rows), var2str(cols), heights.size()]
	if heights.size() != rows * cols or data.climbable.size() != rows * cols:
		return "grids do not match %d x %d (%d heights, %d climbable flags)" % [rows, cols, heights.size(), data.climbable.size()]
	if not check.all_within(heights, -MAX_COORDINATE_M, MAX_COORDINATE_M):
		return _outside("a height", heights, -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE)
	var distances = data.get("lod_distances_m")
	if typeof(distances) != TYPE_ARRAY:
		return "lod_distances_m is not an array"
	for distance in distances:
		if not _is_finite_number(distance) or distance < 0 or distance > MAX_COORDINATE_M:
			return "lod_distances_m holds %s, expected a finite number from 0 to 1000000 m" % var2str(distance)
	var chunks = data.get("chunks")
	if typeof(chunks) != TYPE_ARRAY:
		return "chunks is not an array"
	for i in range(chunks.size()):
		var chunk = chunks[i]
		if typeof(chunk) != TYPE_DICTIONARY or typeof(chunk.get("centre")) != TYPE_VECTOR3 or not _is_finite_vector(chunk.centre):
			return "chunk %d has no finite centre" % i
		if not _is_coordinate(chunk.centre):
			return "chunk %d's centre is %s, expected each %s" % [i, var2str(chunk.centre), COORDINATE]
		var half_size = chunk.get("half_size")
		if typeof(half_size) != TYPE_VECTOR3 or not _is_finite_vector(half_size) or not _is_coordinate(half_size) or half_size.x < 0 or half_size.z < 0:
			return "chunk %d's half_size is %s, expected a Vector3 of sizes from 0 to 1000000 m" % [i, var2str(half_size)]
		var levels = chunk.get("levels")
		if typeof(levels) != TYPE_ARRAY or levels.empty():
			return "chunk %d has no levels of detail" % i
		for level in levels:
			var error = _mesh_error(level, check)
			if error != "":
				return "chunk %d: %s" % [i, error]
	var sea_error = _mesh_error(data.get("sea"), check)
	if sea_error != "":
		return "the sea: %s" % sea_error
	var colliders = data.get("tree_colliders")
	if typeof(colliders) != TYPE_ARRAY:
		return "tree_colliders is not an array"
	for collider in colliders:
		if typeof(collider) != TYPE_DICTIONARY:
			return "a tree collider is not a dictionary"
		for key in ["radius_m", "height_m"]:
			if not _is_finite_number(collider.get(key)) or collider[key] <= 0 or collider[key] > MAX_COORDINATE_M:
				return "a tree collider's %s is %s, expected a finite number above 0, at most 1000000 m" % [key, var2str(collider.get(key))]
		var bases = collider.get("bases")
		var scales = collider.get("scales")
		if typeof(bases) != TYPE_VECTOR3_ARRAY or typeof(scales) != TYPE_REAL_ARRAY or bases.size() != scales.size():
			return "a tree collider's bases and scales are not arrays of the same size"
		if not check.all_within(bases, -MAX_COORDINATE_M, MAX_COORDINATE_M):
			return _outside("a tree collider's base", bases, -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE)
		if not check.all_within(scales, MIN_SCALE, MAX_SCALE):
			return _outside("a tree collider's scale", scales, MIN_SCALE, MAX_SCALE, "a scale from 0.001 to 1000")
	return ""


static func _mesh_error(mesh, check):
	if typeof(mesh) != TYPE_DICTIONARY:
		return "a mesh is not a dictionary"
	var vertices = mesh.get("vertices")
	var colors = mesh.get("colors")
	var indices = mesh.get("indices")
	if typeof(vertices) != TYPE_VECTOR3_ARRAY or typeof(colors) != TYPE_COLOR_ARRAY or typeof(indices) != TYPE_INT_ARRAY:
		return "a mesh lacks its vertices, colours or indices"
	if vertices.empty() or colors.size() != vertices.size():
		return "a mesh has %d vertices and %d colours" % [vertices.size(), colors.size()]
	if indices.empty() or indices.size() % 3 != 0:
		return "a mesh has %d indices, not whole triangles" % indices.size()
	if not check.indices_below(indices, vertices.size()):
		return "a mesh's indices reach outside its %d vertices" % vertices.size()
	if not check.all_within(vertices, -MAX_COORDINATE_M, MAX_COORDINATE_M):
		return _outside("a mesh's vertex", vertices, -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE)
	if not check.all_within(colors, 0.0, 1.0):
		return _outside("a mesh's colour", colors, 0.0, 1.0, "components in [0, 1]")
	return ""


# What is wrong with the first component of `values` (a pool array of floats, Vector3s or
# colours) that is not finite or outside [low, high]: `what` "is not finite (item i: value)" or
# "is out of range (item i: value), expected `expected`". Looped in GDScript only for a refusal,
# once the native check has found such a component.
static func _outside(what, values, low, high, expected):
	var type = typeof(values)
	for i in range(values.size()):
		var components = [values[i]]
		if type == TYPE_VECTOR3_ARRAY:
			components = [values[i].x, values[i].y, values[i].z]
		elif type == TYPE_COLOR_ARRAY:
			components = [values[i].r, values[i].g, values[i].b, values[i].a]
		for component in components:
			if is_nan(component) or is_inf(component):
				return "%s is not finite (item %d: %s)" % [what, i, var2str(component)]
			if component < low or component > high:
				return "%s is out of range (item %d: %s), expected %s" % [what, i, var2str(component), expected]
	return "%s is out of range, expected %s" % [what, expected]


static func _is_coordinate(value):
	return abs(value.x) <= MAX_COORDINATE_M and abs(value.y) <= MAX_COORDINATE_M and abs(value.z) <= MAX_COORDINATE_M


static func _is_finite_number(value):
	var type = typeof(value)
	return type == TYPE_INT or (type == TYPE_REAL and not is_nan(value) and not is_inf(value))


static func _is_finite_vector(value):
	return not (is_nan(value.x) or is_inf(value.x) or is_nan(value.y) or is_inf(value.y) or is_nan(value.z) or is_inf(value.z))
