"""Walking paths over the ground of a World spec: the shortest way on foot between two points that
keeps the body clear of tree trunks, of steep ground and edges, and out of the water, preferring
the middle of narrow ways (a causeway) to their edges.

The ground (:class:`~avalon.agent.scripted.ground.Ground`) is sampled on a square grid of
``GRID_M`` over a window around both ends (the whole world if that finds no way). Two neighbouring
points are connected when the ground between them is no steeper than ``WALKABLE_SLOPE_DEG``; the
lower point of a steeper pair is an edge (a wall's foot, or the first point beyond a drop's lip).
Points closer than ``EDGE_CLEARANCE_M`` to an edge or water, or closer than the body's radius plus
``OBSTACLE_MARGIN_M`` to a trunk or food on the ground, are left out, and a point's cost grows as it nears an edge.
"""

from __future__ import annotations

import math

import attr
import numpy as np
from scipy.ndimage import distance_transform_edt
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from avalon.agent.scripted.ground import Ground
from avalon.rules import mechanics

#: Spacing of the planning grid, metres.
GRID_M = 0.25
#: Steepest ground the planner walks on, degrees (Godot's floor limit is 45).
WALKABLE_SLOPE_DEG = 40.0
#: The body's centre keeps at least this far from an edge (a wall's foot, a drop's lip) or water, metres.
EDGE_CLEARANCE_M = 0.35
#: ...and this much more than its radius from a tree trunk's or a food's surface, metres.
OBSTACLE_MARGIN_M = 0.1
#: Points nearer than this to an edge cost more, the more the nearer (up to EDGE_PENALTY times), metres.
COMFORT_CLEARANCE_M = 1.2
EDGE_PENALTY = 3.0
#: The planning window reaches this far beyond the two ends, metres; then the whole world.
WINDOW_MARGIN_M = 8.0

_NEIGHBOURS = ((0, 1), (1, 0), (1, 1), (1, -1))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class WalkPath:
    """Points (x, y, z) from the start to the end of a walk, ``GRID_M`` or so apart (y: the ground)."""

    points: np.ndarray = attr.ib(repr=False)
    #: Whether the path ends at the goal or within the planner's tolerance of it; else it ends at
    #: the nearest point to it that can be reached.
    reaches_goal: bool
    #: Horizontal distance from the path's end to the goal, metres.
    miss_m: float

    @property
    def length_m(self) -> float:
        steps = np.diff(self.points[:, [0, 2]], axis=0)
        return float(np.hypot(steps[:, 0], steps[:, 1]).sum())


def plan_walk(ground: Ground, start, goal, tolerance_m: float = GRID_M) -> WalkPath:
    """The way on foot from ``start`` to ``goal`` ((x, z) or (x, y, z)); if none exists, the way to
    the point nearest to the goal that can be reached (``reaches_goal``: whether that point is
    within ``tolerance_m`` of the goal)."""
    start_xz = (float(start[0]), float(start[-1]))
    goal_xz = (float(goal[0]), float(goal[-1]))
    path = _plan_in_window(ground, start_xz, goal_xz, WINDOW_MARGIN_M, tolerance_m)
    if not path.reaches_goal:
        wider = _plan_in_window(ground, start_xz, goal_xz, 2.0 * ground.half_size_m, tolerance_m)
        if wider.miss_m < path.miss_m:
            path = wider
    return path


