"""Solvability certificates: can the food be reached with the task's skills, and not without them?

A generator hands its :class:`~avalon.datagen.world.World` (a :class:`~avalon.datagen.world.Terrain`
ground) to :func:`certify` with the food, the skills the task is about (``required``) and the
skills it allows (``allowed``, of :data:`~avalon.tasks.kit.route.SKILLS`):

- ``solvable``: a search with :data:`~avalon.tasks.kit.capabilities.ROUTE_CAPABILITIES` (every
  limit a margin inside the measured one) reaches the food with ``allowed``; the
  :class:`~avalon.tasks.kit.route.Route` it found goes from the spawn to a point beside the food,
  each step with its skill and target: what a scripted agent follows;
- ``bypassed``: a search with :data:`~avalon.tasks.kit.capabilities.BYPASS_CAPABILITIES` (every
  limit a margin beyond the measured one) reaches the food with ``allowed - required``: an easier
  way round the task's obstacle exists (a jump world walked round, a climb world walked up). With
  no ``required`` skill there is nothing to bypass and it is False.

So an ``ok`` certificate is one whose route works with slack to spare and whose obstacle cannot be
avoided even by a body a little better than ours: between the two the search is deliberately
pessimistic in one direction and optimistic in the other. :func:`require_certificate` raises
:class:`~avalon.tasks.kit.ImpossibleWorldError` with the reason, so the registry regenerates the
world from a derived seed.

The route's steps are :mod:`avalon.tasks.kit.route`'s.

What the searches know: the height map (the collider's triangles), the water plane, the biome
map's climbable grid; the route search also keeps the body clear of tree trunks and boxes
(``obstacles_block``), the bypass search ignores them (tasks keep them away from the obstacles
they certify). Loose items (stones, logs), animals and tree climbing are not modelled. The food
is *reached* when its centre is within ``grasp_reach_m`` of the shoulders standing on a point
(:mod:`~avalon.tasks.kit.capabilities`). Details of each move: :mod:`~avalon.tasks.kit.reachability`.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.export.scenery_data import TRUNKS
from avalon.datagen.world import Entity, Terrain, World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, reachability
from avalon.tasks.kit.capabilities import (
    BYPASS_CAPABILITIES,
    ROUTE_CAPABILITIES,
    SHOULDER_SPAN_M,
    Capabilities,
)
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.reachability import Ground, Reach
from avalon.tasks.kit.route import SKILLS, Route, route_from_search


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Certificate:
    """The answer of :func:`certify` for one food."""

    #: The skills the task is about, and the skills it allows.
    required: frozenset[str]
    allowed: frozenset[str]
    #: Reached with ``allowed`` by the route search.
    solvable: bool
    #: Reached with ``allowed - required`` by the bypass search (False when nothing is required).
    bypassed: bool
    #: The route found when solvable: from the spawn to beside the food.
    route: Optional[Route]
    #: Why the certificate fails ("" when it holds).
    reason: str

    @property
    def ok(self) -> bool:
        """Solvable and not bypassed: the world keeps the task's guarantee."""
        return self.solvable and not self.bypassed


def _skill_set(value, name: str) -> frozenset[str]:
    skills = frozenset(value) if not isinstance(value, str) else None
    if skills is None or not skills <= frozenset(SKILLS):
        check.refuse(name, value, f"a set of skills from {SKILLS}")
    return skills


def _food_position(food) -> tuple[float, float, float]:
    if isinstance(food, Entity):
        return food.position
    try:
        x, y, z = (float(v) for v in food)
    except (TypeError, ValueError):
        check.refuse("food", food, "a food Entity or its centre (x, y, z) in metres")
    if not all(math.isfinite(v) for v in (x, y, z)):
        check.refuse("food", food, "a food Entity or its centre (x, y, z) in metres")
    return x, y, z


def _food_radius_m(food) -> float:
    return float(food.param("radius", 0.0) or 0.0) if isinstance(food, Entity) else 0.0


def _check_terrain_world(world) -> None:
    if not isinstance(world, World) or not isinstance(world.ground, Terrain):
        check.refuse("world", type(world.ground).__name__ if isinstance(world, World) else world,
                     "a World on Terrain (a height map)")


