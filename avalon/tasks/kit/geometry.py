"""Geometry and ground queries: headings, and what the terrain's surface is like at a point.

Geometry is Godot's: metres, x right, y up, z back, yaw 0 faces -z and positive yaw turns left.
The terrain surface is the triangle mesh Godot renders and Bullet collides with: every grid cell is
split along the diagonal from (row, col + 1) to (row + 1, col) (see
``avalon.datagen.export.terrain_data``); :func:`ground_height`, :func:`triangle_slopes_deg` and
:func:`walkable_grid` use exactly those triangles, so "reachable on foot" is a flood fill over them
(:func:`component_labels`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from avalon.datagen.terrain import HeightMap
from avalon.rules import mechanics

#: A horizontal point or direction (x, z), metres.
XZ = tuple[float, float]
#: A disc on the ground (x, z, radius), metres, that plants keep clear of.
KeepClear = tuple[float, float, float]

#: Radius of the agent's body capsule, metres.
AGENT_RADIUS_M = mechanics.BODY_RADIUS_M
#: Triangles steeper than this are not counted as walkable when proving the food is reachable.
WALKABLE_SLOPE_DEG = 40.0
#: Triangles this steep or steeper are walls when proving something is blocked (a generous limit:
#: the agent may manage a little more than WALKABLE_SLOPE_DEG).
BLOCKING_SLOPE_DEG = 50.0
#: Land this close to the water plane counts as wet, metres.
DRY_MARGIN_M = 0.05


# --- ground queries ------------------------------------------------------------------------------


def _corners(heightmap: HeightMap, x, z):
    row, col = heightmap.world_to_grid(x, z)
    last = heightmap.shape[0] - 1
    row = np.clip(row, 0.0, last)
    col = np.clip(col, 0.0, last)
    r0 = np.minimum(np.floor(row).astype(np.intp), last - 1)
    c0 = np.minimum(np.floor(col).astype(np.intp), last - 1)
    return r0, c0, row - r0, col - c0


def _require_inside(heightmap: HeightMap, x, z) -> None:
    if not np.all(heightmap.contains(x, z)):
        raise ValueError(
            f"position x={np.ravel(x)[:3].tolist()}, z={np.ravel(z)[:3].tolist()} (m) is outside the world "
            f"(|x|, |z| <= {heightmap.half_size_m})"
        )


def ground_height(heightmap: HeightMap, x, z):
    """Height (y, metres) of the terrain surface the agent stands on at world (x, z).

    Exact on the rendered and colliding triangle mesh (the bilinear ``HeightMap.height_at`` can
    differ from it inside a cell). Returns a float for scalar input, an array otherwise;
    ``ValueError`` outside the world.
    """
    _require_inside(heightmap, x, z)
    r0, c0, fr, fc = _corners(heightmap, x, z)
    h = heightmap.heights.astype(np.float64)
    h00, h01, h10, h11 = h[r0, c0], h[r0, c0 + 1], h[r0 + 1, c0], h[r0 + 1, c0 + 1]
    upper = fr + fc <= 1.0  # triangle (row, col), (row, col + 1), (row + 1, col)
    y = np.where(
        upper,
        h00 + fc * (h01 - h00) + fr * (h10 - h00),
        h11 + (1.0 - fc) * (h10 - h11) + (1.0 - fr) * (h01 - h11),
    )
    return float(y) if np.ndim(y) == 0 else y


def triangle_slopes_deg(heightmap: HeightMap) -> np.ndarray:
    """Slope of every terrain triangle, degrees: shape (rows - 1, cols - 1, 2).

    ``[..., 0]`` is the triangle (r, c), (r, c + 1), (r + 1, c) of cell (r, c) and ``[..., 1]``
    the triangle (r, c + 1), (r + 1, c + 1), (r + 1, c).
    """
    h = heightmap.heights.astype(np.float64)
    cell = heightmap.cell_size_m
    first = np.hypot(h[:-1, 1:] - h[:-1, :-1], h[1:, :-1] - h[:-1, :-1]) / cell
    second = np.hypot(h[1:, 1:] - h[1:, :-1], h[1:, 1:] - h[:-1, 1:]) / cell
    return np.degrees(np.arctan(np.stack([first, second], axis=-1)))


def triangle_corner_heights(heightmap: HeightMap) -> np.ndarray:
    """Heights of the three corners of every triangle: shape (rows - 1, cols - 1, 2, 3)."""
    h = heightmap.heights.astype(np.float64)
    first = np.stack([h[:-1, :-1], h[:-1, 1:], h[1:, :-1]], axis=-1)
    second = np.stack([h[:-1, 1:], h[1:, 1:], h[1:, :-1]], axis=-1)
    return np.stack([first, second], axis=2)


def walkable_grid(
    heightmap: HeightMap, max_slope_deg: float = WALKABLE_SLOPE_DEG, *, allow_water: bool = False
) -> np.ndarray:
    """True for every terrain triangle the agent can walk on: shape (rows - 1, cols - 1, 2).

    Walkable means gentler than ``max_slope_deg`` and, unless ``allow_water``, with all three
    corners at or above the water plane (the agent does not wade or swim).
    """
    walkable = triangle_slopes_deg(heightmap) < max_slope_deg
    if not allow_water:
        walkable &= (triangle_corner_heights(heightmap) >= heightmap.water_height_m).all(axis=-1)
    return walkable


def triangle_index(heightmap: HeightMap, x: float, z: float) -> tuple[int, int, int]:
    """(row, col, k) of the terrain triangle under world (x, z); see :func:`triangle_slopes_deg`."""
    _require_inside(heightmap, x, z)
    r0, c0, fr, fc = _corners(heightmap, x, z)
    return int(r0), int(c0), int(fr + fc > 1.0)


def component_labels(walkable: np.ndarray) -> np.ndarray:
    """Connected-component label of each triangle (same shape); -1 where not walkable.

    Two walkable triangles are connected when they share an edge (a breadth-first flood fill
    over the triangle mesh).
    """
    rows, cols, _ = walkable.shape
    ids = np.arange(rows * cols * 2).reshape(rows, cols, 2)
    w = walkable
    pairs = (
        (w[:, :, 0] & w[:, :, 1], ids[:, :, 0], ids[:, :, 1]),  # the two halves of a cell
        (w[1:, :, 0] & w[:-1, :, 1], ids[1:, :, 0], ids[:-1, :, 1]),  # top edge / cell above
        (w[:, 1:, 0] & w[:, :-1, 1], ids[:, 1:, 0], ids[:, :-1, 1]),  # left edge / cell to the left
    )
    a = np.concatenate([first[mask] for mask, first, _ in pairs])
    b = np.concatenate([second[mask] for mask, _, second in pairs])
    size = ids.size
    graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(size, size)).tocsr()
    _count, labels = connected_components(graph, directed=False)
    labels = labels.reshape(w.shape)
    labels[~w] = -1
    return labels


def _xz(point) -> XZ:
    values = [float(v) for v in point]
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 3:
        return values[0], values[2]
    raise ValueError(f"point {point!r}: expected (x, z) or (x, y, z)")


def to_local(x, z, centre: XZ, yaw_rad: float) -> tuple[np.ndarray, np.ndarray]:
    """World (x, z) (arrays broadcast) in the frame of a footprint at ``centre`` turned ``yaw_rad``
    (a box's, a block's, a log's): (right, back) from its centre, metres (a log's across and along)."""
    c, s = math.cos(yaw_rad), math.sin(yaw_rad)
    dx = np.asarray(x, dtype=np.float64) - centre[0]
    dz = np.asarray(z, dtype=np.float64) - centre[1]
    return c * dx - s * dz, s * dx + c * dz


def reachable_mask(heightmap: HeightMap, walkable: np.ndarray, start) -> np.ndarray:
    """Triangles reachable on foot from ``start`` ((x, z) or (x, y, z)); all False if it is not walkable."""
    labels = component_labels(walkable)
    label = labels[triangle_index(heightmap, *_xz(start))]
    if label < 0:
        return np.zeros(walkable.shape, dtype=bool)
    return labels == label


def path_exists(heightmap: HeightMap, walkable: np.ndarray, start, goal) -> bool:
    """Whether a walk over ``walkable`` triangles leads from ``start`` to ``goal`` ((x, z) or (x, y, z))."""
    labels = component_labels(walkable)
    a = labels[triangle_index(heightmap, *_xz(start))]
    b = labels[triangle_index(heightmap, *_xz(goal))]
    return bool(a >= 0 and a == b)


def triangle_centroids(heightmap: HeightMap) -> tuple[np.ndarray, np.ndarray]:
    """(x, z) of every triangle's centroid, each of shape (rows - 1, cols - 1, 2)."""
    cell = heightmap.cell_size_m
    n = heightmap.shape[0] - 1
    base = -heightmap.half_size_m + cell * np.arange(n)
    offsets = np.array([1.0 / 3.0, 2.0 / 3.0]) * cell
    x = base[None, :, None] + offsets[None, None, :]
    z = base[:, None, None] + offsets[None, None, :]
    return np.broadcast_to(x, (n, n, 2)).copy(), np.broadcast_to(z, (n, n, 2)).copy()


