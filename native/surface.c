#include "surface.h"

/* Clamped in single precision, as GDScript 3.2's clamp() (real_t) did in the animals' former
 * look-up: the same bits, so the same decisions (tests/game/entities/animals/test_animals.py's golden digest). */
static double clamp(double value, double low, double high) {
	float a = (float)value, b = (float)low, c = (float)high;
	return a < b ? b : (a > c ? c : a);
}

double avalon_surface_height(const float *heights, int64_t cols, int64_t rows, double cell_size_m,
		double half_size_m, double x, double z) {
	/* (a point on the far edge belongs to the last cell) */
	double gx = clamp((x + half_size_m) / cell_size_m, 0.0, (double)cols - 1.001);
	double gz = clamp((z + half_size_m) / cell_size_m, 0.0, (double)rows - 1.001);
	int64_t c = (int64_t)gx;
	int64_t r = (int64_t)gz;
	double fx = gx - (double)c;
	double fz = gz - (double)r;
	int64_t i = r * cols + c;
	double h01 = heights[i + 1];
	double h10 = heights[i + cols];
	if (fx + fz <= 1.0) {
		double h00 = heights[i];
		return h00 + fx * (h01 - h00) + fz * (h10 - h00);
	}
	double h11 = heights[i + cols + 1];
	return h11 + (1.0 - fx) * (h10 - h11) + (1.0 - fz) * (h01 - h11);
}
