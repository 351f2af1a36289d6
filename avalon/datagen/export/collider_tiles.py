"""The terrain's height-field collider in tiles, each at the coarsest resolution that is exact.

Bullet tests a body against every triangle of the height field under its bounding box, so on a
fine grid (stack's 0.25 m) each loose stone meets a dozen triangles and never comes to rest: the
stones of a stack world stayed awake and cost more than the rest of the step. The collider is cut
into tiles of ``TILE_CELLS`` cells; each tile uses every ``step``-th grid point, ``step`` doubling
(up to ``TILE_CELLS``) while the coarser surface passes through every grid point of the tile
within ``TOLERANCE_M``. Each coarse cell is split along the same diagonal as the fine cells under
it, so a coarse surface through every fine point *is* the fine surface: level ground (the stack
yard, a plateau's top, the sea floor) gets large cells, and everywhere else (walls, cliffs,
natural ground) the collider is the full grid, as before. Neighbouring tiles of one step are
merged into rectangles, one ``HeightMapShape`` each (``godot/world/terrain.gd``).
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.export.grid_surface import interpolated, lattice_points, merged_runs

#: Tile side in grid cells; also the largest step (a tile of level ground becomes one coarse cell).
TILE_CELLS = 8
#: How far the coarse surface may depart from the grid at any grid point, metres: none (float32
#: rounding aside), so every height the agent can stand on is the one the generator made.
TOLERANCE_M = 1e-5
#: Values per tile in the shipped array: first row and column, rows and columns of cells, step.
TILE_FIELDS = 5


def collider_tiles(heights: np.ndarray) -> np.ndarray:
    """(n, TILE_FIELDS) int32 rectangles (first row, first column, cell rows, cell columns, step) that
    cover the cells of ``heights`` (rows, cols) once each; a rectangle's extents are multiples of
    its step. A grid that cannot be coarsened anywhere is one rectangle at step 1."""
    heights = np.asarray(heights, np.float64)
    rows, cols = heights.shape
    tile_rows, tile_cols = -(-(rows - 1) // TILE_CELLS), -(-(cols - 1) // TILE_CELLS)
    steps = np.ones((tile_rows, tile_cols), np.int64)
    # Only whole tiles coarsen: a tile cut short by the grid's edge keeps step 1.
    whole = np.zeros_like(steps, bool)
    whole[: (rows - 1) // TILE_CELLS, : (cols - 1) // TILE_CELLS] = True
    step = 2
    while step <= TILE_CELLS:
        coarse = interpolated(heights[:, :, None], lattice_points(0, rows - 1, step), lattice_points(0, cols - 1, step))
        error = np.abs(coarse[:, :, 0] - heights)
        exact = whole & (steps == step // 2) & (_tile_maxima(error, tile_rows, tile_cols) <= TOLERANCE_M)
        if not exact.any():
            break
        steps[exact] = step
        step *= 2
    tiles = []
    for tile_step in np.unique(steps):
        for r0, r1, c0, c1 in merged_runs(steps == tile_step):
            first_row, first_col = r0 * TILE_CELLS, c0 * TILE_CELLS
            cell_rows = min(r1 * TILE_CELLS, rows - 1) - first_row
            cell_cols = min(c1 * TILE_CELLS, cols - 1) - first_col
            tiles.append((first_row, first_col, cell_rows, cell_cols, int(tile_step)))
    return np.array(sorted(tiles), np.int32).reshape(-1, TILE_FIELDS)


def _tile_maxima(values: np.ndarray, tile_rows: int, tile_cols: int) -> np.ndarray:
    """The largest of ``values`` (one per grid point) over each tile, its edges included."""
    padded = np.zeros((tile_rows * TILE_CELLS + 1, tile_cols * TILE_CELLS + 1))
    padded[: values.shape[0], : values.shape[1]] = values
    # Each tile's points: its cells' first corners, and the next tile's first row and column.
    cells = padded[:-1, :-1].reshape(tile_rows, TILE_CELLS, tile_cols, TILE_CELLS).max(axis=(1, 3))
    below = padded[TILE_CELLS::TILE_CELLS, :-1].reshape(tile_rows, tile_cols, TILE_CELLS).max(axis=2)
    right = padded[:-1, TILE_CELLS::TILE_CELLS].reshape(tile_rows, TILE_CELLS, tile_cols).max(axis=1)
    corner = padded[TILE_CELLS::TILE_CELLS, TILE_CELLS::TILE_CELLS]
    return np.maximum.reduce([cells, below, right, corner])


def tile_surface_heights(heights: np.ndarray, tile) -> np.ndarray:
    """The grid points a tile's height field holds (cell rows / step + 1, cell columns / step + 1),
    as ``TerrainSampler.tile_heights`` (``native/terrain.c``) picks them."""
    first_row, first_col, cell_rows, cell_cols, step = (int(value) for value in tile)
    return np.asarray(heights)[first_row : first_row + cell_rows + 1 : step, first_col : first_col + cell_cols + 1 : step]
