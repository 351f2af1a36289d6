"""The ``bridge`` task: lay a log across a chasm too wide to jump and walk over it to the food.

Paper, Appendix F.1: "the agent must pick up a log and lay it across a chasm in order to create a
bridge to walk over the chasm. At low difficulties, the log is sometimes already in the solved
position. As difficulty increases, the log starts out farther away, and the width of the chasm
section that is narrow enough to be bridged shrinks, so the agent must find the right place to
bridge the chasm." Difficulty sets every factor through :data:`KNOBS` (:class:`BridgeKnobs`;
``docs/tasks/bridge.md`` quotes it):

- the chasm (a ``chasm`` :class:`~avalon.datagen.obstacles.ObstacleRing` round a plateau) is wider
  than the log everywhere but along one stretch, the *bridgeable stretch*, where it narrows to a
  trench wider than any jump (``bridge_gap_m``: 6.3 m to 6.6 m, against the 6 m of the bypass
  search's longest level jump and the 5.25 m measured) and narrower than the log less what rests
  on each side; the stretch gets shorter with difficulty (``bridgeable_length_m``) and turns away
  from the spawn (``max_stretch_bearing_deg``);
- the log (:data:`LOG_SCALE` times the default: 9 m long, 0.9 m thick, 30 kg, liftable) lies
  across the trench already, on two piers (static stone boxes under its ends: on the height
  field's lips alone a log slid into the trench in 3 of 10 worlds), with chance
  ``log_in_place_chance`` (always at d = 0, never at 1), or else on level ground beyond the chasm
  on the spawn's side, along the ring, farther round it from the stretch with difficulty
  (``log_distance_m``);
- the spawn stands farther from the bridge, the food farther in from it.

The chasm's outer half is climbable and its inner half is not (as in ``jump``): an agent that
falls in climbs back out to where it came from, never up to the food. The ground round the chasm is
levelled (:func:`levelled`) so the log lies flat wherever it is put.

Every world is certified at generation (:func:`check_bridge`; docs/tasks/bridge.md "Solvability
certificates" and the bridge section): the terrain alone gives no route to the food (the bypass
search with every skill but the jump, any fall short of a lethal one, and :func:`jump_across`: no
jump at the bypass limits crosses the chasm); with the log burned into the height map across the
trench (:func:`~avalon.tasks.kit.solved.with_blocks`, two grid cells wide) a route walks over it; and the world's log
suffices: one log, liftable, reachable on foot from the spawn, the solved log on two piers at
least ``MIN_REST_M`` long.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy.spatial import cKDTree

from avalon import errors as check
from avalon.datagen.obstacles import ObstacleRing, RingKind, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_MASS_KG, TOOL_SIZE_M
from avalon.tasks.jump import climbable_outer_half, stepped_walls
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    TIME_LIMIT_FRAMES,
    FoodPlacement,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    resolve_config,
    scaled_scenery,
    split_streams,
    world_config,
)
from avalon.tasks.kit.capabilities import BYPASS_CAPABILITIES, jump_reach_m
from avalon.tasks.kit.certificate import Certificate, bypass_reaches, certify
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import (
    XZ,
    ground_height,
    is_dry_land,
    path_exists,
    sample_at,
    triangle_index,
    triangle_slopes_deg,
    walkable_grid,
    yaw_towards,
)
from avalon.tasks.kit.reachability import make_ground
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.sight import eye_position, terrain_clear
from avalon.tasks.kit.sites import (
    build_at_first_fitting_site,
    candidate_points,
    corridor_discs,
    fruit_tree_site_ok,
    site_mask,
    tree_behind_food,
)
from avalon.tasks.kit.solved import Block, with_blocks
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BridgeKnobs:
    """Every factor of a bridge world that the difficulty d in [0, 1] sets (docs/tasks/bridge.md quotes it).
    Bands are drawn from uniformly."""

    #: Radial width of the chasm outside the bridgeable stretch, metres (10.5 m to 11.5 m: on the
    #: one-metre grid the span between its rims stays wider than the 9 m log, so it bridges
    #: nowhere else).
    chasm_width_m: Ramp = Ramp(10.5, 1.0)
    #: Radial width of the trench along the bridgeable stretch, metres (6.3 m to 6.6 m: no jump
    #: clears it; the 9 m log rests nominally 1.35 m to 1.2 m on each side, at least MIN_REST_M on
    #: the generated terrain).
    bridge_gap_m: Ramp = Ramp(6.3, 0.3)
    #: Length of the bridgeable stretch along the ring (at the middle of the chasm), metres (12 m
    #: to 4 m).
    bridgeable_length_m: Ramp = Ramp(12.0, -8.0)
    #: Depth of the chasm, metres (7 m to 8 m).
    chasm_depth_m: Ramp = Ramp(7.0, 1.0)
    #: The middle of the bridgeable stretch lies within this angle round the ring from the spawn's
    #: side, either side, degrees (0 at d = 0: straight ahead; 150 at 1).
    max_stretch_bearing_deg: Ramp = Ramp(0.0, 150.0)
    #: Chance that the log already lies across the trench (1 at d = 0, 0.5 at 0.5, 0 at 1).
    log_in_place_chance: Ramp = Ramp(1.0, -1.0)
    #: Otherwise: how far round the ring (arc length beyond the chasm) the log's middle lies from the
    #: stretch's middle, metres (6-8 m at d = 0, 10-22 m at 1).
    log_distance_m: Band = Band(Ramp(6.0, 4.0), Ramp(8.0, 14.0))
    #: Horizontal distance from the spawn out to the bridge's outer end (the log's, laid across),
    #: along the spawn's direction from the centre, metres (1.5-2.5 m at d = 0, 2.5-7.5 m at 1);
    #: where that direction misses the stretch, the spawn stands at least ``SPAWN_BEYOND_CHASM_M``
    #: beyond the chasm.
    spawn_to_bridge_m: Band = Band(Ramp(1.5, 1.0), Ramp(2.5, 5.0))
    #: Horizontal distance from the bridge's inner end in to the food, along the food's direction
    #: from the centre, metres (1-1.5 m at d = 0, 1.5-3 m at 1).
    food_to_bridge_m: Band = Band(Ramp(1.0, 0.5), Ramp(1.5, 1.5))
    #: Training episodes are truncated after this many seconds (40 s at d = 0, 120 s at 1): a few
    #: times what fetching the log, laying it and crossing take.
    training_time_limit_s: Ramp = Ramp(40.0, 80.0)


#: The bridge task's difficulty curves.
KNOBS = BridgeKnobs()
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
#: Radius of the plateau the fruit tree stands on, inside the chasm, metres.
PLATEAU_RADIUS_M = 4.0
#: How far the chasm's inner edge wanders in and out, metres.
CHASM_NOISE_M = 0.5
#: Slope of the chasm's walls, degrees (near vertical, as jump's).
WALL_SLOPE_DEG = 89.0
#: Height-map grid points per metre (Small's own).
POINTS_PER_M = 1.0
#: The island's mean land height is raised to the chasm depth plus this, metres (a dry chasm).
CHASM_FLOOR_HEIGHT_M = 2.5
#: The chasm floor stays at least this far above the water plane, metres.
CHASM_FLOOR_MIN_M = 0.3
#: The ground is levelled to the centre's height out to this far beyond the chasm, metres...
LEVEL_BEYOND_CHASM_M = 3.0
#: ...and blends back to the natural terrain over this much more, metres.
LEVEL_BLEND_M = 3.0
#: The food's direction from the centre lies within this angle of the spawn's, either side, degrees.
FOOD_SPREAD_DEG = 30.0
#: Food directions drawn until one leaves the food in sight past the laid log.
FOOD_DRAWS = 8
#: A direction from the centre meets the stretch when it passes this far inside its sides, metres.
STRETCH_SIDE_CLEARANCE_M = 1.0
#: Where the spawn's direction misses the stretch, the spawn stands at least this far beyond the chasm, metres...
SPAWN_BEYOND_CHASM_M = 1.0
#: ...and where the food's does, the food lies at least this far inside the plateau's edge, metres.
FOOD_INSIDE_PLATEAU_M = 1.0
#: A log not yet in place lies with its axis this far beyond the chasm, metres.
LOG_BEYOND_CHASM_M = 1.5
#: The spawn and the food keep at least this far from the log's footprint, metres.
LOG_CLEARANCE_M = 1.0
#: The chasm's span outside the stretch is measured every this many degrees round the ring.
SPAN_STEP_DEG = 5.0
#: Keep-clear corridors for plants: the way to the log, along it, on to the food (half width, metres).
CORRIDOR_HALF_WIDTH_M = 1.5
#: Plants keep this far from the ring a log is carried along, metres.
CARRY_CLEARANCE_M = 3.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: The route walks up to the log's outer end to this far before it, and jumps onto it this far
#: past it; it walks along the top to this far short of the inner end and steps off to this far
#: beyond it, metres.
APPROACH_BEFORE_END_M = 0.75
MOUNT_PAST_END_M = 1.0
DISMOUNT_BEFORE_END_M = 0.6
LAND_BEYOND_END_M = 1.0


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BridgeChasm:
    """The chasm of a bridge world: lengths in metres, angles in degrees (ring angles: from +x towards +z)."""

    centre: XZ = attr.ib(converter=lambda c: (float(c[0]), float(c[1])))
    width_m: float = attr.ib(validator=check.positive())
    gap_m: float = attr.ib(validator=check.positive())
    bridgeable_length_m: float = attr.ib(validator=check.positive())
    depth_m: float = attr.ib(validator=check.positive())
    #: Direction of the middle of the bridgeable stretch from the centre.
    stretch_angle_deg: float = attr.ib(validator=check.finite())

    def obstacle(self) -> ObstacleRing:
        """The chasm as an obstacle ring (sharp-sided stretch, near-vertical walls)."""
        return ObstacleRing(
            kind=RingKind.CHASM, centre_x_m=self.centre[0], centre_z_m=self.centre[1], inner_radius_m=PLATEAU_RADIUS_M,
            width_m=self.width_m, height_m=self.depth_m, gap_angle_deg=self.stretch_angle_deg,
            gap_width_m=self.bridgeable_length_m, gap_band_width_m=self.gap_m, wall_slope_deg=WALL_SLOPE_DEG,
            noise_amplitude_m=CHASM_NOISE_M, gap_edge_blend=False,
        )

    @property
    def outer_radius_m(self) -> float:
        """Farthest the chasm reaches from its centre."""
        return PLATEAU_RADIUS_M + CHASM_NOISE_M + self.width_m

    def half_angle_rad(self) -> float:
        """Half the angle the stretch spans seen from the centre (its length at the chasm's middle)."""
        return self.bridgeable_length_m / (2.0 * (PLATEAU_RADIUS_M + self.width_m / 2.0))

    def meets_stretch(self, angle_rad: float, radius_m: float) -> bool:
        """Whether the direction ``angle_rad`` from the centre passes through the stretch
        ``STRETCH_SIDE_CLEARANCE_M`` inside its sides at ``radius_m`` from the centre."""
        off = abs(math.remainder(angle_rad - math.radians(self.stretch_angle_deg), 2.0 * math.pi))
        return off <= self.half_angle_rad() - STRETCH_SIDE_CLEARANCE_M / radius_m


def bridge_chasm(difficulty: float, centre: XZ, stretch_angle_deg: float) -> BridgeChasm:
    """The chasm of ``difficulty`` round ``centre``, its bridgeable stretch towards ``stretch_angle_deg``."""
    return BridgeChasm(
        centre=centre, width_m=KNOBS.chasm_width_m.at(difficulty), gap_m=KNOBS.bridge_gap_m.at(difficulty),
        bridgeable_length_m=KNOBS.bridgeable_length_m.at(difficulty), depth_m=KNOBS.chasm_depth_m.at(difficulty),
        stretch_angle_deg=stretch_angle_deg,
    )


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
        ax, az = self.axis
        dx = np.asarray(x, dtype=np.float64) - self.centre[0]
        dz = np.asarray(z, dtype=np.float64) - self.centre[1]
        return dx * az - dz * ax, dx * ax + dz * az

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


def resting_log(heightmap: HeightMap, centre: XZ, yaw_rad: float, name: str = "log") -> Entity:
    """The log of this task with its footprint centred on ``centre``, turned by ``yaw_rad``, its
    bottom on the highest ground under the footprint (never in the terrain)."""
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


def radial_span_m(heightmap: HeightMap, chasm: BridgeChasm, angle_rad: float) -> float:
    """Length of the ray from the chasm's centre at ``angle_rad`` over which the ground lies lower
    than a log resting on both rims would touch (``REST_TOLERANCE_M`` below the lower rim: the
    plateau's edge inside, the ground beyond the chasm outside), metres: the span a log must
    bridge there."""
    radii = np.arange(0.0, chasm.outer_radius_m + 1.0, 0.02)
    x = chasm.centre[0] + radii * math.cos(angle_rad)
    z = chasm.centre[1] + radii * math.sin(angle_rad)
    heights = np.asarray(ground_height(heightmap, x, z))
    rim = min(heights[radii <= PLATEAU_RADIUS_M - CHASM_NOISE_M].min(), heights[-1])
    return float((heights < rim - REST_TOLERANCE_M).sum() * (radii[1] - radii[0]))


def trench_middle_m(heightmap: HeightMap, chasm: BridgeChasm, nominal_m: float) -> float:
    """The middle, as a distance from the centre along the stretch's middle direction, of the
    trench as cut on the grid (the run of ground lower than a log resting on its rims would touch
    that holds ``nominal_m``), metres; ``nominal_m`` if none does."""
    angle = math.radians(chasm.stretch_angle_deg)
    radii = np.arange(0.0, chasm.outer_radius_m + 1.0, 0.02)
    heights = np.asarray(ground_height(heightmap, chasm.centre[0] + radii * math.cos(angle),
                                       chasm.centre[1] + radii * math.sin(angle)))
    rim = min(heights[radii <= PLATEAU_RADIUS_M - CHASM_NOISE_M].min(), heights[-1])
    low = heights < rim - REST_TOLERANCE_M
    at = int(np.argmin(np.abs(radii - nominal_m)))
    if not low[at]:
        return nominal_m
    first, last = at, at
    while first > 0 and low[first - 1]:
        first -= 1
    while last + 1 < radii.size and low[last + 1]:
        last += 1
    return float((radii[first] + radii[last]) / 2.0)


def narrowest_outside_stretch_m(heightmap: HeightMap, chasm: BridgeChasm) -> float:
    """The narrowest :func:`radial_span_m` round the ring outside the stretch (and two metres
    of arc beyond each of its sides), every ``SPAN_STEP_DEG``, metres."""
    stretch = math.radians(chasm.stretch_angle_deg)
    half = chasm.half_angle_rad() + 2.0 / (PLATEAU_RADIUS_M + chasm.width_m / 2.0)
    count = int(math.ceil(math.degrees(2 * math.pi - 2 * half) / SPAN_STEP_DEG)) + 1
    return min(radial_span_m(heightmap, chasm, angle) for angle in np.linspace(stretch + half, stretch + 2 * math.pi - half, count))


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


def is_pier(entity: Entity) -> bool:
    """Whether ``entity`` is one of a bridge world's piers."""
    return entity.kind == "box" and entity.name.startswith("pier_")


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class BridgeLayout:
    """A bridge world and what was chosen for it."""

    outdoor: OutdoorLayout
    chasm: BridgeChasm
    #: The log laid across the trench (the world's log when ``in_place``).
    solved_log: Entity
    in_place: bool
    certificate: Certificate

    @property
    def world(self) -> World:
        return self.outdoor.world


def carry_corridor(chasm: BridgeChasm, radius_m: float, log_centre: XZ) -> list[tuple[float, float, float]]:
    """Keep-clear discs along the ring at ``radius_m`` from the log's middle round to the stretch,
    ``CARRY_CLEARANCE_M`` round: the way a log carried along the ring sweeps (it sticks out
    ahead of the agent, off the ring's tangent)."""
    centre = np.asarray(chasm.centre)
    start = math.atan2(log_centre[1] - centre[1], log_centre[0] - centre[0])
    turn = math.remainder(math.radians(chasm.stretch_angle_deg) - start, 2 * math.pi)
    count = max(2, int(abs(turn) * radius_m / CARRY_CLEARANCE_M) + 2)
    return [(*_at(chasm.centre, start + turn * k / (count - 1), radius_m + 1.0), CARRY_CLEARANCE_M) for k in range(count)]


def levelled(natural: HeightMap, centre: XZ, radius_m: float) -> HeightMap:
    """``natural`` levelled to its height at ``centre`` out to ``radius_m``, blending back to it
    over ``LEVEL_BLEND_M`` (smoothstep)."""
    x, z = np.meshgrid(natural.x_coords_m - centre[0], natural.z_coords_m - centre[1])
    t = np.clip((np.hypot(x, z) - radius_m) / LEVEL_BLEND_M, 0.0, 1.0)
    weight = 1.0 - t * t * (3.0 - 2.0 * t)
    heights = natural.heights.astype(np.float64)
    level = float(ground_height(natural, *centre))
    return natural.with_heights(heights + weight * (level - heights))


def crossing_steps(heightmap: HeightMap, log: Entity, food: XZ) -> list[RouteStep]:
    """The crossing of a log laid across the trench from its outer end (the one farther from the
    food, which lies on the plateau): walk to before that end, jump onto it, walk along its top,
    step off beyond its inner end, walk to beside the food."""
    block = log_footprint(log)
    sign = 1.0 if math.dist(block.end(1.0), food) > math.dist(block.end(-1.0), food) else -1.0
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
    away = math.dist(food, landing)
    beside = landing if away < 1.0 else tuple(np.asarray(food) + 0.8 * (np.asarray(landing) - np.asarray(food)) / away)
    return [
        RouteStep("walk", on_ground(along(-APPROACH_BEFORE_END_M))),
        RouteStep("jump", on_top(along(MOUNT_PAST_END_M))),
        RouteStep("walk", on_top(along(length - DISMOUNT_BEFORE_END_M))),
        RouteStep("fall", on_ground(landing)),
        RouteStep("walk", on_ground(beside)),
    ]


def crossing_route(world: World, solved_log: Entity, food: XZ) -> Route:
    """The route from the spawn over ``solved_log`` laid across the trench to beside the food
    (:func:`crossing_steps`)."""
    return Route(start=world.spawn_position, steps=crossing_steps(world.ground.heightmap, solved_log, food))


def jump_across(heightmap: HeightMap, chasm: BridgeChasm) -> Optional[str]:
    """Why a jump could cross the chasm, or None if none can: no standing point (the bypass
    search's) beyond the chasm's middle and one inside it, both off its floor, are joined by a jump
    at the bypass limits (:func:`~avalon.tasks.kit.capabilities.jump_reach_m` for their height
    difference, plus its slack: 6 m on the level). The bypass search itself does not jump (its
    jump edges cost a second a world here)."""
    ground = make_ground(heightmap, np.zeros(heightmap.shape, dtype=bool), np.zeros(heightmap.shape, dtype=bool),
                         BYPASS_CAPABILITIES)
    heights = heightmap.heights.astype(np.float64)
    floor = heights < float(ground_height(heightmap, *chasm.centre)) - chasm.depth_m / 2.0
    x, z = np.meshgrid(heightmap.x_coords_m - chasm.centre[0], heightmap.z_coords_m - chasm.centre[1])
    radius = np.hypot(x, z)
    middle = PLATEAU_RADIUS_M + chasm.width_m / 2.0
    slack = BYPASS_CAPABILITIES.jump_reach_slack_m
    longest = jump_reach_m(-chasm.depth_m) + slack
    near = np.abs(radius - middle) <= chasm.width_m / 2.0 + CHASM_NOISE_M + longest
    standing = ground.standing & ~floor & near
    inner, outer = standing & (radius < middle), standing & (radius >= middle)
    if not inner.any() or not outer.any():
        return "the chasm has no standing ground on one side"
    inner_xz, outer_xz = np.column_stack([x[inner], z[inner]]), np.column_stack([x[outer], z[outer]])
    inner_y, outer_y = heights[inner], heights[outer]
    for i, found in enumerate(cKDTree(outer_xz).query_ball_tree(cKDTree(inner_xz), longest)):
        if not found:
            continue
        j = np.asarray(found)
        for rise in (inner_y[j] - outer_y[i], outer_y[i] - inner_y[j]):  # either way across
            reach = np.array([jump_reach_m(r) for r in rise])  # NaN above the apex: out of reach
            distance = np.hypot(*(inner_xz[j] - outer_xz[i]).T)
            close = distance < np.nan_to_num(reach, nan=-np.inf) + slack
            if close.any():
                k = int(np.argmax(close))
                p, q = outer_xz[i] + chasm.centre, inner_xz[j[k]] + chasm.centre
                return (f"a jump between ({p[0]:.1f}, {p[1]:.1f}) and ({q[0]:.1f}, {q[1]:.1f}) ({distance[k]:.1f} m) "
                        f"would cross the chasm")
    return None


def check_bridge(world: World, solved_log: Entity, chasm: BridgeChasm) -> Certificate:
    """The certificate of ``world`` with ``solved_log`` where its log goes across the trench (see
    the module doc): not ``bypassed`` when the terrain alone gives no way to the food; ``solvable``
    when the log burned in there gives one and the world's log suffices."""
    food = world.food[0]
    reasons = []
    bypassed = bypass_reaches(world, food, frozenset(SKILLS) - {"jump"}, max_fall_m=mechanics.LETHAL_FALL_M)
    if bypassed:
        reasons.append("the food can be reached without the log (bypass limits, any fall short of a lethal one)")
    jump = jump_across(world.ground.heightmap, chasm)
    if jump is not None:
        bypassed = True
        reasons.append(jump)
    # The piers lie under the burned-in log (the route search would take them for obstacles).
    bare = attr.evolve(world, entities=[entity for entity in world.entities if not is_pier(entity)])
    # Widened to two grid cells across: the height map's triangles need two raised points side by
    # side to be floor, and a 0.9 m log on the 1 m grid may cover one (the simulator tests walk the log itself).
    burned = log_footprint(solved_log).block(min_width_m=2.0 * world.ground.heightmap.cell_size_m)
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
    ``MIN_REST_M`` on the ground at each end."""
    logs = [entity for entity in world.entities if entity.kind == "log"]
    if len(logs) != 1:
        return f"the world holds {len(logs)} logs, expected 1"
    log = logs[0]
    if log.param("safe_scale", 1.0) != solved_log.param("safe_scale", 1.0):
        return f"the log's scale {log.param('safe_scale', 1.0)} is not the solved log's"
    mass = float(log.param("mass", TOOL_MASS_KG["log"]))
    if mass > mechanics.MAX_LIFT_MASS_KG:
        return f"the log weighs {mass} kg: more than the {mechanics.MAX_LIFT_MASS_KG} kg a hand lifts"
    heightmap = world.ground.heightmap
    piers = [entity for entity in world.entities if is_pier(entity)]
    bottom = solved_log.position[1] - LOG_SIZE_M[1] / 2.0
    if len(piers) != 2 or any(abs(pier.position[1] + PIER_HEIGHT_M / 2.0 - bottom) > 1e-6 for pier in piers):
        return "the log across the trench does not lie on two piers"
    if min(float(pier.param("size")[2]) for pier in piers) < MIN_REST_M:
        return f"a pier under the log is shorter than {MIN_REST_M} m"
    block = log_footprint(log)
    spawn = world.spawn_position
    walkable = walkable_grid(heightmap)
    if not any(path_exists(heightmap, walkable, spawn, _beside(heightmap, block, sign)) for sign in (1.0, -1.0)):
        return f"the log at {log.position} cannot be reached on foot from the spawn"
    return None


def _beside(heightmap: HeightMap, block: LogFootprint, sign: float) -> tuple[float, float, float]:
    """Ground half a metre beyond one end of ``block`` on its axis."""
    ax, az = block.axis
    x, z = block.end(sign)
    x, z = x + sign * 0.5 * ax, z + sign * 0.5 * az
    return x, float(ground_height(heightmap, x, z)), z


def layout_of(world: World) -> BridgeLayout:
    """The layout of a bridge world (where its log goes across the trench, its chasm), rebuilt
    from the world's seed with ``build_world``'s retry rule and the default config; ``ValueError``
    for another task's world or one made with another config."""
    from avalon.tasks import with_retries  # the registry imports this module

    if world.task != "bridge":
        check.refuse("world.task", world.task, "'bridge'")
    layout = with_retries(lambda rng: build_layout(rng, world.difficulty), "bridge", world.difficulty, world.seed)
    if layout.world.spawn_position != world.spawn_position:
        raise ValueError(f"the bridge world of difficulty {world.difficulty} and seed {world.seed} has another spawn "
                         f"than the one its seed builds: was it made with another config?")
    return layout


def certificate(world: World) -> Certificate:
    """The solvability certificate of a bridge world (see the module doc)."""
    layout = layout_of(world)
    return check_bridge(world, layout.solved_log, layout.chasm)


def log_hides(heightmap: HeightMap, block: LogFootprint, spawn: XZ, food: XZ) -> bool:
    """Whether a log (``block``) stands between the eyes at ``spawn`` and an apple lying at ``food``."""
    eye = np.asarray(eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1])))
    target = np.asarray((food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1]))
    t = np.linspace(0.0, 1.0, 400)[:, None]
    points = eye + t * (target - eye)
    across, along = block.local(points[:, 0], points[:, 2])
    inside = (np.abs(across) <= block.width_m / 2.0 + 0.05) & (np.abs(along) <= block.length_m / 2.0 + 0.05)
    return bool((inside & (points[:, 1] <= block.top_m + 0.05)).any())