def certify(
    world: World,
    food: Union[Entity, Sequence[float]],
    required: frozenset[str],
    allowed: frozenset[str] = frozenset(SKILLS),
    *,
    max_fall_m: float = mechanics.SAFE_FALL_M,
    bypass_max_fall_m: Optional[float] = None,
    sheer_triangles: Optional[np.ndarray] = None,
    keep_out: Sequence[tuple[float, float, float]] = (),
) -> Certificate:
    """Whether ``food`` (an entity of ``world`` or its centre) can be reached from the spawn with
    ``allowed`` (``solvable``, with a route) and whether it can be without ``required``
    (``bypassed``). Falls (and jumps' landings) may drop up to ``max_fall_m`` on the route, and up to
    ``bypass_max_fall_m`` (default: the same) for a bypass: a task may accept a damaging fall on
    its route, or count any fall short of death as a bypass (``mechanics.LETHAL_FALL_M``).
    ``sheer_triangles`` marks height-map triangles that stand for vertical faces (see
    :func:`~avalon.tasks.kit.reachability.ground.make_ground`). ``ValueError`` for skills not in
    ``SKILLS``, an ``allowed`` without ``walk``, a ``required`` not within ``allowed``, a negative
    fall height, a world without terrain or ``sheer_triangles`` not a bool grid of its triangles.
    ``keep_out`` discs (x, z, radius in metres; a predator's activation radius) are places the
    route search keeps the body's centre out of, like tree trunks; the bypass search ignores them."""
    required = _skill_set(required, "required")
    allowed = _skill_set(allowed, "allowed")
    if "walk" not in allowed:
        check.refuse("allowed", sorted(allowed), "a set of skills that includes 'walk'")
    if not required <= allowed:
        check.refuse("required", sorted(required), f"a subset of allowed={sorted(allowed)}")
    max_fall_m = check.check_number(max_fall_m, "max_fall_m", low=0.0, unit="metres")
    bypass_max_fall_m = check.check_number(max_fall_m if bypass_max_fall_m is None else bypass_max_fall_m,
                                           "bypass_max_fall_m", low=0.0, unit="metres")
    _check_terrain_world(world)
    position = _food_position(food)
    heightmap = world.ground.heightmap
    for name, point in (("food", position), ("spawn", world.spawn_position)):
        if not bool(heightmap.contains(point[0], point[2])):
            raise ValueError(f"{name} at {point} (m) is outside the world: expected |x|, |z| <= {heightmap.half_size_m}")

    radius = _food_radius_m(food)
    sheer = _check_sheer(sheer_triangles, heightmap)
    found = _search(world, position, radius, allowed, ROUTE_CAPABILITIES, max_fall_m, sheer, _discs(keep_out))
    solvable = found is not None
    bypassed = bool(required) and _search(world, position, radius, allowed - required, BYPASS_CAPABILITIES,
                                          bypass_max_fall_m, sheer) is not None
    built = route_from_search(world.spawn_position, found.reach, found.approach, found.keep_out) if solvable else None
    reasons = []
    food_text = "({:.2f}, {:.2f}, {:.2f})".format(*position)
    if not solvable:
        reasons.append(f"the food at {food_text} cannot be reached from the spawn with {sorted(allowed)} "
                       f"(route limits, falls up to {max_fall_m:g} m)")
    if bypassed:
        reasons.append(f"the food at {food_text} can be reached without {sorted(required)}, with "
                       f"{sorted(allowed - required)} (bypass limits, falls up to {bypass_max_fall_m:g} m)")
    return Certificate(required=required, allowed=allowed, solvable=solvable, bypassed=bypassed, route=built,
                       reason="; ".join(reasons))


