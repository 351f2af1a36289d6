// Writes log-encoded view depth into ALPHA (see DEPTH_* in avalon/sim/protocol.py):
// alpha = 1 - log(z / near) / log(far / near), clamped; blend_mul multiplies it into the
// render's alpha, which is 1 where geometry was drawn and 0 for the (transparent) background.
shader_type spatial;
render_mode unshaded, blend_mul, depth_draw_never, depth_test_disable, cull_disabled, shadows_disabled;

uniform float near_m = 0.1;
uniform float far_m = 500.0;

void vertex() {
	POSITION = vec4(VERTEX.xy * 2.0, 0.0, 1.0);
}

void fragment() {
	float depth = texture(DEPTH_TEXTURE, SCREEN_UV).r;
	vec4 view = INV_PROJECTION_MATRIX * vec4(vec3(SCREEN_UV, depth) * 2.0 - 1.0, 1.0);
	float z = max(-view.z / view.w, near_m);
	ALBEDO = vec3(1.0);
	ALPHA = clamp(1.0 - log(z / near_m) / log(far_m / near_m), 0.0, 1.0);
}
