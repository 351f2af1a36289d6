extends Camera
# The egocentric camera. A full-screen quad in front of it reads the depth buffer and writes
# the encoded depth into the alpha channel of the same render (one pass for RGB and depth).

const Protocol = preload("res://generated/protocol.gd")
const DepthShader = preload("res://render/depth.shader")

# Render layers of the two cameras' depth quads. The picture viewport (simulation.gd) shares the
# observation's World, so both quads are in one scenario: each camera draws only its own.
const OBSERVATION_QUAD_LAYER = 1 << 18
const PICTURE_QUAD_LAYER = 1 << 19
const QUAD_LAYERS = OBSERVATION_QUAD_LAYER | PICTURE_QUAD_LAYER


func _init(quad_layer = OBSERVATION_QUAD_LAYER):
	name = "Camera"
	fov = Protocol.CAMERA_FOV_DEG
	near = Protocol.DEPTH_NEAR_M
	far = Protocol.DEPTH_FAR_M * 1.2
	current = true
	cull_mask = (cull_mask & ~QUAD_LAYERS) | quad_layer
	var material = ShaderMaterial.new()
	material.shader = DepthShader
	material.render_priority = 1  # last: after the sky dome
	material.set_shader_param("near_m", Protocol.DEPTH_NEAR_M)
	material.set_shader_param("far_m", Protocol.DEPTH_FAR_M)
	var quad = MeshInstance.new()
	quad.name = "DepthQuad"
	quad.mesh = QuadMesh.new()
	quad.material_override = material
	quad.extra_cull_margin = 16384.0  # the shader places it over the whole screen; never cull it
	quad.cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	quad.layers = quad_layer
	quad.translation = Vector3(0.0, 0.0, -1.0)
	quad.visible = OS.get_environment("AVALON_NODEPTH") != "1"
	add_child(quad)