def reaches(world: World, food: Union[Entity, Sequence[float]], skills: frozenset[str], *, bypass: bool,
            max_fall_m: float = mechanics.SAFE_FALL_M, sheer_triangles: Optional[np.ndarray] = None) -> bool:
    """Whether ``food`` (an entity of ``world`` or a point (x, y, z)) can be reached from the spawn
    with ``skills``: by the bypass search (``BYPASS_CAPABILITIES``) when ``bypass``, else by the
    route search (``ROUTE_CAPABILITIES``). One half of :func:`certify`, for certificates whose
    halves search different worlds (an object task's: the terrain as made, and with its items in
    their solved places)."""
    skills = _skill_set(skills, "skills")
    max_fall_m = check.check_number(max_fall_m, "max_fall_m", low=0.0, unit="metres")
    _check_terrain_world(world)
    caps = BYPASS_CAPABILITIES if bypass else ROUTE_CAPABILITIES
    sheer = _check_sheer(sheer_triangles, world.ground.heightmap)
    return _search(world, _food_position(food), _food_radius_m(food), skills, caps, max_fall_m, sheer) is not None


def _check_sheer(sheer, heightmap) -> Optional[np.ndarray]:
    if sheer is None:
        return None
    shape = (heightmap.shape[0] - 1, heightmap.shape[1] - 1, 2)
    sheer = np.asarray(sheer)
    if sheer.dtype != bool or sheer.shape != shape:
        check.refuse("sheer_triangles", f"an array of {sheer.dtype} {sheer.shape}", f"a bool array of shape {shape}")
    return sheer


def require_certificate(world: World, food, required: frozenset[str], allowed: frozenset[str] = frozenset(SKILLS),
                        **limits) -> Certificate:
    """:func:`certify`, raising :class:`~avalon.tasks.kit.ImpossibleWorldError` (the registry then
    regenerates from a derived seed) unless the certificate holds; returns it."""
    certificate = certify(world, food, required, allowed, **limits)
    if not certificate.ok:
        raise ImpossibleWorldError(f"{world.task}: {certificate.reason}")
    return certificate


def bypass_reaches(world: World, food, allowed: frozenset[str] = frozenset(SKILLS), *,
                   max_fall_m: float = mechanics.SAFE_FALL_M) -> bool:
    """Whether the bypass search (:data:`~avalon.tasks.kit.capabilities.BYPASS_CAPABILITIES`: every
    limit a margin beyond the measured one) reaches ``food`` from the spawn with ``allowed`` and
    falls up to ``max_fall_m``: :func:`certify`'s ``bypassed`` half alone, for a task whose obstacle
    is passed with items the height map does not hold (its terrain must not let the body by
    without them, with any skill). Same ``ValueError`` s as :func:`certify`."""
    allowed = _skill_set(allowed, "allowed")
    if "walk" not in allowed:
        check.refuse("allowed", sorted(allowed), "a set of skills that includes 'walk'")
    max_fall_m = check.check_number(max_fall_m, "max_fall_m", low=0.0, unit="metres")
    _check_terrain_world(world)
    position = _food_position(food)
    return _search(world, position, _food_radius_m(food), allowed, BYPASS_CAPABILITIES, max_fall_m) is not None


# --- the searches ----------------------------------------------------------------------------------


