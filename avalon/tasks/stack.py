"""The ``stack`` task: stack stones at the foot of a sheer cliff and jump up them to the food on top.

Paper, Appendix F.1: "the agent must stack stones and jump on top of them in order to reach the
cliff ledge where the fruit is. At low difficulties, the agent only needs to use one stone to reach
the top. As difficulty increases, the cliff ledge gets taller, so more layers of stones need to be
stacked to reach the top. At the highest difficulty, the agent must stack a pyramid with four
layers of stones." Difficulty sets every factor through :data:`KNOBS` (:class:`StackKnobs`, the
table below; ``docs/tasks/stack.md`` quotes it):

- the cliff: a square plateau standing on a level yard, its walls rising between two neighbouring
  points of the 0.25 m grid (faces steeper than 85 degrees) and unclimbable; it is
  ``LEDGE_RISE_M`` higher than the top of a staircase of ``layers`` stones against one wall, so
  the layers the way up needs grow with difficulty (2 at d = 0, 4 at d = 1);
- the stones: the staircase's ``layers (layers + 1) / 2`` stones, each ``STONE_HEIGHT_M`` tall and
  ``STONE_MASS_KG`` (under the lift limit), of which the lowest ``built_layers_share`` of the layers
  already stand in place (all of them at d = 0: the stones already form the step); the rest lie
  loose on the yard, spread round the plateau wider with difficulty;
- how far from the staircase the agent starts and how far it faces away from it.

One stone cannot be the whole step, as the paper's easiest worlds have it: a wall low enough for
one jump from a stone would be jumped (or slid) up from the ground (see
``kit.staircase.LEDGE_RISE_M`` and ``docs/tasks/stack.md``).

The plateau, its staircase and its stones are the task's obstacle piece (:func:`obstacle`, the
geometry in :mod:`avalon.tasks.kit.staircase`): round the goal a plateau on a level yard, round
the start (heights inverted) a pit sunk into a level rim, the staircase against its wall inside.

Every world is certified at generation (:func:`certificate`): with any skill and a body a margin
better than ours the terrain alone does not lead to the food (``routes.bypass_reaches``); with the
staircase's stones burned into the height map (``kit.solved.with_blocks``) a route of walks and
jumps does; and the world holds the stones that staircase needs, each liftable and each loose one
lying on ground the spawn walks to.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, assembly, sites, staircase
from avalon.tasks.kit.certificate import Certificate, bypass_reaches, certify
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.skills import JUMP
from avalon.tasks.kit.solved import window, with_blocks
from avalon.tasks.kit.spec import TaskSpec
from avalon.tasks.kit.staircase import (
    PLATEAU_HALF_SIDE_M,
    STONE_CLEARANCE_M,
    STONE_SCALE,
    STONE_SPAWN_CLEARANCE_M,
    STONE_WIDTH_M,
    Staircase,
    stones_suffice,
)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StackKnobs:
    """Every factor of a stack world that the difficulty d in [0, 1] sets (docs/tasks/stack.md quotes it).
    Bands are drawn from uniformly."""

    #: The staircase the way up needs has two layers of stones, and one more from each of these
    #: difficulties (four at d = 1, the paper's text); the cliff rises with it.
    layer_added_at: tuple[float, ...] = (0.35, 0.7)
    #: Share of the layers already standing in place, lowest first (rounded down: all of them at
    #: d = 0, none at d = 1); the other stones lie loose on the yard.
    built_layers_share: Ramp = Ramp(1.0, -1.0)
    #: Loose stones lie within this angle, either side, of the staircase's direction seen from the
    #: plateau's centre, degrees (round the plateau at d = 1).
    stone_spread_deg: Ramp = Ramp(30.0, 150.0)
    #: The spawn 1.5-2.5 m from the staircase's outer end at d = 0, 2.5-6 m at 1, facing it at d = 0;
    #: the food 1.5-2 m inside the plateau's edge above the staircase.
    approach: sites.ApproachKnobs = sites.ApproachKnobs(spawn_distance_m=Band(Ramp(1.5, 1.0), Ramp(2.5, 3.5)),
                                                        food_inset_m=Band(Ramp(1.5), Ramp(2.0)))
    #: Training episodes are truncated after this many seconds (45 s at d = 0, 300 s at 1): a few
    #: times a direct solution (walking, jumping, and at d = 1 ten stones carried and set down).
    training_time_limit_s: Ramp = Ramp(45.0, 255.0)


#: The stack task's difficulty curves.
KNOBS = StackKnobs()
#: The island: Small, four grid points per metre (on a 0.25 m cell the 3.1 m wall of d = 0 is a face
#: of 85.4 degrees, up which a jump slides 2.6 m, ``mechanics.TERRAIN_JUMP_RISE_M``; on a 0.5 m cell
#: it would be 80.8 degrees, slid up all the way); gentle: no pools, no hills, its coarsest noise
#: 0.8 m (the terrain's default is 1.5), so the yard is levelled out of natural ground.
ISLAND = assembly.IslandShape(points_per_m=4.0, pool_count=0, hill_count=0, initial_noise_scale_m=0.8)
#: Each stone's mass, kilograms: under ``mechanics.MAX_LIFT_MASS_KG``, so a hand lifts it.
STONE_MASS_KG = 35.0
#: The certificate searches the terrain within this of the plateau's centre (a square): the
#: staircase's foot (9.3 m out at four layers) and, beyond the farthest a bypass jump carries the
#: body from the yard (6.5 m), more of the level yard, metres; as far beyond a larger square's wall.
CERTIFICATE_WINDOW_M = 10.5
#: Half the side of the pit round the start, at least, metres: room on its floor for the staircase
#: and the loose stones.
PIT_HALF_SIDE_M = 9.0
#: The crossing ends this far beyond the wall above the staircase (on the plateau or the rim), metres.
CROSSING_INSET_M = 1.5
#: The natural ground under the yard and its blend varies by at most this, metres.
MAX_YARD_RELIEF_M = 2.5
#: The staircase's ground (the yard, or the pit's floor) stays this far above the water plane, metres.
BASE_ABOVE_WATER_M = 1.0
#: Loose stones lie within the yard (or the pit's floor), this far inside its edge, metres.
STONE_YARD_MARGIN_M = 1.0
#: Draws of a loose stone's place before the world is given up.
STONE_PLACE_ATTEMPTS = 60
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: A stack world's own time limit: ten minutes (paper, Appendix G.3).
STACK_TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND
#: The skill the route over the staircase needs (jumping up its layers).
REQUIRED_SKILLS = frozenset({JUMP})


def layer_count(difficulty: float) -> int:
    """Layers of stones the staircase up the cliff has."""
    return 2 + sum(int(difficulty >= start) for start in KNOBS.layer_added_at)


def built_layer_count(difficulty: float) -> int:
    """Layers of the staircase standing in place at the start."""
    return int(math.floor(KNOBS.built_layers_share.at(difficulty) * layer_count(difficulty) + 1e-9))


# --- the certificate ------------------------------------------------------------------------------


def staircase_certificate(world: World, stair: Staircase) -> Certificate:
    """The certificate of a world whose food lies above the wall ``stair`` climbs: no way to the
    food over its terrain, with every skill and the bypass search's generous limits; a route
    (walks and jumps) over its terrain with the solved staircase burned in; and the stones to
    build it (:func:`stones_suffice`).

    Both searches run on the window of ``CERTIFICATE_WINDOW_M`` round the square (the level yard
    and all the ground within any jump of the wall; a sixth of a Small world's grid points for
    the smallest plateau), starting at the staircase's foot; the spawn walks there (checked over
    the whole terrain's walkable triangles), which is the route's first step."""
    foot = (*stair.foot_xz, stair.base_m)
    start = (foot[0], foot[2], foot[1])
    reach = CERTIFICATE_WINDOW_M + (abs(stair.wall_offset_m) - PLATEAU_HALF_SIDE_M)
    bare = window(world, stair.centre, reach, start)
    bypassed = bypass_reaches(bare.world, bare.world.food[0], frozenset(SKILLS))
    built = window(with_blocks(world, stair.blocks()), stair.centre, reach, start)
    solved = certify(built.world, built.world.food[0], frozenset(), frozenset(SKILLS))
    unsolved = [] if solved.solvable else [f"with the staircase in place: {solved.reason}"]
    if solved.route is not None and not solved.route.skills() & REQUIRED_SKILLS:
        unsolved.append("the route over the staircase does not jump")
    short = stones_suffice(world, stair)
    if short is not None:
        unsolved.append(short)
    bypass = ["the food can be reached over the terrain without the stones (bypass limits)"] if bypassed else []
    route = None
    if not unsolved:
        steps = [RouteStep("walk", start)] + [RouteStep(s.skill, built.to_world(s.target)) for s in solved.route.steps]
        route = Route(start=world.spawn_position, steps=steps)
    return Certificate(required=REQUIRED_SKILLS, allowed=frozenset(SKILLS), solvable=not unsolved, bypassed=bypassed,
                       route=route, reason="; ".join(unsolved + bypass))


# --- the obstacle piece ---------------------------------------------------------------------------


def _footprint_radius_m() -> float:
    return STONE_WIDTH_M / math.sqrt(2.0)


def place_loose_stones(rng: np.random.Generator, stair: Staircase, count: int, spread_deg: float,
                       spawn: XZ, radii_m: tuple[float, float]) -> list[tuple[XZ, float]]:
    """(x, z) and yaw of ``count`` loose stones ``radii_m`` (nearest, farthest) from the square's
    centre, within ``spread_deg`` of the staircase's direction seen from it, clear of the
    staircase, each other and the spawn; ``ImpossibleWorldError`` if they do not fit."""
    cx, cz = stair.centre
    away = math.atan2(stair.direction[1], stair.direction[0])
    footprint = _footprint_radius_m()
    inner, outer = radii_m
    columns = [stair.column_xz(k) for k in range(stair.layers)]
    placed: list[tuple[XZ, float]] = []
    for _ in range(count):
        for _ in range(STONE_PLACE_ATTEMPTS):
            angle = away + math.radians(rng.uniform(-spread_deg, spread_deg))
            radius = math.sqrt(rng.uniform(inner**2, outer**2))
            point = (cx + radius * math.cos(angle), cz + radius * math.sin(angle))
            yaw = float(rng.uniform(-math.pi, math.pi))
            near = [*columns, *(p for p, _ in placed)]
            if all(math.dist(point, other) >= 2 * footprint + STONE_CLEARANCE_M for other in near) \
                    and math.dist(point, spawn) >= STONE_SPAWN_CLEARANCE_M:
                placed.append((point, yaw))
                break
        else:
            raise ImpossibleWorldError(f"stack: no room on the yard for loose stone {len(placed) + 1} of {count}")
    return placed


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class StackPiece:
    """What the stack piece built: its staircase and the loose stones' rules."""

    staircase: Staircase
    #: Layers standing in place at the start; the other stones lie loose.
    built_layers: int
    #: How far round from the staircase's direction loose stones lie, degrees; between which radii
    #: from the square's centre; and clear of which point (the path's start), metres.
    spread_deg: float
    stone_radii_m: tuple[float, float]
    keep_from: XZ
    rng: np.random.Generator = attr.ib(repr=False)

    def stones(self, ground) -> tuple[Entity, ...]:
        """The staircase's built layers in place and its other stones loose on ``ground``, named
        ``stone_0``... in that order; the loose stones' places drawn from the piece's stream
        (each call draws anew: call it once)."""
        stair = self.staircase
        stones = []
        for column, layer in stair.places():
            if layer < self.built_layers:
                stones.append(tool_entity("stone", f"stone_{len(stones)}", stair.ground_position(column, layer),
                                          safe_scale=STONE_SCALE, mass=STONE_MASS_KG))
        loose_count = sum(1 for _, layer in stair.places() if layer >= self.built_layers)
        for (px, pz), yaw in place_loose_stones(self.rng, stair, loose_count, self.spread_deg, self.keep_from,
                                                self.stone_radii_m):
            stones.append(tool_entity("stone", f"stone_{len(stones)}", (px, float(ground_height(ground, px, pz)), pz),
                                      yaw_rad=yaw, safe_scale=STONE_SCALE, mass=STONE_MASS_KG))
        return tuple(stones)


