"""The ``climb`` task: the food lies on a plateau ringed by a sheer cliff that only a climbable path goes up.

Paper, Appendix F.1: "the agent must climb up a cliff wall in order to reach the fruit... As
difficulty increases, the cliff gets taller so the agent must climb further, and the climbable
path gets narrower so the agent has less area to grab onto. The climbable path also contains
multiple, angled segments at higher difficulties, requiring more than just climbing in a single
straight line." Difficulty sets every factor through :data:`KNOBS` (:class:`ClimbKnobs`, the table
below; ``docs/tasks/climb.md`` quotes it):

- the cliff's height: 4.5 m at d = 0 (more than a jump slides up its face), 15 m at d = 1;
- the climbable path's width along the wall: 4 m at d = 0, 1.5 m at d = 1; the rest of every wall
  is unclimbable (the biome map's cliff);
- the path's segments: one straight segment up a single wall below ``segment_added_at[0]``; from
  there the cliff rises in tiers (two, then three) with a ledge between them, each tier's
  climbable strip set sideways from the one below, so the way up turns along each ledge;
- how far from the cliff's foot the agent starts and where the cliff lies relative to the way it
  faces.

The cliff is a stack of flat tiers whose walls follow concentric ``CLIFF`` obstacle rings
(``avalon/datagen/obstacles.py``) sharing one noisy outline: each wall rises between two
neighbouring points of the 0.5 m grid, a face steeper than 83 degrees (for a 4.5 m tier), which
the body cannot run up and a jump slides up by at most 3.4 m (``mechanics.TERRAIN_JUMP_RISE_M``).
The solvability certificate (``climb`` required, every skill allowed) proves each world at
generation: a route up the path exists with margins, and nothing but climbing gets onto the
plateau even with generous limits.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.noise import sample_periodic
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingOutline, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    TIME_LIMIT_FRAMES,
    FoodPlacement,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    resolve_config,
    split_streams,
)
from avalon.tasks.kit.certificate import Certificate, certify, require_certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, is_dry_land, yaw_towards
from avalon.tasks.kit.sites import build_at_first_fitting_site, candidate_points, corridor_discs, site_mask
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ClimbKnobs:
    """Every factor of a climb world that the difficulty d in [0, 1] sets (docs/tasks/climb.md quotes it).

    Bands are drawn from uniformly; ``segment_offset_m`` applies from the second segment on.
    """

    #: Height of the whole cliff from its foot to the plateau, metres (4.5 m at d = 0, 15 m at 1);
    #: split evenly between its tiers.
    cliff_height_m: Ramp = Ramp(4.5, 10.5)
    #: Width of the climbable path along the wall, metres (4 m at d = 0, 1.5 m at 1: on the 0.5 m
    #: grid, where the nearest grid point decides what a hand holds, both hands need that much).
    path_width_m: Ramp = Ramp(4.0, -2.5)
    #: The path is one straight segment up one wall, and one more tier and segment from each of
    #: these difficulties.
    segment_added_at: tuple[float, ...] = (0.6, 0.85)
    #: How far each segment's path is set from the one below, along the ledge at its foot, metres
    #: (the way turns along each ledge).
    segment_offset_m: Ramp = Ramp(2.0, 3.0)
    #: Width of the ledge between two tiers, metres.
    ledge_width_m: float = 2.0
    #: Horizontal distance from the spawn to the cliff's foot, metres (1.5-3 m at d = 0, 5-9 m at 1).
    spawn_distance_m: Band = Band(Ramp(1.5, 3.5), Ramp(3.0, 6.0))
    #: The foot of the path lies within this angle of the spawn's facing direction, either side, degrees.
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: The food lies this far inside the plateau's edge above the last segment, metres.
    food_inset_m: Band = Band(Ramp(1.5), Ramp(2.5))
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): about
    #: twice what the scripted agent takes to climb 4.5-15 m at 3 s per metre and walk between.
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The climb task's difficulty curves.
KNOBS = ClimbKnobs()
#: Height-map grid points per metre: on a 0.5 m cell a tier of 4.5 m or more is a face steeper than
#: 83 degrees (a 0.25 m cell would allow lower tiers, but its four times as many triangles drew
#: about half the steps per second: docs/tasks/climb.md).
POINTS_PER_M = 2.0
#: Mean radius of the plateau inside the innermost tier's wall, metres.
PLATEAU_RADIUS_M = 3.5
#: How far the walls' outline wanders in and out with direction, metres (the same for every tier;
#: little, so a wall stays nearly straight across the path).
CLIFF_NOISE_M = 0.3
#: Horizontal run of the outermost ring's wall (its outline; the tiers' tops are flat), metres.
WALL_RUN_M = 0.02
#: The lowest tier's top stands a tier's height above the highest natural ground within this of
#: the cliff's foot, metres: beyond the reach the bypass search grants a jump that rises more than
#: the feet's path does (it slides up the face: 2.75 m at full speed, + 0.5 m slack).
TAKE_OFF_REACH_M = 4.0
#: The wall's foot is the natural ground within this of the cliff's outline, metres.
FOOT_BAND_M = 1.0
#: The highest take-off ground stands at most this much above the lowest of the foot (see
#: ``cliff_base_m``), metres: the wall is up to this much taller than its tier on its low side.
MAX_RELIEF_M = 3.0
#: The climbable strip of a segment reaches this far onto the top beyond its wall (the last pull
#: takes hold there) and this far out from its foot, metres.
HOLDS_ONTO_TOP_M = 1.0
HOLDS_BEYOND_FOOT_M = 1.0
#: Plants keep this far outside the cliff's outermost wall (a tree beside it could be climbed), metres.
PLANT_CLEARANCE_M = 3.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: What the certificate requires: a route that climbs (every skill allowed) and none without climbing.
REQUIRED_SKILLS = frozenset({"climb"})


def segment_count(difficulty: float) -> int:
    """Straight segments of the climbable path (one per tier of the cliff)."""
    return 1 + sum(int(difficulty >= start) for start in KNOBS.segment_added_at)


#: What the table's ramps run over where it is not the difficulty (None: the knob does not apply
#: there); docs/tasks/climb.md's generated table of the knobs evaluates them so.
KNOB_PROGRESS = {"segment_offset_m": lambda d: d if segment_count(d) > 1 else None}


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CliffSpec:
    """A tiered cliff around a plateau with a climbable path up it. Lengths in metres."""

    #: From the foot to the plateau, split evenly between the tiers.
    height_m: float = attr.ib(validator=check.positive())
    path_width_m: float = attr.ib(validator=check.positive())
    #: Tiers, one straight segment of the path each.
    segments: int = attr.ib(validator=check.int_between(1, 8))
    #: Sideways offset of each segment's path from the one below, along the ledge at its foot (0
    #: with one segment).
    segment_offset_m: float = attr.ib(validator=check.non_negative())
    ledge_width_m: float = attr.ib(validator=check.positive())
    plateau_radius_m: float = attr.ib(default=PLATEAU_RADIUS_M, validator=check.positive())
    noise_amplitude_m: float = attr.ib(default=CLIFF_NOISE_M, validator=check.non_negative())

    @property
    def tier_height_m(self) -> float:
        return self.height_m / self.segments

    def inner_radius_m(self, tier: int) -> float:
        """Mean radius of tier ``tier``'s wall (0: the outermost, at the cliff's foot)."""
        return self.plateau_radius_m + (self.segments - 1 - tier) * self.ledge_width_m

    @property
    def outer_radius_m(self) -> float:
        """Farthest the cliff's foot reaches from the centre."""
        return self.inner_radius_m(0) + self.noise_amplitude_m + WALL_RUN_M


