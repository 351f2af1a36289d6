"""A log laid across a chasm: its footprint, where it rests, the piers under its ends, the ground
levelled for it, the span it must bridge, the route over it, and the certificate of a chasm it
bridges (:func:`check_bridge`; bridge, and carry's log variant).

The log is the ``log`` tool at :data:`LOG_SCALE`: 9 m x 0.9 m x 0.9 m, 30 kg, liftable. Laid
across a trench it lies radially on two piers (static stone boxes under its ends: on the height
field's lips alone a log slid into the trench in 3 of 10 worlds); elsewhere it rests on level
ground, its bottom a few millimetres above the highest ground under it. Ring angles and the
chasm's geometry are :mod:`avalon.tasks.kit.chasm`'s.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_MASS_KG, TOOL_SIZE_M
from avalon.tasks.kit.certificate import Certificate, bypass_reaches, certify
from avalon.tasks.kit.chasm import INWARD, OUTWARD, PLATEAU_RADIUS_M, ChasmRing, at, jump_across
from avalon.tasks.kit.geometry import XZ, ground_height, path_exists, to_local, walkable_grid
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.sight import eye_position
from avalon.tasks.kit.skills import JUMP
from avalon.tasks.kit.solved import Block, with_blocks

#: The log's ``safe_scale``: 9 m x 0.9 m x 0.9 m (its mass stays the default 30 kg).
LOG_SCALE = 3.0
#: The log's mass, kilograms (under ``mechanics.MAX_LIFT_MASS_KG``).
LOG_MASS_KG = TOOL_MASS_KG["log"]
#: The log's size (across, up, along), metres.
LOG_SIZE_M = tuple(v * LOG_SCALE for v in TOOL_SIZE_M["log"])
#: A log laid across rests at least this much of its length on the ground at each end, metres
#: (``tests/game/entities/tools/test_tools_in_use.py`` laid it 0.35 m onto the near side).
MIN_REST_M = 0.4
#: A log is put this far above the highest ground under it, metres.
REST_CLEARANCE_M = 0.005
#: Piers: static stone boxes under the laid log's ends, over the ground it rests on there, their
#: tops this far above it, metres (a box resting on the height field's lip, at 10 physics steps
#: a second, slid off into the trench in 3 of 10 worlds; on boxes it stays)...
PIER_LIFT_M = 0.05
#: ...this much wider than the log on each side and this tall (the rest buried), metres.
PIER_SIDE_M = 0.1
PIER_HEIGHT_M = 0.5
#: Their colour (RGB): a grey stone.
PIER_COLOR = (0.5, 0.48, 0.45)
#: Ground under an item within this below its bottom supports it, metres.
REST_TOLERANCE_M = 0.1
#: The ground is levelled out to this far beyond the chasm, metres...
LEVEL_BEYOND_CHASM_M = 3.0
#: ...and blends back to the natural terrain over this much more, metres.
LEVEL_BLEND_M = 3.0
#: A log not yet in place lies with its axis this far beyond the chasm (on the agent's side), metres.
LOG_BEYOND_CHASM_M = 1.5
#: The spawn and the food keep at least this far from a log's footprint, metres.
LOG_CLEARANCE_M = 1.0
#: The chasm's span outside the stretch is measured every this many degrees round the ring.
SPAN_STEP_DEG = 5.0
#: Plants keep this far from the ring a log is carried along, metres.
CARRY_CLEARANCE_M = 3.0
#: The route walks up to the log's outer end to this far before it, and jumps onto it this far
#: past it; it walks along the top to this far short of the inner end and steps off to this far
#: beyond it, metres.
APPROACH_BEFORE_END_M = 0.75
MOUNT_PAST_END_M = 1.0
DISMOUNT_BEFORE_END_M = 0.6
LAND_BEYOND_END_M = 1.0


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class LogFootprint:
    """Where a log (or a pier, or any box lying along its own z) stands: footprint centre (x, z),
    ``width_m`` across and ``length_m`` along, turned by ``yaw_rad`` (an entity's yaw: its length
    runs along (sin yaw, cos yaw)), and its top's height. Metres and radians."""

    centre: XZ = attr.ib(converter=lambda c: (float(c[0]), float(c[1])))
    width_m: float = attr.ib(validator=check.positive())
    length_m: float = attr.ib(validator=check.positive())
    yaw_rad: float = attr.ib(validator=check.finite())
    top_m: float = attr.ib(validator=check.finite())

    @property
    def axis(self) -> XZ:
        """Unit (x, z) direction of its length."""
        return math.sin(self.yaw_rad), math.cos(self.yaw_rad)

    def local(self, x, z) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) (arrays) as (across, along) from the centre, metres."""
        return to_local(x, z, self.centre, self.yaw_rad)

    def end(self, sign: float) -> XZ:
        """The middle of its end along +axis (``sign`` 1) or -axis (-1)."""
        ax, az = self.axis
        half = sign * self.length_m / 2.0
        return self.centre[0] + half * ax, self.centre[1] + half * az

    def points(self, spacing_m: float = 0.1) -> np.ndarray:
        """Points covering the footprint (its edges included) about ``spacing_m`` apart, (n, 2) (x, z)."""
        across = np.linspace(-self.width_m / 2.0, self.width_m / 2.0, max(2, int(math.ceil(self.width_m / spacing_m)) + 1))
        along = np.linspace(-self.length_m / 2.0, self.length_m / 2.0, max(2, int(math.ceil(self.length_m / spacing_m)) + 1))
        u, v = np.meshgrid(across, along)
        ax, az = self.axis
        return np.column_stack([self.centre[0] + u.ravel() * az + v.ravel() * ax,
                                self.centre[1] - u.ravel() * ax + v.ravel() * az])

    def block(self, min_width_m: float = 0.0) -> Block:
        """The kit's :class:`~avalon.tasks.kit.solved.Block` of it, at least ``min_width_m`` wide."""
        return Block(centre=self.centre, width_m=max(self.width_m, min_width_m),
                     depth_m=self.length_m, top_m=self.top_m, yaw_rad=self.yaw_rad)

    def clearance_m(self, point: XZ) -> float:
        """Horizontal distance from ``point`` to the footprint (0 on it), metres."""
        across, along = self.local(point[0], point[1])
        return float(np.hypot(max(abs(float(across)) - self.width_m / 2.0, 0.0),
                              max(abs(float(along)) - self.length_m / 2.0, 0.0)))


