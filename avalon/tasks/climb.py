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

The obstacle piece (:func:`obstacle`) is the tiered cliff of :mod:`avalon.tasks.kit.cliff`: walls
on a ring's noisy outline, each rising between two neighbouring points of the 0.5 m grid (a face
steeper than 83 degrees for a 4.5 m tier, which the body cannot run up and a jump slides up by at
most 3.4 m, ``mechanics.TERRAIN_JUMP_RISE_M``). Round the goal it raises a plateau; round the
start (heights inverted) it sinks a pit the agent climbs out of. The task's generator places it
round the food. The solvability certificate (``climb`` required, every skill allowed) proves each
world at generation: a route up the path exists with margins, and nothing but climbing gets onto
the plateau even with generous limits.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.tasks.kit import ImpossibleWorldError, assembly, cliff, sites
from avalon.tasks.kit.certificate import Certificate, certify, require_certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, is_dry_land, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


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
    #: The spawn 1.5-3 m from the cliff's foot at d = 0, 5-9 m at 1, facing it at d = 0; the food
    #: 1.5-2.5 m inside the plateau's edge above the last segment.
    approach: sites.ApproachKnobs = sites.ApproachKnobs(spawn_distance_m=Band(Ramp(1.5, 3.5), Ramp(3.0, 6.0)),
                                                        food_inset_m=Band(Ramp(1.5), Ramp(2.5)))
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): about
    #: twice what the scripted agent takes to climb 4.5-15 m at 3 s per metre and walk between.
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The climb task's difficulty curves.
KNOBS = ClimbKnobs()
#: The island: Small, two grid points per metre (on a 0.5 m cell a tier of 4.5 m or more is a face
#: steeper than 83 degrees; a 0.25 m cell would allow lower tiers, but its four times as many
#: triangles drew about half the steps per second: docs/tasks/climb.md); no carved pool (on a
#: Small island it leaves little room for the cliff and its beach clearance).
ISLAND = assembly.IslandShape(points_per_m=2.0, pool_count=0)
#: Mean radius of the plateau inside the innermost tier's wall, at least, metres (more where the
#: band's inner radius asks for it).
PLATEAU_RADIUS_M = 3.5
#: How far the walls' outline wanders in and out with direction, metres (the same for every tier;
#: little, so a wall stays nearly straight across the path).
CLIFF_NOISE_M = 0.3
#: The highest natural ground the cliff stands on lies at most this much above the lowest (see
#: ``kit.cliff.cliff_base_m``), metres: a wall is up to this much taller than its tier on its low side.
MAX_RELIEF_M = 3.0
#: Plants keep this far outside the cliff's outermost wall (a tree beside it could be climbed), metres.
PLANT_CLEARANCE_M = 3.0
#: The crossing's standing points lie this far before the path's foot and beyond its top, metres.
CROSSING_STANDOFF_M = 1.5
#: A pit's floor (the cliff round the start) stays at least this far above the water plane, metres.
PIT_ABOVE_WATER_M = 1.0
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


def cliff_spec(difficulty: float, plateau_radius_m: float = PLATEAU_RADIUS_M) -> cliff.CliffSpec:
    """The cliff of ``difficulty`` round a plateau of ``plateau_radius_m``."""
    segments = segment_count(difficulty)
    return cliff.CliffSpec(
        height_m=KNOBS.cliff_height_m.at(difficulty),
        path_width_m=KNOBS.path_width_m.at(difficulty),
        segments=segments,
        segment_offset_m=KNOBS.segment_offset_m.at(difficulty) if segments > 1 else 0.0,
        ledge_width_m=KNOBS.ledge_width_m,
        plateau_radius_m=plateau_radius_m,
        noise_amplitude_m=CLIFF_NOISE_M,
    )


