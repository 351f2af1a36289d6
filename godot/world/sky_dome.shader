// Vertical colour gradient of the sky dome, computed per vertex (the dome has ~150 vertices;
// per-pixel work is what costs under software rendering). Drawn from inside, writes no depth.
// Writing ALPHA makes it a transparent-pass object: drawn after all opaque geometry, so the
// depth test rejects every pixel that geometry covers (no full-screen overdraw).
shader_type spatial;
render_mode unshaded, cull_front, depth_draw_never, shadows_disabled, blend_mix;

uniform vec4 zenith_color : hint_color;
uniform vec4 horizon_color : hint_color;
uniform vec4 ground_color : hint_color;
varying vec3 sky_color;

void vertex() {
	float height = normalize(VERTEX).y;
	vec3 above = mix(horizon_color.rgb, zenith_color.rgb, sqrt(clamp(height, 0.0, 1.0)));
	vec3 below = mix(horizon_color.rgb, ground_color.rgb, clamp(-height * 4.0, 0.0, 1.0));
	sky_color = height >= 0.0 ? above : below;
}

void fragment() {
	ALBEDO = sky_color;
	ALPHA = 1.0;
}
