"""The search: a ground's static graph, then everything reachable from the spawn in rounds.

Walking, jumping and climbing edges do not depend on where the search has got to: one shortest-
path search (Dijkstra from a virtual start joined to every node reached so far, at its cost) over
them finds everything they reach. Falls do (the drop counts from where the fall starts: the lowest
start wins), so the search runs in rounds, the static edges then the falls from everything
reached, until a round adds nothing or the goal is reached. Falls are found by a shortest-path
search over :func:`~avalon.tasks.kit.reachability.edges.fall_graph`, whose path weights
telescope to the drop.
"""

from __future__ import annotations

from typing import Optional

import attr
import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import dijkstra

from avalon.tasks.kit import skills as skills_
from avalon.tasks.kit.reachability.edges import (
    EXTRA_COST_M,
    FALL,
    START,
    Edges,
    climb_edges,
    edge_kind,
    fall_graph,
    walk_edges,
)
from avalon.tasks.kit.reachability.ground import Ground
from avalon.tasks.kit.reachability.jumps import jump_edges

#: Added to the virtual start's edges (scipy's sparse graphs drop zero weights).
_START_EPSILON = 1e-9


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


def build_graph(ground: Ground, skills: frozenset[str], max_fall_m: float) -> Graph:
    """The static graph of ``skills`` on ``ground``; ``max_fall_m`` is the fall limit after the
    capabilities' slack (it limits jumps' landings and, with ``fall``, falls)."""
    edges = Edges(ground)
    walk_edges(ground, edges)
    if skills_.JUMP in skills:
        jump_edges(ground, edges, max_fall_m)
    if skills_.CLIMB in skills:
        climb_edges(ground, edges)
    size = 2 * ground.n ** 2 + 1
    falls = fall_graph(ground) if skills_.FALL in skills else None
    kinds, costs = edges.matrices(size)
    return Graph(ground=ground, skills=frozenset(skills), edges=kinds, costs=costs, falls=falls, max_fall_m=max_fall_m)


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


def _with_start_row(matrix: csr_matrix, targets: np.ndarray, weights: np.ndarray) -> csr_matrix:
    """``matrix`` with edges from its last node (the virtual start) to ``targets``."""
    size = matrix.shape[0]
    start = coo_matrix((weights, (np.full(targets.size, size - 1), targets)), shape=matrix.shape).tocsr()
    return (matrix + start).tocsr()


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
            kind[new] = edge_kind(graph.edges, parents[new], new)
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
