"""The terrain's height-field collider in tiles, each at the coarsest resolution that is exact.

Bullet tests a body against every triangle of the height field under its bounding box, so on a
fine grid (stack's 0.25 m) each loose stone meets a dozen triangles and never comes to rest: the
stones of a stack world stayed awake and cost more than the rest of the step. The collider is cut
into tiles of ``SUBTILE_CELLS`` cells; each tile uses every ``step``-th grid point, ``step``
doubling while the coarser surface passes through every grid point of the tile within
``TOLERANCE_M`` (up to ``SUBTILE_CELLS``, and to ``TILE_CELLS`` for aligned blocks of tiles that
are exact at that step). Each coarse cell is split along the same diagonal as the fine cells under
it, so a coarse surface through every fine point *is* the fine surface: level ground (the stack
yard, a plateau's top, the sea floor) gets large cells, and everywhere else (walls, cliffs,
natural ground) the collider is the full grid, as before. Neighbouring tiles of one step are
merged into rectangles, one ``HeightMapShape`` each (``godot/world/terrain.gd``).
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.export.grid_surface import interpolated, lattice_points, merged_runs

#: The largest step, in grid cells: level ground of that many cells a side is one coarse cell.
TILE_CELLS = 8
#: On grids finer than FINE_CELL_M, tiles not exact at TILE_CELLS are split into tiles of this
#: many cells, each with its own step: the level ground beside a wall (where stack's staircase
#: stands) is coarse too. Coarser grids do without (an item meets a few cells there anyway): every
#: tile is one more shape, and Bullet rebuilds the ground's compound shape for each one added.
SUBTILE_CELLS = 4
FINE_CELL_M = 0.5
#: How far the coarse surface may depart from the grid at any grid point, metres: none (float32
#: rounding aside), so every height the agent can stand on is the one the generator made.
TOLERANCE_M = 1e-5
#: Values per tile in the shipped array: first row and column, rows and columns of cells, step.
TILE_FIELDS = 5


def collider_tiles(heights: np.ndarray, cell_size_m: float) -> np.ndarray:
    """(n, TILE_FIELDS) int32 rectangles (first row, first column, cell rows, cell columns, step) that
    cover the cells of ``heights`` (rows, cols; ``cell_size_m`` apart) once each; a rectangle's
    extents are multiples of its step. A grid that cannot be coarsened anywhere is one rectangle
    at step 1."""
    heights = np.asarray(heights, np.float64)
    rows, cols = heights.shape
    tile_cells = SUBTILE_CELLS if cell_size_m < FINE_CELL_M else TILE_CELLS  # the smallest tile
    tile_rows, tile_cols = -(-(rows - 1) // tile_cells), -(-(cols - 1) // tile_cells)
    steps = np.ones((tile_rows, tile_cols), np.int64)
    # Only whole tiles coarsen: a tile cut short by the grid's edge keeps step 1.
    whole = np.zeros_like(steps, bool)
    whole[: (rows - 1) // tile_cells, : (cols - 1) // tile_cells] = True
    ratio = TILE_CELLS // tile_cells
    step = 2
    while step <= TILE_CELLS:
        error = _errors(heights, step)
        if step <= tile_cells:
            exact = whole & (steps == step // 2) & (_tile_maxima(error, tile_cells, tile_rows, tile_cols) <= TOLERANCE_M)
        else:  # a block of ratio x ratio whole tiles, aligned, all at the finer step
            block_rows, block_cols = tile_rows // ratio, tile_cols // ratio
            block = _tile_maxima(error, step, -(-tile_rows // ratio), -(-tile_cols // ratio))[:block_rows, :block_cols] <= TOLERANCE_M
            ready = (whole & (steps == step // 2))[: block_rows * ratio, : block_cols * ratio]
            block &= ready.reshape(block_rows, ratio, block_cols, ratio).all(axis=(1, 3))
            exact = np.zeros_like(whole)
            exact[: block_rows * ratio, : block_cols * ratio] = np.repeat(np.repeat(block, ratio, axis=0), ratio, axis=1)
        if not exact.any():
            break
        steps[exact] = step
        step *= 2
    tiles = []
    for tile_step in np.unique(steps):
        for r0, r1, c0, c1 in merged_runs(steps == tile_step):
            first_row, first_col = r0 * tile_cells, c0 * tile_cells
            cell_rows = min(r1 * tile_cells, rows - 1) - first_row
            cell_cols = min(c1 * tile_cells, cols - 1) - first_col
            tiles.append((first_row, first_col, cell_rows, cell_cols, int(tile_step)))
    return np.array(sorted(tiles), np.int32).reshape(-1, TILE_FIELDS)


def _errors(heights: np.ndarray, step: int) -> np.ndarray:
    """How far the surface drawn from every ``step``-th point departs from each grid point."""
    rows, cols = heights.shape
    coarse = interpolated(heights[:, :, None], lattice_points(0, rows - 1, step), lattice_points(0, cols - 1, step))
    return np.abs(coarse[:, :, 0] - heights)


def _tile_maxima(values: np.ndarray, size: int, tile_rows: int, tile_cols: int) -> np.ndarray:
    """The largest of ``values`` (one per grid point) over each tile of ``size`` cells, its edges included."""
    padded = np.zeros((tile_rows * size + 1, tile_cols * size + 1))
    rows, cols = min(values.shape[0], padded.shape[0]), min(values.shape[1], padded.shape[1])
    padded[:rows, :cols] = values[:rows, :cols]
    # Each tile's points: its cells' first corners, and the next tile's first row and column.
    cells = padded[:-1, :-1].reshape(tile_rows, size, tile_cols, size).max(axis=(1, 3))
    below = padded[size::size, :-1].reshape(tile_rows, tile_cols, size).max(axis=2)
    right = padded[:-1, size::size].reshape(tile_rows, size, tile_cols).max(axis=1)
    corner = padded[size::size, size::size]
    return np.maximum.reduce([cells, below, right, corner])


def tile_surface_heights(heights: np.ndarray, tile) -> np.ndarray:
    """The grid points a tile's height field holds (cell rows / step + 1, cell columns / step + 1),
    as ``TerrainSampler.tile_heights`` (``native/terrain.c``) picks them."""
    first_row, first_col, cell_rows, cell_cols, step = (int(value) for value in tile)
    return np.asarray(heights)[first_row : first_row + cell_rows + 1 : step, first_col : first_col + cell_cols + 1 : step]
