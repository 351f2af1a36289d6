"""The moves between a ground's nodes that do not depend on where a search has got to: walking,
climbing, and the slides and falls a fall search runs over.

Nodes: standing on point ``i = row * n + col``, hanging from the hold at ``i`` (``N + i``, with
``N = n * n``). Walking and climbing edges gather in :class:`Edges` with their kind and cost; the
fall graph (:func:`fall_graph`) is a graph of its own whose weights are heights lost, searched in
:func:`~avalon.tasks.kit.reachability.search.search`'s rounds. The jump edges are
:mod:`~avalon.tasks.kit.reachability.jumps`'.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix

from avalon.tasks.kit.reachability.ground import (
    NEIGHBOURS_4,
    NEIGHBOURS_8,
    WITH_SELF_9,
    Ground,
    index_grid,
    padded_triangles,
    pair_slices,
)

#: Edge kinds, as the graph's data (powers of two, so a pair's kinds never sum to another kind).
WALK, JUMP, CLIMB = 1, 2, 4
#: ``Reach.kind`` of a node reached from the spawn directly, and of one reached by a fall.
START, FALL = 0, 8
#: What each kind of move costs beyond its length, metres of walking: routes walk where they can
#: and use a skill only to get somewhere walking does not.
EXTRA_COST_M = {WALK: 0.0, JUMP: 10.0, CLIMB: 5.0, FALL: 10.0}
#: Added to every fall edge's weight (scipy's sparse graphs drop zero weights), metres.
FALL_EDGE_EPSILON_M = 1e-6


class Edges:
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
        its kind decodes as the cheaper skill (see ``edge_kind``), its cost is only too high."""
        if not self.sources:
            empty = csr_matrix((size, size), dtype=np.int8)
            return empty, empty.astype(np.float64)
        rows, cols = np.concatenate(self.sources), np.concatenate(self.targets)
        kinds = coo_matrix((np.concatenate(self.kinds), (rows, cols)), shape=(size, size)).tocsr()
        costs = coo_matrix((np.concatenate(self.costs), (rows, cols)), shape=(size, size)).tocsr()
        return kinds, costs


def edge_kind(edges: csr_matrix, source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The kind of the edge from each ``source`` to its ``target`` in a kinds matrix: of a pair
    joined twice, the cheaper skill."""
    codes = np.asarray(edges[source, target]).ravel().astype(np.int64)
    return np.where(codes & WALK, WALK, np.where(codes & JUMP, JUMP, CLIMB))


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


def interior_walk_pairs(ground: Ground) -> tuple[np.ndarray, np.ndarray]:
    """(first, second) point indices of the walks that keep to the floor's interior: along a
    triangle edge with floor on both sides, or across a cell both of whose triangles are floor."""
    n = ground.n
    index = index_grid(n)
    floor = padded_triangles(ground.triangle_floor)
    pairs = []
    for a, b, (left, right) in _triangle_edge_families(n):
        ok = floor[left] & floor[right] & ground.floor[a] & ground.floor[b]
        pairs.append((index[a][ok], index[b][ok]))
    a, b = (slice(0, n - 1), slice(0, n - 1)), (slice(1, n), slice(1, n))  # (r, c)-(r+1, c+1)
    ok = ground.triangle_floor[..., 0] & ground.triangle_floor[..., 1] & ground.floor[a] & ground.floor[b]
    pairs.append((index[a][ok], index[b][ok]))
    return np.concatenate([p for p, _ in pairs]), np.concatenate([q for _, q in pairs])


def walk_edges(ground: Ground, edges: Edges) -> None:
    """Walking. Keeping to the floor's interior (routes): both ways along the pairs of
    ``interior_walk_pairs`` (the feet stay on floor triangles). Otherwise (bypasses): along each
    triangle edge, uphill if a triangle beside it can be walked up, downhill if one is floor, a
    step either way."""
    n, caps, h = ground.n, ground.capabilities, ground.heights
    if caps.interior_walking:
        first, second = interior_walk_pairs(ground)
        edges.add(first, second, WALK)
        edges.add(second, first, WALK)
        return
    index = index_grid(n)
    padded_up, padded_floor = padded_triangles(ground.triangle_up), padded_triangles(ground.triangle_floor)
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


def climb_edges(ground: Ground, edges: Edges) -> None:
    """Grasping a hold from standing, moving between holds, getting onto floor from a hold."""
    n, caps, h = ground.n, ground.capabilities, ground.heights
    index = index_grid(n)
    hanging = n * n
    stands = ground.standing
    for dr, dc in NEIGHBOURS_8 if caps.climb_diagonal else NEIGHBOURS_4:
        p, q = pair_slices(n, dr, dc)
        ok = ground.holds[p] & ground.holds[q]
        edges.add(hanging + index[p][ok], hanging + index[q][ok], CLIMB)
    for dr, dc in WITH_SELF_9:
        p, q = pair_slices(n, dr, dc)
        rise = h[q] - h[p]
        grab = stands[p] & ground.holds[q] & (rise <= caps.grab_up_m) & (rise >= -caps.grab_down_m)
        edges.add(index[p][grab], hanging + index[q][grab], CLIMB)
        onto = ground.holds[p] & stands[q] & (rise <= caps.climb_onto_m) & (rise >= -caps.climb_off_m)
        edges.add(hanging + index[p][onto], index[q][onto], CLIMB)


def fall_graph(ground: Ground) -> csr_matrix:
    """Slides and falls, over 2 N + 1 nodes (landing points ``i``, fall starts ``N + i``, a
    virtual start): from a fall start or a point a fall passes (any point the body may be at but a
    landing) to a neighbour no higher that a fall passes or lands on; weights are the height lost
    (+ ``FALL_EDGE_EPSILON_M``)."""
    n, h = ground.n, ground.heights
    N = n * n
    index = index_grid(n)
    passes = ground.usable & ~ground.landings
    reachable = passes | ground.landings
    sources, targets, weights = [], [], []
    for dr, dc in WITH_SELF_9:
        p, q = pair_slices(n, dr, dc)
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
    data = np.concatenate(weights) + FALL_EDGE_EPSILON_M
    return coo_matrix((data, (rows, cols)), shape=(2 * N + 1, 2 * N + 1)).tocsr()
