extends Reference
# Reads and checks a buildings data file (buildings.bin, written by
# avalon/datagen/export/building_data.py) before buildings.gd builds anything from it
# (docs/security.md): data_file.gd reads it safely (length prefix, the encoding's layout checked
# natively, no objects), then every value buildings.gd uses is checked for its type, sizes, index
# ranges and range. Whatever the file holds, the answer is a message naming the problem.

const DataFile = preload("res://world/data_file.gd")

const FORMAT_VERSION = 1  # avalon/datagen/export/building_data.py BUILDINGS_FORMAT_VERSION
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
	var decoded = DataFile.read(world_dir, data_file, "buildings", MAX_DEPTH)
	if decoded.error != "":
		return decoded
	var error = _data_error(decoded.data, decoded.check)
	if error != "":
		return {"error": "%s: %s" % [world_dir.plus_file(data_file), error]}
	return {"error": "", "data": decoded.data}


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
		var error = DataFile.mesh_error(building.get("mesh"), check, MAX_COORDINATE_M, COORDINATE)
		if error != "":
			return "building %d's mesh: %s" % [i, error]
		for name in BOX_SETS:
			error = _boxes_error(building.get(name), check)
			if error != "":
				return "building %d's %s colliders: %s" % [i, name, error]
	return ""


# A set of boxes: as many centres, half extents and rotations (Vector3 each).
static func _boxes_error(boxes, check):
	if typeof(boxes) != TYPE_DICTIONARY:
		return "not a dictionary"
	var arrays = [boxes.get("centres"), boxes.get("extents"), boxes.get("rotations")]
	for array in arrays:
		if typeof(array) != TYPE_VECTOR3_ARRAY:
			return "centres, extents or rotations are missing or not arrays of Vector3"
	var count = arrays[0].size()
	if arrays[1].size() != count or arrays[2].size() != count or count > MAX_BOXES:
		return "%d centres, %d extents and %d rotations: expected as many of each, at most %d" % [count, arrays[1].size(), arrays[2].size(), MAX_BOXES]
	if count == 0:
		return ""  # (the native check refuses an empty array)
	return DataFile.within_error([["a centre", arrays[0], -MAX_COORDINATE_M, MAX_COORDINATE_M, COORDINATE],
			["a half extent", arrays[1], MIN_EXTENT_M, MAX_EXTENT_M, "from 0.0001 to 10000 m"],
			["a rotation", arrays[2], -MAX_ANGLE_RAD, MAX_ANGLE_RAD, "an angle within +-3.2 rad"]], check)
