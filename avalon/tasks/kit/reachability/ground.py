"""The grid a reachability search runs on: where the body stands, hangs and is blocked.

:func:`make_ground` turns a height map, its climbable points, the points an obstacle blocks and a
set of :class:`~avalon.tasks.kit.capabilities.Capabilities` into a :class:`Ground`: per grid
point whether the body may be there at all (``usable``), stands on floor, lands firmly, runs up a
face or holds on; per height-map triangle whether it is floor, walkable uphill and how steep. Below
it, the grid helpers the edges share (pairs of points an offset apart, the triangles beside a
point) and the positions a search's nodes stand for.
"""

from __future__ import annotations

from typing import Optional

import attr
import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit.capabilities import Capabilities
from avalon.tasks.kit.geometry import DRY_MARGIN_M, triangle_corner_heights, triangle_slopes_deg

#: Neighbour offsets (row, col): along the grid's rows and columns, diagonally too, and with the
#: point itself.
NEIGHBOURS_4 = ((0, 1), (1, 0), (0, -1), (-1, 0))
NEIGHBOURS_8 = NEIGHBOURS_4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))
WITH_SELF_9 = ((0, 0),) + NEIGHBOURS_8


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Ground:
    """The grid the search runs on: heights and what the capabilities make of each point."""

    heightmap: HeightMap
    capabilities: Capabilities
    #: Heights, float64 [n, n] (rows along z, columns along x).
    heights: np.ndarray = attr.ib(repr=False)
    #: Points the body may be at: dry (unless water is ground) and clear of obstacles.
    usable: np.ndarray = attr.ib(repr=False)
    #: Points with a floor triangle beside them: the body stands there (at an edge, its capsule
    #: rests on the floor side).
    floor: np.ndarray = attr.ib(repr=False)
    #: Points with floor all round them.
    firm: np.ndarray = attr.ib(repr=False)
    #: Points next to a triangle the body can walk up (where it may be while running up a face).
    on_foot: np.ndarray = attr.ib(repr=False)
    #: Holds: climbable points.
    holds: np.ndarray = attr.ib(repr=False)
    #: Per triangle [n-1, n-1, 2]: floor; walkable uphill; slope in degrees.
    triangle_floor: np.ndarray = attr.ib(repr=False)
    triangle_up: np.ndarray = attr.ib(repr=False)
    triangle_slope_deg: np.ndarray = attr.ib(repr=False)

    @property
    def n(self) -> int:
        return self.heights.shape[0]

    @property
    def standing(self) -> np.ndarray:
        """Where the search puts the body on its feet: floor when walking keeps to the floor's
        interior, else anywhere on foot (running up a face)."""
        return self.floor if self.capabilities.interior_walking else self.on_foot

    @property
    def landings(self) -> np.ndarray:
        """Where a fall may end."""
        return self.firm if self.capabilities.firm_landings else self.floor

    @property
    def cell_m(self) -> float:
        return self.heightmap.cell_size_m


def padded_triangles(triangles: np.ndarray) -> np.ndarray:
    """A bool triangle grid [n-1, n-1, 2] padded by one cell of False all round:
    ``padded[r + 1, c + 1]`` is cell (r, c)."""
    n = triangles.shape[0] + 1
    padded = np.zeros((n + 1, n + 1, 2), dtype=bool)
    padded[1:n, 1:n] = triangles
    return padded


def _around_point(triangles: np.ndarray, every: bool) -> np.ndarray:
    """Per grid point, whether every (or any) of the up to six triangles around it is True;
    points at the world edge count their missing triangles as False."""
    padded = padded_triangles(triangles)
    # Point (r, c) touches cell (r-1, c-1) triangle 1, cell (r-1, c) triangles 0 and 1, cell (r, c-1)
    # triangles 0 and 1, and cell (r, c) triangle 0; padded[r + 1, c + 1] is cell (r, c).
    parts = (padded[:-1, :-1, 1], padded[:-1, 1:, 0], padded[:-1, 1:, 1], padded[1:, :-1, 0], padded[1:, :-1, 1],
             padded[1:, 1:, 0])
    out = parts[0].copy()
    for part in parts[1:]:
        out = (out & part) if every else (out | part)
    return out


