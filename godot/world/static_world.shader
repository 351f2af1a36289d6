// The static world (terrain, water, plants) and the animals: baked vertex colours, drawn unshaded, with the
// world's distance fog computed per vertex (Godot's own fog skips unshaded materials).
shader_type spatial;
render_mode unshaded, shadows_disabled;

uniform bool fog_enabled = false;
uniform vec4 fog_color : hint_color = vec4(0.75, 0.85, 0.95, 1.0);
uniform float fog_begin_m = 40.0;
uniform float fog_end_m = 300.0;
varying float fog_amount;

void vertex() {
	if (!OUTPUT_IS_SRGB) {  // GLES3 works in linear space: the baked colours are sRGB
		COLOR.rgb = mix(pow((COLOR.rgb + vec3(0.055)) * (1.0 / 1.055), vec3(2.4)), COLOR.rgb * (1.0 / 12.92), lessThan(COLOR.rgb, vec3(0.04045)));
	}
	float distance_m = length((MODELVIEW_MATRIX * vec4(VERTEX, 1.0)).xyz);
	fog_amount = fog_enabled ? clamp((distance_m - fog_begin_m) / max(fog_end_m - fog_begin_m, 0.001), 0.0, 1.0) : 0.0;
}

void fragment() {
	ALBEDO = mix(COLOR.rgb, fog_color.rgb, fog_amount);
}
