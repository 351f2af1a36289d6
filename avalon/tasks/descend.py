"""The ``descend`` task: the agent starts on top of a cliff and the food lies below.

Paper, Appendix F.1: "the agent must descend down a cliff. This can be accomplished by climbing
down, or falling while grabbing the cliff wall periodically. On easier difficulties, there is also
a platform partway down that can be used to safely descend [...] As difficulty increases, the
cliff gets taller so the agent will take more damage (and, at the highest difficulties, die). The
path that can be grabbed also gets narrower". Difficulty sets every factor through :data:`KNOBS`
(:class:`DescendKnobs`; ``docs/tasks/descend.md`` quotes it):

- the obstacle piece (:func:`obstacle`) is a ring of wall (``WALL_SLOPE_DEG``, unclimbable but
  for one strip) round a noisy outline: round the start (heights inverted, the task's own world)
  a ``cliff`` ring raises the plateau the agent starts on; round the goal a ``drop`` ring sinks a
  pit the food lies in;
- below ``platform_end_difficulty`` the wall is low (7.5 to 8.5 m, more than a safe fall) and a
  shelf part way down (the *platform*) breaks it into two safe falls; from there on there is no
  platform and the wall grows from 12 m to 44 m (lethal from about d = 0.92);
- the climbable strip of the wall (the grabbable path) narrows, and it and the platform lie
  farther round the ring from where the path crosses it.

The solvability certificate (:func:`certificate`): with a platform, the food is reached by
walking and falling no more than a safe height (5.1 m; the route: onto the platform, then down),
and cannot be reached by walking alone; without one, it is reached by walking, climbing and safe
falls, and cannot be reached without climbing by any fall short of damage. Worlds with a platform
are also checked to need it: with the platform cut away, only the climbable strip leads down safely.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.biomes import erode_beaches
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingResult, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Terrain, World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, assembly, cliff, sites
from avalon.tasks.kit.certificate import Certificate, certify
from avalon.tasks.kit.curves import Band, DifficultySplit, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, sample_at, triangle_index, triangle_slopes_deg, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.skills import CLIMB, FALL, WALK
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class DescendKnobs:
    """Every factor of a descend world that the difficulty d in [0, 1] sets (docs/tasks/descend.md quotes it).

    Bands are drawn from uniformly. Below ``platform_end_difficulty`` the ``low_`` and ``platform_``
    ramps run over ``p = d / platform_end_difficulty``; from there on the ``tall_`` ramps run over
    ``q = (d - platform_end_difficulty) / (1 - platform_end_difficulty)``.
    """

    #: Below this difficulty a platform part way down breaks the cliff into two safe falls.
    platform_end_difficulty: float = 0.6
    #: With a platform, over p: height of the cliff, metres (7.5 m to 8.5 m: a straight fall costs
    #: energy, each of the two falls by the platform is safe).
    low_cliff_height_m: Ramp = Ramp(7.5, 1.0)
    #: Without, over q: height of the cliff, metres (12 m to 44 m; a fall of 37.05 m is lethal).
    tall_cliff_height_m: Ramp = Ramp(12.0, 32.0)
    #: With a platform, over p: its width along the cliff, metres (6 m to 4 m).
    platform_width_m: Ramp = Ramp(6.0, -2.0)
    #: ...how far round the plateau from the food's direction its middle lies, degrees (0 to 50).
    platform_offset_deg: Ramp = Ramp(0.0, 50.0)
    #: Width of the climbable strip of the wall (the grabbable path), metres (8 m to 2 m).
    climb_path_width_m: Ramp = Ramp(8.0, -6.0)
    #: How far round the plateau from the food's direction the strip's middle lies (on the other
    #: side from the platform), degrees (60 to 150).
    climb_path_offset_deg: Ramp = Ramp(60.0, 90.0)
    #: With a platform, over p: horizontal distance from the cliff's top edge to the food, metres
    #: (7-9 m to 9-11 m: far enough out to be seen from the spawn by the edge).
    low_food_distance_m: Band = Band(Ramp(7.0, 2.0), Ramp(9.0, 2.0))
    #: Without, over q: the same, metres (12-14 m to 30-34 m).
    tall_food_distance_m: Band = Band(Ramp(12.0, 18.0), Ramp(14.0, 20.0))
    #: Training episodes are truncated after this many seconds (20 s at d = 0, 80 s at 1).
    training_time_limit_s: Ramp = Ramp(20.0, 60.0)


#: The descend task's difficulty curves.
KNOBS = DescendKnobs()
#: Below ``platform_end_difficulty`` the world has a platform (its ``low_`` and ``platform_`` ramps
#: run over the first phase); from there on a tall cliff (its ``tall_`` ramps over the second).
PHASES = DifficultySplit(KNOBS.platform_end_difficulty)
#: Mean radius of the ring's inner edge (the plateau's, or the pit's), at least, metres (more where
#: the band's inner radius asks for it).
PLATEAU_RADIUS_M = 6.0
#: How far the ring's inner edge wanders in and out, metres.
PLATEAU_NOISE_M = 1.0
#: Slope of the walls, degrees: not floor (45), not walked up (80 blocks), not walked down.
WALL_SLOPE_DEG = 82.0
#: Radial depth of the platform's flat top beyond the upper wall, metres.
PLATFORM_DEPTH_M = 3.0
#: The spawn stands this far inside the plateau's edge towards the food (the crossing's start), metres.
SPAWN_EDGE_DISTANCE_M = 1.0
#: The crossing's end lies this far beyond the platform's reach from the upper edge, metres.
CROSSING_STANDOFF_M = 1.5
#: Grid points per metre of Small worlds (low cliffs: a 1 m cell already makes an 82-degree wall)
#: and of Medium ones (tall cliffs, whose narrow strip wants a finer grid).
POINTS_PER_M = {"small": 1.0, "medium": 2.0}
#: Room kept beyond the food for its tree and from the world's edge, metres.
FOOD_MARGIN_M = 8.0
#: Directions from the plateau towards the food tried on one site.
FOOD_DIRECTION_ATTEMPTS = 6
#: A pit's floor (the ring round the goal) stays at least this far above the water plane, metres.
PIT_ABOVE_WATER_M = 1.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: The skills a descend route may use (jumping off is never needed).
ALLOWED_SKILLS = frozenset({WALK, FALL, CLIMB})


#: What the table's ramps run over where it is not the difficulty (None: the knob does not apply
#: there); docs/tasks/descend.md's generated table of the knobs evaluates them so.
KNOB_PROGRESS = PHASES.knob_progress(
    first=("low_cliff_height_m", "platform_width_m", "platform_offset_deg", "low_food_distance_m"),
    second=("tall_cliff_height_m", "tall_food_distance_m"))


def has_platform(difficulty: float) -> bool:
    """Whether the world of ``difficulty`` has a platform part way down."""
    return PHASES.in_first(difficulty)


def cliff_height_m(difficulty: float) -> float:
    """Height of the cliff (its ring's raise), metres."""
    if has_platform(difficulty):
        return KNOBS.low_cliff_height_m.at(PHASES.first_progress(difficulty))
    return KNOBS.tall_cliff_height_m.at(PHASES.second_progress(difficulty))


def food_distance_band_m(difficulty: float) -> tuple[float, float]:
    """Range of the horizontal distance from the cliff's top edge to the food, metres."""
    if has_platform(difficulty):
        return KNOBS.low_food_distance_m.at(PHASES.first_progress(difficulty))
    return KNOBS.tall_food_distance_m.at(PHASES.second_progress(difficulty))


def wall_run_m(height_m: float) -> float:
    """Horizontal run of a wall of ``height_m`` at ``WALL_SLOPE_DEG``, metres."""
    return height_m / math.tan(math.radians(WALL_SLOPE_DEG))


def world_size_name(difficulty: float) -> str:
    """Small when the plateau, the wall, the platform and the farthest food fit in it, else Medium."""
    reach = (PLATEAU_RADIUS_M + PLATEAU_NOISE_M + wall_run_m(cliff_height_m(difficulty)) + PLATFORM_DEPTH_M
             + food_distance_band_m(difficulty)[1] + FOOD_MARGIN_M)
    return "small" if reach <= 32.0 else "medium"


# --- the cliff ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Cliff:
    """The ring of wall, with its platform, before biomes."""

    ring: ObstacleRing
    #: Terrain and masks after the ring and the platform (the strip in ``climbable``; the
    #: platform's faces in ``unclimbable``).
    result: RingResult
    #: The terrain with the ring alone (no platform).
    without_platform: HeightMap
    #: Grid points the platform raised (empty without one).
    platform: np.ndarray = attr.ib(repr=False)

    def edge_radius_m(self, angle_rad: float) -> float:
        """Distance from the ring's centre to its (noisy) inner edge in direction ``angle_rad``."""
        outline = self.result.outlines[0]
        angles = np.append(outline.angles_rad, 2.0 * math.pi)
        radii = np.append(outline.inner_radius_m, outline.inner_radius_m[0])
        return float(np.interp(angle_rad % (2.0 * math.pi), angles, radii))


def cut_cliff(rng: np.random.Generator, heightmap: HeightMap, centre: XZ, difficulty: float, path_angle_rad: float,
              side: float, inner_radius_m: float = PLATEAU_RADIUS_M, inverted: bool = True) -> Cliff:
    """A ring round ``centre`` (inner edge ``inner_radius_m``) with the wall height of
    ``difficulty``: a cliff raising the inside round the start (``inverted``), a drop sinking it
    round the goal; its climbable strip ``climb_path_offset_deg`` round from ``path_angle_rad`` on
    the ``side`` (+1 or -1) opposite the platform, which (with one) lies ``platform_offset_deg``
    round on ``side``, on the lower side of the wall, half-way down."""
    height = cliff_height_m(difficulty)
    run = wall_run_m(height)
    strip_angle = path_angle_rad - side * math.radians(KNOBS.climb_path_offset_deg.at(difficulty))
    ring = ObstacleRing(
        kind=RingKind.CLIFF if inverted else RingKind.DROP, centre_x_m=float(centre[0]), centre_z_m=float(centre[1]),
        inner_radius_m=inner_radius_m, width_m=run, height_m=height,
        climb_path_angle_deg=math.degrees(strip_angle), climb_path_width_m=KNOBS.climb_path_width_m.at(difficulty),
        noise_amplitude_m=PLATEAU_NOISE_M,
    )
    ringed = apply_ring(rng, heightmap, ring)
    platform = np.zeros(heightmap.shape, dtype=bool)
    cut = Cliff(ring=ring, result=ringed, without_platform=ringed.heightmap, platform=platform)
    if not has_platform(difficulty):
        return cut
    p = PHASES.first_progress(difficulty)
    angle = path_angle_rad + side * math.radians(KNOBS.platform_offset_deg.at(p))
    edge = cut.edge_radius_m(angle)
    # The platform's radial reach: beyond the wall round the start, inside the pit round the goal.
    near, far = (edge, edge + run + PLATFORM_DEPTH_M) if inverted else (edge - PLATFORM_DEPTH_M, edge + run)
    upper, lower = (edge - 0.5, far + 0.5) if inverted else (edge + run + 0.5, near - 0.5)
    top = ground_height(ringed.heightmap, *cliff.point_at(centre, upper, angle))
    foot = ground_height(ringed.heightmap, *cliff.point_at(centre, lower, angle))
    level = (top + foot) / 2.0  # two falls of half the cliff each
    x, z = np.meshgrid(heightmap.x_coords_m - centre[0], heightmap.z_coords_m - centre[1])
    r = np.hypot(x, z)
    half_arc = KNOBS.platform_width_m.at(p) / 2.0 / (far if inverted else edge)
    off = cliff.angular_distance(np.arctan2(z, x), angle)
    heights = ringed.heightmap.heights.astype(np.float64)
    platform = (off <= half_arc) & (r <= far) & (r >= (0.0 if inverted else near)) & (heights < level)
    raised = np.where(platform, level, heights)
    # The platform's faces (padded by a cell) are cliff: nothing but the strip is climbable.
    pad = heightmap.cell_size_m * 1.5
    faces = (off <= half_arc + pad / np.maximum(r, pad)) & (r <= far + pad) & (r >= near - pad) & ~ringed.climbable
    result = RingResult(
        heightmap=ringed.heightmap.with_heights(raised), wall=ringed.wall | faces, climbable=ringed.climbable,
        unclimbable=ringed.unclimbable | faces, gap=ringed.gap, inside=ringed.inside, outlines=ringed.outlines,
    )
    return Cliff(ring=ring, result=result, without_platform=ringed.heightmap, platform=platform)


# --- the obstacle piece ---------------------------------------------------------------------------


def requirement(difficulty: float) -> Requirement:
    """What the certificate asks of the way down at ``difficulty``: with a platform, ``fall`` (walk
    and falls up to the safe height, ``mechanics.SAFE_FALL_M``: onto the platform and from it);
    without, ``climb`` (walk, climb and safe falls: down the strip, letting go above the foot)."""
    if has_platform(difficulty):
        return Requirement(skills={"fall"}, allowed={"walk", "fall"}, max_fall_m=mechanics.SAFE_FALL_M)
    return Requirement(skills={CLIMB}, allowed=ALLOWED_SKILLS, max_fall_m=mechanics.SAFE_FALL_M)


def plan_descent(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint,
                 path_angle_rad: float) -> ObstaclePlan:
    """The descend piece for ``constraint`` (see :func:`obstacle`), the path crossing its band in
    the direction ``path_angle_rad`` from its centre (the task's generator gives the direction it
    drew, the obstacle function the constraint's)."""
    inverted, centre = constraint.heights_inverted, constraint.centre
    height = cliff_height_m(difficulty)
    # Round the goal the platform and the crossing's end lie inside the ring's inner edge: in the band too.
    inner = max(PLATEAU_RADIUS_M, constraint.inner_radius_m + PLATEAU_NOISE_M + (0.0 if inverted else PLATFORM_DEPTH_M))
    reach = inner + PLATEAU_NOISE_M + wall_run_m(height) + (PLATFORM_DEPTH_M + CROSSING_STANDOFF_M if inverted else
                                                            CROSSING_STANDOFF_M)
    cliff.require_reach("descend", constraint, reach)
    if not inverted:
        x, z = np.meshgrid(draft.heightmap.x_coords_m, draft.heightmap.z_coords_m)
        floor = float(draft.heightmap.heights[np.hypot(x - centre[0], z - centre[1]) <= inner].min()) - height
        if floor < draft.heightmap.water_height_m + PIT_ABOVE_WATER_M:
            raise ImpossibleWorldError(f"descend: a pit {height:.2f} m deep round {centre} would reach the water")
    side = 1.0 if streams.sites.uniform() < 0.5 else -1.0

    def build(draft: Draft) -> Obstacle:
        cut = cut_cliff(streams.rings, draft.heightmap, centre, difficulty, path_angle_rad, side, inner, inverted)
        edge, run = cut.edge_radius_m(path_angle_rad), wall_run_m(height)
        upper = edge - SPAWN_EDGE_DISTANCE_M if inverted else edge + run + CROSSING_STANDOFF_M
        lower = edge + run + PLATFORM_DEPTH_M + CROSSING_STANDOFF_M if inverted else edge - PLATFORM_DEPTH_M - CROSSING_STANDOFF_M
        shaped = cut.result
        drafted = draft.with_piece(shaped.heightmap, climbable=shaped.climbable, unclimbable=shaped.unclimbable,
                                   no_scenery=shaped.wall | shaped.inside | cut.platform, ring_outlines=shaped.outlines)
        crossing = Crossing(start=cliff.point_at(centre, upper, path_angle_rad), end=cliff.point_at(centre, lower, path_angle_rad),
                            requirement=requirement(difficulty))
        return Obstacle(draft=drafted, crossing=crossing, detail=cut)

    return ObstaclePlan(constraint=constraint, build=build)


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The descend piece: a ring of wall whose inner edge wanders ``PLATEAU_NOISE_M`` round a mean
    radius that many metres outside the band's inner radius (and the platform's depth more round
    the goal, where the platform stands inside it; at least ``PLATEAU_RADIUS_M``):
    round the start (heights inverted) a cliff raising the inside, round the goal a drop sinking
    it (its floor must stay above the water). Its climbable strip and its platform lie round the
    ring from where the path crosses it, the side drawn from ``streams.sites``; the wall's noise
    comes from ``streams.rings`` when built. The crossing runs from the upper side by the edge to
    the lower side beyond the platform's reach; its requirement is :func:`requirement`'s."""
    return plan_descent(draft, streams, difficulty, constraint, constraint.path_angle_rad())


# --- the task -------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class DescendLayout(assembly.TaskLayout):
    """A descend world and the factors difficulty chose for it."""

    cliff: Cliff
    #: Height of the cliff's raise, metres.
    cliff_height_m: float
    #: Horizontal distance from the plateau's edge to the food, metres.
    food_distance_m: float
    certificate: Certificate


def world_without_platform(world: World, cut: Cliff, config: assembly.OutdoorTaskConfig) -> World:
    """``world`` (with a platform) as it would be without it: the ring's terrain where the platform
    stands, eroded as the world's was; ``config`` is the one it was made with."""
    biome_map = world.ground.biome_map
    plain = erode_beaches(cut.without_platform, config.biomes).heights
    heights = np.where(cut.platform, plain, biome_map.heightmap.heights)
    ground = Terrain(biome_map=attr.evolve(biome_map, heightmap=biome_map.heightmap.with_heights(heights)))
    return attr.evolve(world, ground=ground)


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> DescendLayout:
    """The descend world for ``difficulty``: the piece round the spawn's plateau (heights
    inverted), the food below on the path; raises ``ImpossibleWorldError`` if the terrain offers
    no place that keeps the guarantees."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    height = cliff_height_m(difficulty)
    distance = float(streams.food.uniform(*food_distance_band_m(difficulty)))
    size = config.world_size or world_size_name(difficulty)
    heightmap = assembly.build_island(streams.terrain, size, config.points_per_m or POINTS_PER_M.get(size, 2.0))
    draft = Draft.of_island(heightmap)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    core = PLATEAU_RADIUS_M + PLATEAU_NOISE_M + wall_run_m(height)
    # The beach's erosion must not reach the plateau (it would lower the top into a ramp).
    mask = sites.site_mask(heightmap, min_water_distance_m=2.0, max_slope_deg=15.0,
                           min_ocean_distance_m=core + config.biomes.beach_width_m + 1.0, edge_margin_m=core + 2.0)
    slopes = heightmap.slope_deg()

    def fit_site(centre: XZ):
        """Why the plateau cannot stand at ``centre`` with the food below, or the build of the world there."""
        for _ in range(FOOD_DIRECTION_ATTEMPTS):
            angle = float(streams.sites.uniform(-math.pi, math.pi))
            reach = PLATEAU_RADIUS_M + PLATEAU_NOISE_M + distance
            food = (centre[0] + reach * math.cos(angle), centre[1] + reach * math.sin(angle))
            if bool(heightmap.contains(*food)) and is_dry_land(heightmap, *food, min_water_distance_m=1.5) \
                    and sample_at(heightmap, slopes, *food) <= 15.0:
                break
        else:
            return f"no dry, gentle ground {distance:.1f} m beyond a plateau at {centre}"
        far = heightmap.size_m
        constraint = Constraint(centre=centre, inner_radius_m=0.0, outer_radius_m=far, heights_inverted=True,
                                path=(centre, cliff.point_at(centre, far, angle)))
        # The piece is cheap to cut: cut it here, so the food's and the tree's sites are checked
        # on it before the costly build (biomes, scenery, certificates).
        piece = plan_descent(draft, streams, difficulty, constraint, angle).build(draft)
        cut, shaped = piece.detail, piece.draft
        spawn = piece.crossing.start
        placed = cliff.point_at(centre, cut.edge_radius_m(angle) + distance, angle)
        if not bool(heightmap.contains(*placed)) or not is_dry_land(shaped.heightmap, *placed, min_water_distance_m=1.0) \
                or triangle_slopes_deg(shaped.heightmap)[triangle_index(shaped.heightmap, *placed)] > assembly.FOOD_MAX_SLOPE_DEG:
            return f"the food at {placed} would not lie on dry, gentle ground"
        tree_site = sites.tree_behind_food(streams.sites, placed, spawn, fruit_tree)
        if not sites.fruit_tree_site_ok(shaped.heightmap, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"

        def build() -> DescendLayout:
            biome_map = assembly.make_biomes(streams.biomes, shaped.heightmap, config, shaped.climbable, shaped.unclimbable)
            if not sites.fruit_tree_site_ok(biome_map.heightmap, *tree_site, fruit_tree):
                raise ImpossibleWorldError(f"descend: no fruit tree site behind the food at {tree_site}")
            foods = assembly.ground_apple(streams, placed)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="descend", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, placed), foods=foods, tree_site=tree_site,
                exclude_mask=shaped.no_scenery, ring_outlines=shaped.ring_outlines, food_on_foot=False,
            )
            world = outdoor.world
            if has_platform(difficulty):  # (first: it fails more often)
                plain = needs_the_platform(world_without_platform(world, cut, config))
                if not plain.ok:
                    raise ImpossibleWorldError(f"descend, without the platform: {plain.reason}")
            proof = certificate(world)
            if not proof.ok:
                raise ImpossibleWorldError(f"descend: {proof.reason}")
            return DescendLayout(outdoor=outdoor, cliff=cut, cliff_height_m=height, food_distance_m=distance,
                                 certificate=proof)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, heightmap, mask, config.site_attempts), fit_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="descend: no site for the plateau keeps the guarantees on this island",
    )


# --- the certificate ------------------------------------------------------------------------------


def certificate(world: World) -> Certificate:
    """The solvability certificate of a descend world (its difficulty says which,
    :func:`requirement`): a route down with the required skill; walking alone (with a platform) or
    any way without climbing and falls up to the safe height (without) never gets down."""
    need = requirement(world.difficulty)
    return certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m)


def needs_the_platform(world: World) -> Certificate:
    """The certificate of ``world`` as if it had no platform (required ``climb``): with the platform
    cut away, only climbing leads down without a damaging fall. The generator checks it for worlds
    that have one (``world`` is then that world without its platform)."""
    return certify(world, world.food[0], frozenset({CLIMB}), ALLOWED_SKILLS, max_fall_m=mechanics.SAFE_FALL_M)


TASK = TaskSpec(name="descend", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                food_visible_from_spawn=True, food_reachable_on_foot=False, table_row=5, in_sets_from_version=1,
                reference_agent=ROUTE_FOLLOWER)