# --- the obstacle piece ---------------------------------------------------------------------------


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The climb piece: a tiered cliff whose innermost wall stands ``CLIFF_NOISE_M`` outside the
    band's inner radius (at least ``PLATEAU_RADIUS_M`` from the centre), raising the inside round
    the goal, sinking it round the start. The path's first segment faces the grid axis nearest the
    constraint's path (hands hold and pull evenly up a face that runs between two rows of grid
    points), the next ones zigzag (one draw from ``streams.sites``: which way); the walls' noise
    comes from ``streams.rings`` when built. ``ImpossibleWorldError`` when the cliff does not fit
    the band, the natural ground under it rises more than ``MAX_RELIEF_M`` or a pit's floor would
    lie near the water."""
    spec = cliff_spec(difficulty, max(PLATEAU_RADIUS_M, constraint.inner_radius_m + CLIFF_NOISE_M))
    cliff.require_reach("climb", constraint, spec.outer_radius_m + CROSSING_STANDOFF_M)
    inverted, centre = constraint.heights_inverted, constraint.centre
    approach = float(90.0 * (round(math.degrees(constraint.path_angle_rad()) / 90.0) % 4))
    side = 1.0 if streams.sites.uniform() < 0.5 else -1.0
    angles = cliff.path_angles_deg(spec, approach, side, inverted)
    highest, lowest = cliff.cliff_base_m(draft.heightmap, centre, spec, inverted)
    if highest - lowest > MAX_RELIEF_M:
        raise ImpossibleWorldError(f"climb: the ground around {centre} rises {highest - lowest:.2f} m: more than {MAX_RELIEF_M} m")
    if inverted and lowest - spec.height_m < draft.heightmap.water_height_m + PIT_ABOVE_WATER_M:
        raise ImpossibleWorldError(f"climb: a pit {spec.height_m:.2f} m deep round {centre} would reach the water")

    def build(draft: Draft) -> Obstacle:
        cut = cliff.cut_tiered_cliff(streams.rings, draft.heightmap, centre, spec, angles, inverted)
        start, end = cut.crossing_points(CROSSING_STANDOFF_M)
        x, z = np.meshgrid(draft.heightmap.x_coords_m, draft.heightmap.z_coords_m)
        near_cliff = np.hypot(x - centre[0], z - centre[1]) <= spec.outer_radius_m + PLANT_CLEARANCE_M
        drafted = draft.with_piece(cut.heightmap, climbable=cut.climbable, unclimbable=cut.unclimbable,
                                   no_scenery=near_cliff, ring_outlines=cut.outlines)
        return Obstacle(draft=drafted, crossing=Crossing(start=start, end=end, requirement=Requirement(skills=REQUIRED_SKILLS)),
                        detail=cut)

    return ObstaclePlan(constraint=constraint, build=build, detail=spec)


# --- the task -------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ClimbLayout(assembly.TaskLayout):
    """A climb world, its cliff and the certificate it was accepted with."""

    cliff: cliff.TieredCliff
    certificate: Certificate


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> ClimbLayout:
    """The climb world for ``difficulty``: the piece round the food's site, the spawn out along the
    path; raises ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees
    (the certificate included)."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    spec = cliff_spec(difficulty)
    spawn_distance, food_inset, yaw_offset = KNOBS.approach.draw(streams.food, difficulty)
    heightmap = ISLAND.build(streams.terrain, config)
    draft = Draft.of_island(heightmap)
    # Beyond the beaches, whose erosion (make_biomes) would cut ramps into the cliff.
    clear_of_beaches = spec.outer_radius_m + config.biomes.beach_width_m + 1.0
    mask = sites.site_mask(heightmap, min_water_distance_m=spec.outer_radius_m + 1.0, max_slope_deg=15.0,
                           min_ocean_distance_m=clear_of_beaches, edge_margin_m=spec.outer_radius_m + 2.0)

    def fit_cliff_site(centre: XZ):
        """The build of the world with its cliff around ``centre`` (the cheap checks need the cliff)."""
        # The path comes in along a grid axis: the spawn stands north, south, east or west.
        approach = float(90.0 * streams.sites.integers(0, 4))
        constraint = Constraint.round_goal(centre, 0.0, spec.outer_radius_m + CROSSING_STANDOFF_M, math.radians(approach))
        try:
            plan = obstacle(draft, streams, difficulty, constraint)
        except ImpossibleWorldError as error:
            return str(error)
        spawn_radius = spec.inner_radius_m(0) + spawn_distance
        rough_spawn = (centre[0] + spawn_radius * math.cos(math.radians(approach)),
                       centre[1] + spawn_radius * math.sin(math.radians(approach)))
        if not is_dry_land(heightmap, *rough_spawn, min_water_distance_m=1.5 + spec.noise_amplitude_m):
            return f"the spawn near {rough_spawn} would not be on dry land"

        def build() -> ClimbLayout:
            piece = plan.build(draft)
            cut = piece.detail
            foot = cut.point(cut.wall_radius_m(0, approach) + cliff.WALL_RUN_M, approach)
            spawn = cut.point(cut.wall_radius_m(0, approach) + cliff.WALL_RUN_M + spawn_distance, approach)
            top = cut.path_angles_deg[-1]
            food = cut.point(cut.wall_radius_m(spec.segments - 1, top) - food_inset, top)
            if not is_dry_land(heightmap, *spawn, min_water_distance_m=1.5):
                raise ImpossibleWorldError(f"climb: the spawn at {spawn} would not be on dry land")
            shaped = piece.draft
            biome_map = assembly.make_biomes(streams.biomes, shaped.heightmap, config, shaped.climbable, shaped.unclimbable)
            foods = assembly.ground_apple(streams, food)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="climb", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, foot) - yaw_offset, foods=foods, tree_site=None,
                keep_clear=sites.corridor_discs(spawn, foot, 1.0), exclude_mask=shaped.no_scenery,
                ring_outlines=shaped.ring_outlines, food_in_sight=False, food_on_foot=False,
            )
            world = outdoor.world
            accepted = require_certificate(world, world.food[0], REQUIRED_SKILLS)
            return ClimbLayout(outdoor=outdoor, cliff=cut, certificate=accepted)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, heightmap, mask, config.site_attempts), fit_cliff_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="climb: no site for the cliff keeps the guarantees on this island",
    )


# --- the certificate ------------------------------------------------------------------------------


def certificate(world: World) -> Certificate:
    """The climb certificate of a world: its food reached with every skill, never without climbing."""
    if not world.food:
        raise ValueError(f"climb certificate: the {world.task} world holds no food")
    return certify(world, world.food[0], REQUIRED_SKILLS)


TASK = TaskSpec(name="climb", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                food_visible_from_spawn=False, food_reachable_on_foot=False, table_row=4, in_sets_from_version=1,
                reference_agent=ROUTE_FOLLOWER)