def footprint_ground_m(heightmap: HeightMap, footprint: LogFootprint, spacing_m: float = 0.1) -> np.ndarray:
    """The terrain surface's height at :meth:`LogFootprint.points`, metres."""
    points = footprint.points(spacing_m)
    return np.asarray(ground_height(heightmap, points[:, 0], points[:, 1]), dtype=np.float64)


def log_footprint(log: Entity) -> LogFootprint:
    """The footprint and top of a log entity."""
    scale = float(log.param("safe_scale", 1.0) or 1.0)
    width, height, length = (v * scale for v in TOOL_SIZE_M["log"])
    return LogFootprint(centre=(log.position[0], log.position[2]), width_m=width, length_m=length, yaw_rad=log.yaw_rad,
                        top_m=log.position[1] + height / 2.0)


def radial_yaw(angle_rad: float) -> float:
    """The entity yaw whose axis (sin yaw, cos yaw) points along the ring direction ``angle_rad``."""
    return math.atan2(math.cos(angle_rad), math.sin(angle_rad))


def resting_log(heightmap: HeightMap, centre: XZ, yaw_rad: float, name: str = "log") -> Entity:
    """The log with its footprint centred on ``centre``, turned by ``yaw_rad``, its bottom on the
    highest ground under the footprint (never in the terrain)."""
    probe = LogFootprint(centre=centre, width_m=LOG_SIZE_M[0], length_m=LOG_SIZE_M[2], yaw_rad=yaw_rad, top_m=0.0)
    # The surface is flat on each triangle: its highest point under the footprint is a grid point
    # inside it or on its outline, sampled finely; a few millimetres more keep every corner clear.
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    inside = probe.block().covers(x, z)
    highest = max(float(footprint_ground_m(heightmap, probe, spacing_m=0.05).max()),
                  float(heightmap.heights[inside].max()) if inside.any() else -np.inf)
    bottom = highest + REST_CLEARANCE_M
    return tool_entity("log", name, (centre[0], bottom, centre[1]), yaw_rad=yaw_rad, safe_scale=LOG_SCALE)


