extends RigidBody
# An item of the paper's Appendix A.1/E.5 the agent can use: rock (thrown; opens oranges),
# stick (melee), stone (stackable), boulder (too heavy to lift: pushed) and log (carried to bridge
# gaps). Each kind's scene (entities/tools/<kind>.tscn, generated from its row of
# avalon/rules/tools.py) sets its size, mass, colour and how it is built (`shape_kind`,
# `mesh_sides`, ...); this script never branches on the tool's name. Its origin is at its centre;
# it rests half its height above the ground. Groups: "tool", "graspable" and its kind.
# Per-instance params from the world file: `safe_scale` (uniform scale of the shape and mesh;
# bodies themselves are never scaled, which Bullet does not support), `base_color` and `mass`.
# Low-poly flat-shaded meshes with vertex colours: cheap under a software renderer.
# Hits on animals (docs/animals.md): a tool striking an animal (group "animals") at an impact
# speed of HIT_MIN_SPEED_M_PER_S or more counts as a hit on it: thrown or dropped, from the
# physics contacts; held and swung (the hand moves it kinematically, so Bullet reports no
# contact), from its speed while its shape touches the animal (within SWING_MARGIN_M). A held
# item stops short of what it would pass through, so the step that brings it into contact may
# be a short one: its speed is the larger of this step's and the previous step's.
# Food hanging in a tree (entities/food.gd) is knocked down the same ways, from
# HANGING_FOOD_KNOCK_SPEED_M_PER_S: by the contacts (its own) or, swung, by `on_hit` from here.

const Protocol = preload("res://generated/protocol.gd")
const Impacts = preload("res://entities/impacts.gd")
const SWING_MARGIN_M = 0.1

export var kind = ""
export var size = Vector3(0.2, 0.14, 0.2)  # bounding box at safe_scale 1, metres
export var safe_scale = 1.0
export var base_color = Color(0.5, 0.5, 0.5)
# How it is built (avalon/rules/tools.py: SHAPES): "box" (stacks), "beam" (a prism lying along z
# that collides as a box) or "lump" (an irregular prism with a flat base, its convex hull).
export var shape_kind = "lump"
export var mesh_sides = 5
export var continuous_collision = false  # small fast items (thrown, swung)
export var support_box = false  # a box in the lower half of a lump to stand on (see _base_box)

var last_hit_speed = 0.0  # impact speed (see impacts.gd) of the latest thing this struck
var last_hit_body = null
var impacts = Impacts.new()
var _held_origin = null  # where the hand held it on the previous step (null while not held)
var _held_velocity = Vector3.ZERO  # its velocity over the previous step


func _ready():
	add_to_group("tool")
	add_to_group("graspable")
	add_to_group(kind)
	contact_monitor = true
	contacts_reported = 4
	continuous_cd = continuous_collision
	var dimensions = size * safe_scale
	var mesh_instance = MeshInstance.new()
	mesh_instance.name = "Mesh"
	var shape_node = CollisionShape.new()
	shape_node.name = "Shape"
	match shape_kind:
		"box":  # flat faces so stones stack
			var box = BoxShape.new()
			box.extents = dimensions / 2.0
			shape_node.shape = box
			mesh_instance.mesh = _prism_mesh(mesh_sides, dimensions, 0.0, [1.0, 1.0, 1.0])
		"beam":  # a prism lying along z on one of its faces; a box to collide (see below)
			mesh_instance.mesh = _prism_mesh(mesh_sides, Vector3(dimensions.x, dimensions.z, dimensions.x), 0.0, [1.0, 1.0, 1.0], true)
			mesh_instance.rotation = Vector3(PI / 2.0, 0, 0)
			# Bullet at 10 steps/s lets a cylinder (or a thin convex hull) lying on the ground roll
			# and sink through it; box-box contacts hold. Bullet shrinks a box by its margin, so a
			# thin one needs a margin below its half thickness.
			var beam = BoxShape.new()
			beam.extents = dimensions / 2.0
			beam.margin = min(beam.margin, dimensions.x / 4.0)
			shape_node.shape = beam
		"lump":  # rocks and boulders: an irregular low-poly lump with a flat base
			var mesh = _prism_mesh(mesh_sides, dimensions, 0.5, [0.8, 1.0, 0.55])
			mesh_instance.mesh = mesh
			var hull = ConvexPolygonShape.new()
			hull.points = mesh.surface_get_arrays(0)[Mesh.ARRAY_VERTEX]
			shape_node.shape = hull
			if support_box:
				add_child(_base_box(dimensions, hull.margin))
		_:
			push_error("%s: unknown shape_kind %s (avalon/rules/tools.py: SHAPES)" % [name, shape_kind])
	var material = SpatialMaterial.new()
	material.vertex_color_use_as_albedo = true
	material.params_cull_mode = SpatialMaterial.CULL_DISABLED
	mesh_instance.material_override = material
	mesh_instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	add_child(shape_node)
	add_child(mesh_instance)


func velocity_before_step(age = 0):
	return impacts.velocity_before_step(age)


func on_released():
	impacts.reset(linear_velocity)


func _integrate_forces(state):
	for contact in impacts.contacts(state):
		if contact.speed > 0.5:  # resting contacts report (almost) nothing
			last_hit_speed = contact.speed
			last_hit_body = contact.collider
			if contact.collider != null and contact.collider.is_in_group("animals"):
				contact.collider.on_hit(contact.speed)


