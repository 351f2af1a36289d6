"""The native library's terrain surface (native/surface.c), called directly through ctypes: the
collider's triangles, exact on planes, and the same bits as the GDScript look-up it replaced."""

import ctypes

import numpy as np
import pytest

from avalon.sim.paths import find_native_library


@pytest.fixture(scope="module")
def surface_height():
    path = find_native_library()
    assert path is not None, "this checkout's Godot project loads the native library"
    library = ctypes.CDLL(str(path))
    function = library.avalon_surface_height
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int64, ctypes.c_int64, ctypes.c_double,
                         ctypes.c_double, ctypes.c_double, ctypes.c_double]

    def call(heights: np.ndarray, cell_size_m: float, x: float, z: float) -> float:
        heights = np.ascontiguousarray(heights, dtype=np.float32)
        rows, cols = heights.shape
        pointer = heights.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        return function(pointer, cols, rows, cell_size_m, (cols - 1) * cell_size_m / 2.0, x, z)

    return call


def reference_height(heights: np.ndarray, cell_size_m: float, x: float, z: float) -> float:
    """The former GDScript look-up (animal.gd, _ground_height), step by step: grid coordinates
    clamped in single precision (GDScript 3.2's clamp() is real_t), the rest in double."""
    rows, cols = heights.shape
    half = (cols - 1) * cell_size_m / 2.0
    gx = float(np.clip(np.float32((x + half) / cell_size_m), np.float32(0.0), np.float32(cols - 1.001)))
    gz = float(np.clip(np.float32((z + half) / cell_size_m), np.float32(0.0), np.float32(rows - 1.001)))
    c, r = int(gx), int(gz)
    fx, fz = gx - c, gz - r
    h = heights.astype(np.float64)
    h00, h01, h10, h11 = h[r, c], h[r, c + 1], h[r + 1, c], h[r + 1, c + 1]
    if fx + fz <= 1.0:
        return h00 + fx * (h01 - h00) + fz * (h10 - h00)
    return h11 + (1.0 - fx) * (h10 - h11) + (1.0 - fz) * (h01 - h11)


def test_a_plane_is_reproduced_exactly_everywhere(surface_height):
    xs = np.arange(9) * 2.0 - 8.0
    heights = 1.0 + 0.25 * xs[None, :] - 0.5 * xs[:, None]  # (rows along z, cols along x), exact in float
    for x, z in [(0.3, -1.7), (-7.9, 7.9), (3.0, 3.0), (5.55, -2.25)]:
        assert surface_height(heights, 2.0, x, z) == pytest.approx(1.0 + 0.25 * x - 0.5 * z, abs=1e-6)


def test_each_cell_is_split_along_the_colliders_diagonal(surface_height):
    # One cell, only the (row 0, col 0) corner raised: the triangle (0,0)-(0,1)-(1,0) holds it, so
    # past the diagonal from (row 0, col 1) to (row 1, col 0) the surface is flat; bilinear would not be.
    heights = np.zeros((2, 2))
    heights[0, 0] = 1.0
    assert surface_height(heights, 1.0, -0.5 + 0.25, -0.5 + 0.25) == pytest.approx(0.5)  # 1 - fx - fz
    assert surface_height(heights, 1.0, -0.5 + 0.75, -0.5 + 0.75) == 0.0


def test_points_off_the_grid_take_the_edges_height(surface_height):
    heights = np.array([[0.0, 1.0], [2.0, 3.0]])
    assert surface_height(heights, 1.0, -50.0, -50.0) == 0.0
    assert surface_height(heights, 1.0, 50.0, 50.0) == pytest.approx(3.0, abs=0.01)  # (1.001 cells short of the far corner)


def test_the_same_bits_as_the_former_gdscript_look_up(surface_height):
    rng = np.random.default_rng(0)
    heights = rng.normal(0.0, 3.0, (33, 41)).astype(np.float32)
    cell = 1.7
    points = rng.uniform(-40.0, 40.0, (2000, 2)).astype(np.float32).astype(np.float64)  # positions come from Vector3 (float)
    for x, z in points:
        assert surface_height(heights, cell, x, z) == reference_height(heights, cell, x, z)


def test_a_library_older_than_its_sources_says_to_run_make_setup(tmp_path, monkeypatch):
    import os

    from avalon.errors import SimulatorNotInstalledError
    from avalon.sim import paths

    (tmp_path / "godot" / "native").mkdir(parents=True)
    (tmp_path / "native").mkdir()
    library = tmp_path / "godot" / paths.NATIVE_LIBRARY
    (tmp_path / "godot" / paths.NATIVE_LIBRARY_LOADER).write_text("[general]\n")
    library.write_bytes(b"\x7fELF")
    source = tmp_path / "native" / "surface.c"
    source.write_text("/* newer */\n")
    os.utime(library, (1_000_000, 1_000_000))
    monkeypatch.setattr(paths, "repository_dir", lambda: tmp_path)
    monkeypatch.delenv("AVALON_GODOT_PROJECT", raising=False)
    with pytest.raises(SimulatorNotInstalledError, match=r"older than its sources.*make setup"):
        paths.find_native_library()
    os.utime(source, (500_000, 500_000))
    assert paths.find_native_library() == library
