extends MeshInstance
# A sky drawn as a large inverted dome around the player (the render target is transparent so
# that depth can be packed into alpha, which leaves no room for Godot's own sky background).
# It writes no depth, so the depth channel reads "farther than DEPTH_FAR_M" wherever sky shows.

const Protocol = preload("res://generated/protocol.gd")
const SkyShader = preload("res://world/sky_dome.shader")

export var zenith_color = Color(0.30, 0.50, 0.85)
export var horizon_color = Color(0.75, 0.85, 0.95)
export var ground_color = Color(0.45, 0.45, 0.45)


func _ready():
	# Only the upper hemisphere: below the horizon the ground or sea hides the sky anyway, and a
	# dome that is out of view costs nothing, while a hidden one is still depth-tested per pixel.
	# It is lowered by a tenth of its radius to cover the band just below the horizon.
	var dome = SphereMesh.new()
	dome.radius = Protocol.DEPTH_FAR_M * 1.1
	dome.height = dome.radius
	dome.is_hemisphere = true
	dome.radial_segments = 12
	dome.rings = 4
	mesh = dome
	var material = ShaderMaterial.new()
	material.shader = SkyShader
	material.render_priority = -1  # before the depth quad among transparent objects
	material.set_shader_param("zenith_color", zenith_color)
	material.set_shader_param("horizon_color", horizon_color)
	material.set_shader_param("ground_color", ground_color)
	material_override = material
	cast_shadow = GeometryInstance.SHADOW_CASTING_SETTING_OFF
	extra_cull_margin = 16384.0


# Keeps the dome centred on `parent_body` by moving it under that node.
func attach_to(parent_body):
	get_parent().remove_child(self)
	parent_body.add_child(self)
	transform = Transform(Basis(), Vector3(0.0, -0.1 * Protocol.DEPTH_FAR_M * 1.1, 0.0))
