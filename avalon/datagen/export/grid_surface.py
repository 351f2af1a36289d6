"""Surfaces over a regular height grid drawn from fewer of its points, as the exporter coarsens them.

A grid of points (rows, cols) is drawn as two triangles per cell, split along the diagonal from
(col + 1, row) to (col, row + 1) (the diagonal Bullet's height field uses). A coarser surface uses
only some rows and columns of points (a lattice); each coarse cell is split along the same diagonal,
so a coarse surface that passes through every grid point is the fine surface itself.
"""

from __future__ import annotations

import numpy as np


def lattice_points(start: int, end: int, step: int) -> np.ndarray:
    """Grid indices from start to end every ``step``, always including both ends."""
    points = list(range(start, end, step)) + [end]
    return np.array(points)


def interpolated(values: np.ndarray, rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
    """``values`` (rows, cols, channels) at every grid point as drawn from only the points ``rr`` x
    ``cc`` (relative indices, both ends included): planar over each coarse cell's two triangles,
    split along the diagonal the meshes use."""
    rows, cols = values.shape[:2]
    k = np.clip(np.searchsorted(rr, np.arange(rows), side="right") - 1, 0, len(rr) - 2)
    m = np.clip(np.searchsorted(cc, np.arange(cols), side="right") - 1, 0, len(cc) - 2)
    v = ((np.arange(rows) - rr[k]) / (rr[k + 1] - rr[k]))[:, None, None]
    u = ((np.arange(cols) - cc[m]) / (cc[m + 1] - cc[m]))[None, :, None]
    top_left, top_right = values[np.ix_(rr[k], cc[m])], values[np.ix_(rr[k], cc[m + 1])]
    bottom_left, bottom_right = values[np.ix_(rr[k + 1], cc[m])], values[np.ix_(rr[k + 1], cc[m + 1])]
    first = top_left + u * (top_right - top_left) + v * (bottom_left - top_left)
    second = bottom_right + (1 - u) * (bottom_left - bottom_right) + (1 - v) * (top_right - bottom_right)
    return np.where(u + v <= 1, first, second)


def merged_runs(cells: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(r0, r1, c0, c1) cell ranges (end exclusive) covering the true cells of a boolean grid once
    each: every row's runs, a run extended downwards while the next row has a run of the same columns."""
    rectangles, open_runs = [], {}  # open_runs: (c0, c1) -> first row
    padded = np.zeros((cells.shape[0] + 1, cells.shape[1] + 2), bool)
    padded[:-1, 1:-1] = cells
    occupied = padded.any(axis=1)
    for r in range(padded.shape[0]):
        if not open_runs and not occupied[r]:
            continue
        edges = np.flatnonzero(np.diff(padded[r].astype(np.int8)))
        runs = set(zip(edges[0::2].tolist(), edges[1::2].tolist()))
        for run in [run for run in open_runs if run not in runs]:
            rectangles.append((open_runs.pop(run), r, *run))
        for run in sorted(runs - open_runs.keys()):
            open_runs[run] = r
    return sorted(rectangles)