def end_rests_m(heightmap: HeightMap, log: Entity) -> tuple[float, float]:
    """How much of the log's length rests on the ground at each end (from its -axis end, then its
    +axis end), metres: the run from each end over which the ground under its axis lies within
    ``REST_TOLERANCE_M`` below its bottom."""
    block = log_footprint(log)
    bottom = log.position[1] - LOG_SIZE_M[1] / 2.0
    along = np.linspace(-block.length_m / 2.0, block.length_m / 2.0, int(block.length_m / 0.05) + 1)
    ax, az = block.axis
    heights = np.asarray(ground_height(heightmap, block.centre[0] + along * ax, block.centre[1] + along * az))
    resting = heights >= bottom - REST_TOLERANCE_M
    first = int(np.argmin(resting)) if not resting.all() else along.size
    last = int(np.argmin(resting[::-1])) if not resting.all() else along.size
    step = along[1] - along[0]
    return first * step, last * step


def piers_under(heightmap: HeightMap, log: Entity) -> tuple[tuple[Entity, Entity], Entity]:
    """Two piers under the ends of ``log`` (resting on the terrain across the trench), each as long
    as the log rests on the ground there (:func:`end_rests_m`), and the log raised onto them."""
    block = log_footprint(log)
    top = log.position[1] - LOG_SIZE_M[1] / 2.0 + PIER_LIFT_M
    ax, az = block.axis
    piers = []
    for index, (sign, rest) in enumerate(zip((-1.0, 1.0), end_rests_m(heightmap, log))):
        x, z = block.end(sign)
        x, z = x - sign * rest / 2.0 * ax, z - sign * rest / 2.0 * az
        piers.append(Entity(kind="box", name=f"pier_{index}", position=(x, top - PIER_HEIGHT_M / 2.0, z), yaw_rad=log.yaw_rad,
                            params={"size": (block.width_m + 2 * PIER_SIDE_M, PIER_HEIGHT_M, rest), "color": PIER_COLOR}))
    raised = tool_entity("log", log.name, (log.position[0], top, log.position[2]), yaw_rad=log.yaw_rad,
                         safe_scale=LOG_SCALE)
    return (piers[0], piers[1]), raised


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class LogPlacement:
    """A log and its piers on a world's final ground: the piers, the log laid across the trench on
    them (``solved_log``) and the world's log (the same, or lying elsewhere)."""

    piers: tuple[Entity, Entity]
    solved_log: Entity
    log: Entity

    @property
    def entities(self) -> tuple[Entity, ...]:
        return (*self.piers, self.log)


def is_pier(entity: Entity) -> bool:
    """Whether ``entity`` is one of the piers under a laid log."""
    return entity.kind == "box" and entity.name.startswith("pier_")


def log_hides(heightmap: HeightMap, block: LogFootprint, spawn: XZ, food: XZ) -> bool:
    """Whether a log (``block``) stands between the eyes at ``spawn`` and an apple lying at ``food``."""
    eye = np.asarray(eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1])))
    target = np.asarray((food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1]))
    t = np.linspace(0.0, 1.0, 400)[:, None]
    points = eye + t * (target - eye)
    across, along = block.local(points[:, 0], points[:, 2])
    inside = (np.abs(across) <= block.width_m / 2.0 + 0.05) & (np.abs(along) <= block.length_m / 2.0 + 0.05)
    return bool((inside & (points[:, 1] <= block.top_m + 0.05)).any())


