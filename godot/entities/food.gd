extends RigidBody
# A piece of food: a physical body the agent picks up and eats. Its origin is at its centre and
# `radius` (set by the exporter from avalon/datagen/world.py FOOD_RADIUS_M) bounds it.
# Each kind's scene (entities/food/*.tscn) sets its look; the kind-specific rules of the
# paper's Table 2 (splatter, open by force, dirty, ...) belong to the game mechanics.

export var radius = 0.15
export var color = Color(0.8, 0.1, 0.1)
export var energy = 1.0
export(String, "sphere", "elongated", "hexagon", "root") var look = "sphere"
export var stem_color = Color(0.35, 0.25, 0.1)
export var stem_length = 0.3  # relative to the radius; 0 for none


func _ready():
	add_to_group("food")
	sleeping = true  # rests where the generator put it (even on a slope) until something touches it
	var body_mesh
	match look:
		"elongated":  # a banana: a long thin capsule lying along x
			body_mesh = CapsuleMesh.new()
			body_mesh.radius = radius * 0.3
			body_mesh.mid_height = radius * 1.4
			body_mesh.radial_segments = 6
			body_mesh.rings = 2
			$Mesh.rotation_degrees = Vector3(0, 90, 0)
		"hexagon":  # a honeycomb: a flat hexagonal prism
			body_mesh = CylinderMesh.new()
			body_mesh.top_radius = radius
			body_mesh.bottom_radius = radius
			body_mesh.height = radius * 0.8
			body_mesh.radial_segments = 6
			body_mesh.rings = 1
		"root":  # a carrot: a cone pointing down
			body_mesh = CylinderMesh.new()
			body_mesh.top_radius = radius * 0.35
			body_mesh.bottom_radius = 0.0
			body_mesh.height = radius * 1.6
			body_mesh.radial_segments = 6
			body_mesh.rings = 1
		_:
			body_mesh = SphereMesh.new()
			body_mesh.radius = radius
			body_mesh.height = 2.0 * radius
			body_mesh.radial_segments = 8
			body_mesh.rings = 4
	$Mesh.mesh = body_mesh
	$Mesh.material_override = _material(color)
	if stem_length > 0.0:
		var stem = CylinderMesh.new()
		stem.top_radius = radius * 0.08
		stem.bottom_radius = radius * 0.08
		stem.height = radius * stem_length
		stem.radial_segments = 4
		stem.rings = 1
		var stem_instance = MeshInstance.new()
		stem_instance.mesh = stem
		stem_instance.material_override = _material(stem_color)
		stem_instance.translation = Vector3(0, radius * (0.8 + stem_length / 2.0), 0)
		stem_instance.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
		add_child(stem_instance)
	var shape = SphereShape.new()
	shape.radius = radius
	$Shape.shape = shape


static func _material(albedo):
	var material = SpatialMaterial.new()
	material.albedo_color = albedo
	return material
