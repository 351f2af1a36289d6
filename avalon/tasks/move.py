"""The ``move`` task: walk to food some distance away; at high difficulty along a causeway over a chasm.

Paper, Appendix F.1: "As difficulty increases, the agent spawns farther away from the fruit, and
the paths leading to the fruit become narrower. At the highest difficulties, the agent must
traverse thin, multi-segment paths across chasms". Difficulty sets every factor through
:data:`KNOBS` (:class:`MoveKnobs`, the table below; ``docs/tasks/move.md`` quotes it):

- the distance from the spawn to the food: a few metres at d = 0, tens of metres at d = 1;
- the path: below ``chasm_start_difficulty`` an open walk on a Small island, with a corridor free
  of plants along the sight line that narrows; from there on the food stands on a plateau ringed
  by a chasm (Medium island, two grid points per metre) whose only crossing is a causeway that
  narrows and gains straight segments at angles; the chasm widens beyond what a running jump
  carries the agent (about 5 m, a little more when it drops a metre) and deepens, with 75-degree
  unclimbable walls;
- where the food is relative to the way the agent faces: straight ahead at d = 0, anywhere at 1.

The food lies on the ground under a fruit tree. The path is an obstacle piece (:func:`obstacle`):
below ``chasm_start_difficulty`` a plant-free corridor along the path through its band (nothing
to cross), from there on the chasm with its causeway (:mod:`avalon.tasks.kit.causeway`) in any
band wide enough, the goal inside or outside it. Either takes walking only. The route a scripted
agent walks is :func:`reference_route`: along the causeway's segments where there is one.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.tasks.kit import ImpossibleWorldError, assembly, causeway, chasm, sites
from avalon.tasks.kit.curves import Band, DifficultySplit, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, sample_at, triangle_index, triangle_slopes_deg
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class MoveKnobs:
    """Every factor of a move world that the difficulty d in [0, 1] sets (docs/tasks/move.md quotes it).

    Bands are drawn from uniformly. Below ``chasm_start_difficulty`` the corridor's ramp runs over
    ``d / chasm_start_difficulty``; from there on the chasm's ramps run over the chasm progress
    ``s = (d - chasm_start_difficulty) / (1 - chasm_start_difficulty)``, 0 to 1.
    """

    #: Horizontal spawn-to-food distance, metres (2-4 m at d = 0, 30-40 m at 1); with a chasm at
    #: least what the ring needs (the spawn stands 3 m outside it).
    food_distance_m: Band = Band(Ramp(2.0, 28.0), Ramp(4.0, 36.0))
    #: The food lies within this angle of the spawn's facing direction, either side, degrees.
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: From this difficulty on, the food is ringed by a chasm crossed by a causeway.
    chasm_start_difficulty: float = 0.35
    #: Open worlds: width of the plant-free corridor to the food, metres (8 m to 5.5 m), over
    #: ``d / chasm_start_difficulty``.
    corridor_width_m: Ramp = Ramp(8.0, -2.5)
    #: Chasm worlds, over the progress s: width of the causeway's flat top, metres (5 m to 1.25 m).
    causeway_width_m: Ramp = Ramp(5.0, -3.75)
    #: ...radial width of the chasm at the top, metres (7 m to 12 m; a running jump carries the
    #: agent about 5 m).
    chasm_width_m: Ramp = Ramp(7.0, 5.0)
    #: ...depth of the chasm, metres (4 m to 6 m).
    chasm_depth_m: Ramp = Ramp(4.0, 2.0)
    #: ...how far each causeway segment turns off the straight line across, degrees (20 to 35).
    causeway_turn_deg: Ramp = Ramp(20.0, 15.0)
    #: The causeway has one straight segment, and one more from each of these difficulties.
    causeway_segment_added_at: tuple[float, ...] = (0.55, 0.8)
    #: Training episodes are truncated after this many seconds (20 s at d = 0, 80 s at 1): a few
    #: times what walking 2-40 m at up to 5 m/s takes, on a causeway at high difficulty.
    training_time_limit_s: Ramp = Ramp(20.0, 60.0)


#: The move task's difficulty curves.
KNOBS = MoveKnobs()
#: Radius of the plateau the fruit tree stands on, inside the chasm, metres.
PLATEAU_RADIUS_M = 5.0
#: How far the chasm's inner edge wanders in and out, metres.
CHASM_NOISE_M = 0.8
#: Slope of the chasm's (unclimbable) walls, degrees.
WALL_SLOPE_DEG = 75.0
#: The causeway starts this far round the chasm from the spawn's direction (either side), degrees.
CAUSEWAY_APPROACH_OFFSET_DEG = (15.0, 45.0)
#: Plants keep this far beyond the causeway's top off it, metres.
CAUSEWAY_CLEAR_M = 1.0
#: What every route along the path takes: walking. Nothing is bypassed; a chasm world's causeway
#: is its only way across, which the piece checks on the final ground (``reachable_without``).
REQUIREMENT = Requirement(skills=frozenset(), allowed={"walk"})


#: Below ``chasm_start_difficulty`` an open walk (the corridor's ramp runs over the first phase);
#: from there on a chasm (its ramps over the second).
PHASES = DifficultySplit(KNOBS.chasm_start_difficulty)
#: What the table's ramps run over where it is not the difficulty (None: the knob does not apply
#: there); docs/tasks/move.md's generated table of the knobs evaluates them so.
KNOB_PROGRESS = PHASES.knob_progress(first=("corridor_width_m",),
                                     second=("causeway_width_m", "chasm_width_m", "chasm_depth_m", "causeway_turn_deg"))


def has_chasm(difficulty: float) -> bool:
    """Whether the world of ``difficulty`` has a chasm crossed by a causeway."""
    return not PHASES.in_first(difficulty)


def path_width_m(difficulty: float) -> float:
    """Width of the path to the food, metres: the plant-free corridor (open worlds) or the causeway."""
    if not has_chasm(difficulty):
        return KNOBS.corridor_width_m.at(PHASES.first_progress(difficulty))
    return KNOBS.causeway_width_m.at(PHASES.second_progress(difficulty))


def chasm_ring(difficulty: float, centre: XZ, inner_radius_m: float = PLATEAU_RADIUS_M) -> chasm.ChasmRing:
    """The chasm of ``difficulty`` (which must have one) round ``centre``: no stretch, 75-degree walls."""
    s = PHASES.second_progress(difficulty)
    return chasm.ChasmRing(centre=centre, width_m=KNOBS.chasm_width_m.at(s), depth_m=KNOBS.chasm_depth_m.at(s),
                           inner_radius_m=inner_radius_m, noise_m=CHASM_NOISE_M, wall_slope_deg=WALL_SLOPE_DEG)


def causeway_shape(difficulty: float) -> causeway.CausewayShape:
    """The causeway of ``difficulty`` (which must have a chasm)."""
    return causeway.CausewayShape(
        width_m=path_width_m(difficulty),
        segment_count=1 + sum(int(difficulty >= start) for start in KNOBS.causeway_segment_added_at),
        turn_deg=KNOBS.causeway_turn_deg.at(PHASES.second_progress(difficulty)),
    )


def _along(a: XZ, b: XZ, t: float) -> XZ:
    """The point a fraction ``t`` of the way from ``a`` to ``b`` (``a`` and ``b`` themselves at 0 and 1)."""
    if t in (0.0, 1.0):
        return a if t == 0.0 else b
    return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])


def _path_in_band(constraint: Constraint) -> list[tuple[XZ, XZ]]:
    """The pieces of ``constraint``'s path (segments, in order) that lie in its band."""
    centre = np.asarray(constraint.centre)
    pieces = []
    for a, b in zip(constraint.path[:-1], constraint.path[1:]):
        d, f = np.subtract(b, a), np.subtract(a, centre)
        cuts = {0.0, 1.0}  # where the segment crosses the band's circles
        for radius in (constraint.inner_radius_m, constraint.outer_radius_m):
            qa, qb, qc = d @ d, 2.0 * f @ d, f @ f - radius * radius
            root = math.sqrt(max(qb * qb - 4.0 * qa * qc, 0.0))
            if radius > 0.0 and qa > 0.0:
                cuts |= {t for t in ((-qb - root) / (2 * qa), (-qb + root) / (2 * qa)) if 0.0 < t < 1.0}
        ts = sorted(cuts)
        for t0, t1 in zip(ts[:-1], ts[1:]):
            if constraint.inner_radius_m <= np.hypot(*(f + (t0 + t1) / 2.0 * d)) <= constraint.outer_radius_m:
                pieces.append((_along(a, b, t0), _along(a, b, t1)))
    return pieces


