"""Compositional worlds: obstacle pieces in sequence between the spawn and the food (paper,
section 4, Appendices E.6 and F.2).

The spawn stands near the island's middle, the goal ``goal_distance_m`` away in a drawn
direction; the straight way between them is the planned path. The path's stretch from
``SPAWN_CLEAR_M`` out is cut into one band per obstacle (each about 21 m wide, the paper's size
per obstacle), every band a ring round the spawn, so the goal lies outside it
(``Constraint.heights_inverted``). Each band takes one piece (:mod:`avalon.tasks.kit.obstacle`)
of a kind drawn from the tasks whose spec declares one (:func:`piece_kinds`: read from the
specs), every piece at the world's difficulty; a piece that cannot stand in its band is
replaced by another draw, up to ``PIECE_ATTEMPTS`` kinds per band. Pieces are built
outermost-first, so a piece nearer the spawn that raises or sinks everything beyond it moves the
outer pieces whole.

A goal-site piece is one more :class:`PieceKind` placed round the goal with its heights not
inverted (``goal_piece``): the bands then stop short of its radius. A compositional task puts the
paper's building at the goal (:data:`GOAL_BUILDING`) with the chance
``CompositionKnobs.goal_building_chance``; it counts as one of the world's obstacles
(:mod:`avalon.tasks.kit.composition_building`).

The world's certificate composes (:func:`certify_composition`): one route search from the spawn
to the food with every skill any crossing allows, out of every crossing's keep-out discs; and for
each crossing that requires skills, no way from its start to its end without them (the bypass
search). The route is the route through every crossing; with a building at the goal, the
route to its entrance followed by the walk through its doors.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

import attr
import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World
from avalon.tasks.kit import ImpossibleWorldError, assembly, composition_building, sites
from avalon.tasks.kit.building_piece import building_obstacle
from avalon.tasks.kit.certificate import Certificate, certify, reaches
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstacleFunction
from avalon.tasks.kit.sight import eye_position, terrain_clear
from avalon.tasks.kit.solved import block_faces, solved_world, window
from avalon.tasks.kit.spec import TaskSpec

#: The spawn's own disc: no band comes nearer it, metres.
SPAWN_CLEAR_M = 6.0
#: The food's own disc beyond the outermost band, metres.
GOAL_CLEAR_M = 6.0
#: Land beyond the goal's distance from the spawn on every side, to the world's edge, metres
#: (the coast's ramp and noise, and the beach the biomes erode, stay clear of the outermost ring).
EDGE_MARGIN_M = 24.0
#: The island's coast whatever its size (the terrain's defaults grow with the side): from the
#: edge, its foot, the ramp up to the land and how far the coastline wanders, metres.
COAST = {"coast_distance_m": 3.0, "coast_ramp_m": 10.0, "coast_noise_m": 4.0}
#: Kinds drawn for one band before the world is given up (the paper's 4 per ring).
PIECE_ATTEMPTS = 4
#: A crossing's end counts as reached by the bypass search when the shoulders come within reach of
#: this point above its ground, metres.
CROSSING_TARGET_ABOVE_M = 0.5


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CompositionKnobs:
    """What the difficulty d sets in a compositional world (each task's table holds one)."""

    #: Obstacles between spawn and food: a normal draw with this mean (1.25 at d = 0, 4.49 at 1)...
    obstacle_count_mean: Ramp = Ramp(1.25, 3.24)
    #: ...and this standard deviation...
    obstacle_count_sd: float = 1.0
    #: ...rounded and clipped to this range (the paper's 1-4).
    obstacle_count_range: tuple[int, int] = (1, 4)
    #: Each obstacle's band along the path, metres (U[0.8, 1] of 21 m, the paper's size per obstacle).
    band_width_m: Band = Band(Ramp(16.8), Ramp(21.0))
    #: The island's mean height above the water, metres: room for pits round the spawn, below the
    #: 16 m where the biomes turn to bare mountain (``BiomeConfig.mountain_elevation_min_m``).
    land_height_m: Ramp = Ramp(8.0, 6.0)
    #: The coarsest noise of the island's ground, metres (gentle: a bump hides food far away).
    terrain_noise_m: float = 0.2
    #: Height-map grid points per metre (a climbable strip needs 2; chasms, drops and predators do with 1).
    grid_points_per_metre: float = 2.0
    #: Chance that the goal lies in a building (the paper's 0.5); the building is one of the obstacles.
    goal_building_chance: float = attr.ib(default=0.5, validator=[attr.validators.ge(0.0), attr.validators.le(1.0)])

    def draw_obstacle_count(self, rng: np.random.Generator, difficulty: float) -> int:
        """The number of obstacles of one world at ``difficulty`` (one draw from ``rng``)."""
        low, high = self.obstacle_count_range
        drawn = rng.normal(self.obstacle_count_mean.at(difficulty), self.obstacle_count_sd)
        return int(min(high, max(low, round(float(drawn)))))


@attr.s(frozen=True, auto_attribs=True)
class PieceKind:
    """An obstacle piece a compositional world may draw: its task's name and obstacle function."""

    task: str
    obstacle: ObstacleFunction = attr.ib(repr=False)


def piece_kinds(accept: Callable[[object], bool] = lambda spec: True) -> tuple[PieceKind, ...]:
    """The pieces of every task whose spec declares an obstacle and that ``accept(spec)`` keeps,
    in Table 1's order (a piece whose items must be in solved places says them in its
    ``Obstacle.solved_blocks``)."""
    from avalon.tasks import TASKS  # the registry imports the task modules, which import this kit

    specs = sorted(TASKS.values(), key=lambda spec: (spec.table_row or 0, spec.name))
    kinds = tuple(PieceKind(spec.name, spec.obstacle) for spec in specs
                  if spec.obstacle is not None and accept(spec))
    if not kinds:
        raise ValueError("no task declares an obstacle piece that a compositional world accepts")
    return kinds


#: The building at the goal (:mod:`avalon.tasks.kit.building_piece`); never drawn for a band.
GOAL_BUILDING = PieceKind("building", building_obstacle)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class PlacedPiece:
    """One obstacle of a compositional world: its kind, its band and the piece as built."""

    #: Its band (round the spawn, heights inverted; or round the goal).
    constraint: Constraint = attr.ib(validator=attr.validators.instance_of(Constraint))
    #: The task whose piece it is.
    kind: str
    obstacle: Obstacle = attr.ib(repr=False)
    #: Where the agent takes it (the obstacle's).
    crossing: Crossing = attr.ib(default=attr.Factory(lambda placed: placed.obstacle.crossing, takes_self=True))


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Composition:
    """The island with its obstacles, before biomes, scenery and food."""

    #: The island with every piece in it.
    draft: Draft = attr.ib(repr=False)
    #: Where the agent starts (x, z metres)...
    spawn: XZ
    #: ...and where the path ends, the goal's food.
    goal: XZ
    #: The pieces along the path from the spawn out (the goal-site piece, if any, last).
    pieces: tuple[PlacedPiece, ...]

    def items(self, ground: HeightMap) -> tuple[Entity, ...]:
        """Every piece's items on the final ``ground``, each name prefixed by its piece's place
        (``obstacle_<i>_``), so two pieces of one kind never share a name."""
        return tuple(attr.evolve(entity, name=f"obstacle_{index}_{entity.name}")
                     for index, placed in enumerate(self.pieces) for entity in placed.obstacle.items(ground))


def goal_distance_m(band_widths_m: Sequence[float], goal_radius_m: float = 0.0) -> float:
    """From the spawn to the goal: its clear disc, the bands, the goal's own disc (or its piece's radius)."""
    return SPAWN_CLEAR_M + float(sum(band_widths_m)) + max(GOAL_CLEAR_M, goal_radius_m)


def world_size_m(goal_distance: float) -> float:
    """The side of the island whose middle holds the spawn and whose land reaches past the goal on every side."""
    return 2.0 * math.ceil(goal_distance + EDGE_MARGIN_M)


def build_island(streams: assembly.Streams, config: assembly.OutdoorTaskConfig, knobs: CompositionKnobs,
                 difficulty: float, goal_distance: float) -> HeightMap:
    """A gentle island (no mountains, hills or pools) sized for ``goal_distance`` (``config``'s size and grid where it sets them)."""
    size = config.world_size or world_size_m(goal_distance)
    return assembly.build_island(streams.terrain, size, config.points_per_m or knobs.grid_points_per_metre, mountain_count=0,
                                 hill_count=0, pool_count=0, initial_noise_scale_m=knobs.terrain_noise_m,
                                 land_height_m=knobs.land_height_m.at(difficulty), **COAST)


#: ``draft -> reason or None``: why a composition built so far breaks what its task promises.
DraftCheck = Callable[[Draft], Optional[str]]


def _place(draft: Draft, streams: assembly.Streams, difficulty: float, kinds: Sequence[PieceKind],
           constraint: Constraint, where: str, check: Optional[DraftCheck] = None) -> tuple[Draft, PlacedPiece]:
    """One piece in ``constraint``'s band: kinds drawn from ``streams.sites`` until one stands
    (and leaves ``check`` nothing to object to)."""
    reasons = []
    for _ in range(PIECE_ATTEMPTS):
        kind = kinds[int(streams.sites.integers(len(kinds)))]
        try:
            built = kind.obstacle(draft, streams, difficulty, constraint).build(draft)
        except ImpossibleWorldError as error:
            reasons.append(f"{kind.task}: {error}")
            continue
        why = None if check is None else check(built.draft)
        if why is not None:
            reasons.append(f"{kind.task}: {why}")
            continue
        return built.draft, PlacedPiece(kind=kind.task, constraint=constraint, obstacle=built)
    raise ImpossibleWorldError(f"composition: no piece stands in {where} ({'; '.join(reasons)})")


def compose(draft: Draft, streams: assembly.Streams, difficulty: float, kinds: Sequence[PieceKind], *, spawn: XZ,
            goal: XZ, band_widths_m: Sequence[float], goal_piece: Optional[PieceKind] = None,
            goal_radius_m: float = 0.0, check: Optional[DraftCheck] = None) -> Composition:
    """Pieces of ``kinds`` in bands round ``spawn`` along the straight path to ``goal`` (widths
    ``band_widths_m`` from ``SPAWN_CLEAR_M`` out), built outermost-first, after ``goal_piece``
    round the goal (within ``goal_radius_m`` of it) if one is given; a piece after which
    ``check`` names a reason is replaced by another draw. ``ImpossibleWorldError``
    when a band takes none of ``PIECE_ATTEMPTS`` drawn kinds."""
    approach = math.atan2(goal[1] - spawn[1], goal[0] - spawn[0])
    pieces = []
    if goal_piece is not None:
        # Round the goal the path comes in from the spawn's side.
        constraint = Constraint(centre=goal, inner_radius_m=0.0, outer_radius_m=goal_radius_m, path=(spawn, goal),
                                approach_rad=approach + math.pi)
        draft, placed = _place(draft, streams, difficulty, (goal_piece,), constraint, f"the goal's site at {goal}")
        pieces.append(placed)
    radii = SPAWN_CLEAR_M + np.concatenate([[0.0], np.cumsum(band_widths_m)])
    for index in reversed(range(len(band_widths_m))):  # outermost first
        constraint = Constraint(centre=spawn, inner_radius_m=float(radii[index]), outer_radius_m=float(radii[index + 1]),
                                path=(spawn, goal), heights_inverted=True, approach_rad=approach)
        draft, placed = _place(draft, streams, difficulty, kinds, constraint,
                               f"band {index} ({radii[index]:.1f}-{radii[index + 1]:.1f} m round the spawn)", check)
        pieces.insert(0, placed)
    return Composition(draft=draft, spawn=spawn, goal=goal, pieces=tuple(pieces))


def goal_in_sight(heightmap: HeightMap, spawn: XZ, goal: XZ, goal_height_m: float = 0.2) -> bool:
    """Whether the terrain leaves the point ``goal_height_m`` above the goal's ground in sight of the spawn's eyes."""
    eye = eye_position((spawn[0], float(ground_height(heightmap, *spawn)), spawn[1]))
    target = (goal[0], float(ground_height(heightmap, *goal)) + goal_height_m, goal[1])
    return terrain_clear(heightmap, eye, target)


def _mound(heightmap: HeightMap, spawn: XZ, radius_m: float, rise_m: float) -> HeightMap:
    """``heightmap`` with a smooth mound ``rise_m`` high and ``radius_m`` wide under ``spawn``
    (only the grid window round it is computed)."""
    if rise_m == 0.0:
        return heightmap
    cell, half = heightmap.cell_size_m, heightmap.half_size_m
    lo = [max(0, int((c - radius_m + half) / cell)) for c in spawn]
    hi = [min(heightmap.shape[0], int((c + radius_m + half) / cell) + 2) for c in spawn]
    x, z = np.meshgrid(heightmap.x_coords_m[lo[0]:hi[0]], heightmap.z_coords_m[lo[1]:hi[1]])
    distance = np.minimum(np.hypot(x - spawn[0], z - spawn[1]) / radius_m, 1.0)
    heights = heightmap.heights.copy()
    heights[lo[1]:hi[1], lo[0]:hi[0]] += (rise_m * (0.5 + 0.5 * np.cos(np.pi * distance))).astype(heights.dtype)
    return attr.evolve(heightmap, heights=heights)


def spawn_rise_m(heightmap: HeightMap, spawn: XZ, goal: XZ, steps_m: Sequence[float], radius_m: float) -> Optional[float]:
    """The first of ``steps_m`` by which a mound under ``spawn`` brings the goal into the terrain's sight, or None."""
    for rise in steps_m:
        if goal_in_sight(_mound(heightmap, spawn, radius_m, rise), spawn, goal):
            return rise
    return None


def raise_spawn(draft: Draft, spawn: XZ, goal: XZ, steps_m: Sequence[float], radius_m: float) -> Draft:
    """The draft with the ground round ``spawn`` raised (a smooth mound ``radius_m`` wide) by the
    first of ``steps_m`` that brings the goal into the terrain's sight; ``ImpossibleWorldError``
    if none does."""
    rise = spawn_rise_m(draft.heightmap, spawn, goal, steps_m, radius_m)
    if rise is None:
        raise ImpossibleWorldError(f"composition: the goal at {goal} stays out of sight of the spawn at {spawn} "
                                   f"with the spawn raised up to {max(steps_m):.1f} m")
    return draft if rise == 0.0 else draft.with_piece(_mound(draft.heightmap, spawn, radius_m, rise))


def corridor(composition: Composition, half_width_m: float = 1.0) -> list:
    """Discs keeping plants off the path from the spawn to the goal."""
    return sites.corridor_discs(composition.spawn, composition.goal, half_width_m)


def assemble(streams: assembly.Streams, config: assembly.OutdoorTaskConfig, composition: Composition, *, task: str,
             difficulty: float, foods: Sequence[assembly.FoodPlacement], food_in_sight: bool) -> assembly.TaskLayout:
    """The world of ``composition``: biomes, the pieces' items on the eroded ground, scenery kept
    off what the pieces ask and off the path, ``foods``, the spawn facing the goal. With
    ``food_in_sight`` every food must be in sight of the spawn (plants hiding one are removed)."""
    draft = composition.draft
    biome_map = assembly.make_biomes(streams.biomes, draft.heightmap, config, draft.climbable, draft.unclimbable)
    items = composition.items(biome_map.heightmap)
    outdoor = assembly.assemble_outdoor_world(
        streams, config, biome_map, task=task, difficulty=difficulty, spawn=composition.spawn,
        spawn_yaw_rad=yaw_towards(composition.spawn, composition.goal), foods=foods, tree_site=None,
        keep_clear=[*draft.keep_clear, *corridor(composition)], exclude_mask=draft.no_scenery,
        ring_outlines=draft.ring_outlines, food_in_sight=food_in_sight, food_on_foot=False)
    world = attr.evolve(outdoor.world, entities=outdoor.world.entities + items)
    return assembly.TaskLayout(outdoor=outdoor, world=world)


#: A crossing's bypass search sees the terrain this far beyond its band's outer radius, metres.
BYPASS_WINDOW_MARGIN_M = 8.0


def _bypass_question(world: World, placed: PlacedPiece) -> tuple[World, tuple, tuple]:
    """The terrain round ``placed``'s band as a world of its own (:func:`~avalon.tasks.kit.solved.window`,
    the whole world where the window would reach past its edge), and the crossing's start (feet)
    and end (a point ``CROSSING_TARGET_ABOVE_M`` above the ground) in it."""
    heightmap = world.ground.heightmap
    crossing, constraint = placed.crossing, placed.constraint
    start = (crossing.start[0], float(ground_height(heightmap, *crossing.start)), crossing.start[1])
    end = (crossing.end[0], float(ground_height(heightmap, *crossing.end)) + CROSSING_TARGET_ABOVE_M, crossing.end[1])
    half = constraint.outer_radius_m + BYPASS_WINDOW_MARGIN_M
    try:
        cut = window(world, constraint.centre, half, start)
    except ValueError:  # the band reaches near the world's edge: search it all
        return world, start, end
    ox, oz = cut.offset
    return cut.world, (start[0] - ox, start[1], start[2] - oz), (end[0] - ox, end[1], end[2] - oz)


def certify_composition(world: World, food: Entity, pieces: Sequence[PlacedPiece]) -> Certificate:
    """The certificate of a compositional world: ``food`` reached from the spawn with every skill
    any crossing allows, out of every crossing's keep-out discs, falls up to the smallest limit
    (the route through every crossing); and no crossing that requires skills is passed from its
    start to its end without them (the bypass search at the crossing's limits, on the terrain
    within ``BYPASS_WINDOW_MARGIN_M`` of its band: the whole ring, so any way round it). A piece's
    solved blocks (``Obstacle.solved_blocks``: its items in their solved places) are burned in for
    the route search, its crossing bypass-searched without them even if it requires no skill. With a
    building at the goal (the last piece) the search goes to its crossing start, in front of its
    entrance, and the piece's walk through the doors is spliced on (the height map knows no walls)."""
    building = composition_building.goal_building([placed.obstacle.detail for placed in pieces])
    target = food
    if building is not None:
        start = pieces[-1].crossing.start
        ground = float(ground_height(world.ground.heightmap, *start))
        target = (start[0], ground + CROSSING_TARGET_ABOVE_M, start[1])
    needs = [placed.crossing.requirement for placed in pieces]
    allowed = frozenset().union(*(need.allowed for need in needs)) if needs else frozenset({"walk"})
    required = frozenset().union(*(need.skills for need in needs)) if needs else frozenset()
    max_fall = min((need.max_fall_m for need in needs), default=None)
    limits = {} if max_fall is None else {"max_fall_m": max_fall}
    keep_out = [disc for need in needs for disc in need.keep_out]
    solved = [tuple(placed.obstacle.solved_blocks(world.ground.heightmap)) for placed in pieces]
    blocks = [block for piece_blocks in solved for block in piece_blocks]
    searched = solved_world(world, blocks) if blocks else world
    sheer = block_faces(searched.ground.heightmap, blocks) if blocks else None
    found = certify(searched, target, frozenset(), allowed | {"walk"}, keep_out=keep_out, sheer_triangles=sheer, **limits)
    route = found.route
    if building is not None and route is not None:
        route = composition_building.spliced_route(route, building, food)
    bypassed = []
    for index, placed in enumerate(pieces):
        crossing, need = placed.crossing, placed.crossing.requirement
        if not need.skills and not solved[index]:
            continue
        local, start, end = _bypass_question(world, placed)
        fall = need.max_fall_m if need.bypass_max_fall_m is None else need.bypass_max_fall_m
        if reaches(attr.evolve(local, spawn_position=start), end, need.allowed - need.skills, bypass=True, max_fall_m=fall):
            without = f"without {sorted(need.skills)}" if need.skills else "without its items in their solved places"
            bypassed.append(f"crossing {index} ({placed.kind}) is passed from {crossing.start} to {crossing.end} {without}")
    reasons = [found.reason] if found.reason else []
    return Certificate(required=required, allowed=found.allowed, solvable=found.solvable, bypassed=bool(bypassed),
                       route=route, reason="; ".join(reasons + bypassed))


# --- a compositional task's world ---------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ComposedLayout(assembly.TaskLayout):
    """A compositional world, its obstacles and the certificate it was accepted with."""

    composition: Composition
    certificate: Certificate


#: ``(streams, ground, composition, difficulty) -> foods``: the foods besides the goal's.
ExtraFoods = Callable[[assembly.Streams, HeightMap, Composition, float], list]
#: ``(world, streams, difficulty) -> world``: what a task adds once the world is assembled (animals, tools).
ExtraEntities = Callable[[World, assembly.Streams, float], World]


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ComposedTask:
    """What a compositional task decides about its worlds (the rest is :func:`compose_world`'s)."""

    task: str
    knobs: CompositionKnobs
    #: The pieces its bands draw from.
    kinds: Callable[[], Sequence[PieceKind]]
    #: ``(rng, difficulty) -> int``: the number of obstacles (default: the knobs' draw).
    obstacle_count: Optional[Callable[[np.random.Generator, float], int]] = None
    #: Whether the goal's food must be in sight of the spawn (raised by ``spawn_rise_steps_m`` if
    #: needed; plants that hide it are removed); else nothing is promised of its sight.
    goal_in_sight: bool = False
    spawn_rise_steps_m: tuple[float, ...] = (0.0,)
    #: The world's time limit, frames.
    time_limit_frames: int = assembly.TIME_LIMIT_FRAMES
    extra_foods: Optional[ExtraFoods] = None
    extra_entities: Optional[ExtraEntities] = None

    def build_layout(self, rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> "ComposedLayout":
        """The task's generator (see :func:`compose_world`)."""
        return compose_world(rng, difficulty, config, self)

    def task_spec(self, **fields) -> TaskSpec:
        """The task's spec: its generator, certificate and evaluation limit, the compositional
        group, the sets from :data:`SET_VERSION`, :data:`COMPOSED_FOLLOWER` as its reference agent, its
        food not promised on foot; ``fields`` add the rest (``knobs``, ``table_row``, ...)."""
        return TaskSpec(name=self.task, generate=self.build_layout, certificate=self.certificate, group="compositional",
                        in_sets_from_version=SET_VERSION, evaluation_time_limit_frames=self.time_limit_frames,
                        food_reachable_on_foot=False, reference_agent=COMPOSED_FOLLOWER, **fields)

    def certificate(self, world: World) -> Certificate:
        """The certificate of one of the task's worlds: its layout rebuilt from the world's seed
        (the registry's retry rule, the default config), certified again on ``world``."""
        from avalon.tasks.kit.chasm import layout_of

        return certify_composition(world, world.food[0], layout_of(world, self.build_layout).composition.pieces)


#: The compositional tasks' reference agent: the route follower that also works a building's doors.
COMPOSED_FOLLOWER = "avalon.agent.scripted.composed:ComposedFollower"
#: The first version of the evaluation sets that holds compositional worlds (the sets v1-v3 hold none).
SET_VERSION = 4
#: Radius of the mound that raises a spawn, metres (inside the spawn's clear disc and the first band's slack).
SPAWN_MOUND_RADIUS_M = 5.0


def compose_world(rng: np.random.Generator, difficulty: float, config: Optional[object], task: ComposedTask) -> ComposedLayout:
    """The world of a compositional ``task`` at ``difficulty``: the obstacles between the spawn and
    an apple at the goal, the task's extra foods and entities, certified through every crossing.
    ``ImpossibleWorldError`` when a band takes no piece, the goal is out of the sight the task
    asks for, or the certificate fails."""
    config = assembly.resolve_config(config)
    if config.time_limit_frames == assembly.TIME_LIMIT_FRAMES:  # the config's default: the task's own limit
        config = attr.evolve(config, time_limit_frames=task.time_limit_frames)
    streams = assembly.split_streams(rng)
    knobs = task.knobs
    count = (task.obstacle_count or knobs.draw_obstacle_count)(streams.food, difficulty)
    # The building at the goal is one of the obstacles (no draw where it cannot be: survive's worlds).
    in_building = count >= 1 and knobs.goal_building_chance > 0.0 and bool(streams.food.uniform() < knobs.goal_building_chance)
    widths = [float(streams.food.uniform(*knobs.band_width_m.at(difficulty))) for _ in range(count - in_building)]
    goal_radius = composition_building.goal_site_radius_m(difficulty) if in_building else 0.0
    distance = goal_distance_m(widths, goal_radius)
    heightmap = build_island(streams, config, knobs, difficulty, distance)
    angle = float(streams.sites.uniform(-math.pi, math.pi))
    spawn = (float(streams.sites.uniform(-2.0, 2.0)), float(streams.sites.uniform(-2.0, 2.0)))
    goal = (spawn[0] + distance * math.cos(angle), spawn[1] + distance * math.sin(angle))
    check = None
    if task.goal_in_sight:
        def check(draft: Draft) -> Optional[str]:
            highest = max(task.spawn_rise_steps_m)
            if goal_in_sight(_mound(draft.heightmap, spawn, SPAWN_MOUND_RADIUS_M, highest), spawn, goal):
                return None
            return f"it hides the goal from the spawn (raised {highest:.1f} m)"
    composition = compose(Draft.of_island(heightmap), streams, difficulty, task.kinds(), spawn=spawn, goal=goal,
                          band_widths_m=widths, goal_piece=GOAL_BUILDING if in_building else None,
                          goal_radius_m=goal_radius, check=check)
    if task.goal_in_sight:
        composition = attr.evolve(composition, draft=raise_spawn(composition.draft, spawn, goal, task.spawn_rise_steps_m,
                                                                 SPAWN_MOUND_RADIUS_M))
    foods = assembly.ground_apple(streams, goal)
    if task.extra_foods is not None:
        foods = foods + task.extra_foods(streams, composition.draft.heightmap, composition, difficulty)
    made = assemble(streams, config, composition, task=task.task, difficulty=difficulty, foods=foods,
                    food_in_sight=task.goal_in_sight)
    world = made.world
    building = composition_building.goal_building([placed.obstacle.detail for placed in composition.pieces])
    if building is not None:
        world = composition_building.with_goal_building(world, building, world.food[0].name)
    if task.extra_entities is not None:
        world = task.extra_entities(world, streams, difficulty)
    certified = certify_composition(world, world.food[0], composition.pieces)
    if not certified.ok:
        raise ImpossibleWorldError(f"{task.task}: {certified.reason}")
    return ComposedLayout(outdoor=made.outdoor, world=world, composition=composition, certificate=certified)


