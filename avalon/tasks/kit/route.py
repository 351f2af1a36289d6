"""A route from the spawn to a food: what a solvability certificate finds and a scripted agent follows.

A :class:`Route` is a sequence of :class:`RouteStep`: each moves the agent's feet from where the
previous step ended to ``target`` (world metres, y up) with one skill. The certificate
(:mod:`avalon.tasks.kit.certificate`) finds one in a World spec from the agent's measured
capabilities (:mod:`avalon.rules.mechanics`) by a reachability search
(:mod:`avalon.tasks.kit.reachability`), whose path :func:`route_from_search` turns into steps; a
scripted agent (:mod:`avalon.agent.scripted`) turns each step into actions.

The steps: ``walk`` to a point on the ground (straight lines over floor, each as long as the floor
allows); ``jump`` to where the feet land, taking off from the previous step's target (within the
feet path's reach: ``capabilities.jump_reach_m``); ``fall`` to where the feet land after
walking off the previous target's edge (or letting go of its hold); ``climb`` to a point of the
climbable surface held on to (the body hangs below it; one step where the way up or along the
face turns) and, last of a climb, to the ground on top (or at the foot) it gets onto.
"""

from __future__ import annotations

import math
from typing import Mapping, Optional

import attr
import numpy as np

from avalon.errors import float_triple
from avalon.tasks.kit import reachability
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.skills import CLIMB, FALL, JUMP, SKILLS

#: Straight walks of a route are checked every this fraction of a grid cell.
_LINE_SAMPLES_PER_CELL = 4


def _check_skill(instance, attribute, value) -> None:
    if value not in SKILLS:
        raise ValueError(f"RouteStep.skill={value!r}: expected one of {SKILLS}")


@attr.s(frozen=True, auto_attribs=True)
class RouteStep:
    """Move the feet to ``target`` (x, y, z metres) using ``skill``."""

    skill: str = attr.ib(validator=_check_skill)
    target: tuple[float, float, float] = attr.ib(converter=float_triple)


@attr.s(frozen=True, auto_attribs=True)
class Route:
    """Steps from ``start`` (the spawn's feet) to the last step's target (beside the food)."""

    start: tuple[float, float, float] = attr.ib(converter=float_triple)
    steps: tuple[RouteStep, ...] = attr.ib(converter=tuple)

    def skills(self) -> frozenset[str]:
        """The skills the route uses."""
        return frozenset(step.skill for step in self.steps)


# --- a search's path as a route ----------------------------------------------------------------------


def route_from_search(spawn: tuple[float, float, float], reach: Optional[reachability.Reach],
                      approach: Optional[Mapping[int, tuple[float, float]]] = None,
                      keep_out: Optional[np.ndarray] = None) -> Route:
    """The route along the path a search found from ``spawn`` (feet, metres) to its goal
    (``reach.goal``; no steps when ``reach`` is None: the spawn is close enough). ``approach``
    maps a goal node to the point (x, z) its last walk goes on to, off the grid, towards the food;
    straight walks keep out of the ``keep_out`` discs (rows x, z, radius)."""
    if reach is None:
        return Route(start=spawn, steps=())
    ground = reach.graph.ground
    N = ground.n ** 2
    steps: list[RouteStep] = []
    walk: list[tuple[float, float]] = [(spawn[0], spawn[2])]
    holds: list[int] = []

    def flush_walk() -> None:
        steps.extend(RouteStep("walk", _surface_point(ground, xz)) for xz in _straightened(ground, walk, keep_out))

    def flush_holds() -> None:
        cells = [divmod(node - N, ground.n) for node in holds]
        steps.extend(RouteStep(CLIMB, reachability.node_point(ground, holds[i])) for i in _turns_only(cells))
        holds.clear()

    for node, kind in reach.path(reach.goal):
        x, y, z = reachability.node_point(ground, node)
        if kind in (reachability.START, reachability.WALK):
            walk.append((x, z))
            continue
        if kind == reachability.CLIMB and node >= N:
            if not holds:
                flush_walk()
            holds.append(node)
            continue
        if holds:
            flush_holds()
        else:
            flush_walk()
        steps.append(RouteStep(_SKILL_OF_KIND[kind], (x, y, z)))
        walk = [(x, z)]
    if approach and reach.goal in approach:  # the last stretch, off the grid, towards the food
        walk.append(approach[reach.goal])
    flush_walk()  # (a goal is a standing point: a route never ends hanging)
    return Route(start=spawn, steps=tuple(steps))


#: The skill of a route step that ends a search's edge of each kind but walking.
_SKILL_OF_KIND = {reachability.JUMP: JUMP, reachability.CLIMB: CLIMB, reachability.FALL: FALL}


def _line_on_floor(ground: reachability.Ground, a: tuple[float, float], b: tuple[float, float],
                   keep_out: Optional[np.ndarray] = None) -> bool:
    """Whether a straight walk from ``a`` to ``b`` ((x, z)) stays on floor triangles (and out of
    the ``keep_out`` discs)."""
    length = math.dist(a, b) / ground.cell_m
    samples = max(1, int(math.ceil(length * _LINE_SAMPLES_PER_CELL)))
    t = (np.arange(samples) + 0.5) / samples  # never an end: those are the route's own points
    x, z = a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
    if keep_out is not None:
        for cx, cz, radius in keep_out:
            if bool((np.hypot(x - cx, z - cz) < radius).any()):
                return False
    return bool(reachability.on_floor(ground, x, z).all())


def _straightened(ground: reachability.Ground, points: list[tuple[float, float]],
                  keep_out: Optional[np.ndarray] = None) -> list[tuple[float, float]]:
    """The waypoints of a walk along ``points`` ((x, z); the first is where it starts): each the
    last point still in a straight line over floor from the one before."""
    if len(points) < 2:
        return []
    waypoints, anchor, i = [], points[0], 1
    while i < len(points):
        j = i
        while j + 1 < len(points) and _line_on_floor(ground, anchor, points[j + 1], keep_out):
            j += 1
        waypoints.append(points[j])
        anchor, i = points[j], j + 1
    return waypoints


def _surface_point(ground: reachability.Ground, xz: tuple[float, float]) -> tuple[float, float, float]:
    return xz[0], float(ground_height(ground.heightmap, xz[0], xz[1])), xz[1]


def _turns_only(holds: list[tuple[int, int]]) -> list[int]:
    """Indices of a hold path ((row, col) each) where its direction changes, and its last."""
    keep = []
    for i in range(1, len(holds) - 1):
        before = (holds[i][0] - holds[i - 1][0], holds[i][1] - holds[i - 1][1])
        after = (holds[i + 1][0] - holds[i][0], holds[i + 1][1] - holds[i][1])
        if before != after:
            keep.append(i)
    return keep + [len(holds) - 1] if holds else []
