"""Jump edges: running jumps from a take-off point to a landing, and the terrain under their flights.

A jump is tried along 16 headings (every 22.5 degrees) from a take-off point to a landing up to a
jump's reach away (:mod:`~avalon.tasks.kit.capabilities` for the feet's path), between two points
walking does not join (different walk areas). It is an edge when the landing's rise and the fall
from the jump's apex are within the limits and the terrain under the flight is low enough: with a
clearance (routes), below the feet's path by that much; without one (bypasses), nowhere higher
than the jump can rise, more over a steep face the body slides up
(``capabilities.terrain_jump_rise_m``).

The terrain under a flight is sampled ``JUMP_SAMPLES_PER_CELL`` times per cell of its length, as
:func:`~avalon.tasks.kit.reachability.ground.surface_heights` has it, bit for bit:
:class:`_Flights` computes the same values from tables over the grid's lines and per-triangle
terms, and bounds per cell and per box of cells decide most flights without sampling them.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from avalon.rules import mechanics
from avalon.tasks.kit.capabilities import JUMP_DAMAGE_APEX_M, JUMP_PATH_RISE_SPEED_M_PER_S, terrain_jump_rise_m
from avalon.tasks.kit.reachability.edges import JUMP, Edges, interior_walk_pairs
from avalon.tasks.kit.reachability.ground import Ground, index_grid, pair_slices

#: Headings a jump is tried along (every 22.5 degrees).
JUMP_HEADINGS = 16
#: Rough terrain a jump may cross: the terrain under the flight is sampled this often, in cells.
JUMP_SAMPLES_PER_CELL = 2
#: Extra height over a steep face's measured jump rise a bypass search grants, metres.
TERRAIN_JUMP_SLACK_M = 0.2


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


def _walk_components(ground: Ground) -> np.ndarray:
    """Labels of the floor areas walkable both ways over the floor's interior (a jump within one
    is never needed); every other point has a label of its own."""
    n = ground.n
    first, second = interior_walk_pairs(ground)
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


def jump_edges(ground: Ground, edges: Edges, max_fall_m: float) -> None:
    """Jumps: cheap tests over the whole grid per offset (take-off and landing, different walk
    areas), then over the pairs left of every offset at once (rise, fall, reach), then the
    terrain under each remaining flight."""
    n, caps, h, cell = ground.n, ground.capabilities, ground.heights, ground.cell_m
    index = index_grid(n)
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
        p, q = pair_slices(n, dr, dc)
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

