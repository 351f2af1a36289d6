"""The ``scramble`` task: get over rough, terraced terrain to food, jumping chasms and climbing cliffs.

Paper, Appendix F.1: "the agent must combine walking, jumping and climbing to move over terrain to
reach the fruit. As difficulty increases, the terrain becomes more mountainous, requiring more
climbing and less jumping." Difficulty sets every factor through :data:`KNOBS`
(:class:`ScrambleKnobs`, the table below; ``docs/tasks/scramble.md`` quotes it):

- the food lies under a fruit tree on a small plateau, ringed by one to three obstacle rings
  (``avalon/datagen/obstacles.py``) with terraces of rough ground between them; the spawn stands
  outside the outermost ring, facing the food;
- each ring is a *chasm* (a trench too wide to jump but for one stretch, where it narrows to a
  jumpable trench) or a *cliff* (the ground inside raised by a near-vertical face, too high to
  jump up, climbable only along one strip of bare rock); the share of cliffs rises with
  difficulty (none at d = 0, all at d = 1), so the route jumps at low difficulty, jumps and climbs
  in between and climbs at the top;
- the terrain grows more mountainous: rougher noise, more and higher hills, higher cliffs, deeper
  and wider chasms with a wider trench to jump, a narrower strip to climb.

The rings are the task's obstacle piece (:func:`obstacle`): they stand in any band, round the
goal as here or round the start (heights inverted: each climbed wall a drop, so the way out
climbs). Every world is certified at generation (:func:`certificate`): a route reaches the food
with the body's measured skills, and no way without jumping or climbing does, even with the bypass
search's generous limits (walking up faces to 79 degrees, falls to 5.5 m).
"""

from __future__ import annotations

import math

import attr
import numpy as np
from scipy import ndimage

