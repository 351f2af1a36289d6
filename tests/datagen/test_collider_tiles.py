"""The collider's tiles: they cover the grid once, and coarsen only where the surface stays exact."""

import numpy as np

from avalon.datagen.export import collider_tiles, terrain_data
from avalon.datagen.export.collider_tiles import SUBTILE_CELLS, TILE_CELLS, collider_tiles as tiles_of
from avalon.datagen.export.grid_surface import interpolated, lattice_points
from avalon.tasks import build_world


def _coverage(tiles, rows, cols):
    covered = np.zeros((rows - 1, cols - 1), int)
    for first_row, first_col, cell_rows, cell_cols, step in tiles:
        assert cell_rows % step == 0 and cell_cols % step == 0
        covered[first_row : first_row + cell_rows, first_col : first_col + cell_cols] += 1
    return covered


def _tile_steps(tiles, rows, cols):
    """The step of the tile each cell belongs to."""
    steps = np.zeros((rows - 1, cols - 1), int)
    for first_row, first_col, cell_rows, cell_cols, step in tiles:
        steps[first_row : first_row + cell_rows, first_col : first_col + cell_cols] = step
    return steps


def _assert_exact(heights, tiles):
    """Each tile's coarse surface passes through every grid point of the tile."""
    for tile in tiles:
        first_row, first_col, cell_rows, cell_cols, step = tile
        fine = heights[first_row : first_row + cell_rows + 1, first_col : first_col + cell_cols + 1].astype(np.float64)
        coarse = collider_tiles.tile_surface_heights(heights, tile)
        assert coarse.shape == (cell_rows // step + 1, cell_cols // step + 1)
        rr, cc = lattice_points(0, cell_rows, step), lattice_points(0, cell_cols, step)
        np.testing.assert_array_equal(fine[np.ix_(rr, cc)], coarse)
        np.testing.assert_allclose(interpolated(fine[:, :, None], rr, cc)[:, :, 0], fine, atol=collider_tiles.TOLERANCE_M)


def test_level_ground_coarsens_and_a_bump_or_a_wall_keeps_full_detail():
    rows = cols = 4 * TILE_CELLS + 5  # a column and row of tiles cut short by the edge
    heights = np.zeros((rows, cols), np.float32)
    heights[3, 3] = 0.001  # a 1 mm bump in the first tile
    heights[:, 2 * TILE_CELLS + 3 :] = 2.0  # a wall inside the third column of tiles
    tiles = tiles_of(heights, 1.0)
    assert (_coverage(tiles, rows, cols) == 1).all()
    steps = _tile_steps(tiles, rows, cols)
    assert steps[0, 0] == 1  # the bump's tile
    assert steps[0, TILE_CELLS] == TILE_CELLS and steps[2 * TILE_CELLS, 0] == TILE_CELLS  # level ground
    assert steps[0, 2 * TILE_CELLS] == 1  # the wall's tile
    assert steps[0, 3 * TILE_CELLS] == TILE_CELLS  # the level top beyond the wall
    assert (steps[4 * TILE_CELLS :, :] == 1).all() and (steps[:, 4 * TILE_CELLS :] == 1).all()  # cut short
    _assert_exact(heights, tiles)


def test_on_a_fine_grid_the_level_ground_beside_a_wall_is_coarse_too():
    rows = cols = 2 * TILE_CELLS + 1
    heights = np.zeros((rows, cols), np.float32)
    heights[:, TILE_CELLS + SUBTILE_CELLS + 1 :] = 2.0  # a wall in the second column of tiles, 1 cell past its middle
    coarse = _tile_steps(tiles_of(heights, 1.0), rows, cols)
    fine = _tile_steps(tiles_of(heights, 0.25), rows, cols)
    assert (coarse[:, TILE_CELLS:] == 1).all()  # 1 m cells: the wall's whole tile at full detail
    assert (fine[:, TILE_CELLS : TILE_CELLS + SUBTILE_CELLS] == SUBTILE_CELLS).all()  # 0.25 m: its level half coarse
    assert (fine[:, TILE_CELLS + SUBTILE_CELLS :] == 1).all()
    assert (coarse[:, :TILE_CELLS] == TILE_CELLS).all() and (fine[:, :TILE_CELLS] == TILE_CELLS).all()
    _assert_exact(heights, tiles_of(heights, 0.25))


def test_a_tilted_plane_is_one_coarse_tile_and_a_rough_grid_one_fine_one():
    rows = cols = 2 * TILE_CELLS + 1
    tilted = np.add.outer(np.arange(rows) * 0.25, np.arange(cols) * 0.125).astype(np.float32)
    assert tiles_of(tilted, 1.0).tolist() == [[0, 0, rows - 1, cols - 1, TILE_CELLS]]
    rough = np.random.default_rng(0).normal(size=(rows, cols)).astype(np.float32)
    assert tiles_of(rough, 1.0).tolist() == [[0, 0, rows - 1, cols - 1, 1]]


def test_a_task_worlds_tiles_are_exact_and_shipped_only_in_the_shipped_encoding():
    world = build_world("stack", 1.0, 0)
    heights = np.asarray(world.ground.heightmap.heights, np.float32)
    tiles = tiles_of(heights, world.ground.heightmap.cell_size_m)
    assert (_coverage(tiles, *heights.shape) == 1).all()
    assert set(tiles[:, 4].tolist()) == {1, SUBTILE_CELLS, TILE_CELLS}  # the level yard coarse, beside its walls too
    _assert_exact(heights, tiles)
    shipped = terrain_data.terrain_data(world.ground, world.scenery, world.lighting)
    np.testing.assert_array_equal(shipped["collider_tiles"].values, tiles.reshape(-1))
    canonical = terrain_data.terrain_data(world.ground, world.scenery, world.lighting, terrain_data.CANONICAL)
    assert "collider_tiles" not in canonical