def yard_relief_m(heightmap, centre: XZ, reach_m: float) -> float:
    """How much the natural ground within ``reach_m`` of ``centre`` varies, metres."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    around = np.hypot(x - centre[0], z - centre[1]) <= reach_m
    return float(heightmap.heights[around].max() - heightmap.heights[around].min())


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The stack piece: a square (half its side the band's inner radius, at least
    ``PLATEAU_HALF_SIDE_M`` round the goal, ``PIT_HALF_SIDE_M`` round the start) centred on the
    grid point nearest the constraint's centre; round the goal a plateau on a level yard, round
    the start a pit sunk into a level rim, its wall ``kit.staircase.cliff_height_m`` of the
    difficulty's layers high and unclimbable. The staircase stands against the wall on the grid
    axis nearest the path, on its lower side; its built layers stand there and its other stones
    lie loose on the yard or the pit's floor (drawn from ``streams.food`` when placed), clear of
    the path's start. The crossing runs from the staircase's foot to above its wall and requires a
    jump; only :func:`staircase_certificate` (the staircase burned in) proves it. Raises
    ``ImpossibleWorldError`` when the yard's natural ground varies more than ``MAX_YARD_RELIEF_M``,
    the piece reaches beyond the band, or its low ground would lie near the water."""
    inverted, natural = constraint.heights_inverted, draft.heightmap
    row, col = (int(v) for v in natural.nearest_index(*constraint.centre))
    gx, gz = natural.grid_to_world(row, col)
    centre = (float(gx), float(gz))
    half = max(PIT_HALF_SIDE_M if inverted else PLATEAU_HALF_SIDE_M, constraint.inner_radius_m)
    yard = staircase.yard_radius_m(half)
    reach = yard + staircase.YARD_BLEND_M
    if reach > constraint.outer_radius_m:
        raise ImpossibleWorldError(f"stack: the yard reaches {reach:.2f} m from its centre: beyond the band's outer "
                                   f"radius {constraint.outer_radius_m:.2f} m")
    relief = yard_relief_m(natural, centre, reach)
    if relief > MAX_YARD_RELIEF_M:
        raise ImpossibleWorldError(f"stack: the ground round {centre} varies by {relief:.2f} m: more than {MAX_YARD_RELIEF_M} m")
    axis = round(math.degrees(constraint.path_angle_rad()) / 90.0) % 4
    toward = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[axis]  # from the centre to the staircase's wall
    layers = layer_count(difficulty)
    height = staircase.cliff_height_m(layers)
    footprint = _footprint_radius_m()

    def build(draft: Draft) -> Obstacle:
        heights, level = staircase.level_yard(natural, centre, yard)
        base = level - height if inverted else level
        if base < natural.water_height_m + BASE_ABOVE_WATER_M:
            raise ImpossibleWorldError(f"stack: the yard at {centre} would lie {base:.2f} m high, near the water")
        square = staircase.plateau_mask(natural, centre, half)
        heights = np.where(square, base if inverted else base + height, heights)
        if inverted:  # against the pit's wall, stepping in: its first column a cell nearer than the square's edge
            stair = Staircase(centre=centre, outward=(-toward[0], -toward[1]), base_m=base, layers=layers,
                              wall_offset_m=-(half + natural.cell_size_m))
            radii = (0.0, half - footprint - STONE_YARD_MARGIN_M)
        else:
            stair = Staircase(centre=centre, outward=toward, base_m=base, layers=layers, wall_offset_m=half)
            radii = (half * math.sqrt(2.0) + footprint + STONE_CLEARANCE_M, yard - footprint - STONE_YARD_MARGIN_M)
        x, z = np.meshgrid(natural.x_coords_m, natural.z_coords_m)
        drafted = draft.with_piece(natural.with_heights(heights.astype(natural.heights.dtype)),
                                   unclimbable=staircase.wall_mask(square),
                                   no_scenery=np.hypot(x - centre[0], z - centre[1]) <= reach)
        top = half + CROSSING_INSET_M if inverted else half - CROSSING_INSET_M
        crossing = Crossing(start=stair.foot_xz, end=(centre[0] + top * toward[0], centre[1] + top * toward[1]),
                            requirement=Requirement(skills=REQUIRED_SKILLS))
        piece = StackPiece(staircase=stair, built_layers=built_layer_count(difficulty),
                           spread_deg=KNOBS.stone_spread_deg.at(difficulty), stone_radii_m=radii,
                           keep_from=constraint.path[0], rng=streams.food)
        # The staircase built (its columns as blocks) is the crossing's answer for a composed certificate.
        return Obstacle(draft=drafted, crossing=crossing, items=piece.stones, solved_blocks=lambda ground: stair.blocks(),
                        detail=piece)

    return ObstaclePlan(constraint=constraint, build=build)


