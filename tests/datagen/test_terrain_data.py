"""The static-world data the Godot terrain node draws: chunks, levels of detail, water, plants."""

import numpy as np
import pytest

from avalon.datagen.export import terrain_data
from avalon.datagen.export.scenery_data import SHAPES, _primitive, scenery_geometry
from avalon.tasks import build_world


@pytest.fixture(scope="module")
def world():
    return build_world("move", 0.0, 0)


@pytest.fixture(scope="module")
def data(world):
    return terrain_data.terrain_data(world.ground, world.scenery, world.lighting)


@pytest.fixture(scope="module")
def canonical(world):
    return terrain_data.terrain_data(world.ground, world.scenery, world.lighting, terrain_data.CANONICAL)


def _arrays(mesh):
    return mesh["vertices"].values, mesh["colors"].values, mesh["indices"].values


def test_chunks_levels_and_indices(data):
    assert 1 <= len(data["chunks"]) <= terrain_data.SHIPPED.max_chunks_per_side**2
    for chunk in data["chunks"]:
        assert len(chunk["levels"]) == len(terrain_data.LOD_STEPS)
        counts = []
        for level in chunk["levels"]:
            vertices, colors, indices = _arrays(level)
            assert len(vertices) == len(colors) and len(indices) % 3 == 0
            assert indices.min() >= 0 and indices.max() < len(vertices)
            assert np.all((colors >= 0) & (colors <= 1))
            counts.append(len(indices) // 3)
        assert counts[0] > counts[1] > counts[2]  # coarser levels have fewer triangles


def test_canonical_full_detail_surface_is_exactly_the_height_grid(world, canonical):
    heightmap = world.ground.heightmap
    assert canonical["format_version"] == 4
    vertices = np.concatenate([_arrays(chunk["levels"][0])[0] for chunk in canonical["chunks"]])
    rows, cols = heightmap.shape
    on_grid = np.isclose(vertices[:, 0][:, None], heightmap.x_coords_m[None, :]).any(axis=1)
    grid = vertices[on_grid]
    c = np.rint((grid[:, 0] - heightmap.x_coords_m[0]) / heightmap.cell_size_m).astype(int)
    r = np.rint((grid[:, 2] - heightmap.z_coords_m[0]) / heightmap.cell_size_m).astype(int)
    inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    terrain_like = np.isclose(grid[inside, 1], heightmap.heights[r[inside], c[inside]], atol=1e-4)
    assert terrain_like.sum() >= rows * cols  # every grid point appears at its exact height
    np.testing.assert_array_equal(canonical["heights"].values, heightmap.heights.reshape(-1).astype(np.float32))


def test_shipped_and_canonical_encodings_differ_only_in_their_meshes(data, canonical):
    assert data["format_version"] == terrain_data.TERRAIN_FORMAT_VERSION != canonical["format_version"]
    for key in ("heights", "climbable"):
        np.testing.assert_array_equal(data[key].values, canonical[key].values)
    assert [data[key] for key in ("rows", "cols", "max_slope")] == [canonical[key] for key in ("rows", "cols", "max_slope")]
    shipped = sum(len(_arrays(level)[0]) for chunk in data["chunks"] for level in chunk["levels"])
    full = sum(len(_arrays(level)[0]) for chunk in canonical["chunks"] for level in chunk["levels"])
    assert shipped < full / 2


def test_a_level_coarsens_only_while_the_surface_stays_within_its_tolerances():
    rows = cols = 33
    flat = np.zeros((rows, cols))
    grey = np.full((rows, cols, 3), 0.5)
    assert terrain_data._coarsest_step(flat, grey, 1, 0) == terrain_data.MAX_STEP
    bump = flat.copy()
    bump[9, 9] = 0.03  # 3 cm: more than level 0's tolerance, less than level 1's
    assert terrain_data._coarsest_step(bump, grey, 1, 0) == 1
    assert terrain_data._coarsest_step(bump, grey, 2, 1) == terrain_data.MAX_STEP
    stripe = grey.copy()
    stripe[:, 9] = 0.6  # a colour edge one point wide is kept at full detail
    assert terrain_data._coarsest_step(flat, stripe, 1, 0) == 1
    tilted = np.add.outer(np.arange(rows) * 0.3, np.arange(cols) * 0.1)  # a plane is exact at any step
    assert terrain_data._coarsest_step(tilted, grey, 1, 0) == terrain_data.MAX_STEP
    rr, cc = terrain_data._lod_points(0, rows - 1, 8), terrain_data._lod_points(0, cols - 1, 8)
    np.testing.assert_allclose(terrain_data._interpolated(tilted[:, :, None], rr, cc)[:, :, 0], tilted, atol=1e-9)


def test_water_only_over_cells_with_water(world):
    heightmap = world.ground.heightmap
    heights = heightmap.heights
    xs, zs, water = heightmap.x_coords_m, heightmap.z_coords_m, heightmap.water_height_m
    wet = heights < water
    cells = wet[:-1, :-1] | wet[1:, :-1] | wet[:-1, 1:] | wet[1:, 1:]
    per_cell = terrain_data._wet_cells(heights, xs, zs, water, merged=False)
    assert len(per_cell) == cells.sum() and 0 < cells.sum() < heights.size  # an island: some water, not all
    merged = terrain_data._wet_cells(heights, xs, zs, water)
    covered = np.zeros(cells.shape, int)
    for corners in merged:  # each rectangle's cells, from its corners' grid coordinates
        c0, c1 = np.searchsorted(xs, [corners[0, 0], corners[1, 0]])
        r0, r1 = np.searchsorted(zs, [corners[0, 1], corners[2, 1]])
        covered[r0:r1, c0:c1] += 1
    np.testing.assert_array_equal(covered, cells)  # every wet cell once, nothing else
    assert len(merged) < len(per_cell) / 4
    dry = np.zeros_like(heights)
    assert len(terrain_data._wet_cells(dry + 5.0, heightmap.x_coords_m, heightmap.z_coords_m, 0.0)) == 0


def test_every_plant_is_drawn_in_exactly_one_chunk(world, canonical):
    data = canonical
    heightmap = world.ground.heightmap
    heights = heightmap.heights
    per_instance = {kind: sum(len(_primitive(part)[0]) for part in parts) for kind, parts in SHAPES.items()}
    plant_vertices = sum(per_instance[item.kind] for item in world.scenery)
    bounds = terrain_data.chunk_bounds(*heights.shape)
    assert len(bounds) == len(data["chunks"])
    terrain_and_water = 0
    for r0, r1, c0, c1 in bounds:
        full = heights[r0 : r1 + 1, c0 : c1 + 1]
        wet = terrain_data._wet_cells(full, heightmap.x_coords_m[c0 : c1 + 1], heightmap.z_coords_m[r0 : r1 + 1], heightmap.water_height_m,
                                      merged=False)
        terrain_and_water += full.size + 4 * len(wet)
    drawn = sum(len(_arrays(chunk["levels"][0])[0]) for chunk in data["chunks"])
    assert drawn - terrain_and_water == plant_vertices > 0


def test_tree_colliders_cover_every_tree(world, data):
    trees = [item for item in world.scenery if item.kind.is_tree]
    assert sum(len(c["bases"].values) for c in data["tree_colliders"]) == len(trees) > 0


def _surface_height(heights: np.ndarray, cell: float, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The ground's height at grid coordinates (x, z) in metres from the first grid point, planar over
    each cell's two triangles (split from (row, col + 1) to (row + 1, col)), as animal.gd computes it."""
    rows, cols = heights.shape
    gx, gz = np.clip(x / cell, 0, cols - 1.001), np.clip(z / cell, 0, rows - 1.001)
    c, r = gx.astype(int), gz.astype(int)
    fx, fz = gx - c, gz - r
    h = heights.astype(np.float64)
    h00, h01, h10, h11 = h[r, c], h[r, c + 1], h[r + 1, c], h[r + 1, c + 1]
    lower = h00 + fx * (h01 - h00) + fz * (h10 - h00)
    upper = h11 + (1 - fx) * (h10 - h11) + (1 - fz) * (h01 - h11)
    return np.where(fx + fz <= 1.0, lower, upper)


def test_max_slope_bounds_the_surface_and_is_tight(world, data):
    heightmap = world.ground.heightmap
    heights, cell = heightmap.heights.astype(np.float32), heightmap.cell_size_m
    slope = data["max_slope"]
    assert slope == terrain_data.max_slope(heights, cell) and np.float32(slope) == slope  # stored as a 32-bit float
    rng = np.random.default_rng(0)
    extent = (heights.shape[1] - 1) * cell
    x, z = rng.uniform(0, extent, 20000), rng.uniform(0, extent, 20000)
    step = rng.normal(size=(2, 20000)) * rng.choice([0.05, 0.5, 3.0], 20000)  # near and far pairs
    x2, z2 = x + step[0], z + step[1]
    rise = np.abs(_surface_height(heights, cell, x2, z2) - _surface_height(heights, cell, x, z))
    assert np.all(rise <= slope * np.hypot(step[0], step[1]) + 1e-9)  # (points off the grid clamp to its edge)
    # Not a loose bound: the steepest grid edge is at most that steep, and at least 1/sqrt(2) of it.
    edges = max(np.abs(np.diff(heights.astype(np.float64), axis=0)).max(), np.abs(np.diff(heights.astype(np.float64), axis=1)).max()) / cell
    assert edges <= slope <= edges * np.sqrt(2.0) * (1 + 1e-6)


def test_max_slope_of_flat_and_tilted_grids():
    flat = np.full((5, 5), 2.0, np.float32)
    assert terrain_data.max_slope(flat, 1.0) == np.nextafter(np.float32(0.0), np.float32(1.0))
    xs = np.arange(5, dtype=np.float32)
    tilted = np.add.outer(0.5 * xs, 0.25 * xs).astype(np.float32)  # rises 0.5 per row, 0.25 per column
    assert terrain_data.max_slope(tilted, 2.0) == pytest.approx(np.hypot(0.5, 0.25) / 2.0, rel=1e-6)


def test_plants_are_simpler_at_coarser_levels(world):
    trees = [item for item in world.scenery if item.kind.is_tree][:5]
    assert trees
    counts = [len(scenery_geometry(trees, world.lighting, level)[0]) for level in range(len(terrain_data.LOD_STEPS))]
    assert counts[0] > counts[1] > counts[2] > 0