def levelled(natural: HeightMap, centre: XZ, radius_m: float, level_at: XZ, inner_radius_m: float = 0.0) -> HeightMap:
    """``natural`` levelled to its height at ``level_at`` out to ``radius_m`` from ``centre``,
    blending back to it over ``LEVEL_BLEND_M`` beyond (smoothstep); with ``inner_radius_m`` > 0,
    a ring: it blends in over ``LEVEL_BLEND_M`` outward from that radius too."""
    x, z = np.meshgrid(natural.x_coords_m - centre[0], natural.z_coords_m - centre[1])
    radius = np.hypot(x, z)
    t = np.clip((radius - radius_m) / LEVEL_BLEND_M, 0.0, 1.0)
    weight = 1.0 - t * t * (3.0 - 2.0 * t)
    if inner_radius_m > 0.0:
        s = np.clip((radius - inner_radius_m) / LEVEL_BLEND_M, 0.0, 1.0)
        weight = weight * (s * s * (3.0 - 2.0 * s))
    heights = natural.heights.astype(np.float64)
    level = float(ground_height(natural, *level_at))
    return natural.with_heights(heights + weight * (level - heights))


def _ray(heightmap: HeightMap, chasm: ChasmRing, angle_rad: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Radii every 2 cm along the ray at ``angle_rad`` from the band's inner edge (the plateau's
    start) to a metre beyond the chasm, the ground's height at each, and the lower rim: the
    plateau's lowest point inside the chasm or the ground a metre beyond it."""
    start = max(0.0, chasm.inner_radius_m - PLATEAU_RADIUS_M)
    radii = start + np.arange(0.0, chasm.outer_radius_m + 1.0 - start, 0.02)
    heights = np.asarray(ground_height(heightmap, chasm.centre[0] + radii * math.cos(angle_rad),
                                       chasm.centre[1] + radii * math.sin(angle_rad)))
    rim = min(heights[radii <= chasm.inner_radius_m - chasm.noise_m].min(), heights[-1])
    return radii, heights, rim


def radial_span_m(heightmap: HeightMap, chasm: ChasmRing, angle_rad: float) -> float:
    """Length of the ray from the chasm's centre at ``angle_rad`` over which the ground lies lower
    than a log resting on both rims would touch (``REST_TOLERANCE_M`` below the lower rim: the
    plateau's edge inside, the ground beyond the chasm outside), metres: the span a log must
    bridge there."""
    radii, heights, rim = _ray(heightmap, chasm, angle_rad)
    return float((heights < rim - REST_TOLERANCE_M).sum() * (radii[1] - radii[0]))


def trench_middle_m(heightmap: HeightMap, chasm: ChasmRing, nominal_m: float) -> float:
    """The middle, as a distance from the centre along the stretch's middle direction, of the
    trench as cut on the grid (the run of ground lower than a log resting on its rims would touch
    that holds ``nominal_m``), metres; ``nominal_m`` if none does."""
    radii, heights, rim = _ray(heightmap, chasm, math.radians(chasm.stretch_angle_deg))
    low = heights < rim - REST_TOLERANCE_M
    at_nominal = int(np.argmin(np.abs(radii - nominal_m)))
    if not low[at_nominal]:
        return nominal_m
    first, last = at_nominal, at_nominal
    while first > 0 and low[first - 1]:
        first -= 1
    while last + 1 < radii.size and low[last + 1]:
        last += 1
    return float((radii[first] + radii[last]) / 2.0)


def narrowest_outside_stretch_m(heightmap: HeightMap, chasm: ChasmRing) -> float:
    """The narrowest :func:`radial_span_m` round the ring outside the stretch (and two metres
    of arc beyond each of its sides), every ``SPAN_STEP_DEG``, metres."""
    stretch = math.radians(chasm.stretch_angle_deg)
    half = chasm.stretch_half_angle_rad() + 2.0 / (chasm.inner_radius_m + chasm.width_m / 2.0)
    count = int(math.ceil(math.degrees(2 * math.pi - 2 * half) / SPAN_STEP_DEG)) + 1
    return min(radial_span_m(heightmap, chasm, angle) for angle in np.linspace(stretch + half, stretch + 2 * math.pi - half, count))


