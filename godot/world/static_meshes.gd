extends Reference
# The static world's drawing, shared by its nodes (buildings.gd; terrain.gd has its own copy):
# the unshaded vertex-colour material of static_world.shader with the world's fog, and a
# MeshInstance of one mesh from exported arrays.

const StaticWorldShader = preload("res://world/static_world.shader")


# The static world's material, drawn in `render_priority`'s turn, with the fog of the
# WorldEnvironment named "Environment" under `world_root` (none: no fog).
static func material(world_root, render_priority):
	var material = ShaderMaterial.new()
	material.shader = StaticWorldShader
	material.render_priority = render_priority
	var holder = world_root.get_node_or_null("Environment") if world_root != null else null
	if holder is WorldEnvironment and holder.environment != null and holder.environment.fog_enabled:
		var environment = holder.environment
		material.set_shader_param("fog_enabled", true)
		material.set_shader_param("fog_color", environment.fog_color)
		material.set_shader_param("fog_begin_m", environment.fog_depth_begin)
		material.set_shader_param("fog_end_m", environment.fog_depth_end)
	return material


# A MeshInstance (not yet in the tree) of `arrays_by_name`'s vertices, colours and indices.
static func mesh_instance(arrays_by_name, material):
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
	return instance
