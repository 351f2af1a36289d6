import math

import numpy as np

from avalon.datagen.noise import EXACT_POWER_EXPONENTS, libm_power


def test_every_element_is_the_c_librarys_pow_and_the_shape_is_kept():
    coords = np.abs(np.linspace(-32.0, 32.0, 65))
    cubes = coords[None, :] ** 2 * coords[None, :] + coords[:, None] ** 2 * coords[:, None]
    roots = libm_power(cubes, 1.0 / 3.0)
    assert roots.shape == cubes.shape and roots.dtype == np.float64
    expected = np.array([[math.pow(value, 1.0 / 3.0) for value in row] for row in cubes.tolist()])
    assert np.array_equal(roots, expected)


def test_the_cube_root_an_avx512_numpy_rounds_down_is_the_correctly_rounded_one():
    # 19026 ** double(1/3) lies 0.36 ulp below this double and 0.64 ulp above the next one down,
    # which numpy's SVML loop returns on AVX-512 machines (an evaluation-set world's island cell).
    assert libm_power(np.array([19026.0]), 1.0 / 3.0)[0] == 26.696182596095966


def test_exact_exponents_keep_numpys_exact_operations():
    values = np.array([0.0, 0.3, 2.0, 7.5, 1e10])
    for exponent in EXACT_POWER_EXPONENTS:
        with np.errstate(divide="ignore"):
            assert np.array_equal(libm_power(values, exponent), values**exponent)
    assert np.array_equal(libm_power(values, 2.0), values * values)
    assert np.array_equal(libm_power(values, 0.5), np.sqrt(values))
