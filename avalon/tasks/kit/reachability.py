"""Where the feet can get on a terrain with a set of skills: a search over the height map's grid.

Every grid point is a node twice: *standing* there (index ``i = row * n + col``) and *hanging*
from a hold there (index ``N + i``, climbable points only). The edges come from
:class:`~avalon.tasks.kit.capabilities.Capabilities` and the skills allowed
(:data:`~avalon.tasks.kit.route.SKILLS`):

- ``walk``: between neighbouring points over triangles the body walks on (floor both ways, steeper
  faces uphill only up to ``walk_up_slope_deg``, steps of ``step_m`` either way);
- ``jump``: from a take-off point along 16 headings to a landing up to a jump's reach away, the
  landing's rise and the fall from the jump's apex within the limits, the terrain under the flight
  low enough (see :mod:`~avalon.tasks.kit.capabilities` for the feet's path);
- ``climb``: from standing to a climbable point within grasp, from hold to neighbouring hold at
  any height difference (holds are anywhere on the surface nearest a climbable point), from a
  hold onto floor next to it;
- ``fall``: from a point stood or hung on, sliding over ground too steep to stand on, never
  upward, to the first floor: the drop from where the fall began to the landing within the fall
  limit. The lowest start wins, so falls are found by a shortest-path search whose path weights
  telescope to the drop (Dijkstra from every point reached so far).

Walking, jumping and climbing edges do not depend on where the search has got to: one breadth-
first search over them finds everything they reach. Falls do (the drop counts from where the fall
starts), so the search runs in rounds, a breadth-first search then the falls from everything
reached, until a round adds nothing or the goal is reached.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra

from avalon.datagen.terrain import HeightMap
from avalon.rules import mechanics
from avalon.tasks.kit.capabilities import (
    JUMP_DAMAGE_APEX_M,
    JUMP_PATH_RISE_SPEED_M_PER_S,
    Capabilities,
    terrain_jump_rise_m,
)
from avalon.tasks.kit.geometry import DRY_MARGIN_M, triangle_corner_heights, triangle_slopes_deg

#: Edge kinds, as the graph's data (powers of two, so a pair's kinds never sum to another kind).
WALK, JUMP, CLIMB = 1, 2, 4
#: ``Reach.kind`` of a node reached from the spawn directly, and of one reached by a fall.
START, FALL = 0, 8
#: What each kind of move costs beyond its length, metres of walking: routes walk where they can
#: and use a skill only to get somewhere walking does not.
EXTRA_COST_M = {WALK: 0.0, JUMP: 10.0, CLIMB: 5.0, FALL: 10.0}
#: Headings a jump is tried along (every 22.5 degrees).
JUMP_HEADINGS = 16
#: Rough terrain a jump may cross: the terrain under the flight is sampled this often, in cells.
JUMP_SAMPLES_PER_CELL = 2
#: Extra height over a steep face's measured jump rise a bypass search grants, metres.
TERRAIN_JUMP_SLACK_M = 0.2
#: Neighbour offsets (row, col).
_NEIGHBOURS_4 = ((0, 1), (1, 0), (0, -1), (-1, 0))
_NEIGHBOURS_8 = _NEIGHBOURS_4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))
_WITH_SELF_9 = ((0, 0),) + _NEIGHBOURS_8


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


def _around_point(triangles: np.ndarray, every: bool) -> np.ndarray:
    """Per grid point, whether every (or any) of the up to six triangles around it is True;
    points at the world edge count their missing triangles as False."""
    padded = _padded(triangles)
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


def _pair_slices(n: int, dr: int, dc: int) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """Slices of the points p and of q = p + (dr, dc), for every p whose q is on the grid."""
    p = (slice(max(0, -dr), n - max(0, dr)), slice(max(0, -dc), n - max(0, dc)))
    q = (slice(max(0, dr), n - max(0, -dr)), slice(max(0, dc), n - max(0, -dc)))
    return p, q


def _index_grid(n: int) -> np.ndarray:
    return np.arange(n * n, dtype=np.int64).reshape(n, n)


def surface_heights(ground: Ground, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Terrain surface height at fractional grid positions (exactly on the collider's triangles).
    The jump edges sample flights with ``_Flights``, which gives the same values bit for bit."""
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