def carry_corridor(chasm: ChasmRing, radius_m: float, log_centre: XZ) -> list[tuple[float, float, float]]:
    """Keep-clear discs along the ring at ``radius_m`` from the log's middle round to the stretch,
    ``CARRY_CLEARANCE_M`` round: the way a log carried along the ring sweeps (it sticks out
    ahead of the agent, off the ring's tangent)."""
    centre = np.asarray(chasm.centre)
    start = math.atan2(log_centre[1] - centre[1], log_centre[0] - centre[0])
    turn = math.remainder(math.radians(chasm.stretch_angle_deg) - start, 2 * math.pi)
    count = max(2, int(abs(turn) * radius_m / CARRY_CLEARANCE_M) + 2)
    return [(*at(chasm.centre, start + turn * k / (count - 1), radius_m + 1.0), CARRY_CLEARANCE_M) for k in range(count)]


def crossing_steps(heightmap: HeightMap, log: Entity, goal: XZ) -> list[RouteStep]:
    """The crossing of a log laid across a trench from its far end (the one farther from ``goal``,
    which lies beyond its other end): walk to before that end, jump onto it, walk along its top,
    step off beyond its other end, walk to beside the goal."""
    block = log_footprint(log)
    sign = 1.0 if math.dist(block.end(1.0), goal) > math.dist(block.end(-1.0), goal) else -1.0
    ax, az = block.axis
    outer = block.end(sign)
    inward = (-sign * ax, -sign * az)

    def along(distance: float) -> XZ:
        return outer[0] + inward[0] * distance, outer[1] + inward[1] * distance

    def on_ground(point: XZ) -> tuple[float, float, float]:
        return point[0], float(ground_height(heightmap, *point)), point[1]

    def on_top(point: XZ) -> tuple[float, float, float]:
        return point[0], block.top_m, point[1]

    length = block.length_m
    landing = along(length + LAND_BEYOND_END_M)
    away = math.dist(goal, landing)
    beside = landing if away < 1.0 else tuple(np.asarray(goal) + 0.8 * (np.asarray(landing) - np.asarray(goal)) / away)
    return [
        RouteStep("walk", on_ground(along(-APPROACH_BEFORE_END_M))),
        RouteStep(JUMP, on_top(along(MOUNT_PAST_END_M))),
        RouteStep("walk", on_top(along(length - DISMOUNT_BEFORE_END_M))),
        RouteStep("fall", on_ground(landing)),
        RouteStep("walk", on_ground(beside)),
    ]


def ends_outward_m(chasm: ChasmRing) -> tuple[float, float]:
    """How far outward from the chasm's inner edge the ends of a log laid across its middle lie
    (the inner end, the outer end), metres."""
    return chasm.width_m / 2.0 - LOG_SIZE_M[2] / 2.0, chasm.width_m / 2.0 + LOG_SIZE_M[2] / 2.0


# --- the certificate of a chasm the log bridges --------------------------------------------------


def crossing_route(world: World, solved_log: Entity, food: XZ) -> Route:
    """The route from the spawn over ``solved_log`` laid across the trench to beside the food
    (:func:`crossing_steps`)."""
    return Route(start=world.spawn_position, steps=crossing_steps(world.ground.heightmap, solved_log, food))