def _corridor(difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The open walk's piece: a plant-free corridor ``path_width_m`` wide along the path through the band."""
    pieces = _path_in_band(constraint)
    if not pieces:
        raise ImpossibleWorldError("move: the path does not cross the band")
    half = path_width_m(difficulty) / 2.0

    def build(draft: Draft) -> Obstacle:
        discs = [disc for a, b in pieces for disc in sites.corridor_discs(a, b, half)]
        return Obstacle(draft=draft.with_piece(draft.heightmap, keep_clear=discs),
                        crossing=Crossing(start=pieces[0][0], end=pieces[-1][1], requirement=REQUIREMENT))

    return ObstaclePlan(constraint=constraint, build=build)


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The move piece in ``constraint``'s band (see :mod:`avalon.tasks.kit.obstacle`): below
    ``chasm_start_difficulty`` a corridor along the path (nothing to cross; it draws nothing), from
    there on a chasm whose inner edge lies ``PLATEAU_RADIUS_M`` out from the band's inner radius,
    its causeway starting 15-45 degrees round from the path, drawn from ``streams.sites``. Raises
    ``ImpossibleWorldError`` when the band is too narrow or the chasm would be a moat; the built
    piece's ``items`` raise it where the far side can be reached without the causeway."""
    if not has_chasm(difficulty):
        return _corridor(difficulty, constraint)
    s = PHASES.second_progress(difficulty)
    width, depth = KNOBS.chasm_width_m.at(s), KNOBS.chasm_depth_m.at(s)
    inner = chasm.ring_inner_radius_m(constraint, PLATEAU_RADIUS_M, CHASM_NOISE_M + width + 1.0, "move")
    why = chasm.moat_reason(draft.heightmap, constraint.centre, inner, inner + CHASM_NOISE_M + width, depth)
    if why is not None:
        raise ImpossibleWorldError(f"move: {why}")
    # The causeway starts off to one side, so the straight line to the goal crosses the chasm.
    side = 1.0 if streams.sites.uniform() < 0.5 else -1.0
    approach = math.degrees(constraint.path_angle_rad()) + \
        side * streams.sites.uniform(*CAUSEWAY_APPROACH_OFFSET_DEG)
    ring, shape = chasm_ring(difficulty, constraint.centre, inner), causeway_shape(difficulty)

    def build(draft: Draft) -> Obstacle:
        cut = causeway.chasm_with_causeway(streams.rings, draft.heightmap, ring, approach, shape)
        shaped, points = cut.result, cut.causeway.points
        x, z = np.meshgrid(draft.heightmap.x_coords_m, draft.heightmap.z_coords_m)
        near = cut.causeway.distance_m(x, z) <= shape.width_m / 2.0 + CAUSEWAY_CLEAR_M
        start, end = (points[-1], points[0]) if constraint.heights_inverted else (points[0], points[-1])

        def items(ground: HeightMap) -> tuple:
            """No items; raises ``ImpossibleWorldError`` when ``ground`` lets a walker by without the causeway."""
            if causeway.reachable_without(ground, cut.crossing_triangles(ground), start, end):
                raise ImpossibleWorldError("move: the far side can be reached without the causeway")
            return ()

        built = draft.with_piece(shaped.heightmap, climbable=shaped.climbable, unclimbable=shaped.unclimbable,
                                 no_scenery=shaped.wall | near, ring_outlines=shaped.outlines)
        return Obstacle(draft=built, crossing=Crossing(start=start, end=end, requirement=REQUIREMENT), items=items,
                        detail=cut)

    return ObstaclePlan(constraint=constraint, build=build, detail=ring)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class MoveLayout(assembly.TaskLayout):
    """A move world and the factors difficulty chose for it."""

    #: Horizontal distance from the spawn to the food's centre, metres.
    distance_m: float
    path_width_m: float
    #: The chasm crossed by its causeway (None: an open walk).
    crossing: Optional[causeway.CausewayChasm] = None


def _food_site_ok(heightmap: HeightMap, slopes: np.ndarray, food: XZ) -> bool:
    """Dry land, gentle enough for food to rest on (``slopes``: ``triangle_slopes_deg(heightmap)``)."""
    if not is_dry_land(heightmap, *food, min_water_distance_m=1.0):
        return False
    return slopes[triangle_index(heightmap, *food)] <= assembly.FOOD_MAX_SLOPE_DEG


def _open_layout(streams, config, difficulty: float, distance: float, yaw_offset: float) -> MoveLayout:
    width = path_width_m(difficulty)
    heightmap = assembly.build_island(streams.terrain, config.world_size or "small", config.points_per_m or 1.0)
    # The corridor piece leaves the terrain as it is, so the biomes come first.
    biome_map = assembly.make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    mask = sites.site_mask(ground, min_water_distance_m=1.5, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=6.0)
    slopes = triangle_slopes_deg(ground)

    def fit_spawn_site(spawn: XZ):
        """Why the food cannot lie ``distance`` from a spawn at ``spawn``, or the build of the world there."""
        heading = streams.sites.uniform(-math.pi, math.pi)
        food = (spawn[0] + distance * math.cos(heading), spawn[1] + distance * math.sin(heading))
        if not _food_site_ok(ground, slopes, food):
            return f"the food at {food} would not be on dry, gentle ground"
        tree_site = sites.tree_behind_food(streams.sites, food, spawn, fruit_tree)
        if not sites.fruit_tree_site_ok(ground, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"
        if not chasm.terrain_sight(ground, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> MoveLayout:
            band = Constraint(centre=food, inner_radius_m=0.0, outer_radius_m=distance + 1.0, path=(spawn, food))
            piece = obstacle(Draft.of_island(heightmap), streams, difficulty, band).build(Draft.of_island(heightmap))
            outdoor = chasm.assemble_with_apple(streams, config, biome_map, piece.draft, task="move", difficulty=difficulty,
                                                spawn=spawn, food=food, yaw_offset_rad=yaw_offset, tree_site=tree_site,
                                                keep_clear=piece.draft.keep_clear)
            return MoveLayout(outdoor=outdoor, distance_m=math.dist(spawn, food), path_width_m=width)

        return build

    return chasm.first_fitting_site(streams, ground, mask, config, fit_spawn_site,
                                    "move: no spawn site keeps the guarantees on this island")


def _chasm_layout(streams, config, difficulty: float, distance: float, yaw_offset: float) -> MoveLayout:
    ring = chasm_ring(difficulty, (0.0, 0.0))
    heightmap = chasm.dry_island(streams.terrain, config.world_size or "medium", config.points_per_m or 2.0, ring.depth_m)
    draft = Draft.of_island(heightmap)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    outer = ring.outer_radius_m
    mask = sites.site_mask(heightmap, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=outer + 8.0,
                           edge_margin_m=outer + 8.0)
    slopes = triangle_slopes_deg(heightmap)
    grid = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)

    def fit_chasm_site(centre: XZ):
        """Why the chasm cannot ring a plateau at ``centre``, or the build of the world there
        (the ring and the causeway are cut into the terrain in the build)."""
        if not sites.fruit_tree_site_ok(heightmap, *centre, fruit_tree):
            return f"no fruit tree site at {centre}"
        why = chasm.moat_reason(heightmap, centre, PLATEAU_RADIUS_M, outer, ring.depth_m, grid)  # the piece's own check
        if why is not None:
            return why
        away = streams.sites.uniform(-math.pi, math.pi)  # from the food towards the spawn
        food_angle = away + math.radians(streams.sites.uniform(-60.0, 60.0))
        food_radius = streams.sites.uniform(1.2, 2.5)
        food = (centre[0] + food_radius * math.cos(food_angle), centre[1] + food_radius * math.sin(food_angle))
        spawn_distance = max(distance, outer + 3.0 + food_radius + 0.5)
        spawn = (food[0] + spawn_distance * math.cos(away), food[1] + spawn_distance * math.sin(away))
        if not bool(heightmap.contains(*spawn)) or not is_dry_land(heightmap, *spawn, min_water_distance_m=1.5):
            return f"the spawn at {spawn} would not be on dry land"
        if sample_at(heightmap, heightmap.slope_deg(), *spawn) > 25.0 or not _food_site_ok(heightmap, slopes, food):
            return f"the spawn at {spawn} or the food at {food} would be on ground too steep or wet"
        if not chasm.terrain_sight(heightmap, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> MoveLayout:
            towards = math.atan2(spawn[1] - centre[1], spawn[0] - centre[0])  # from the centre to the spawn
            plan = obstacle(draft, streams, difficulty, Constraint.round_goal(centre, 0.0, outer + 1.0, towards))
            piece = plan.build(draft)
            built, cut = piece.draft, piece.detail
            biome_map = assembly.make_biomes(streams.biomes, built.heightmap, config, built.climbable, built.unclimbable)
            ground = biome_map.heightmap
            width = cut.causeway.width_m
            outdoor = chasm.assemble_with_apple(streams, config, biome_map, built, task="move", difficulty=difficulty,
                                                spawn=spawn, food=food, yaw_offset_rad=yaw_offset, tree_site=centre,
                                                keep_clear=sites.corridor_discs(spawn, food, max(1.0, width / 2.0)))
            # The piece's own check runs from the causeway's ends; the task's, from the spawn to the food.
            if causeway.reachable_without(ground, cut.crossing_triangles(ground), spawn, food):
                raise ImpossibleWorldError("move: the food can be reached without the causeway")
            return MoveLayout(outdoor=outdoor, distance_m=math.dist(spawn, food), path_width_m=width, crossing=cut)

        return build

    return chasm.first_fitting_site(streams, heightmap, mask, config, fit_chasm_site,
                                    "move: no site for the chasm keeps the guarantees on this island")


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> MoveLayout:
    """The move world for ``difficulty``: the move piece round the food; raises
    ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    distance = float(streams.food.uniform(*KNOBS.food_distance_m.at(difficulty)))
    yaw_offset = math.radians(streams.food.uniform(-1.0, 1.0) * KNOBS.max_facing_offset_deg.at(difficulty))
    if has_chasm(difficulty):
        return _chasm_layout(streams, config, difficulty, distance, yaw_offset)
    return _open_layout(streams, config, difficulty, distance, yaw_offset)


def reference_route(world: World) -> Route:
    """The walking route of a move world: none in an open world (the food is reached on foot); with
    a chasm, to the causeway's start and along each of its straight segments to its end on the
    plateau (the causeway rebuilt from the world's seed, default config)."""
    if world.task != "move":
        raise ValueError(f"move.reference_route: a {world.task!r} world, expected a 'move' world")
    if not has_chasm(world.difficulty):
        return Route(start=world.spawn_position, steps=())
    layout = chasm.layout_of(world, build_layout)
    heightmap = world.ground.heightmap
    steps = tuple(RouteStep("walk", (x, float(ground_height(heightmap, x, z)), z)) for x, z in layout.crossing.causeway.points)
    return Route(start=world.spawn_position, steps=steps)


TASK = TaskSpec(name="move", generate=build_layout, knobs=KNOBS, obstacle=obstacle, food_visible_from_spawn=True,
                food_reachable_on_foot=True, table_row=2, in_sets_from_version=1, reference_agent=ROUTE_FOLLOWER,
                reference_route=reference_route)