def _sample_lines(n: int, offset: int, fractions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per grid line ``i`` (a row or a column) and fraction ``k``: the cell line that
    ``surface_heights`` puts the position ``i + fractions[k] * offset`` in, and the position's
    fraction across it, shape [n, fractions.size] each. The same operations on the same values as
    there, so bit for bit what it computes for any point on line ``i``."""
    positions = np.clip(np.arange(n, dtype=np.int64)[:, None] + fractions[None, :] * offset, 0.0, n - 1)
    cells = np.minimum(np.floor(positions).astype(np.int64), n - 2)
    return cells, positions - cells


def _window_max(values: np.ndarray, width: int) -> np.ndarray:
    """Per index ``i`` of the last axis, the largest of ``values[..., i:i + width]`` (cut at the end)."""
    out, span = values, 1
    while span < width:  # out[..., i] covers [i, i + span); doubling, overlapping at the last step
        step = min(span, width - span)
        wider = out.copy()
        np.maximum(out[..., :-step], out[..., step:], out=wider[..., :-step])
        out, span = wider, span + step
    return out


class _Flights:
    """The terrain under jumps' flights on one ground, sampled as ``surface_heights`` does (its
    operations in its order on the same values, so bit for bit) but without its per-sample work
    that does not depend on the sample, and bounded where a bound decides.

    Along one offset (dr, dc) a sample's cell and its fractions across it depend only on the
    take-off's row (or column) and the sample: they come from tables over the grid's lines
    (``lines``). The interpolation's corner and height differences are computed once per
    triangle (flat index ``(r * (n - 1) + c) * 2 + k``, ``k`` as in ``triangle_slopes_deg``).

    The bounds (``cell_top``, ``box``) are no lower and no gentler than any sample they cover, so
    a limit they keep (by ``margin_m`` where they are not exact) the samples keep: rounding is
    monotonic. Only flights they do not decide are sampled, and the answer is the same."""

    def __init__(self, ground: Ground) -> None:
        h = ground.heights
        h00, h01, h10, h11 = h[:-1, :-1], h[:-1, 1:], h[1:, :-1], h[1:, 1:]
        self.n = ground.n
        self.corner = np.stack([h00, h11], axis=-1).ravel()
        #: Towards the corner across the columns (weight fc, or 1 - fc from h11)...
        self.across_cols = np.stack([h01 - h00, h10 - h11], axis=-1).ravel()
        #: ...and across the rows (weight fr, or 1 - fr).
        self.across_rows = np.stack([h10 - h00, h01 - h11], axis=-1).ravel()
        self.slope_deg = ground.triangle_slope_deg.ravel()
        #: Far more than the rounding of any interpolation or difference of these heights (some
        #: 1e-15 of their size): a bound decides only when it clears its limit by this much.
        self.margin_m = 1e-9 * (1.0 + float(np.abs(h).max()))
        highest = np.maximum(np.maximum(h00, h01), np.maximum(h10, h11))
        flat = (h00 == h01) & (h00 == h10) & (h00 == h11)
        #: Per cell (flat index ``r * (n - 1) + c``), no lower than any height interpolated in
        #: it: its highest corner, exactly so on a flat cell (differences of 0 add exactly 0).
        self.cell_top = np.where(flat, highest, highest + self.margin_m).ravel()
        #: Per cell, its highest corner and its steeper triangle, for boxes of cells (``box``).
        self._cells = np.stack([highest, ground.triangle_slope_deg.max(axis=-1)])
        self._boxes: dict[tuple[int, int], np.ndarray] = {}
        self._down_rows: dict[int, np.ndarray] = {}
        self._lines: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._row_lines: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def lines(self, dr: int, dc: int, fractions: np.ndarray) -> tuple[np.ndarray, ...]:
        """The tables of ``_sample_lines`` for the rows and the columns of an offset: (row's cell
        times ``n - 1``, fraction across rows, column's cell, fraction across columns).
        ``fractions`` are ``_flight_clear``'s, named by their count."""
        # A table serves every offset with the same row (or column) part and number of samples.
        for key in ((dr, fractions.size), (dc, fractions.size)):
            if key not in self._lines:
                self._lines[key] = _sample_lines(self.n, key[0], fractions)
        if (dr, fractions.size) not in self._row_lines:
            cells, across = self._lines[dr, fractions.size]
            self._row_lines[dr, fractions.size] = (cells * (self.n - 1), across)
        return self._row_lines[dr, fractions.size] + self._lines[dc, fractions.size]

    def cells(self, lines: tuple[np.ndarray, ...], rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The cell of every sample of the flights from the points (``rows``, ``cols``), shape
        [rows.size, samples]."""
        return lines[0][rows] + lines[2][cols]

    def samples(self, lines: tuple[np.ndarray, ...], rows: np.ndarray, cols: np.ndarray, k) -> tuple[np.ndarray, ...]:
        """(triangle, whether it is its cell's second, fraction across rows, across columns) of
        samples ``k`` (an index array, or every sample: ``slice(None)``) of the flights from
        (``rows``, ``cols``)."""
        row_cells, row_fractions, col_cells, col_fractions = lines
        fr, fc = row_fractions[rows, k], col_fractions[cols, k]
        second = fr + fc > 1.0
        return 2 * (row_cells[rows, k] + col_cells[cols, k]) + second, second, fr, fc

    def heights(self, triangle: np.ndarray, second: np.ndarray, fr: np.ndarray, fc: np.ndarray) -> np.ndarray:
        """The terrain's height at samples (``samples``' answer), as ``surface_heights`` has it."""
        across_cols = np.where(second, 1.0 - fc, fc)
        across_rows = np.where(second, 1.0 - fr, fr)
        return (self.corner[triangle] + across_cols * self.across_cols[triangle]
                + across_rows * self.across_rows[triangle])

    def box(self, rows: np.ndarray, cols: np.ndarray, dr: int, dc: int) -> tuple[np.ndarray, np.ndarray]:
        """(highest corner, steepest triangle) of the cells in the box spanned by each point
        (``rows``, ``cols``) and the point ``(dr, dc)`` away: every sample of the flight between
        them falls in one of those cells (strictly between them, or on their line if level)."""
        m = self.n - 1
        key = (abs(dr) + 1, abs(dc) + 1)
        if key not in self._boxes:
            if key[0] not in self._down_rows:
                self._down_rows[key[0]] = _window_max(self._cells.swapaxes(1, 2), key[0]).swapaxes(1, 2)
            self._boxes[key] = _window_max(self._down_rows[key[0]], key[1]).reshape(2, -1)
        first = np.minimum(rows + min(dr, 0), m - 1) * m + np.minimum(cols + min(dc, 0), m - 1)
        return self._boxes[key][0, first], self._boxes[key][1, first]


# --- edges -----------------------------------------------------------------------------------------


class _Edges:
    """Edge lists gathered per kind with their costs, then two CSR matrices of one shape."""

    def __init__(self, ground: Ground) -> None:
        self.ground = ground
        self.sources: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.kinds: list[np.ndarray] = []
        self.costs: list[np.ndarray] = []

    def add(self, sources: np.ndarray, targets: np.ndarray, kind: int) -> None:
        """Edges of ``kind`` between nodes (standing ``i``, hanging ``N + i``); their cost is the
        distance between the two points (doubled for moving between holds) plus ``EXTRA_COST_M``."""
        sources = np.asarray(sources, dtype=np.int64).ravel()
        targets = np.asarray(targets, dtype=np.int64).ravel()
        n = self.ground.n
        (ra, ca), (rb, cb) = np.divmod(sources % (n * n), n), np.divmod(targets % (n * n), n)
        h = self.ground.heights
        length = np.sqrt(((ra - rb) ** 2 + (ca - cb) ** 2) * self.ground.cell_m ** 2 + (h[ra, ca] - h[rb, cb]) ** 2)
        hanging = (sources >= n * n) & (targets >= n * n)
        self.sources.append(sources)
        self.targets.append(targets)
        self.kinds.append(np.full(sources.size, kind, dtype=np.int8))
        self.costs.append(np.where(hanging, 2.0 * length, length) + EXTRA_COST_M[kind])

    def matrices(self, size: int) -> tuple[csr_matrix, csr_matrix]:
        """(kinds, costs) over ``size`` nodes. A pair joined twice (a walk and a jump) sums both:
        its kind decodes as the cheaper skill (see ``_edge_kind``), its cost is only too high."""
        if not self.sources:
            empty = csr_matrix((size, size), dtype=np.int8)
            return empty, empty.astype(np.float64)
        rows, cols = np.concatenate(self.sources), np.concatenate(self.targets)
        kinds = coo_matrix((np.concatenate(self.kinds), (rows, cols)), shape=(size, size)).tocsr()
        costs = coo_matrix((np.concatenate(self.costs), (rows, cols)), shape=(size, size)).tocsr()
        return kinds, costs


def _triangle_edge_families(n: int):
    """The three families of triangle edges, each as (first point's slices, second point's
    slices, the two triangles beside each edge as slices of a triangle grid padded by one cell of
    False all round: ``padded[r + 1, c + 1]`` is cell (r, c))."""
    full, short = slice(0, n), slice(0, n - 1)
    return (
        # (r, c)-(r, c+1): cell (r-1, c) triangle 1 and cell (r, c) triangle 0.
        ((full, short), (full, slice(1, n)), ((slice(0, n), slice(1, n), 1), (slice(1, n + 1), slice(1, n), 0))),
        # (r, c)-(r+1, c): cell (r, c) triangle 0 and cell (r, c-1) triangle 1.
        ((short, full), (slice(1, n), full), ((slice(1, n), slice(1, n + 1), 0), (slice(1, n), slice(0, n), 1))),
        # (r, c+1)-(r+1, c), the cell's split: both its triangles.
        ((short, slice(1, n)), (slice(1, n), short), ((slice(1, n), slice(1, n), 0), (slice(1, n), slice(1, n), 1))),
    )


def _padded(triangles: np.ndarray) -> np.ndarray:
    n = triangles.shape[0] + 1
    padded = np.zeros((n + 1, n + 1, 2), dtype=bool)
    padded[1:n, 1:n] = triangles
    return padded


def _interior_walk_pairs(ground: Ground):
    """(first, second) point indices of the walks that keep to the floor's interior: along a
    triangle edge with floor on both sides, or across a cell both of whose triangles are floor."""
    n = ground.n
    index = _index_grid(n)
    floor = _padded(ground.triangle_floor)
    pairs = []
    for a, b, (left, right) in _triangle_edge_families(n):
        ok = floor[left] & floor[right] & ground.floor[a] & ground.floor[b]
        pairs.append((index[a][ok], index[b][ok]))
    a, b = (slice(0, n - 1), slice(0, n - 1)), (slice(1, n), slice(1, n))  # (r, c)-(r+1, c+1)
    ok = ground.triangle_floor[..., 0] & ground.triangle_floor[..., 1] & ground.floor[a] & ground.floor[b]
    pairs.append((index[a][ok], index[b][ok]))
    return np.concatenate([p for p, _ in pairs]), np.concatenate([q for _, q in pairs])


def _walk_edges(ground: Ground, edges: _Edges) -> None:
    """Walking. Keeping to the floor's interior (routes): both ways along the pairs of
    ``_interior_walk_pairs`` (the feet stay on floor triangles). Otherwise (bypasses): along each
    triangle edge, uphill if a triangle beside it can be walked up, downhill if one is floor, a
    step either way."""
    n, caps, h = ground.n, ground.capabilities, ground.heights
    if caps.interior_walking:
        first, second = _interior_walk_pairs(ground)
        edges.add(first, second, WALK)
        edges.add(second, first, WALK)
        return
    index = _index_grid(n)
    padded_up, padded_floor = _padded(ground.triangle_up), _padded(ground.triangle_floor)
    for a, b, (left, right) in _triangle_edge_families(n):
        up_ok = padded_up[left] | padded_up[right]
        down_ok = padded_floor[left] | padded_floor[right]
        dh = h[b] - h[a]
        step = np.abs(dh) <= caps.step_m
        both = ground.usable[a] & ground.usable[b]
        forward = both & (step | np.where(dh > 0, up_ok, down_ok))
        backward = both & (step | np.where(dh < 0, up_ok, down_ok))
        edges.add(index[a][forward], index[b][forward], WALK)
        edges.add(index[b][backward], index[a][backward], WALK)


def _climb_edges(ground: Ground, edges: _Edges) -> None:
    """Grasping a hold from standing, moving between holds, getting onto floor from a hold."""
    n, caps, h = ground.n, ground.capabilities, ground.heights
    index = _index_grid(n)
    hanging = n * n
    stands = ground.standing
    for dr, dc in _NEIGHBOURS_8 if caps.climb_diagonal else _NEIGHBOURS_4:
        p, q = _pair_slices(n, dr, dc)
        ok = ground.holds[p] & ground.holds[q]
        edges.add(hanging + index[p][ok], hanging + index[q][ok], CLIMB)
    for dr, dc in _WITH_SELF_9:
        p, q = _pair_slices(n, dr, dc)
        rise = h[q] - h[p]
        grab = stands[p] & ground.holds[q] & (rise <= caps.grab_up_m) & (rise >= -caps.grab_down_m)
        edges.add(index[p][grab], hanging + index[q][grab], CLIMB)
        onto = ground.holds[p] & stands[q] & (rise <= caps.climb_onto_m) & (rise >= -caps.climb_off_m)
        edges.add(hanging + index[p][onto], index[q][onto], CLIMB)


def _walk_components(ground: Ground) -> np.ndarray:
    """Labels of the floor areas walkable both ways over the floor's interior (a jump within one
    is never needed); every other point has a label of its own."""
    n = ground.n
    first, second = _interior_walk_pairs(ground)
    graph = coo_matrix((np.ones(first.size, dtype=np.int8), (first, second)), shape=(n * n, n * n))
    _count, labels = connected_components(graph, directed=False)
    connected = np.zeros(n * n, dtype=bool)
    connected[first] = connected[second] = True
    return np.where(connected, labels, -1 - np.arange(n * n)).reshape(n, n)


def _ray_offsets(max_cells: float) -> list[tuple[int, int]]:
    """(row, col) offsets of the grid points along the jump headings out to ``max_cells``, each once
    (a pair of points gets at most one jump edge)."""
    offsets: dict[tuple[int, int], None] = {}
    for k in range(JUMP_HEADINGS):
        angle = 2.0 * math.pi * k / JUMP_HEADINGS
        for j in range(1, int(math.ceil(max_cells * 1.5)) + 1):
            distance = j / 1.5  # finer than a cell, so no grid point along the heading is skipped
            offset = (int(round(distance * math.sin(angle))), int(round(distance * math.cos(angle))))
            if offset != (0, 0) and math.hypot(*offset) <= max_cells:
                offsets[offset] = None
    return list(offsets)


def _reach_m(rise: np.ndarray) -> np.ndarray:
    """Full-speed reach of the feet's path coming down to ``rise`` (clamped to the path's apex)."""
    a, g = JUMP_PATH_RISE_SPEED_M_PER_S, mechanics.GRAVITY_M_PER_S2
    return mechanics.MAX_WALK_SPEED_M_PER_S * (a + np.sqrt(np.maximum(a * a - 2.0 * g * rise, 0.0))) / g


def _jump_edges(ground: Ground, edges: _Edges, max_fall_m: float) -> None:
    """Jumps: cheap tests over the whole grid per offset (take-off and landing, different walk
    areas), then over the pairs left of every offset at once (rise, fall, reach), then the
    terrain under each remaining flight."""
    n, caps, h, cell = ground.n, ground.capabilities, ground.heights, ground.cell_m
    index = _index_grid(n)
    take_off = ground.on_foot if caps.jump_from_slopes else ground.floor
    landing = ground.standing
    labels = _walk_components(ground)
    max_rise = caps.jump_rise_m
    if caps.terrain_jump:
        max_rise = max(max_rise, float(max(mechanics.TERRAIN_JUMP_RISE_M.values())) + TERRAIN_JUMP_SLACK_M)
    relief = float(h.max() - h.min())
    longest = float(_reach_m(np.array(-min(max_fall_m, relief)))) + caps.jump_reach_slack_m
    if longest <= 0:
        return
    offsets = _ray_offsets(longest / cell)
    if not offsets:
        return
    pairs = []
    for dr, dc in offsets:
        p, q = _pair_slices(n, dr, dc)
        pairs.append(index[p][take_off[p] & landing[q] & (labels[p] != labels[q])])
    counts = np.array([sources.size for sources in pairs])
    which = np.repeat(np.arange(len(offsets)), counts)  # each pair's offset
    sources = np.concatenate(pairs)
    targets = sources + np.array([dr * n + dc for dr, dc in offsets], dtype=np.int64)[which]
    distances = np.array([cell * math.hypot(dr, dc) for dr, dc in offsets])[which]
    heights = h.ravel()
    rise = heights[targets] - heights[sources]
    ok = (rise <= max_rise) & (heights[sources] + JUMP_DAMAGE_APEX_M - heights[targets] <= max_fall_m)
    ok[ok] = distances[ok] <= _reach_m(rise[ok]) + caps.jump_reach_slack_m
    kept = np.flatnonzero(ok)
    sources, targets, rise, which = sources[kept], targets[kept], rise[kept], which[kept]
    flights = _Flights(ground)
    clear = np.zeros(sources.size, dtype=bool)
    ends = np.cumsum(np.bincount(which, minlength=len(offsets)))
    for o, (dr, dc) in enumerate(offsets):
        start, end = (ends[o - 1] if o else 0), ends[o]
        if end > start:
            clear[start:end] = _flight_clear(ground, flights, sources[start:end], dr, dc, rise[start:end],
                                             cell * math.hypot(dr, dc))
    edges.add(sources[clear], targets[clear], JUMP)


def flight_fractions(dr: int, dc: int) -> np.ndarray:
    """Where a flight of offset (dr, dc) is sampled: fractions of the way, strictly between
    take-off and landing, ``JUMP_SAMPLES_PER_CELL`` per cell of its length."""
    samples = max(2, int(math.ceil(JUMP_SAMPLES_PER_CELL * math.hypot(dr, dc))))
    return np.arange(1, samples) / samples


def allowed_above_take_off(clearance_m: float, fractions: np.ndarray, distance: float, rise: np.ndarray) -> np.ndarray:
    """How high above the take-off the terrain may stand at each sample (``fractions`` of the
    way) of each flight of ``distance`` metres rising ``rise``, shape [rise.size, fractions.size]."""
    along = fractions * distance
    # The feet's path of the run slowed to land there: y = a t - g t^2 / 2 with t = along / v.
    a, g = JUMP_PATH_RISE_SPEED_M_PER_S, mechanics.GRAVITY_M_PER_S2
    flight = (a + np.sqrt(np.maximum(a * a - 2.0 * g * rise, 0.0))) / g
    t = along[None, :] * (flight / distance)[:, None]
    path = a * t - 0.5 * g * t * t
    # The feet pass the clearance above the terrain; while they are less than that above the
    # take-off (leaving it), ground as high as the take-off is fine.
    allowed = np.where((path >= 0.0) & (path < clearance_m), 0.0, path - clearance_m)
    # Within the capsule's catch of the landing (the last samples), the far edge may stand as
    # high as the landing.
    near_landing = along > distance - mechanics.JUMP_LANDING_CATCH_M
    allowed[:, near_landing] = np.maximum(allowed[:, near_landing], rise[:, None])
    return allowed


def _flight_clear(ground: Ground, flights: _Flights, sources: np.ndarray, dr: int, dc: int, rise: np.ndarray,
                  distance: float) -> np.ndarray:
    """Whether the terrain under each flight (take-off ``sources``, landing ``(dr, dc)`` away,
    ``rise`` higher) leaves the jump possible. Bounds (no lower than the terrain, see
    ``_Flights``) decide most flights; the terrain is sampled only where they do not."""
    caps = ground.capabilities
    fractions = flight_fractions(dr, dc)
    rows0, cols0 = np.divmod(sources, ground.n)
    take_off = ground.heights.ravel()[sources]
    if caps.jump_clearance_m is None:
        # Only how high the jump can rise: over a face steeper than the walk-up slope, what the
        # measurements give for its slope (faces it can walk up cap nothing). The box round the
        # flight decides most: its highest cell no higher, its steepest face capping no lower
        # (steeper faces cap lower).
        highest, steepest = flights.box(rows0, cols0, dr, dc)
        ceiling = np.full(sources.size, caps.jump_rise_m)
        if caps.terrain_jump:
            ceiling = np.maximum(ceiling, terrain_jump_rise_m(steepest) + TERRAIN_JUMP_SLACK_M)
        ceiling -= flights.margin_m
        clear = (rise <= ceiling) & (highest - take_off <= ceiling)
        unsure = np.flatnonzero(~clear)
        if not unsure.size:
            return clear
        lines = flights.lines(dr, dc, fractions)
        triangle, second, fr, fc = flights.samples(lines, rows0[unsure], cols0[unsure], slice(None))
        steepest = flights.slope_deg[triangle].max(axis=1)
        ceiling = np.full(unsure.size, caps.jump_rise_m)
        if caps.terrain_jump:
            ceiling = np.maximum(ceiling, terrain_jump_rise_m(steepest) + TERRAIN_JUMP_SLACK_M)
        rises = np.flatnonzero(rise[unsure] <= ceiling)
        if rises.size:
            terrain = flights.heights(triangle[rises], second[rises], fr[rises], fc[rises])
            # Rounding is monotonic: the highest terrain less the take-off is the highest difference.
            clear[unsure[rises]] = terrain.max(axis=1) - take_off[unsure[rises]] <= ceiling[rises]
        return clear
    allowed = allowed_above_take_off(caps.jump_clearance_m, fractions, distance, rise)
    # A sample passes for sure if its cell's top does (rounding is monotonic); the others are
    # interpolated.
    lines = flights.lines(dr, dc, fractions)
    unsure = np.flatnonzero(flights.cell_top[flights.cells(lines, rows0, cols0)] - take_off[:, None] > allowed)
    clear = rise <= caps.jump_rise_m
    if unsure.size:
        flight_of, k = np.divmod(unsure, fractions.size)
        terrain = flights.heights(*flights.samples(lines, rows0[flight_of], cols0[flight_of], k))
        clear[flight_of[terrain - take_off[flight_of] > allowed.ravel()[unsure]]] = False
    return clear


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Graph:
    """The static edges (walk, jump, climb) of one search, with room for a virtual start node."""

    ground: Ground
    skills: frozenset[str]
    #: CSR over 2 N + 1 nodes (standing, hanging, the virtual start); data: the edge's kind...
    edges: csr_matrix = attr.ib(repr=False)
    #: ...and, with the same entries, its cost (``EXTRA_COST_M``).
    costs: csr_matrix = attr.ib(repr=False)
    #: Fall search graph over 2 N + 1 nodes (landing points, fall starts, the virtual start);
    #: data: the height lost along the edge (+ a tiny amount so that no weight is zero); None
    #: without ``fall``.
    falls: Optional[csr_matrix] = attr.ib(repr=False)
    max_fall_m: float

    @property
    def size(self) -> int:
        return 2 * self.ground.n ** 2 + 1


#: Added to every fall edge's weight (scipy's sparse graphs drop zero weights), metres.
_FALL_EDGE_EPSILON_M = 1e-6


def _fall_graph(ground: Ground) -> csr_matrix:
    """Slides and falls: from a fall start (``N + i``) or a point a fall passes (``i``: any point
    the body may be at but a landing) to a neighbour no higher that a fall passes or lands on;
    weights are the height lost."""
    n, h = ground.n, ground.heights
    N = n * n
    index = _index_grid(n)
    passes = ground.usable & ~ground.landings
    reachable = passes | ground.landings
    sources, targets, weights = [], [], []
    for dr, dc in _WITH_SELF_9:
        p, q = _pair_slices(n, dr, dc)
        lower = reachable[q] & (h[q] <= h[p])
        drop = h[p] - h[q]
        if (dr, dc) != (0, 0):
            slide = passes[p] & lower
            sources.append(index[p][slide])
            targets.append(index[q][slide])
            weights.append(drop[slide])
        start = (ground.usable[p] | ground.holds[p]) & lower  # a fall may begin anywhere the body gets
        sources.append(N + index[p][start])
        targets.append(index[q][start])
        weights.append(drop[start])
    rows, cols = np.concatenate(sources), np.concatenate(targets)
    data = np.concatenate(weights) + _FALL_EDGE_EPSILON_M
    return coo_matrix((data, (rows, cols)), shape=(2 * N + 1, 2 * N + 1)).tocsr()


def build_graph(ground: Ground, skills: frozenset[str], max_fall_m: float) -> Graph:
    """The static graph of ``skills`` on ``ground``; ``max_fall_m`` is the fall limit after the
    capabilities' slack (it limits jumps' landings and, with ``fall``, falls)."""
    edges = _Edges(ground)
    _walk_edges(ground, edges)
    if "jump" in skills:
        _jump_edges(ground, edges, max_fall_m)
    if "climb" in skills:
        _climb_edges(ground, edges)
    size = 2 * ground.n ** 2 + 1
    falls = _fall_graph(ground) if "fall" in skills else None
    kinds, costs = edges.matrices(size)
    return Graph(ground=ground, skills=frozenset(skills), edges=kinds, costs=costs, falls=falls, max_fall_m=max_fall_m)


# --- search ----------------------------------------------------------------------------------------


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Reach:
    """What a search reached: per node (standing ``i``, hanging ``N + i``) whether, from which node
    (-1: from the spawn), by which kind of edge (``WALK``, ``JUMP``, ``CLIMB``, ``FALL``, ``START``),
    and at what cost (``EXTRA_COST_M``; within a round the cheapest way, over rounds the first)."""

    graph: Graph
    reached: np.ndarray = attr.ib(repr=False)
    previous: np.ndarray = attr.ib(repr=False)
    kind: np.ndarray = attr.ib(repr=False)
    cost: np.ndarray = attr.ib(repr=False)
    #: The cheapest reached goal node, or -1.
    goal: int

    def path(self, node: int) -> list[tuple[int, int]]:
        """(node, kind of the edge into it) from the first node after the spawn to ``node``."""
        out = []
        while node >= 0:
            out.append((int(node), int(self.kind[node])))
            node = int(self.previous[node])
        return out[::-1]


def _edge_kind(edges: csr_matrix, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    codes = np.asarray(edges[source, target]).ravel().astype(np.int64)
    return np.where(codes & WALK, WALK, np.where(codes & JUMP, JUMP, CLIMB))


def _with_start_row(matrix: csr_matrix, targets: np.ndarray, weights: np.ndarray) -> csr_matrix:
    """``matrix`` with edges from its last node (the virtual start) to ``targets``."""
    size = matrix.shape[0]
    start = coo_matrix((weights, (np.full(targets.size, size - 1), targets)), shape=matrix.shape).tocsr()
    return (matrix + start).tocsr()


#: Added to the virtual start's edges (scipy's sparse graphs drop zero weights).
_START_EPSILON = 1e-9


def search(graph: Graph, start_nodes: np.ndarray, goal: np.ndarray, *, let_go_below_hold_m: float,
           goal_extra_cost: Optional[np.ndarray] = None) -> Reach:
    """Everything reachable from ``start_nodes`` (standing indices) over ``graph``, stopping once a
    node of the bool mask ``goal`` (over all 2 N nodes) is reached; of the goals reached, the
    cheapest counting ``goal_extra_cost`` (per node, e.g. a last stretch off the grid) is chosen."""
    N = graph.ground.n ** 2
    size = graph.size
    reached = np.zeros(2 * N, dtype=bool)
    previous = np.full(2 * N, -1, dtype=np.int64)
    kind = np.full(2 * N, -1, dtype=np.int64)
    cost = np.full(2 * N, np.inf)
    start_nodes = np.unique(np.asarray(start_nodes, dtype=np.int64))
    reached[start_nodes] = True
    kind[start_nodes] = START
    cost[start_nodes] = 0.0
    heights = graph.ground.heights.ravel()
    while True:
        frontier = np.flatnonzero(reached)
        matrix = _with_start_row(graph.costs, frontier, cost[frontier] + _START_EPSILON)
        distances, parents = dijkstra(matrix, indices=size - 1, return_predecessors=True)
        new = np.flatnonzero(~reached & np.isfinite(distances[:2 * N]))
        if new.size:
            previous[new] = parents[new]
            kind[new] = _edge_kind(graph.edges, parents[new], new)
            cost[new] = distances[new]
            reached[new] = True
        if (reached & goal).any() or graph.falls is None:
            break
        landed = _falls(graph, reached, heights, let_go_below_hold_m)
        if landed is None:
            break
        nodes, sources, drops = landed
        previous[nodes] = sources
        kind[nodes] = FALL
        cost[nodes] = cost[sources] + drops + EXTRA_COST_M[FALL]
        reached[nodes] = True
        if (reached & goal).any():
            break
    hits = np.flatnonzero(reached & goal)
    extra = np.zeros(2 * N) if goal_extra_cost is None else goal_extra_cost
    cheapest = int(hits[np.argmin(cost[hits] + extra[hits])]) if hits.size else -1
    return Reach(graph=graph, reached=reached, previous=previous, kind=kind, cost=cost, goal=cheapest)


def _falls(graph: Graph, reached: np.ndarray, heights: np.ndarray, let_go_below_hold_m: float):
    """New floor points a fall reaches from the reached nodes: (their indices, the standing or
    hanging node each fall starts from, the drop), or None."""
    N = heights.size
    standing, hanging = reached[:N], reached[N:]
    # Where a fall from each point starts, above the point: standing, the feet are on it; hanging,
    # they are ``let_go_below_hold_m`` below the hold. A point both stood and hung on starts from
    # the lower of the two.
    from_standing = np.where(standing, 0.0, np.inf)
    from_hanging = np.where(hanging, -let_go_below_hold_m, np.inf)
    above_point = np.minimum(from_standing, from_hanging)
    starts = np.flatnonzero(np.isfinite(above_point))
    # Path weight from the virtual start = offset + (start height - landing height); the offset
    # keeps every weight positive whatever the start's height above its grid point.
    offset = max(0.0, let_go_below_hold_m) + 1.0
    matrix = _with_start_row(graph.falls, N + starts, offset + above_point[starts])
    distances, parents = dijkstra(matrix, indices=2 * N, return_predecessors=True, limit=offset + graph.max_fall_m + 1e-6)
    landing = graph.ground.landings.ravel() & ~standing & (distances[:N] - offset <= graph.max_fall_m)
    nodes = np.flatnonzero(landing)
    if nodes.size == 0:
        return None
    # Each landing's fall starts at the fall-start copy its shortest path leaves the virtual start
    # by: follow the predecessors by pointer doubling (log of the longest fall's length rounds).
    pointer = parents.astype(np.int64)
    pointer[pointer < 0] = 2 * N  # unreached: no predecessor
    pointer[2 * N] = 2 * N
    first = pointer == 2 * N  # the fall starts: their own predecessor is the virtual start
    pointer[first] = np.flatnonzero(first)
    pointer[2 * N] = 2 * N
    while True:
        jumped = pointer[pointer]
        if np.array_equal(jumped, pointer):
            break
        pointer = jumped
    points = pointer[nodes] - N
    use_hold = from_hanging[points] < from_standing[points]
    return nodes, np.where(use_hold, N + points, points), distances[nodes] - offset
