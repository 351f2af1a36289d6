extends Spatial
# A world's buildings, built from `data_file` beside world.tscn (written by
# avalon/datagen/export/building_data.py, checked by buildings_file.gd first): per building one
# unshaded, vertex-coloured mesh (one draw call; lighting is baked in), one static body of box
# colliders and, if it has any, one static body of climbable boxes in the group "climbable"
# (a ladder's grip, climbable outside walls), whose faces the hands can hold (agent/grasp.gd).

export var data_file = "buildings.bin"

const BuildingsFile = preload("res://world/buildings_file.gd")
const StaticMeshes = preload("res://world/static_meshes.gd")

# Drawn with the other opaque objects, before the terrain (terrain.gd draws it after them): the
# terrain's fragments behind a building's walls are rejected by the depth test before they are
# shaded, which is most of the island seen from inside.
const DRAWN_BEFORE_THE_TERRAIN = 0

# Each building's footprint, [x0, z0, x1, z1] (metres): the horizontal bounds of its solid boxes.
# Animals that never go inside keep out of them (entities/animals/animals.gd).
var footprints = []


# Builds the buildings from the data file in `world_dir`; returns "" or what went wrong.
func load_data(world_dir):
	var read = BuildingsFile.read(world_dir, data_file)
	if read.error != "":
		return read.error
	var material = StaticMeshes.material(get_parent(), DRAWN_BEFORE_THE_TERRAIN)
	var buildings = read.data.buildings
	for i in range(buildings.size()):
		var building = buildings[i]
		var mesh = StaticMeshes.mesh_instance(building.mesh, material)
		mesh.name = "Building%d" % i
		add_child(mesh)
		_add_boxes(building.solid, "Solid%d" % i, false)
		footprints.append(_bounds(building.solid))
		_add_boxes(building.climbable, "Climbable%d" % i, true)
	return ""


# One static body holding every box of a set, each box a shape with its own shape owner (its
# transform), so no node is made per box.
func _add_boxes(boxes, name, climbable):
	if boxes.centres.empty():
		return
	var body = StaticBody.new()
	body.name = name
	if climbable:
		body.add_to_group("climbable")
	for i in range(boxes.centres.size()):
		var shape = BoxShape.new()
		shape.extents = boxes.extents[i]
		var box_owner = body.create_shape_owner(body)
		body.shape_owner_add_shape(box_owner, shape)
		body.shape_owner_set_transform(box_owner, Transform(Basis(boxes.rotations[i]), boxes.centres[i]))
	add_child(body)


# The horizontal bounds [x0, z0, x1, z1] of a set of (turned) boxes.
static func _bounds(boxes):
	var low = Vector2(INF, INF)
	var high = Vector2(-INF, -INF)
	for i in range(boxes.centres.size()):
		var basis = Basis(boxes.rotations[i])
		var extents = boxes.extents[i]
		var half_x = abs(basis.x.x) * extents.x + abs(basis.y.x) * extents.y + abs(basis.z.x) * extents.z
		var half_z = abs(basis.x.z) * extents.x + abs(basis.y.z) * extents.y + abs(basis.z.z) * extents.z
		var centre = boxes.centres[i]
		low = Vector2(min(low.x, centre.x - half_x), min(low.y, centre.z - half_z))
		high = Vector2(max(high.x, centre.x + half_x), max(high.y, centre.z + half_z))
	return [low.x, low.y, high.x, high.y]
