"""Noise primitives shared by terrain, biomes, scenery and obstacle rings.

Every function draws only from the ``numpy.random.Generator`` it is given, in a fixed order, so a
seed fully determines the output.
"""

from __future__ import annotations

import math

import numpy as np
from opensimplex import OpenSimplex
from scipy import ndimage


def smoothstep(edge0: float, edge1: float, x: np.ndarray | float) -> np.ndarray:
    """Hermite step: 0 below ``edge0``, 1 above ``edge1``, smooth (zero slope at both ends) between.

    With ``edge0 == edge1`` it is a hard step (1 from ``edge0`` on).
    """
    if edge1 == edge0:
        return (np.asarray(x, dtype=np.float64) >= edge0).astype(np.float64)
    t = np.clip((np.asarray(x, dtype=np.float64) - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


#: Exponents numpy's ``**`` computes exactly on every machine (square, square root, reciprocal, ...).
EXACT_POWER_EXPONENTS = (-1.0, 0.0, 0.5, 1.0, 2.0)


def libm_power(base: np.ndarray, exponent: float) -> np.ndarray:
    """``base ** exponent``, every element through the C library's ``pow`` (``math.pow``).

    numpy's own power loop hands float64 arrays to Intel's SVML on AVX-512 machines, whose last bit
    differs from the C library's on other machines; a height near the waterline then rounds to
    another float32. This gives the C library's result everywhere (numpy's loop calls the same
    ``pow`` on machines without AVX-512, so the bytes there are unchanged).
    """
    base = np.asarray(base, dtype=np.float64)
    exponent = float(exponent)
    if exponent in EXACT_POWER_EXPONENTS:
        return base**exponent
    values, inverse = np.unique(base, return_inverse=True)  # grids repeat values: one call per distinct one
    powers = np.array([math.pow(value, exponent) for value in values.tolist()], dtype=np.float64)
    return powers[inverse].reshape(base.shape)


def resize_cubic(field: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Cubic-spline resample with corners mapped to corners (grid points stay on grid points)."""
    if field.shape == shape:
        return field
    zoom = (shape[0] / field.shape[0], shape[1] / field.shape[1])
    out = ndimage.zoom(field, zoom, order=3, mode="mirror", grid_mode=False)
    if out.shape != shape:  # zoom rounds the output shape; guard against an off-by-one
        raise AssertionError(f"resize to {shape} produced {out.shape}")
    return out


def fractal_noise(
    rng: np.random.Generator,
    shape: tuple[int, int],
    iterations: int,
    initial_scale: float,
    decay: float,
) -> np.ndarray:
    """Heights from repeated subdivision: upsample ×2 (cubic), add Gaussian noise, shrink the noise.

    The coarsest lattice spacing is ``2**iterations`` grid cells; level ``i`` adds noise with
    standard deviation ``initial_scale * decay**i``; the last level is at full resolution.
    This is the cheap heuristic the paper describes: ruggedness at every scale, no erosion model.
    """
    rows, cols = shape
    level_shapes = [
        (math.ceil((rows - 1) / 2 ** (iterations - i)) + 1, math.ceil((cols - 1) / 2 ** (iterations - i)) + 1)
        for i in range(iterations + 1)
    ]
    scale = float(initial_scale)
    field = rng.standard_normal(level_shapes[0]) * scale
    for level_shape in level_shapes[1:]:
        field = resize_cubic(field, level_shape)
        scale *= decay
        field += rng.standard_normal(level_shape) * scale
    return field


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], feature_size_cells: float) -> np.ndarray:
    """Blurred white noise rescaled to zero mean and unit standard deviation.

    ``feature_size_cells`` is roughly the diameter of a blob, in grid cells.
    """
    white = rng.standard_normal(shape)
    sigma = max(feature_size_cells / 4.0, 0.5)
    field = ndimage.gaussian_filter(white, sigma=sigma, mode="wrap")
    std = field.std()
    return (field - field.mean()) / (std if std > 0 else 1.0)


def periodic_noise(rng: np.random.Generator, samples: int = 256, lobes: float = 3.0, octaves: int = 2) -> np.ndarray:
    """Smooth noise around a circle, ``samples`` values at angles ``2*pi*k/samples``, scaled to [-1, 1].

    Sampled from 2D OpenSimplex noise on a circle, so the first and last samples join smoothly.
    ``lobes`` is roughly the number of bumps around the circle at the coarsest octave.
    """
    simplex = OpenSimplex(int(rng.integers(0, 2**31 - 1)))
    offset_x, offset_y = rng.uniform(-1000.0, 1000.0, size=2)
    angles = np.arange(samples) * (2.0 * math.pi / samples)
    radius = lobes / math.pi  # OpenSimplex features are about 1 unit wide: circumference / 2 ≈ lobes
    values = np.zeros(samples)
    for octave in range(octaves):
        r = radius * 2**octave
        amp = 0.5**octave
        for k, angle in enumerate(angles):
            values[k] += amp * simplex.noise2(offset_x + r * math.cos(angle), offset_y + r * math.sin(angle))
    peak = np.abs(values).max()
    return values / peak if peak > 0 else values


def sample_periodic(table: np.ndarray, angle_rad: np.ndarray | float) -> np.ndarray:
    """Linear interpolation of a :func:`periodic_noise` table at any angles (radians, any range)."""
    samples = table.shape[0]
    angles = np.arange(samples) * (2.0 * math.pi / samples)
    return np.interp(np.asarray(angle_rad, dtype=np.float64), angles, table, period=2.0 * math.pi)