def sample_at(heightmap: HeightMap, grid: np.ndarray, x: float, z: float) -> float:
    """Value of a per-point grid (e.g. ``distance_to_water_m()``) at the nearest point to (x, z)."""
    row, col = heightmap.nearest_index(x, z)
    return float(grid[row, col])


def is_dry_land(heightmap: HeightMap, x: float, z: float, min_water_distance_m: float = 0.0) -> bool:
    """Whether (x, z) is inside the world, its surface ``DRY_MARGIN_M`` above the water plane and
    the nearest grid point at least ``min_water_distance_m`` from water."""
    if not bool(heightmap.contains(x, z)):
        return False
    if ground_height(heightmap, x, z) < heightmap.water_height_m + DRY_MARGIN_M:
        return False
    return sample_at(heightmap, heightmap.distance_to_water_m(), x, z) >= min_water_distance_m


# --- headings ------------------------------------------------------------------------------------


def facing_direction(yaw_rad: float) -> XZ:
    """Unit (x, z) direction the agent faces at ``yaw_rad`` (yaw 0 faces -z, positive turns left)."""
    return -math.sin(yaw_rad), -math.cos(yaw_rad)


def yaw_towards(from_xz: XZ, to_xz: XZ) -> float:
    """The yaw (radians) that faces from one point towards another."""
    return math.atan2(-(to_xz[0] - from_xz[0]), -(to_xz[1] - from_xz[1]))


def wrap_angle(angle_rad: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle_rad + math.pi) % (2.0 * math.pi) - math.pi