from avalon.datagen.obstacles import ObstacleRing, RingKind, RingResult, apply_rings
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.tasks.kit import ImpossibleWorldError, assembly, cliff, sites
from avalon.tasks.kit.certificate import Certificate, certify
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, is_dry_land, sample_at, triangle_index, triangle_slopes_deg, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.route import SKILLS
from avalon.tasks.kit.skills import CLIMB, JUMP
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ScrambleKnobs:
    """Every factor of a scramble world that the difficulty d in [0, 1] sets (docs/tasks/scramble.md quotes it).

    Bands are drawn from uniformly, per ring where the knob is a ring's.
    """

    #: Obstacle rings round the food: one, and one more from each of these difficulties.
    ring_added_at: tuple[float, ...] = (0.35, 0.7)
    #: Share of the rings that are cliffs (climbed; the rest are chasms, jumped):
    #: ``floor(cliff_share * rings + 0.5)`` of them (none at d = 0, all at d = 1).
    cliff_share: Ramp = Ramp(0.0, 1.0)
    #: Side of the square world, metres (Small, 64 m, at d = 0; room for three rings at 1).
    world_size_m: Ramp = Ramp(64.0, 32.0)
    #: Standard deviation of the terrain's coarsest noise, metres (the island's roughness).
    terrain_noise_m: Ramp = Ramp(1.0, 1.5)
    #: Hills on the island (gentle bumps, more with difficulty): ``floor`` of this.
    hill_count: Ramp = Ramp(2.0, 4.0)
    #: Their heights, metres.
    hill_height_m: Band = Band(Ramp(1.0, 1.0), Ramp(2.0, 3.0))
    #: Radius of the plateau the fruit tree stands on, inside the innermost ring, metres.
    plateau_radius_m: Ramp = Ramp(3.0, 0.0)
    #: Radial width of the terrace of open ground between two rings, metres.
    terrace_width_m: Band = Band(Ramp(3.5, 0.0), Ramp(4.5, 0.0))
    #: The spawn stands this far outside the outermost ring, metres.
    spawn_margin_m: Band = Band(Ramp(2.0, 1.0), Ramp(3.0, 2.0))
    #: Cliffs: height of the near-vertical face, metres (a jump slides up no more than 3 m of it).
    cliff_height_m: Band = Band(Ramp(5.5, 0.5), Ramp(6.0, 2.5))
    #: ...arc length of the one strip of bare, climbable rock, metres.
    climb_strip_width_m: Ramp = Ramp(5.0, -2.0)
    #: Chasms: radial width at the top, metres (a running jump clears 5.25 m).
    chasm_width_m: Ramp = Ramp(6.0, 2.0)
    #: ...depth, metres (the walls are near-vertical and unclimbable).
    chasm_depth_m: Ramp = Ramp(3.5, 2.5)
    #: ...width of the trench left along the jumpable stretch, metres.
    jump_gap_m: Band = Band(Ramp(1.5, 1.0), Ramp(2.0, 1.5))
    #: ...arc length of that stretch, metres.
    jump_stretch_m: Ramp = Ramp(6.0, -2.0)
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): a few
    #: times what a direct solution takes (a jump near the spawn at d = 0; three climbs of up to
    #: 8.5 m, 24-31 steps per metre, and the walks round the terraces to the strips at 1).
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The scramble task's difficulty curves.
KNOBS = ScrambleKnobs()
#: Grid points per metre: a cell of 0.5 m makes a 5.5 m face 85 degrees steep on the grid.
POINTS_PER_M = 2.0
#: Horizontal run of a cliff's face, metres: far below a cell, so the face is one step on the grid.
CLIFF_FACE_RUN_M = 0.01
#: Slope of a chasm's walls, degrees (one step on the grid).
CHASM_WALL_SLOPE_DEG = 89.5
#: How far each ring's inner edge wanders in and out, metres, and over how many bumps; a cliff's
#: face wanders less, so its climbable strip is a smooth stretch of face (a climbing body drifts
#: along a face that turns under it).
RING_NOISE_M = 0.6
CLIFF_NOISE_M = 0.2
RING_NOISE_LOBES = (2.0, 4.0)
#: The food lies this far from the fruit tree's trunk, metres.
FOOD_FROM_TREE_M = (1.2, 2.0)
#: Directions drawn for the spawn round the rings; the first on dry, gentle ground is taken.
SPAWN_SITE_DRAWS = 8
#: Places beside the tree drawn for the food; the first on dry ground gentle enough is taken.
FOOD_SITE_DRAWS = 8
#: Chasm worlds raise the island's mean land height to the deepest chasm plus this, metres, so
#: chasm floors stay dry.
CHASM_FLOOR_HEIGHT_M = 2.0
#: At most this share of the ground within the rings' reach may lie under (or just above) water.
MAX_WET_FRACTION = 0.03
#: Plants keep this far from a ring's wall, metres (terraces stay open enough to walk round).
WALL_CLEARANCE_M = 1.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: A strip's bare rock reaches this far beyond its face onto the top and the foot, metres.
STRIP_LIP_M = 1.5
#: A strip faces one of the grid's four directions, give or take this many degrees: there its face
#: runs along the grid, a flat wall (elsewhere a circle's face on the grid is a staircase in plan,
#: whose corners catch a climbing body's capsule and hands).
STRIP_ANGLE_JITTER_DEG = 5.0
#: A route holds on to a climbable strip at least this far inside its ends along the ring, metres.
STRIP_MARGIN_M = 1.0
#: The crossing's start and end lie this far outside the outermost ring and inside the innermost, metres.
CROSSING_STANDOFF_M = 1.5
#: What the certificate requires: a jump or a climb (walking and falling alone must not get there).
REQUIRED_SKILLS = frozenset({JUMP, CLIMB})


def ring_count(difficulty: float) -> int:
    """Obstacle rings round the food at ``difficulty``."""
    return 1 + sum(int(difficulty >= start) for start in KNOBS.ring_added_at)


def cliff_count(difficulty: float) -> int:
    """How many of the rings are cliffs (the rest are chasms)."""
    return int(math.floor(KNOBS.cliff_share.at(difficulty) * ring_count(difficulty) + 0.5))


def chasm_count(difficulty: float) -> int:
    return ring_count(difficulty) - cliff_count(difficulty)


# --- the obstacle piece ---------------------------------------------------------------------------


def _ring_kinds(rng: np.random.Generator, difficulty: float, inverted: bool) -> list[RingKind]:
    """The rings' kinds, outermost first, in a random order: chasms, and walls climbed towards the
    goal (cliffs round it, drops round the start)."""
    kinds = [cliff.uphill_kind(inverted)] * cliff_count(difficulty) + [RingKind.CHASM] * chasm_count(difficulty)
    return [kinds[i] for i in rng.permutation(len(kinds))]


def _draw(rng: np.random.Generator, band: Band, difficulty: float) -> float:
    return float(rng.uniform(*band.at(difficulty)))


