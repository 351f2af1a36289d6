extends Reference
# Boxes for a door's parts, merged into one mesh per rigid part (a leaf with its handles, a bolt, a
# bar, a button): one draw call each under a software renderer. Flat-shaded with vertex colours.

const FACES = [Vector3.RIGHT, Vector3.LEFT, Vector3.UP, Vector3.DOWN, Vector3.BACK, Vector3.FORWARD]


# Adds to `surface` (a SurfaceTool begun with triangles) a box of `size` centred at `centre`.
static func add_box(surface, centre, size, color):
	var half = size / 2.0
	for normal in FACES:
		var u = Vector3(normal.y, normal.z, normal.x).abs()  # two axes across the face
		var v = normal.cross(u)
		var corners = []
		for k in [[-1, -1], [1, -1], [1, 1], [-1, 1]]:
			corners.append(centre + (normal + u * k[0] + v * k[1]) * half)
		var shade = 0.85 + 0.15 * normal.y + 0.05 * normal.x
		var face_color = Color(color.r * shade, color.g * shade, color.b * shade)
		var triangles = [0, 1, 2, 0, 2, 3]
		if (corners[1] - corners[0]).cross(corners[2] - corners[0]).dot(normal) < 0.0:
			triangles = [0, 2, 1, 0, 3, 2]  # Godot's front faces wind clockwise seen from outside
		for index in triangles:
			surface.add_color(face_color)
			surface.add_normal(normal)
			surface.add_vertex(corners[index])


# A MeshInstance of the boxes `boxes` ([centre, size, colour] each), vertex-coloured.
static func mesh_instance(boxes):
	var surface = SurfaceTool.new()
	surface.begin(Mesh.PRIMITIVE_TRIANGLES)
	for box in boxes:
		add_box(surface, box[0], box[1], box[2])
	var instance = MeshInstance.new()
	instance.name = "Mesh"
	instance.mesh = surface.commit()
	var material = SpatialMaterial.new()
	material.vertex_color_use_as_albedo = true
	material.params_cull_mode = SpatialMaterial.CULL_DISABLED
	instance.material_override = material
	instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	return instance


# A CollisionShape: a box of `size` centred at `centre`.
static func box_shape(centre, size):
	var box = BoxShape.new()
	box.extents = size / 2.0
	box.margin = min(box.margin, min(size.x, min(size.y, size.z)) / 4.0)  # Bullet shrinks a box by its margin
	var node = CollisionShape.new()
	node.name = "Shape"
	node.shape = box
	node.translation = centre
	return node