# --- the task -------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class StackLayout(assembly.TaskLayout):
    """A stack world, its staircase and the certificate it was accepted with."""

    staircase: Staircase
    #: Names of the stones standing in place at the start, and of the loose ones.
    built: tuple[str, ...]
    loose: tuple[str, ...]
    certificate: Certificate


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> StackLayout:
    """The stack world for ``difficulty``: the piece round the food's site, the spawn out beyond
    the staircase; raises ``ImpossibleWorldError`` if the terrain offers no place that keeps the
    guarantees (the certificate included)."""
    config = assembly.resolve_config(config)
    if config.time_limit_frames == assembly.TIME_LIMIT_FRAMES:  # the config's default, the five-minute tasks' limit
        config = attr.evolve(config, time_limit_frames=STACK_TIME_LIMIT_FRAMES)
    streams = assembly.split_streams(rng)
    layers = layer_count(difficulty)
    spawn_distance, food_inset, yaw_offset = KNOBS.approach.draw(streams.food, difficulty)
    natural = ISLAND.build(streams.terrain, config)
    draft = Draft.of_island(natural)
    reach = staircase.YARD_RADIUS_M + staircase.YARD_BLEND_M
    mask = sites.site_mask(natural, min_water_distance_m=reach + 1.0, max_slope_deg=20.0,
                           min_ocean_distance_m=reach + config.biomes.beach_width_m + 1.0, edge_margin_m=reach + 1.0)

    def fit_site(point: XZ):
        row, col = (int(v) for v in natural.nearest_index(*point))
        gx, gz = natural.grid_to_world(row, col)
        centre = (float(gx), float(gz))
        relief = yard_relief_m(natural, centre, reach)
        if relief > MAX_YARD_RELIEF_M:  # (checked before the draw below, as the piece checks it again)
            return f"the ground round {centre} varies by {relief:.2f} m: more than {MAX_YARD_RELIEF_M} m"
        outward = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[int(streams.sites.integers(0, 4))]
        end = Staircase(centre=centre, outward=outward, base_m=0.0, layers=layers).outer_end_m + spawn_distance
        spawn = (centre[0] + end * outward[0], centre[1] + end * outward[1])
        constraint = Constraint(centre=centre, inner_radius_m=0.0, outer_radius_m=reach, path=(spawn, centre))
        plan = obstacle(draft, streams, difficulty, constraint)

        def build() -> StackLayout:
            piece = plan.build(draft)
            shaped, stair = piece.draft, piece.detail.staircase
            biome_map = assembly.make_biomes(streams.biomes, shaped.heightmap, config, shaped.climbable, shaped.unclimbable)
            if not is_dry_land(biome_map.heightmap, *spawn, min_water_distance_m=1.5):
                raise ImpossibleWorldError(f"stack: the spawn at {spawn} would not be on dry land")
            food = (centre[0] + (PLATEAU_HALF_SIDE_M - food_inset) * outward[0],
                    centre[1] + (PLATEAU_HALF_SIDE_M - food_inset) * outward[1])
            stair_foot = stair.column_xz(layers - 1)
            stones = piece.items(biome_map.heightmap)
            foods = assembly.ground_apple(streams, food)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="stack", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, stair_foot) - yaw_offset, foods=foods, tree_site=None,
                keep_clear=sites.corridor_discs(spawn, stair_foot, 1.0), exclude_mask=shaped.no_scenery,
                food_in_sight=False, food_on_foot=False,
            )
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + stones)
            accepted = certificate(world)
            if not accepted.ok:
                raise ImpossibleWorldError(f"stack: {accepted.reason}")
            names = [stone.name for stone in stones]
            built = sum(1 for _, layer in stair.places() if layer < piece.detail.built_layers)
            return StackLayout(outdoor=outdoor, world=world, staircase=stair, built=tuple(names[:built]),
                               loose=tuple(names[built:]), certificate=accepted)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, natural, mask, config.site_attempts), fit_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="stack: no site for the cliff and its yard keeps the guarantees on this island",
    )


def certificate(world: World) -> Certificate:
    """The stack certificate of a world (:func:`staircase_certificate`), its staircase read from
    its terrain (``kit.staircase.staircase_of``)."""
    if not isinstance(world, World) or not world.food:
        check.refuse("world", world, "a stack World with food")
    return staircase_certificate(world, staircase.staircase_of(world))


TASK = TaskSpec(name="stack", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                evaluation_time_limit_frames=STACK_TIME_LIMIT_FRAMES, food_visible_from_spawn=False,
                food_reachable_on_foot=False, table_row=7, in_sets_from_version=2,
                reference_agent="avalon.agent.scripted.stack:stack_follower",
                carry_variant="avalon.tasks.kit.carried_stones:VARIANT")