def draw_rings(rng: np.random.Generator, difficulty: float, centre: XZ, inner_radius_m: float = 0.0,
               inverted: bool = False) -> tuple[ObstacleRing, ...]:
    """The obstacle rings round ``centre``, outermost first: from the plateau (at least the band's
    ``inner_radius_m``) out, each ring then a terrace; the random draws come from ``rng`` (the
    rings stream)."""
    kinds = _ring_kinds(rng, difficulty, inverted)
    inner = max(KNOBS.plateau_radius_m.at(difficulty), inner_radius_m) + RING_NOISE_M
    rings = []
    for kind in reversed(kinds):  # innermost first, so each ring knows where the one inside ends
        noise = RING_NOISE_M if kind is RingKind.CHASM else CLIFF_NOISE_M
        common = dict(kind=kind, centre_x_m=centre[0], centre_z_m=centre[1], inner_radius_m=inner,
                      noise_amplitude_m=noise, noise_lobes=float(rng.uniform(*RING_NOISE_LOBES)))
        if kind is RingKind.CHASM:
            ring = ObstacleRing(
                width_m=KNOBS.chasm_width_m.at(difficulty), height_m=KNOBS.chasm_depth_m.at(difficulty),
                gap_angle_deg=float(rng.uniform(-180.0, 180.0)), gap_width_m=KNOBS.jump_stretch_m.at(difficulty),
                gap_band_width_m=_draw(rng, KNOBS.jump_gap_m, difficulty), gap_edge_blend=False,
                wall_slope_deg=CHASM_WALL_SLOPE_DEG, **common)
        else:
            ring = ObstacleRing(
                width_m=CLIFF_FACE_RUN_M, height_m=_draw(rng, KNOBS.cliff_height_m, difficulty),
                climb_path_angle_deg=float(90.0 * rng.integers(4) + rng.uniform(-STRIP_ANGLE_JITTER_DEG, STRIP_ANGLE_JITTER_DEG)),
                climb_path_width_m=KNOBS.climb_strip_width_m.at(difficulty), **common)
        rings.append(ring)
        inner = inner + RING_NOISE_M + ring.width_m + _draw(rng, KNOBS.terrace_width_m, difficulty) + RING_NOISE_M
    return tuple(reversed(rings))


def outer_radius_m(rings) -> float:
    """Farthest the rings (outermost first) reach from their centre, metres."""
    return rings[0].outer_radius_m


def farthest_reach_m(difficulty: float) -> float:
    """The farthest the rings of ``difficulty`` can reach from their centre, whatever is drawn, metres."""
    reach = KNOBS.plateau_radius_m.at(difficulty)
    for kind in [RingKind.CLIFF] * cliff_count(difficulty) + [RingKind.CHASM] * chasm_count(difficulty):
        width = CLIFF_FACE_RUN_M if kind is RingKind.CLIFF else KNOBS.chasm_width_m.at(difficulty)
        reach += 2 * RING_NOISE_M + width + KNOBS.terrace_width_m.at(difficulty)[1]
    return reach


def _dilate(mask: np.ndarray, cells: int) -> np.ndarray:
    """``mask`` grown by ``cells`` grid steps along rows and columns (a diamond)."""
    return ndimage.binary_dilation(mask, ndimage.generate_binary_structure(2, 1), iterations=cells) if cells else mask.copy()