def check_bridge(world: World, solved_log: Entity, ring: ChasmRing, level_at: Optional[XZ] = None) -> Certificate:
    """The certificate of ``world`` with ``solved_log`` where its log goes across the trench of
    ``ring`` (docs/tasks/bridge.md): not ``bypassed`` when the terrain alone (the bypass search with
    every skill but the jump, any fall short of a lethal one) and :func:`~avalon.tasks.kit.chasm.jump_across`
    give no way to the food; ``solvable`` when the log burned into the height map there (two grid
    cells wide) gives a route and the world's log suffices (:func:`log_suffices`). The chasm's
    floor is the ground more than half its depth below the levelled height, taken at ``level_at``
    (default: the centre)."""
    food = world.food[0]
    reasons = []
    bypassed = bypass_reaches(world, food, frozenset(SKILLS) - {JUMP}, max_fall_m=mechanics.LETHAL_FALL_M)
    if bypassed:
        reasons.append("the food can be reached without the log (bypass limits, any fall short of a lethal one)")
    heightmap = world.ground.heightmap
    floor = heightmap.heights < float(ground_height(heightmap, *(level_at or ring.centre))) - ring.depth_m / 2.0
    jump = jump_across(heightmap, ring, floor, ways=(INWARD, OUTWARD), stretch_excepted=False)
    if jump is not None:
        bypassed = True
        reasons.append(jump)
    # The piers lie under the burned-in log (the route search would take them for obstacles).
    bare = attr.evolve(world, entities=[entity for entity in world.entities if not is_pier(entity)])
    # Widened to two grid cells across: the height map's triangles need two raised points side by
    # side to be floor, and a 0.9 m log on the 1 m grid may cover one (the simulator tests walk the log itself).
    burned = log_footprint(solved_log).block(min_width_m=2.0 * heightmap.cell_size_m)
    solved = certify(with_blocks(bare, [burned]), food, frozenset(), frozenset(SKILLS), max_fall_m=mechanics.SAFE_FALL_M)
    if not solved.solvable:
        reasons.append(f"with the log across the trench: {solved.reason}")
    why = log_suffices(world, solved_log)
    if why is not None:
        reasons.append(why)
    ok = solved.solvable and why is None
    route = crossing_route(world, solved_log, (food.position[0], food.position[2])) if ok else None
    return Certificate(required=frozenset(), allowed=frozenset(SKILLS), solvable=ok, bypassed=bypassed, route=route,
                       reason="; ".join(reasons))


def log_suffices(world: World, solved_log: Entity) -> Optional[str]:
    """Why the world's items do not suffice to lay ``solved_log``, or None: one log, of the solved
    log's size, liftable, reachable on foot from the spawn, and the solved log resting at least
    ``MIN_REST_M`` on the ground at each end (on two piers)."""
    logs = [entity for entity in world.entities if entity.kind == "log"]
    if len(logs) != 1:
        return f"the world holds {len(logs)} logs, expected 1"
    (the_log,) = logs
    if the_log.param("safe_scale", 1.0) != solved_log.param("safe_scale", 1.0):
        return f"the log's scale {the_log.param('safe_scale', 1.0)} is not the solved log's"
    mass = float(the_log.param("mass", TOOL_MASS_KG["log"]))
    if mass > mechanics.MAX_LIFT_MASS_KG:
        return f"the log weighs {mass} kg: more than the {mechanics.MAX_LIFT_MASS_KG} kg a hand lifts"
    heightmap = world.ground.heightmap
    piers = [entity for entity in world.entities if is_pier(entity)]
    bottom = solved_log.position[1] - LOG_SIZE_M[1] / 2.0
    if len(piers) != 2 or any(abs(pier.position[1] + PIER_HEIGHT_M / 2.0 - bottom) > 1e-6 for pier in piers):
        return "the log across the trench does not lie on two piers"
    if min(float(pier.param("size")[2]) for pier in piers) < MIN_REST_M:
        return f"a pier under the log is shorter than {MIN_REST_M} m"
    block = log_footprint(the_log)
    spawn = world.spawn_position
    walkable = walkable_grid(heightmap)
    if not any(path_exists(heightmap, walkable, spawn, _beside(heightmap, block, sign)) for sign in (1.0, -1.0)):
        return f"the log at {the_log.position} cannot be reached on foot from the spawn"
    return None


def _beside(heightmap: HeightMap, block: LogFootprint, sign: float) -> tuple[float, float, float]:
    """Ground half a metre beyond one end of ``block`` on its axis."""
    ax, az = block.axis
    x, z = block.end(sign)
    x, z = x + sign * 0.5 * ax, z + sign * 0.5 * az
    return x, float(ground_height(heightmap, x, z)), z