# Runs after the agent moved its hands this frame (the simulation's node comes first).
func _physics_process(delta):
	if mode != RigidBody.MODE_KINEMATIC:
		_held_origin = null
		_held_velocity = Vector3.ZERO
		return
	var origin = global_transform.origin
	if _held_origin != null:
		var velocity = (origin - _held_origin) / delta
		var swing = velocity if velocity.length() >= _held_velocity.length() else _held_velocity
		# From this speed it looks for what it strikes (animals and hanging food each judge it).
		if swing.length() >= min(Protocol.HIT_MIN_SPEED_M_PER_S, Protocol.HANGING_FOOD_KNOCK_SPEED_M_PER_S):
			_swing_hits(swing)
		_held_velocity = velocity
	_held_origin = origin


# `swing`: the held tool's velocity; only what it moves toward is struck (drawing it back from
# something it rests against is no blow).
func _swing_hits(swing):
	var space = get_world().direct_space_state
	for child in get_children():
		if child is CollisionShape and child.shape != null:
			var query = PhysicsShapeQueryParameters.new()
			query.set_shape(child.shape)
			query.transform = child.global_transform
			query.exclude = [get_rid()]
			query.margin = SWING_MARGIN_M  # the hand stops a held item just short of what it would touch
			for hit in space.intersect_shape(query, 8):
				var struck = hit.collider
				if struck == null or not struck.has_method("on_hit") or not (struck.is_in_group("animals") or struck.is_in_group("food")):
					continue
				if swing.dot(struck.global_transform.origin - global_transform.origin) > 0.0:
					struck.on_hit(swing.length())  # each checks the speed against its own threshold


# A box in the lower half of a boulder, inside its hull, to stand on: Bullet gives a convex hull
# one new contact point per step, so at 10 steps/s a boulder pushed over flat ground rocks and
# sinks up to a quarter of its height into it; box-box contacts hold it up. The hull's margin
# (Bullet adds it outside the hull's points) is added below the box, so both touch the ground.
func _base_box(dimensions, hull_margin):
	var box = BoxShape.new()
	# Within the bottom ring of the boulder's mesh (scale 0.8, wobble down to 0.875, a heptagon).
	box.extents = Vector3(0.44 * dimensions.x / 2.0, dimensions.y / 4.0 + hull_margin / 2.0, 0.44 * dimensions.z / 2.0)
	var node = CollisionShape.new()
	node.name = "Base"
	node.shape = box
	node.translation = Vector3(0.0, -dimensions.y / 4.0 - hull_margin / 2.0, 0.0)
	return node


# A closed prism-like solid along y fitting `dimensions` (x, y, z): three rings of `segments`
# points (bottom, middle, top) scaled by `ring_scales`, the middle ring turned half a step and the
# rings wobbled by `wobble` for an irregular look. Flat-shaded, one vertex colour per face. With
# `face_on_z` (no wobble) one face looks along +z: the face it lies on once turned to lie along z.
func _prism_mesh(segments, dimensions, wobble, ring_scales, face_on_z = false):
	var heights = [-0.5, 0.0 if wobble > 0.0 else -0.5, 0.5]
	if wobble <= 0.0:
		ring_scales = [1.0, 1.0, 1.0]
	var rings = []
	for r in range(3):
		var ring = []
		for k in range(segments):
			var angle = 2.0 * PI * (k + (0.5 if r == 1 and wobble > 0.0 else 0.0)) / segments
			if wobble <= 0.0:
				angle += PI / segments + (PI / 2.0 if face_on_z else 0.0)
			var jitter = 1.0 + wobble * 0.25 * sin(k * 2.7 + r * 1.3)
			var radius = ring_scales[r] * jitter / (cos(PI / segments) if wobble <= 0.0 else 1.0)
			ring.append(Vector3(cos(angle) * radius * dimensions.x / 2.0, heights[r] * dimensions.y,
					sin(angle) * radius * dimensions.z / 2.0))
		rings.append(ring)
	var tool = SurfaceTool.new()
	tool.begin(Mesh.PRIMITIVE_TRIANGLES)
	var faces = []
	for k in range(segments):
		var n = (k + 1) % segments
		faces.append([rings[0][k], rings[0][n], rings[1][k]])
		faces.append([rings[1][k], rings[0][n], rings[1][n]])
		faces.append([rings[1][k], rings[1][n], rings[2][k]])
		faces.append([rings[2][k], rings[1][n], rings[2][n]])
		faces.append([Vector3(0, heights[0] * dimensions.y, 0), rings[0][n], rings[0][k]])
		faces.append([Vector3(0, heights[2] * dimensions.y, 0), rings[2][k], rings[2][n]])
	for i in range(faces.size()):
		var face = faces[i]
		var normal = (face[1] - face[0]).cross(face[2] - face[0])
		if normal.length() < 1e-9:
			continue
		normal = normal.normalized()
		if normal.dot(face[0] + face[1] + face[2]) < 0.0:
			normal = -normal
		var shade = 0.85 + 0.15 * normal.y + 0.05 * sin(i * 1.7)
		var face_color = Color(base_color.r * shade, base_color.g * shade, base_color.b * shade)
		for vertex in face:
			tool.add_color(face_color)
			tool.add_normal(normal)
			tool.add_vertex(vertex)
	return tool.commit()