def plan_rings(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint,
               rings: tuple[ObstacleRing, ...]) -> ObstaclePlan:
    """The scramble piece with its ``rings`` drawn (:func:`draw_rings`; the task's generator draws
    them before it chooses its spawn, which stands beyond their reach): ``ImpossibleWorldError``
    when they reach beyond the band or into the water (round the start, with the drops' depth)."""
    centre = constraint.centre
    # (outer_radius_m counts a cliff's gap ramp, which these rings do not have: the walls end sooner)
    reach, walls = outer_radius_m(rings), max(ring.inner_radius_m + ring.noise_amplitude_m + ring.width_m for ring in rings)
    cliff.require_reach("scramble", constraint, walls + CROSSING_STANDOFF_M)
    heightmap = draft.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    radius = np.hypot(x - centre[0], z - centre[1])
    sunk = np.zeros(heightmap.shape)  # what the drops (round the start) sink, at most
    for ring in rings:
        if ring.kind is RingKind.DROP:
            sunk += np.where(radius < ring.inner_radius_m + ring.noise_amplitude_m, ring.height_m, 0.0)
    within = radius <= reach
    if (heightmap.heights[within] - sunk[within] <= heightmap.water_height_m + 0.3).mean() > MAX_WET_FRACTION:
        raise ImpossibleWorldError(f"scramble: the rings round {centre} would reach into the water")
    innermost = rings[-1]
    inside = innermost.inner_radius_m - innermost.noise_amplitude_m - CROSSING_STANDOFF_M
    outside = walls + CROSSING_STANDOFF_M
    near, far = (inside, outside) if constraint.heights_inverted else (outside, inside)

    def build(draft: Draft) -> Obstacle:
        shaped = apply_rings(streams.rings, draft.heightmap, rings, stepped=True)
        # Bare rock round each strip's face too (its lip and its foot), so the last hold onto
        # the top finds rock wherever the hand lands.
        cell = draft.heightmap.cell_size_m
        rock = _dilate(shaped.climbable, int(math.ceil(STRIP_LIP_M / cell))) & ~shaped.unclimbable
        near_wall = _dilate(shaped.wall, int(math.ceil(WALL_CLEARANCE_M / cell)))
        drafted = draft.with_piece(shaped.heightmap, climbable=rock, unclimbable=shaped.unclimbable, no_scenery=near_wall,
                                   ring_outlines=shaped.outlines)
        angle = constraint.path_angle_rad()
        crossing = Crossing(start=cliff.point_at(centre, near, angle), end=cliff.point_at(centre, far, angle),
                            requirement=Requirement(skills=REQUIRED_SKILLS))
        return Obstacle(draft=drafted, crossing=crossing, detail=shaped)

    return ObstaclePlan(constraint=constraint, build=build, detail=rings)


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The scramble piece: :func:`ring_count` concentric rings from the band's inner radius (at
    least the plateau's) out, terraces between them, each a chasm jumped where it narrows or a
    wall climbed on its strip (a cliff round the goal, a drop round the start), its kind, sizes,
    gaps and strips drawn from ``streams.rings`` wherever round the ring (the crossing's start and
    end lie on the path, the way between winds round the terraces). The crossing requires a jump
    or a climb."""
    rings = draw_rings(streams.rings, difficulty, constraint.centre, constraint.inner_radius_m, constraint.heights_inverted)
    return plan_rings(draft, streams, difficulty, constraint, rings)


# --- the task -------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ScrambleLayout(assembly.TaskLayout):
    """A scramble world and the factors difficulty chose for it."""

    #: The rings, outermost first (their kinds, radii, heights, gaps and climbable strips).
    rings: tuple[ObstacleRing, ...]
    #: The island before the rings, and the terrain and its masks after them (walls, climbable
    #: strips, jumpable stretches).
    island: HeightMap = attr.ib(repr=False)
    shaped: RingResult
    #: The certificate the world was accepted with.
    certificate: Certificate


def _island(streams, config, difficulty: float):
    size = config.world_size or KNOBS.world_size_m.at(difficulty)
    points = config.points_per_m or POINTS_PER_M
    low, high = KNOBS.hill_height_m.at(difficulty)
    overrides = dict(initial_noise_scale_m=KNOBS.terrain_noise_m.at(difficulty), pool_count=0,
                     hill_count=int(math.floor(KNOBS.hill_count.at(difficulty))), hill_height_range_m=(low, high))
    if chasm_count(difficulty):
        default = assembly.world_config(size, points).land_height_m
        overrides["land_height_m"] = max(default, KNOBS.chasm_depth_m.at(difficulty) + CHASM_FLOOR_HEIGHT_M)
    return assembly.build_island(streams.terrain, size, points, **overrides)


def _spawn_site_ok(heightmap: HeightMap, spawn: XZ) -> bool:
    """Dry land at least 1.5 m from water, no steeper than 25 degrees."""
    if not bool(heightmap.contains(*spawn)) or not is_dry_land(heightmap, *spawn, min_water_distance_m=1.5):
        return False
    return sample_at(heightmap, heightmap.slope_deg(), *spawn) <= 25.0


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> ScrambleLayout:
    """The scramble world for ``difficulty``: the piece round a fruit tree, the spawn beyond it;
    raises ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees (the
    certificate's included)."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    heightmap = _island(streams, config, difficulty)
    draft = Draft.of_island(heightmap)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    room = farthest_reach_m(difficulty) + KNOBS.spawn_margin_m.at(difficulty)[1] + 2.0
    mask = sites.site_mask(heightmap, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=room - 4.0,
                           edge_margin_m=room - 6.0)

    def fit_ring_site(centre: XZ):
        """Why the rings cannot stand round a fruit tree at ``centre``, or the build of the world there."""
        if not sites.fruit_tree_site_ok(heightmap, *centre, fruit_tree):
            return f"no fruit tree site at {centre}"
        rings = draw_rings(streams.rings, difficulty, centre)
        reach = outer_radius_m(rings)
        # From the centre towards the spawn: the first of a few directions with dry, gentle ground.
        aways = streams.sites.uniform(-math.pi, math.pi, SPAWN_SITE_DRAWS)
        spawn_radius = reach + _draw(streams.sites, KNOBS.spawn_margin_m, difficulty)
        spawns = [(centre[0] + spawn_radius * math.cos(a), centre[1] + spawn_radius * math.sin(a)) for a in aways]
        fitting = [i for i, spawn in enumerate(spawns) if _spawn_site_ok(heightmap, spawn)]
        if not fitting:
            return f"no spawn {spawn_radius:.1f} m from {centre} would be on dry, gentle ground"
        away, spawn = float(aways[fitting[0]]), spawns[fitting[0]]
        constraint = Constraint.round_goal(centre, 0.0, reach + CROSSING_STANDOFF_M, away)
        try:
            plan = plan_rings(draft, streams, difficulty, constraint, rings)
        except ImpossibleWorldError as error:
            return str(error)
        food_angles = away + streams.sites.uniform(-1.0, 1.0, FOOD_SITE_DRAWS)
        food_radii = streams.sites.uniform(*FOOD_FROM_TREE_M, FOOD_SITE_DRAWS)
        food_sites = [(centre[0] + r * math.cos(a), centre[1] + r * math.sin(a)) for a, r in zip(food_angles, food_radii)]

        def build() -> ScrambleLayout:
            piece = plan.build(draft)
            shaped = piece.draft
            biome_map = assembly.make_biomes(streams.biomes, shaped.heightmap, config, shaped.climbable, shaped.unclimbable)
            ground = biome_map.heightmap
            slopes = triangle_slopes_deg(ground)
            gentle = [site for site in food_sites if slopes[triangle_index(ground, *site)] <= assembly.FOOD_MAX_SLOPE_DEG
                      and is_dry_land(ground, *site, min_water_distance_m=1.0)]
            if not gentle:
                raise ImpossibleWorldError(f"scramble: no dry food site gentler than {assembly.FOOD_MAX_SLOPE_DEG} degrees "
                                           f"beside the fruit tree at {centre}")
            food = gentle[0]
            foods = assembly.ground_apple(streams, food)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="scramble", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, food), foods=foods, tree_site=centre, exclude_mask=shaped.no_scenery,
                ring_outlines=shaped.ring_outlines, food_in_sight=cliff_count(difficulty) == 0, food_on_foot=False,
            )
            found = certificate(outdoor.world)
            if not found.ok:
                raise ImpossibleWorldError(f"scramble: {found.reason}")
            return ScrambleLayout(outdoor=outdoor, rings=rings, island=heightmap, shaped=piece.detail, certificate=found)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, heightmap, mask, config.site_attempts), fit_ring_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="scramble: no site for the rings keeps the guarantees on this island",
    )