def cliff_spec(difficulty: float) -> CliffSpec:
    """The cliff of ``difficulty``."""
    segments = segment_count(difficulty)
    return CliffSpec(
        height_m=KNOBS.cliff_height_m.at(difficulty),
        path_width_m=KNOBS.path_width_m.at(difficulty),
        segments=segments,
        segment_offset_m=KNOBS.segment_offset_m.at(difficulty) if segments > 1 else 0.0,
        ledge_width_m=KNOBS.ledge_width_m,
    )


# --- the cliff -----------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class TieredCliff:
    """The terrain after the cliff's rings, and what ``assign_biomes`` and the task need of it."""

    spec: CliffSpec
    centre: XZ
    heightmap: HeightMap
    #: Grid points that can be climbed (the path's strips) and the rest of the walls.
    climbable: np.ndarray = attr.ib(repr=False)
    unclimbable: np.ndarray = attr.ib(repr=False)
    #: Grid points inside the outermost wall (cliff, ledges and plateau).
    inside: np.ndarray = attr.ib(repr=False)
    outlines: tuple[RingOutline, ...]
    #: Ring angle (degrees) of each segment's path, outermost tier first.
    path_angles_deg: tuple[float, ...]

    def wall_radius_m(self, tier: int, angle_deg: float) -> float:
        """Distance from the centre to tier ``tier``'s wall in the direction ``angle_deg``."""
        return float(sample_periodic(self.outlines[tier].inner_radius_m, math.radians(angle_deg)))

    def point(self, radius_m: float, angle_deg: float) -> XZ:
        angle = math.radians(angle_deg)
        return self.centre[0] + radius_m * math.cos(angle), self.centre[1] + radius_m * math.sin(angle)