@attr.s(frozen=True, eq=False, auto_attribs=True)
class Obstacles:
    """Tree trunks (discs) and boxes (turned rectangles) the body cannot stand in, grown by the
    body's radius: ``trunks`` rows (x, z, radius), ``boxes`` rows (x, z, half width, half depth,
    yaw), metres and radians."""

    trunks: np.ndarray
    boxes: np.ndarray

    @classmethod
    def of(cls, world: World, keep_out: Optional[np.ndarray] = None) -> "Obstacles":
        """The trunks and boxes of ``world``, and ``keep_out`` discs (rows x, z, radius) as trunks."""
        trunks = [(p.position[0], p.position[2], TRUNKS[p.kind].radius_m * p.scale + mechanics.BODY_RADIUS_M)
                  for p in world.scenery if p.kind.is_tree]
        trunks += [tuple(float(v) for v in disc) for disc in (() if keep_out is None else keep_out)]
        boxes = []
        for box in world.entities:
            if box.kind == "box":
                width, _, depth = box.param("size")
                boxes.append((box.position[0], box.position[2], width / 2, depth / 2, box.yaw_rad))
        return cls(np.array(trunks, dtype=np.float64).reshape(-1, 3), np.array(boxes, dtype=np.float64).reshape(-1, 5))

    def blocked(self, x, z) -> np.ndarray:
        """Whether the body standing at (x, z) (arrays) would overlap an obstacle."""
        x, z = np.asarray(x, dtype=np.float64), np.asarray(z, dtype=np.float64)
        out = np.zeros(np.broadcast(x, z).shape, dtype=bool)
        for tx, tz, radius in self.trunks:
            out |= np.hypot(x - tx, z - tz) < radius
        for bx, bz, half_width, half_depth, yaw in self.boxes:
            c, s = math.cos(yaw), math.sin(yaw)
            right, back = c * (x - bx) - s * (z - bz), s * (x - bx) + c * (z - bz)  # into the box's frame
            out |= np.hypot(np.maximum(np.abs(right) - half_width, 0.0), np.maximum(np.abs(back) - half_depth, 0.0)) < \
                mechanics.BODY_RADIUS_M
        return out

    def grid(self, heightmap) -> np.ndarray:
        """``blocked`` at every grid point (each obstacle tested in its own window of the grid)."""
        n, cell, half = heightmap.shape[0], heightmap.cell_size_m, heightmap.half_size_m
        out = np.zeros((n, n), dtype=bool)
        coords = heightmap.x_coords_m
        reach = [(x, z, r) for x, z, r in self.trunks] + [
            (x, z, math.hypot(w, d) + mechanics.BODY_RADIUS_M) for x, z, w, d, _ in self.boxes]
        for index, (x, z, radius) in enumerate(reach):
            cols = slice(max(0, int((x - radius + half) / cell)), min(n, int((x + radius + half) / cell) + 2))
            rows = slice(max(0, int((z - radius + half) / cell)), min(n, int((z + radius + half) / cell) + 2))
            gx, gz = np.meshgrid(coords[cols], coords[rows])
            single = Obstacles(self.trunks[index:index + 1], np.zeros((0, 5))) if index < len(self.trunks) else \
                Obstacles(np.zeros((0, 3)), self.boxes[index - len(self.trunks):index - len(self.trunks) + 1])
            out[rows, cols] |= single.blocked(gx, gz)
        return out


def _grasp_distance_m(food: tuple[float, float, float], x, y, z) -> np.ndarray:
    """Distance from the food's centre to the shoulders of a body whose feet are at (x, y, z),
    anywhere from crouching to standing tall."""
    low, high = SHOULDER_SPAN_M
    shoulder = np.clip(food[1], y + low, y + high)
    return np.sqrt((x - food[0]) ** 2 + (z - food[2]) ** 2 + (shoulder - food[1]) ** 2)


#: The last approach to the food is checked every this many metres.
_APPROACH_STEP_M = 0.05


def _approach(ground: Ground, obstacles: Obstacles, food, food_radius_m: float, node: int):
    """Where the body gets walking straight from standing point ``node`` towards the food: as
    close as floor triangles, obstacles and the food itself (the capsule must not stand on it)
    let it; (x, z) or None when that is no closer than the node."""
    n = ground.n
    row, col = divmod(node, n)
    x0, z0 = (float(v) for v in ground.heightmap.grid_to_world(row, col))
    away = math.hypot(x0 - food[0], z0 - food[2])
    keep = mechanics.BODY_RADIUS_M + food_radius_m + 0.05
    if away <= keep:
        return None
    along = np.arange(_APPROACH_STEP_M, away - keep + 1e-9, _APPROACH_STEP_M)
    if along.size == 0:
        return None
    x = x0 + (food[0] - x0) * along / away
    z = z0 + (food[2] - z0) * along / away
    fine = reachability.on_floor(ground, x, z) & ~obstacles.blocked(x, z)
    last = int(np.argmin(fine)) - 1 if not fine.all() else fine.size - 1
    return (float(x[last]), float(z[last])) if last >= 0 else None