# --- the certificate ------------------------------------------------------------------------------


def certificate(world: World) -> Certificate:
    """The scramble world's solvability certificate: its food is reached with every skill, and
    not without jumping or climbing (falls within the safe height, 5 m).

    The route holds on to climbable rock at least ``STRIP_MARGIN_M`` inside the ends of a strip
    along its ring (:func:`strip_interior`): the hands of a climbing body land a little to either
    side of where it aims. That only narrows what the route search may hold; the bypass search
    climbs nowhere anyway.
    """
    return certify(_holding_strip_interiors(world), world.food[0], REQUIRED_SKILLS, frozenset(SKILLS))


def strip_interior(climbable: np.ndarray, heightmap: HeightMap, centre: XZ, margin_m: float) -> np.ndarray:
    """The points of ``climbable`` that have climbable points ``margin_m`` to either side along
    the circle round ``centre`` through them (the ring's tangent)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    theta = np.arctan2(z - centre[1], x - centre[0])
    tx, tz = -np.sin(theta), np.cos(theta)
    keep = climbable.copy()
    n = climbable.shape[0]
    for side in (-1.0, 1.0):
        rows, cols = heightmap.world_to_grid(x + side * margin_m * tx, z + side * margin_m * tz)
        rows = np.clip(np.rint(rows).astype(np.int64), 0, n - 1)
        cols = np.clip(np.rint(cols).astype(np.int64), 0, n - 1)
        keep &= climbable[rows, cols]
    return keep


def _holding_strip_interiors(world: World) -> World:
    """``world`` with only the strip interiors climbable (a scramble world's rings share one centre)."""
    outlines = world.ground.ring_outlines
    if not outlines:
        return world
    biome_map = world.ground.biome_map
    centre = (outlines[0].centre_x_m, outlines[0].centre_z_m)
    interior = strip_interior(biome_map.climbable, biome_map.heightmap, centre, STRIP_MARGIN_M)
    return attr.evolve(world, ground=attr.evolve(world.ground, biome_map=attr.evolve(biome_map, climbable=interior)))


TASK = TaskSpec(name="scramble", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                food_visible_from_spawn=False, food_reachable_on_foot=False, table_row=6, in_sets_from_version=1,
                reference_agent=ROUTE_FOLLOWER)
