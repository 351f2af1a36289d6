extends Reference
# An animal's looks: one mesh built from its body plan (`parts` of its species scene, generated
# from avalon/rules/animals.py: 10 numbers per part: shape (0 box, 1 wedge), centre xyz, size xyz,
# rgb), shared by the animal (entities/animals/animal.gd) and the body it leaves (corpse.gd).

const HIDDEN_FACE_TOLERANCE_M = 1e-4  # a face on another part's surface counts as inside it (see build)


# One flat-shaded mesh with vertex colours from the body plan: one draw call per animal. Indexed
# (a face's two triangles share its corners) and without normals (drawn unshaded). The outside
# faces wind clockwise, Godot's front faces, and AnimalMaterial culls the back faces: each part is
# a closed solid, so seen from outside a back face is always behind a front face of the same part
# (for a camera inside or next to the animal see animal.gd: _near_eye_m). A face inside another box part
# (a leg's top in the body, say) can never be seen from outside and is left out: fewer triangles
# for the rasterizer, the same picture.
static func build(parts):
	var surface = SurfaceTool.new()
	surface.begin(Mesh.PRIMITIVE_TRIANGLES)
	var count = parts.size() / 10
	var boxes = []  # AABB of each box part (wedges hide nothing: their bounds are not solid)
	for k in range(count):
		var o = k * 10
		var extent = Vector3(parts[o + 4], parts[o + 5], parts[o + 6]) / 2.0
		boxes.append(AABB(Vector3(parts[o + 1], parts[o + 2], parts[o + 3]) - extent, extent * 2.0) if parts[o] < 0.5 else null)
	for k in range(count):
		var o = k * 10
		var centre = Vector3(parts[o + 1], parts[o + 2], parts[o + 3])
		var extent = Vector3(parts[o + 4], parts[o + 5], parts[o + 6]) / 2.0
		var color = Color(parts[o + 7], parts[o + 8], parts[o + 9])
		var top = 0.0 if parts[o] > 0.5 else 1.0  # a wedge's top is a ridge along z
		var c = []
		for corner in range(8):
			var sx = -1.0 if (corner & 1) == 0 else 1.0
			var sy = -1.0 if (corner & 2) == 0 else 1.0
			var sz = -1.0 if (corner & 4) == 0 else 1.0
			var x = sx * extent.x * (top if sy > 0.0 else 1.0)
			c.append(centre + Vector3(x, sy * extent.y, sz * extent.z))
		for face in [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]]:
			var corners = [c[face[0]], c[face[1]], c[face[2]], c[face[3]]]
			if not _inside_another(corners, k, boxes):
				_quad(surface, corners[0], corners[1], corners[2], corners[3], color, centre)
	surface.index()
	return surface.commit()


# Whether all `points` (a face's corners) are in one box part other than part `k`: being convex,
# the box then holds the whole face.
static func _inside_another(points, k, boxes):
	for j in range(boxes.size()):
		if j == k or boxes[j] == null:
			continue
		var box = boxes[j].grow(HIDDEN_FACE_TOLERANCE_M)
		var inside = true
		for point in points:
			if not box.has_point(point):
				inside = false
				break
		if inside:
			return true
	return false


static func _quad(surface, a, b, c, d, color, centre):
	var normal = (b - a).cross(c - a)
	if normal.length() < 1e-9:
		normal = (c - a).cross(d - a)
	if normal.length() < 1e-9:
		return
	normal = normal.normalized()
	var flip = normal.dot((a + b + c + d) / 4.0 - centre) < 0.0
	if flip:
		normal = -normal
	var shade = 0.72 + 0.28 * normal.y  # drawn unshaded (one draw call): a fixed light from above
	var face_color = Color(color.r * shade, color.g * shade, color.b * shade)
	var order = [a, b, c, a, c, d] if flip else [a, c, b, a, d, c]  # clockwise seen from outside
	for vertex in order:
		surface.add_color(face_color)
		surface.add_vertex(vertex)