def path_angles_deg(spec: CliffSpec, approach_deg: float, side: float) -> tuple[float, ...]:
    """Each segment's ring angle: the first faces ``approach_deg``; each next one is set
    ``segment_offset_m`` along the ledge at its foot from the one below, first to ``side`` (+1 or
    -1), then back: the path zigzags."""
    angles = [approach_deg]
    for tier in range(1, spec.segments):
        turn = math.degrees(spec.segment_offset_m / spec.inner_radius_m(tier))  # along the ledge at its foot
        angles.append(angles[-1] + side * turn * (-1.0) ** (tier - 1))
    return tuple(angles)


def cliff_base_m(heightmap: HeightMap, centre: XZ, spec: CliffSpec) -> tuple[float, float]:
    """(highest, lowest) natural ground (metres): the highest under the cliff and within
    ``TAKE_OFF_REACH_M`` of its foot (the tiers stand on it, so no take-off within a jump of a wall
    is higher than its foot), the lowest under the cliff and ``FOOT_BAND_M`` round it (no lower
    than the water plane)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - centre[0], z - centre[1])
    heights = heightmap.heights
    lowest = heights[r <= spec.outer_radius_m + FOOT_BAND_M].min()
    return float(heights[r <= spec.outer_radius_m + TAKE_OFF_REACH_M].max()), float(max(lowest, heightmap.water_height_m))


def cut_tiered_cliff(rng: np.random.Generator, heightmap: HeightMap, centre: XZ, spec: CliffSpec,
                     angles_deg: tuple[float, ...]) -> TieredCliff:
    """A plateau around ``centre`` in ``spec.segments`` flat tiers, each ``spec.tier_height_m``
    above the one below, the lowest that high above the highest natural ground within
    ``TAKE_OFF_REACH_M`` of the cliff (see :func:`cliff_base_m`), and each tier's climbable strip
    at ``angles_deg`` (ring angles, outermost tier first). The outermost wall follows a ``CLIFF``
    ring's noisy outline (its noise drawn from ``rng``); each tier inside it the same outline
    ``ledge_width_m`` further in, so the ledges keep their width."""
    outermost = ObstacleRing(
        kind=RingKind.CLIFF, centre_x_m=float(centre[0]), centre_z_m=float(centre[1]),
        inner_radius_m=spec.inner_radius_m(0), width_m=WALL_RUN_M, height_m=spec.tier_height_m,
        noise_amplitude_m=spec.noise_amplitude_m,
    )
    first = apply_ring(rng, heightmap, outermost).outlines[0]
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    dx, dz = x - centre[0], z - centre[1]
    r, theta = np.hypot(dx, dz), np.arctan2(dz, dx)
    base, _ = cliff_base_m(heightmap, centre, spec)
    heights = heightmap.heights.astype(np.float64)
    wall = np.zeros(heightmap.shape, dtype=bool)
    climbable = np.zeros(heightmap.shape, dtype=bool)
    pad = heightmap.cell_size_m  # the points whose triangles touch the wall, as obstacles.py pads it
    outlines = []
    for tier, angle in enumerate(angles_deg):
        inward = spec.inner_radius_m(0) - spec.inner_radius_m(tier)
        outline = attr.evolve(first, inner_radius_m=first.inner_radius_m - inward, outer_radius_m=first.outer_radius_m - inward)
        outlines.append(outline)
        t = r - sample_periodic(outline.inner_radius_m, theta)
        # The tier's top is flat (a grid point is on it or not), so its wall rises between two
        # neighbouring points, steeper than 83 degrees.
        heights = np.where(t < 0.0, base + (tier + 1) * spec.tier_height_m, heights)
        wall |= (t >= -pad) & (t <= WALL_RUN_M + pad)
        along = np.abs((theta - math.radians(angle) + math.pi) % (2 * math.pi) - math.pi) * np.maximum(r, 1e-6)
        climbable |= (along <= spec.path_width_m / 2) & (t >= -HOLDS_ONTO_TOP_M) & (t <= HOLDS_BEYOND_FOOT_M)
    inside = r < sample_periodic(outlines[0].inner_radius_m, theta)
    return TieredCliff(spec=spec, centre=centre, heightmap=heightmap.with_heights(heights), climbable=climbable,
                       unclimbable=wall & ~climbable, inside=inside, outlines=tuple(outlines),
                       path_angles_deg=tuple(angles_deg))


# --- the task ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ClimbLayout:
    """A climb world, its cliff and the certificate it was accepted with."""

    outdoor: OutdoorLayout
    cliff: TieredCliff
    certificate: Certificate

    @property
    def world(self) -> World:
        return self.outdoor.world


def certificate(world: World) -> Certificate:
    """The climb certificate of a world: its food reached with every skill, never without climbing."""
    if not world.food:
        raise ValueError(f"climb certificate: the {world.task} world holds no food")
    return certify(world, world.food[0], REQUIRED_SKILLS)


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> ClimbLayout:
    """The climb world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees (the certificate included)."""
    config = resolve_config(config)
    streams = split_streams(rng)
    spec = cliff_spec(difficulty)
    spawn_distance = float(streams.food.uniform(*KNOBS.spawn_distance_m.at(difficulty)))
    food_inset = float(streams.food.uniform(*KNOBS.food_inset_m.at(difficulty)))
    yaw_offset = math.radians(streams.food.uniform(-1.0, 1.0) * KNOBS.max_facing_offset_deg.at(difficulty))
    # No carved pool: on a Small island it leaves little room for the cliff and its beach clearance.
    heightmap = build_island(streams.terrain, config.world_size or "small", config.points_per_m or POINTS_PER_M,
                             pool_count=0)
    # Beyond the beaches, whose erosion (make_biomes) would cut ramps into the cliff.
    clear_of_beaches = spec.outer_radius_m + config.biomes.beach_width_m + 1.0
    mask = site_mask(heightmap, min_water_distance_m=spec.outer_radius_m + 1.0, max_slope_deg=15.0,
                     min_ocean_distance_m=clear_of_beaches, edge_margin_m=spec.outer_radius_m + 2.0)

    def fit_cliff_site(centre: XZ):
        """The build of the world with its cliff around ``centre`` (the cheap checks need the cliff)."""
        # The first segment faces along a grid axis, so its wall rises between rows (or columns)
        # of grid points rather than in a staircase: hands hold and pull evenly up a flat face.
        approach = float(90.0 * streams.sites.integers(0, 4))
        side = 1.0 if streams.sites.uniform() < 0.5 else -1.0
        angles = path_angles_deg(spec, approach, side)
        spawn_radius = spec.inner_radius_m(0) + spawn_distance
        rough_spawn = (centre[0] + spawn_radius * math.cos(math.radians(approach)),
                       centre[1] + spawn_radius * math.sin(math.radians(approach)))
        if not is_dry_land(heightmap, *rough_spawn, min_water_distance_m=1.5 + spec.noise_amplitude_m):
            return f"the spawn near {rough_spawn} would not be on dry land"
        highest, lowest = cliff_base_m(heightmap, centre, spec)
        if highest - lowest > MAX_RELIEF_M:
            return f"the ground around {centre} rises {highest - lowest:.2f} m: more than {MAX_RELIEF_M} m"

        def build() -> ClimbLayout:
            cliff = cut_tiered_cliff(streams.rings, heightmap, centre, spec, angles)
            foot = cliff.point(cliff.wall_radius_m(0, approach) + WALL_RUN_M, approach)
            spawn = cliff.point(cliff.wall_radius_m(0, approach) + WALL_RUN_M + spawn_distance, approach)
            food = cliff.point(cliff.wall_radius_m(spec.segments - 1, angles[-1]) - food_inset, angles[-1])
            if not is_dry_land(heightmap, *spawn, min_water_distance_m=1.5):
                raise ImpossibleWorldError(f"climb: the spawn at {spawn} would not be on dry land")
            biome_map = make_biomes(streams.biomes, cliff.heightmap, config, cliff.climbable, cliff.unclimbable)
            ground = biome_map.heightmap
            x, z = np.meshgrid(ground.x_coords_m, ground.z_coords_m)
            near_cliff = np.hypot(x - centre[0], z - centre[1]) <= spec.outer_radius_m + PLANT_CLEARANCE_M
            foods = [FoodPlacement(kind="apple", x=food[0], z=food[1], yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task="climb", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, foot) - yaw_offset, foods=foods, tree_site=None,
                keep_clear=corridor_discs(spawn, foot, 1.0), exclude_mask=near_cliff, ring_outlines=cliff.outlines,
                food_in_sight=False, food_on_foot=False,
            )
            world = outdoor.world
            accepted = require_certificate(world, world.food[0], REQUIRED_SKILLS)
            return ClimbLayout(outdoor=outdoor, cliff=cliff, certificate=accepted)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, heightmap, mask, config.site_attempts), fit_cliff_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="climb: no site for the cliff keeps the guarantees on this island",
    )


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``."""
    return build_layout(rng, difficulty, config).world


TASK = TaskSpec(
    name="climb",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False,
    food_reachable_on_foot=False,
    certificate=certificate,
    table_row=4,
    in_sets_from_version=1,
    reference_agent="avalon.agent.scripted.follower:RouteFollower",
)