def _plan_in_window(ground: Ground, start, goal, margin_m: float, tolerance_m: float) -> WalkPath:
    low_x = max(-ground.half_size_m, min(start[0], goal[0]) - margin_m)
    high_x = min(ground.half_size_m, max(start[0], goal[0]) + margin_m)
    low_z = max(-ground.half_size_m, min(start[1], goal[1]) - margin_m)
    high_z = min(ground.half_size_m, max(start[1], goal[1]) + margin_m)
    xs = np.arange(low_x, high_x + 1e-9, GRID_M)
    zs = np.arange(low_z, high_z + 1e-9, GRID_M)
    x, z = np.meshgrid(xs, zs)
    heights = np.asarray(ground.height(x, z), dtype=np.float64)
    rows, cols = heights.shape

    rise_limit = math.tan(math.radians(WALKABLE_SLOPE_DEG))
    edge = np.zeros(heights.shape, dtype=bool)
    for dr, dc in ((0, 1), (1, 0)):
        a = heights[: rows - dr, : cols - dc]
        b = heights[dr:, dc:]
        steep = np.abs(a - b) > rise_limit * GRID_M * math.hypot(dr, dc)
        # The lower point of a steep pair: the foot of a wall, or just beyond a drop's lip. So a body on
        # the upper side may stand right at the lip (its axis supported), one below keeps off the face.
        edge[: rows - dr, : cols - dc] |= steep & (a < b)
        edge[dr:, dc:] |= steep & (b < a)
    if ground.water_height_m is not None:
        edge |= heights < ground.water_height_m + 0.05
    clearance = distance_transform_edt(~edge) * GRID_M
    allowed = (clearance >= EDGE_CLEARANCE_M) & (ground.obstacle_clearance_m(x, z) >= mechanics.BODY_RADIUS_M + OBSTACLE_MARGIN_M)

    start_index = _nearest(xs, zs, start)
    goal_index = _nearest(xs, zs, goal)
    allowed[start_index] = True  # wherever the body stands, it can walk away from there
    penalty = 1.0 + EDGE_PENALTY * np.clip(1.0 - clearance / COMFORT_CLEARANCE_M, 0.0, 1.0)

    ids = np.arange(rows * cols).reshape(rows, cols)
    sources, targets, costs = [], [], []
    for dr, dc in _NEIGHBOURS:
        r0, r1 = max(0, -dr), rows - max(0, dr)
        c0, c1 = max(0, -dc), cols - max(0, dc)
        a = (slice(r0, r1), slice(c0, c1))
        b = (slice(r0 + dr, r1 + dr), slice(c0 + dc, c1 + dc))
        length = GRID_M * math.hypot(dr, dc)
        ok = allowed[a] & allowed[b] & (np.abs(heights[a] - heights[b]) <= rise_limit * length)
        sources.append(ids[a][ok])
        targets.append(ids[b][ok])
        costs.append(length * 0.5 * (penalty[a][ok] + penalty[b][ok]))
    source = np.concatenate(sources)
    target = np.concatenate(targets)
    cost = np.concatenate(costs)
    graph = coo_matrix((cost, (source, target)), shape=(ids.size, ids.size)).tocsr()
    distances, predecessors = dijkstra(graph, directed=False, indices=int(ids[start_index]), return_predecessors=True)

    reached = np.isfinite(distances).reshape(rows, cols)
    at_goal = bool(reached[goal_index] and allowed[goal_index])
    end = ids[goal_index] if at_goal else int(np.argmin(np.where(reached, np.hypot(x - goal[0], z - goal[1]), np.inf)))
    chain = [int(end)]
    while chain[-1] != ids[start_index]:
        chain.append(int(predecessors[chain[-1]]))
    chain.reverse()
    flat_x, flat_z, flat_h = x.ravel(), z.ravel(), heights.ravel()
    points = np.stack([flat_x[chain], flat_h[chain], flat_z[chain]], axis=1)
    points[0, [0, 2]] = start
    if at_goal:
        points[-1, [0, 2]] = goal
    miss_m = float(math.hypot(points[-1, 0] - goal[0], points[-1, 2] - goal[1]))
    return WalkPath(points=points, reaches_goal=miss_m <= tolerance_m, miss_m=miss_m)


def _nearest(xs: np.ndarray, zs: np.ndarray, point) -> tuple[int, int]:
    col = int(np.clip(np.rint((point[0] - xs[0]) / GRID_M), 0, len(xs) - 1))
    row = int(np.clip(np.rint((point[1] - zs[0]) / GRID_M), 0, len(zs) - 1))
    return row, col


def pursuit_point(path: WalkPath, position, lookahead_m: float, after_index: int = 0) -> tuple[np.ndarray, int]:
    """The point ``lookahead_m`` ahead along ``path`` of its point nearest to ``position`` (searched
    from ``after_index`` on, so the walker never steers backwards), and that nearest index."""
    points = path.points
    xz = points[after_index:, [0, 2]]
    here = np.array([float(position[0]), float(position[-1])])
    nearest = after_index + int(np.argmin(np.hypot(*(xz - here).T)))
    ahead = points[nearest:, [0, 2]]
    far = np.nonzero(np.hypot(*(ahead - here).T) >= lookahead_m)[0]
    target = points[nearest + int(far[0])] if far.size else points[-1]
    return target, nearest