def _goals(ground: Ground, obstacles: Obstacles, food, food_radius_m: float):
    """The nodes from which the food counts as reached (bool mask over the 2 N nodes), and for the
    route search the point each standing goal walks on to (node -> (x, z))."""
    caps = ground.capabilities
    heightmap = ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    near = _grasp_distance_m(food, x, ground.heights, z) <= caps.grasp_reach_m
    standing = ground.standing & near
    approach: dict[int, tuple[float, float]] = {}
    if caps.obstacles_block:
        # Grid points may all lie too far from food by an obstacle (an altar): walk on towards it.
        nearby = ground.standing & ~near & (np.hypot(x - food[0], z - food[2]) <= caps.grasp_reach_m + 2 * ground.cell_m)
        for node in np.flatnonzero(nearby):
            point = _approach(ground, obstacles, food, food_radius_m, int(node))
            if point is not None:
                y = float(ground_height(heightmap, *point))
                if _grasp_distance_m(food, point[0], y, point[1]) <= caps.grasp_reach_m:
                    approach[int(node)] = point
        standing.ravel()[list(approach)] = True
    hanging = np.zeros_like(near)
    if caps.grasp_while_hanging:
        hanging = ground.holds & (np.sqrt((x - food[0]) ** 2 + (ground.heights - food[1]) ** 2 + (z - food[2]) ** 2)
                                  <= caps.grasp_reach_m)
    return np.concatenate([standing.ravel(), hanging.ravel()]), approach


def _start_nodes(ground: Ground, spawn: tuple[float, float, float]) -> np.ndarray:
    """The corners of the spawn's cell the body can be at (walking there stays in the cell)."""
    heightmap = ground.heightmap
    row, col = heightmap.world_to_grid(spawn[0], spawn[2])
    n = ground.n
    r0, c0 = min(int(math.floor(row)), n - 2), min(int(math.floor(col)), n - 2)
    corners = [(r, c) for r in (r0, r0 + 1) for c in (c0, c0 + 1) if ground.standing[r, c]]
    return np.array([r * n + c for r, c in corners], dtype=np.int64)


@attr.s(frozen=True, eq=False, auto_attribs=True)
class _Found:
    """A search that reached the food (``reach`` is None when the spawn itself is close enough);
    ``approach`` is where the route walks on to from goal nodes that need it."""

    reach: Optional[Reach]
    approach: dict
    #: Keep-out discs (rows x, z, radius) the route's straight walks stay out of, or None.
    keep_out: Optional[np.ndarray] = None


def _discs(keep_out) -> Optional[np.ndarray]:
    """``keep_out`` as rows (x, z, radius), or None when empty; ``ValueError`` for anything else."""
    discs = np.asarray(keep_out, dtype=np.float64).reshape(-1, 3) if len(keep_out) else None
    if discs is not None and not (np.isfinite(discs).all() and (discs[:, 2] >= 0).all()):
        check.refuse("keep_out", keep_out, "discs (x, z, radius) in metres, finite, radius >= 0")
    return discs


def _search(world: World, food, food_radius_m: float, skills: frozenset[str], caps: Capabilities,
            max_fall_m: float, sheer: Optional[np.ndarray] = None,
            keep_out: Optional[np.ndarray] = None) -> Optional[_Found]:
    heightmap = world.ground.heightmap
    spawn = world.spawn_position
    obstacles = Obstacles.of(world, keep_out)
    ground = reachability.make_ground(heightmap, world.ground.biome_map.climbable, obstacles.grid(heightmap), caps, sheer)
    if _grasp_distance_m(food, *spawn) <= caps.grasp_reach_m:
        return _Found(None, {}, keep_out)
    starts = _start_nodes(ground, spawn)
    if starts.size == 0:
        return None
    graph = reachability.build_graph(ground, skills, max_fall_m + caps.fall_slack_m)
    goal, approach = _goals(ground, obstacles, food, food_radius_m)
    extra = np.zeros(goal.size)
    for node, point in approach.items():
        extra[node] = math.dist(point, reachability.node_point(ground, node)[::2])
    reach = reachability.search(graph, starts, goal, let_go_below_hold_m=caps.let_go_feet_below_hold_m, goal_extra_cost=extra)
    return _Found(reach, approach, keep_out) if reach.goal >= 0 else None