def _terrain_sight(heightmap: HeightMap, spawn: XZ, food: XZ) -> bool:
    eye = eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1]))
    target = (food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1])
    return terrain_clear(heightmap, eye, target, margin_m=0.05)


def _at(centre: XZ, angle_rad: float, radius_m: float) -> XZ:
    return centre[0] + radius_m * math.cos(angle_rad), centre[1] + radius_m * math.sin(angle_rad)


def _radial_yaw(angle_rad: float) -> float:
    """The entity yaw whose axis (sin yaw, cos yaw) points along the ring direction ``angle_rad``."""
    return math.atan2(math.cos(angle_rad), math.sin(angle_rad))


def _clear_of(block: LogFootprint, point: XZ) -> float:
    across, along = block.local(point[0], point[1])
    return float(np.hypot(max(abs(float(across)) - block.width_m / 2.0, 0.0),
                          max(abs(float(along)) - block.length_m / 2.0, 0.0)))


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> BridgeLayout:
    """The bridge world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if
    the terrain offers no place that keeps the guarantees."""
    config = resolve_config(config)
    streams = split_streams(rng)
    size = config.world_size or "small"
    depth = KNOBS.chasm_depth_m.at(difficulty)
    width = KNOBS.chasm_width_m.at(difficulty)
    land_height = max(world_config(size, 1.0).land_height_m, depth + CHASM_FLOOR_HEIGHT_M)
    island = build_island(streams.terrain, size, config.points_per_m or POINTS_PER_M, land_height_m=land_height,
                          pool_count=0)
    fruit_tree = scaled_scenery(config).fruit_tree
    outer = PLATEAU_RADIUS_M + CHASM_NOISE_M + width
    level_radius = outer + LEVEL_BEYOND_CHASM_M
    mask = site_mask(island, min_water_distance_m=2.0, max_slope_deg=20.0,
                     min_ocean_distance_m=level_radius + LEVEL_BLEND_M, edge_margin_m=level_radius + LEVEL_BLEND_M)
    in_place = bool(streams.sites.uniform() < KNOBS.log_in_place_chance.at(difficulty))

    def fit_chasm_site(centre: XZ):
        natural = levelled(island, centre, level_radius)
        if ground_height(natural, *centre) - depth < natural.water_height_m + CHASM_FLOOR_MIN_M:
            return f"the chasm around {centre} would reach the water"
        away = float(streams.sites.uniform(-math.pi, math.pi))  # from the centre towards the spawn
        food_angles = away + np.radians(streams.sites.uniform(-FOOD_SPREAD_DEG, FOOD_SPREAD_DEG, FOOD_DRAWS))
        to_bridge = float(streams.sites.uniform(*KNOBS.spawn_to_bridge_m.at(difficulty)))
        from_bridge = float(streams.sites.uniform(*KNOBS.food_to_bridge_m.at(difficulty)))
        bearing = float(streams.sites.uniform(-1.0, 1.0)) * KNOBS.max_stretch_bearing_deg.at(difficulty)
        log_arc = float(streams.sites.uniform(*KNOBS.log_distance_m.at(difficulty))) * \
            (1.0 if streams.sites.uniform() < 0.5 else -1.0)
        chasm = bridge_chasm(difficulty, centre, math.degrees(away) + bearing)
        # Outward from the chasm's inner edge: the laid log's ends, the spawn, the food.
        log_in, log_out = width / 2.0 - LOG_SIZE_M[2] / 2.0, width / 2.0 + LOG_SIZE_M[2] / 2.0
        spawn_radius = log_out + to_bridge
        if not chasm.meets_stretch(away, PLATEAU_RADIUS_M + spawn_radius):
            spawn_radius = max(spawn_radius, width + SPAWN_BEYOND_CHASM_M)
        spawn = _at(centre, away, PLATEAU_RADIUS_M + spawn_radius)
        stretch_nominal = math.radians(chasm.stretch_angle_deg)
        nominal_log = LogFootprint(centre=_at(centre, stretch_nominal, PLATEAU_RADIUS_M + width / 2.0),
                                   width_m=LOG_SIZE_M[0], length_m=LOG_SIZE_M[2], yaw_rad=_radial_yaw(stretch_nominal),
                                   top_m=float(ground_height(natural, *centre)) + LOG_SIZE_M[1])
        for food_angle in food_angles:  # the first direction whose food the laid log leaves in sight
            food_angle = float(food_angle)
            food_radius = log_in - from_bridge
            if not chasm.meets_stretch(food_angle, PLATEAU_RADIUS_M + max(food_radius, 0.0)):
                food_radius = min(food_radius, -FOOD_INSIDE_PLATEAU_M)
            food = _at(centre, food_angle, PLATEAU_RADIUS_M + food_radius)
            if not log_hides(natural, nominal_log, spawn, food):
                break
        else:
            return f"the laid log would hide every food drawn from the spawn at {spawn}"
        if not bool(natural.contains(*spawn)) or not is_dry_land(natural, *spawn, min_water_distance_m=1.5):
            return f"the spawn at {spawn} would not be on dry land"
        slopes = triangle_slopes_deg(natural)
        if sample_at(natural, natural.slope_deg(), *spawn) > 25.0 or slopes[triangle_index(natural, *food)] > 20.0:
            return f"the spawn at {spawn} or the food at {food} would be on ground too steep"
        if not _terrain_sight(natural, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> BridgeLayout:
            ringed = apply_ring(streams.rings, natural, chasm.obstacle())
            outline = ringed.outlines[0]
            edge = lambda angle: float(np.interp(angle, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi))  # noqa: E731
            stretch = math.radians(chasm.stretch_angle_deg)
            spawn_at = _at(centre, away, edge(away) + spawn_radius)
            food_at = _at(centre, food_angle, edge(food_angle) + food_radius)
            stepped = stepped_walls(natural, ringed.heightmap, depth)
            climbable, unclimbable = climbable_outer_half(ringed, natural, width)
            biome_map = make_biomes(streams.biomes, stepped, config, climbable, unclimbable)
            ground = biome_map.heightmap
            span = narrowest_outside_stretch_m(ground, chasm)
            if span <= LOG_SIZE_M[2]:
                raise ImpossibleWorldError(f"bridge: the chasm outside its stretch spans only {span:.2f} m: the log would bridge it")
            on_terrain = resting_log(ground, _at(centre, stretch, trench_middle_m(ground, chasm, edge(stretch) + width / 2.0)),
                                     _radial_yaw(stretch))
            rests = end_rests_m(ground, on_terrain)
            if min(rests) < MIN_REST_M:
                raise ImpossibleWorldError(f"bridge: the log across the trench would rest only {min(rests):.2f} m on one side")
            piers, solved_log = piers_under(ground, on_terrain)
            if in_place:
                log = solved_log
            else:
                log_angle = stretch + log_arc / (edge(stretch) + width + LOG_BEYOND_CHASM_M)
                # The noisy edge where the log lies, the whole log's length either side.
                log_radius = max(edge(log_angle + k * LOG_SIZE_M[2] / (2 * width)) for k in (-1, 0, 1)) + width + LOG_BEYOND_CHASM_M
                log = resting_log(ground, _at(centre, log_angle, log_radius), _radial_yaw(log_angle) + math.pi / 2.0)
                heights = footprint_ground_m(ground, log_footprint(log))
                if heights.max() - heights.min() > REST_TOLERANCE_M:
                    raise ImpossibleWorldError(f"bridge: the ground under the log at {log.position} is not level")
            if log_hides(ground, log_footprint(solved_log), spawn_at, food_at) or log_hides(ground, log_footprint(log), spawn_at, food_at):
                raise ImpossibleWorldError(f"bridge: the log hides the food at {food_at} from the spawn")
            for name, point in (("spawn", spawn_at), ("food", food_at)):
                if _clear_of(log_footprint(log), point) < LOG_CLEARANCE_M or \
                        _clear_of(log_footprint(solved_log), point) < LOG_CLEARANCE_M:
                    raise ImpossibleWorldError(f"bridge: the {name} at {point} would be by the log")
                if ground_height(ground, *point) < ground_height(natural, *point) - 0.25:
                    raise ImpossibleWorldError(f"bridge: the {name} at {point} would stand in the chasm")
            tree_site = tree_behind_food(streams.sites, food_at, spawn_at, fruit_tree)
            if ground_height(ground, *tree_site) < ground_height(natural, *tree_site) - 0.25 or \
                    not fruit_tree_site_ok(ground, *tree_site, fruit_tree):
                raise ImpossibleWorldError(f"bridge: no fruit tree site at {tree_site}")
            solved_block, log_now = log_footprint(solved_log), log_footprint(log)
            corridors = [*corridor_discs(spawn_at, solved_block.end(1.0), CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(solved_block.end(1.0), solved_block.end(-1.0), CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(solved_block.end(-1.0), food_at, CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(spawn_at, log_now.centre, CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(log_now.end(1.0), log_now.end(-1.0), CORRIDOR_HALF_WIDTH_M + 0.5),
                         *carry_corridor(chasm, edge(stretch) + width + LOG_BEYOND_CHASM_M, log_now.centre)]
            foods = [FoodPlacement(kind="apple", x=food_at[0], z=food_at[1],
                                   yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task="bridge", difficulty=difficulty, spawn=spawn_at,
                spawn_yaw_rad=yaw_towards(spawn_at, food_at), foods=foods, tree_site=tree_site, keep_clear=corridors,
                exclude_mask=ringed.wall, ring_outlines=ringed.outlines, food_on_foot=False,
            )
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + piers + (log,))
            outdoor = attr.evolve(outdoor, world=world)
            certified = check_bridge(world, solved_log, chasm)
            if not certified.ok:
                raise ImpossibleWorldError(f"bridge: {certified.reason}")
            return BridgeLayout(outdoor=outdoor, chasm=chasm, solved_log=solved_log, in_place=in_place,
                                certificate=certified)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, island, mask, config.site_attempts), fit_chasm_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="bridge: no site for the chasm keeps the guarantees on this island",
    )


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``."""
    return build_layout(rng, difficulty, config).world


TASK = TaskSpec(
    name="bridge",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=TIME_LIMIT_FRAMES,
    food_visible_from_spawn=True,
    food_reachable_on_foot=False,
    certificate=certificate,
    table_row=8,
    in_sets_from_version=2,
    reference_agent="avalon.agent.scripted.bridge:LogBridgeFollower",
)