def make_ground(heightmap: HeightMap, climbable: np.ndarray, blocked: np.ndarray, capabilities: Capabilities,
                sheer: Optional[np.ndarray] = None) -> Ground:
    """The search grid of ``heightmap`` for ``capabilities``; ``climbable`` and ``blocked`` are bool
    grids of its shape (climbable surface; points the body would overlap an obstacle at). ``sheer``
    (bool per triangle, as ``triangle_slopes_deg``) marks triangles that stand for a vertical face
    (a box burned into the map: :func:`avalon.tasks.kit.solved.block_faces`): their slope counts as
    90 degrees, whatever the grid makes of it."""
    caps = capabilities
    heights = heightmap.heights.astype(np.float64)
    slopes = triangle_slopes_deg(heightmap)
    if sheer is not None:
        slopes = np.where(sheer, 90.0, slopes)
    corners = triangle_corner_heights(heightmap)
    step = (corners.max(axis=-1) - corners.min(axis=-1)) <= caps.step_m
    if caps.water_is_ground:
        dry_points = np.ones(heights.shape, dtype=bool)
        dry_triangles = np.ones(slopes.shape, dtype=bool)
    else:
        dry_points = heights >= heightmap.water_height_m + DRY_MARGIN_M
        dry_triangles = (corners >= heightmap.water_height_m + DRY_MARGIN_M).all(axis=-1)
    triangle_floor = ((slopes <= caps.floor_slope_deg) | step) & dry_triangles
    triangle_up = ((slopes <= caps.walk_up_slope_deg) | step) & dry_triangles
    usable = dry_points & ~(blocked if caps.obstacles_block else np.zeros_like(blocked))
    usable[[0, -1], :] = usable[:, [0, -1]] = False  # the world's edge: off it the body falls out of the world
    floor = _around_point(triangle_floor, False) & usable
    firm = _around_point(triangle_floor, True) & usable
    on_foot = _around_point(triangle_up, False) & usable
    holds = climbable & dry_points
    return Ground(heightmap=heightmap, capabilities=caps, heights=heights, usable=usable, floor=floor, firm=firm, on_foot=on_foot,
                  holds=holds, triangle_floor=triangle_floor, triangle_up=triangle_up, triangle_slope_deg=slopes)


# --- grid helpers ----------------------------------------------------------------------------------


def pair_slices(n: int, dr: int, dc: int) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """Slices of the points p and of q = p + (dr, dc), for every p whose q is on the grid."""
    p = (slice(max(0, -dr), n - max(0, dr)), slice(max(0, -dc), n - max(0, dc)))
    q = (slice(max(0, dr), n - max(0, -dr)), slice(max(0, dc), n - max(0, -dc)))
    return p, q


def index_grid(n: int) -> np.ndarray:
    """Every point's index ``row * n + col``, shape [n, n]."""
    return np.arange(n * n, dtype=np.int64).reshape(n, n)


def surface_heights(ground: Ground, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Terrain surface height at fractional grid positions (exactly on the collider's triangles).
    The jump edges sample flights with :class:`~avalon.tasks.kit.reachability.jumps._Flights`,
    which gives the same values bit for bit."""
    n = ground.n
    rows = np.clip(rows, 0.0, n - 1)
    cols = np.clip(cols, 0.0, n - 1)
    r0 = np.minimum(np.floor(rows).astype(np.int64), n - 2)
    c0 = np.minimum(np.floor(cols).astype(np.int64), n - 2)
    fr, fc = rows - r0, cols - c0
    h = ground.heights
    h00, h01, h10, h11 = h[r0, c0], h[r0, c0 + 1], h[r0 + 1, c0], h[r0 + 1, c0 + 1]
    return np.where(fr + fc <= 1.0, h00 + fc * (h01 - h00) + fr * (h10 - h00),
                    h11 + (1.0 - fc) * (h10 - h11) + (1.0 - fr) * (h01 - h11))


def on_floor(ground: Ground, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Whether the triangle under each world point (``x``, ``z``, metres) is floor."""
    n = ground.n
    rows, cols = ground.heightmap.world_to_grid(x, z)
    r0 = np.clip(np.floor(rows).astype(np.int64), 0, n - 2)
    c0 = np.clip(np.floor(cols).astype(np.int64), 0, n - 2)
    second = ((rows - r0) + (cols - c0) > 1.0).astype(np.int64)
    return ground.triangle_floor[r0, c0, second]


def node_point(ground: Ground, node: int) -> tuple[float, float, float]:
    """World position (x, y, z metres) of a search node: the feet on a standing point (``i``), the
    surface at a hold (``N + i``)."""
    n = ground.n
    row, col = divmod(node % (n * n), n)
    x, z = ground.heightmap.grid_to_world(row, col)
    return float(x), float(ground.heights[row, col]), float(z)
