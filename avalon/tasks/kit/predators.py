"""Predators guarding a way: the obstacle piece of ``avoid`` and ``fight``, its certificate, and
the world whose food they guard.

- The species ladders (Table 3, easiest first) and the draws of the guards (:class:`Guards`: each
  one's species and distance from the centre it guards).
- The piece (:func:`guard_obstacle`, behind each task's ``obstacle`` function): every guard stands
  in the constraint's band round its centre, at a bearing drawn until it stands no farther from
  the path than from the centre (the way passes it), keeps its activation radius and
  :data:`SPAWN_GAP_M` from the path's start (none is active when the agent gets there) and, on
  the ground, out of water. Predators change no terrain and care not which way the agent goes:
  a band round the goal and a ring round the start (``heights_inverted``) are the same to them.
  The crossing runs from the path's first point to its last; its :class:`Requirement` asks for
  walking, and for a route outside every guard's activation radius (plus :data:`ROUTE_MARGIN_M`)
  where the task promises one. A task may lay tools for the fight by the path's start.
- The certificates: :func:`certify_avoiding` (the kit's route search with each predator's disc
  as an obstacle) and :func:`certify_on_foot`.
- :func:`build_guarded_food`: the single task's world, the piece placed round the food: an apple
  under its fruit tree, the spawn a drawn distance and bearing from it.

The discs are the predators' homes, where they stand at frame 0: the wanderers among them (bee,
alligator, eagle, bear) may come nearer later, which the scripted agent
(``avalon/agent/scripted/avoid.py``) watches for in ``info["animals"]``.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Union

import attr
import numpy as np

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World, tool_entity
from avalon.errors import check_choice
from avalon.rules.animals import PREDATOR_KINDS, animal_spec
from avalon.rules.tools import TOOL_KINDS
from avalon.tasks.kit import ImpossibleWorldError, assembly, geometry, sites
from avalon.tasks.kit.certificate import Certificate, certify
from avalon.tasks.kit.curves import Band
from avalon.tasks.kit.geometry import XZ
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement

#: The predators from easiest to hardest (Table 3's order).
PREDATOR_LADDER: tuple[str, ...] = PREDATOR_KINDS
#: Predators a tool can knock out (hippo and bear are indestructible: ``hits_to_ko`` 0).
DESTRUCTIBLE_PREDATORS: tuple[str, ...] = tuple(kind for kind in PREDATOR_KINDS if animal_spec(kind).hits_to_ko > 0)
#: A predator's home keeps this far beyond its activation radius from the path's start (the
#: spawn, in a single task): none is active when the agent gets there.
SPAWN_GAP_M = 2.0
#: The avoiding route keeps this far beyond each activation radius: its grid (1 m) cuts corners by
#: less than a cell, and the follower's walk strays a little from the line.
ROUTE_MARGIN_M = 1.5
#: Ground predators stand at least this far from water (they never step into it).
WATER_GAP_M = 1.0
#: Bearings drawn for one guard (two draws each: bearing, facing) until it stands no farther from
#: the path than from the centre; round the food of a single task the first always does.
GUARD_BEARING_TRIES = 8
#: The skills a route past predators uses.
WALK = frozenset({"walk"})


def ladder_prefix(ladder: Sequence[str], per_unit: int, difficulty: float) -> tuple[str, ...]:
    """The first ``min(len(ladder), 1 + floor(per_unit * difficulty))`` kinds of ``ladder``."""
    return tuple(ladder[:min(len(ladder), 1 + int(math.floor(per_unit * difficulty)))])


def activation_radius_m(animal: Entity) -> float:
    """The radius within which ``animal`` activates: its own override, else its species'."""
    value = animal.param("activation_radius_m", None)
    return float(animal_spec(animal.kind).activation_radius_m if value is None else value)


def predators(world: World) -> tuple[Entity, ...]:
    """The predators of ``world`` in scene order."""
    return tuple(animal for animal in world.animals if animal_spec(animal.kind).is_predator)


def keep_out_discs(world: World, margin_m: float = ROUTE_MARGIN_M) -> list[tuple[float, float, float]]:
    """(x, z, radius) per predator of ``world``: its home and its activation radius plus ``margin_m``."""
    return [(animal.position[0], animal.position[2], activation_radius_m(animal) + margin_m) for animal in predators(world)]


def certify_avoiding(world: World, food: Entity) -> Certificate:
    """A walking route from the spawn to beside ``food`` that keeps outside every predator's
    activation radius (plus :data:`ROUTE_MARGIN_M`) around its home: the kit's route search
    (:func:`~avalon.tasks.kit.certificate.certify`, walk only, nothing required) with those discs as
    obstacles."""
    return certify(world, food, frozenset(), WALK, keep_out=keep_out_discs(world))


def certify_on_foot(world: World, food: Entity) -> Certificate:
    """A walking route from the spawn to beside ``food``, predators or not."""
    return certify(world, food, frozenset(), WALK)


# --- the knobs and draws ------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class GuardKnobs:
    """The factors of a predator world that the difficulty sets (each task's ``KNOBS`` holds one)."""

    #: Species in use: the first ``min(len(ladder), 1 + floor(species_per_unit * d))`` of the task's ladder.
    species_per_unit: int
    #: How many predators: ``1 + floor(predators_per_unit * d)``.
    predators_per_unit: int
    #: Horizontal distance from the spawn to the food, metres.
    food_distance_m: Band
    #: Angle between the spawn's facing direction and the food, either side, degrees.
    food_bearing_deg: Band
    #: Distance from the food to each predator's home, metres.
    guard_distance_m: Band


def predator_count(knobs: GuardKnobs, difficulty: float) -> int:
    """How many predators guard the food at ``difficulty``."""
    return 1 + int(math.floor(knobs.predators_per_unit * difficulty))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Guards:
    """The guards of a piece as drawn: each one's species and distance from the band's centre, metres."""

    species: tuple[str, ...] = attr.ib(converter=tuple)
    distances_m: tuple[float, ...] = attr.ib(converter=tuple)

    def __attrs_post_init__(self) -> None:
        if not self.species or len(self.species) != len(self.distances_m):
            raise ValueError(f"Guards: expected one distance per species, at least one, got {self}")


def draw_species(rng: np.random.Generator, knobs: GuardKnobs, ladder: Sequence[str], difficulty: float,
                 forced_kind: Optional[str] = None) -> list[str]:
    """The species of the guards at ``difficulty``, drawn uniformly (one draw each) from the first of
    ``ladder``; the first replaced by ``forced_kind`` (which must be on ``ladder``) after its draw."""
    kinds = ladder_prefix(ladder, knobs.species_per_unit, difficulty)
    species = [kinds[int(rng.integers(len(kinds)))] for _ in range(predator_count(knobs, difficulty))]
    if forced_kind is not None:
        species[0] = check_choice(forced_kind, "predator_kind", tuple(ladder))
    return species


def draw_distances(rng: np.random.Generator, count: int, band: tuple[float, float]) -> tuple[float, ...]:
    """``count`` distances drawn uniformly within ``band`` (one draw each), metres."""
    return tuple(float(rng.uniform(*band)) for _ in range(count))


def constraint_band(constraint: Constraint) -> tuple[float, float]:
    """The radii of ``constraint``'s band, metres."""
    return constraint.inner_radius_m, constraint.outer_radius_m


# --- the piece ----------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PredatorSite:
    """Where one predator's home is, and which way it faces."""

    species: str
    x: float
    z: float
    yaw_rad: float

    def entity(self, name: str, ground: HeightMap) -> Entity:
        """The predator standing (or flying its height above) this site: on the highest ground under
        its footprint."""
        spec = animal_spec(self.species)
        xs, zs = footprint_points(self.x, self.z, max(spec.size_m[0], spec.size_m[2]) / 2.0)
        height = max(float(geometry.ground_height(ground, px, pz)) for px, pz in zip(xs, zs))
        return animal_entity(self.species, name, (self.x, height, self.z), self.yaw_rad)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ToolSite:
    """Where one tool lies and how it is turned."""

    kind: str
    name: str
    x: float
    z: float
    yaw_rad: float

    def entity(self, ground: HeightMap) -> Entity:
        """The tool resting on ``ground``."""
        return tool_entity(self.kind, self.name, (self.x, float(geometry.ground_height(ground, self.x, self.z)), self.z),
                           self.yaw_rad)


def footprint_points(x: float, z: float, reach_m: float) -> tuple[np.ndarray, np.ndarray]:
    """(x, z) and eight points ``reach_m`` round it: an animal's footprint."""
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    return np.concatenate([[x], x + reach_m * np.cos(angles)]), np.concatenate([[z], z + reach_m * np.sin(angles)])


def distance_to_path_m(point: XZ, path: Sequence[XZ]) -> float:
    """Horizontal distance from ``point`` to the polyline ``path``, metres."""
    p = np.asarray(point, dtype=np.float64)
    best = math.inf
    for a, b in zip(np.asarray(path[:-1], dtype=np.float64), np.asarray(path[1:], dtype=np.float64)):
        d = b - a
        t = 0.0 if not d.any() else float(np.clip(np.dot(p - a, d) / np.dot(d, d), 0.0, 1.0))
        best = min(best, float(np.hypot(*(p - a - t * d))))
    return best


def guard_site_problem(ground: HeightMap, species: str, x: float, z: float, start: XZ) -> str:
    """Why a ``species`` predator cannot stand at (x, z) (empty when it can): within its activation
    radius plus :data:`SPAWN_GAP_M` of the path's ``start``, outside the world, or (a ground
    animal) with its footprint in or near water."""
    spec = animal_spec(species)
    if math.dist((x, z), start) < spec.activation_radius_m + SPAWN_GAP_M:
        return f"a {species} at ({x:.1f}, {z:.1f}) would be within its activation radius of where the path starts"
    xs, zs = footprint_points(x, z, max(spec.size_m[0], spec.size_m[2]) / 2.0)
    inside = ground.half_size_m - 1.0
    if not bool(np.all((np.abs(xs) <= inside) & (np.abs(zs) <= inside))):
        return f"a {species} at ({x:.1f}, {z:.1f}) would stand outside the world"
    if spec.domain == "ground" and not all(geometry.is_dry_land(ground, px, pz, WATER_GAP_M) for px, pz in zip(xs, zs)):
        return f"a {species} at ({x:.1f}, {z:.1f}) would stand in or near water"
    return ""


def place_guard(rng: np.random.Generator, ground: HeightMap, constraint: Constraint, species: str,
                distance_m: float) -> Union[PredatorSite, str]:
    """The home of a ``species`` predator ``distance_m`` from the constraint's centre, or why it cannot
    be there (:func:`guard_site_problem`): its bearing round the centre and its facing drawn (two
    draws) until it stands no farther from the path than from the centre, up to
    :data:`GUARD_BEARING_TRIES` times."""
    cx, cz = constraint.centre
    for _ in range(GUARD_BEARING_TRIES):
        bearing = float(rng.uniform(-math.pi, math.pi))
        yaw = float(rng.uniform(-math.pi, math.pi))
        x, z = cx + distance_m * math.cos(bearing), cz + distance_m * math.sin(bearing)
        if distance_to_path_m((x, z), constraint.path) <= distance_m + 1e-6:
            break
    else:
        return f"no bearing puts a {species} {distance_m:.1f} m from {constraint.centre} as near the path as the centre"
    problem = guard_site_problem(ground, species, x, z, constraint.path[0])
    return problem or PredatorSite(species=species, x=x, z=z, yaw_rad=yaw)


#: Lays a piece's tools for the fight: ``(rng, ground, start, facing_yaw_rad, guard_count)`` -> the
#: tools' sites by the path's ``start`` ahead of an agent facing ``facing_yaw_rad``, or why they cannot lie there.
ToolLayer = Callable[[np.random.Generator, HeightMap, XZ, float, int], Union[Sequence[ToolSite], str]]


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class GuardPiece:
    """What the predator piece chose: its guards' homes and its tools' places."""

    predator_sites: tuple[PredatorSite, ...]
    tool_sites: tuple[ToolSite, ...] = ()


#: Plants keep this far from each tool, metres.
TOOL_CLEAR_RADIUS_M = 1.0


def guard_obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint, *,
                   knobs: GuardKnobs, ladder: Sequence[str], safe_route: bool, lay_tools: Optional[ToolLayer] = None,
                   guards: Optional[Guards] = None, facing_yaw_rad: Optional[float] = None) -> ObstaclePlan:
    """Predators of ``ladder`` (as many and as hard as ``knobs`` say at ``difficulty``) guarding the
    way across ``constraint``'s band (see the module's docstring), and the tools ``lay_tools`` lays
    by the path's start. ``guards``: the species and distances drawn already (a single task draws
    them from its food stream, before the island); else drawn here from ``streams.sites`` (the
    distances within the band). ``facing_yaw_rad``: the way the agent faces at the path's start
    (default: along the path's first leg). Raises :class:`ImpossibleWorldError` naming the guard or
    tool that cannot stand there."""
    if guards is None:
        species = draw_species(streams.sites, knobs, ladder, difficulty)
        guards = Guards(species=species, distances_m=draw_distances(streams.sites, len(species), constraint_band(constraint)))
    ground = draft.heightmap
    homes = []
    for species, distance in zip(guards.species, guards.distances_m):
        site = place_guard(streams.sites, ground, constraint, species, distance)
        if isinstance(site, str):
            raise ImpossibleWorldError(site)
        homes.append(site)
    tools: Sequence[ToolSite] = ()
    if lay_tools is not None:
        start, ahead = constraint.path[0], constraint.path[1]
        facing = geometry.yaw_towards(start, ahead) if facing_yaw_rad is None else facing_yaw_rad
        tools = lay_tools(streams.sites, ground, start, facing, len(homes))
        if isinstance(tools, str):
            raise ImpossibleWorldError(tools)
    piece = GuardPiece(predator_sites=tuple(homes), tool_sites=tuple(tools))
    keep_out = [(s.x, s.z, animal_spec(s.species).activation_radius_m + ROUTE_MARGIN_M) for s in homes] if safe_route else []
    crossing = Crossing(start=constraint.path[0], end=constraint.path[-1],
                        requirement=Requirement(skills=frozenset(), allowed=WALK, keep_out=keep_out))

    def items(final_ground: HeightMap) -> tuple[Entity, ...]:
        laid = tuple(tool.entity(final_ground) for tool in piece.tool_sites)
        return laid + tuple(site.entity(f"predator_{i}_{site.species}", final_ground)
                            for i, site in enumerate(piece.predator_sites))

    def build(built: Draft) -> Obstacle:
        clear = [(tool.x, tool.z, TOOL_CLEAR_RADIUS_M) for tool in piece.tool_sites]
        return Obstacle(draft=built.with_piece(built.heightmap, keep_clear=clear), crossing=crossing, items=items,
                        detail=piece)

    return ObstaclePlan(constraint=constraint, build=build, detail=piece)


# --- a world whose food predators guard --------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class GuardDraws:
    """What a predator world drew before it looked at the terrain (from the food stream)."""

    guards: Guards
    food_distance_m: float
    food_bearing_rad: float


def draw_guard_world(rng: np.random.Generator, knobs: GuardKnobs, ladder: Sequence[str], difficulty: float,
                     forced_kind: Optional[str] = None) -> GuardDraws:
    """The species (:func:`draw_species`), the food's distance and bearing from the spawn, then each
    predator's distance from the food."""
    species = draw_species(rng, knobs, ladder, difficulty, forced_kind)
    distance = float(rng.uniform(*knobs.food_distance_m.at(difficulty)))
    bearing = math.radians(rng.uniform(*knobs.food_bearing_deg.at(difficulty)))
    bearing *= 1.0 if rng.uniform() < 0.5 else -1.0
    guards = Guards(species=species, distances_m=draw_distances(rng, len(species), knobs.guard_distance_m.at(difficulty)))
    return GuardDraws(guards=guards, food_distance_m=distance, food_bearing_rad=bearing)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class GuardLayout(assembly.TaskLayout):
    """A world whose food predators guard (``world``: the outdoor world with the piece's tools and
    predators added), and what was chosen for it."""

    draws: GuardDraws
    #: The piece as built round the food (its crossing: from the spawn to the food).
    obstacle: Obstacle
    #: The tools the task laid out (entities of the world; they are used on the predators).
    tools: tuple[Entity, ...]

    @property
    def food(self) -> Entity:
        return self.world.food[0]

    @property
    def predator_sites(self) -> tuple[PredatorSite, ...]:
        """Each predator's home (also in the world, as its entities ``predator_<i>_<species>``)."""
        return self.obstacle.detail.predator_sites


#: A predator task's obstacle function (its ``TaskSpec.obstacle``), which takes the guards drawn and
#: the spawn's facing as the keywords ``guards`` and ``facing_yaw_rad`` (see :func:`guard_obstacle`).
GuardObstacle = Callable[..., ObstaclePlan]


def build_guarded_food(rng: np.random.Generator, difficulty: float, config: object | None, *, task: str,
                       knobs: GuardKnobs, ladder: Sequence[str], obstacle: GuardObstacle, food_kind: str,
                       world_size: str, points_per_m: float, max_builds: int,
                       forced_kind: Optional[str] = None) -> GuardLayout:
    """A ``task`` world at ``difficulty``: one ``food_kind`` under its fruit tree, in sight and on foot
    from the spawn, the task's ``obstacle`` placed round it (the band of ``knobs``' guard distances,
    the path from the spawn to the food). Where the piece's requirement keeps out of the predators'
    reach, the world must have such a walking route (:func:`certify_avoiding`). Raises
    ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    draws = draw_guard_world(streams.food, knobs, ladder, difficulty, forced_kind)
    heightmap = assembly.build_island(streams.terrain, config.world_size or world_size, config.points_per_m or points_per_m)
    biome_map = assembly.make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    # Predators change no terrain, so the biomes come first and the piece stands on the eroded island.
    draft = Draft.of_island(ground)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    slopes = geometry.triangle_slopes_deg(ground)
    mask = sites.site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=8.0)
    inner, outer = knobs.guard_distance_m.at(difficulty)

    def fit(spawn: XZ):
        yaw = float(streams.sites.uniform(-math.pi, math.pi))
        dx, dz = geometry.facing_direction(yaw + draws.food_bearing_rad)
        food = (spawn[0] + draws.food_distance_m * dx, spawn[1] + draws.food_distance_m * dz)
        if not bool(ground.contains(*food)) or not geometry.is_dry_land(ground, *food, min_water_distance_m=1.0):
            return f"the food at {food} would not be on dry land"
        if slopes[geometry.triangle_index(ground, *food)] > assembly.FOOD_MAX_SLOPE_DEG:
            return f"the food at {food} would be on ground steeper than {assembly.FOOD_MAX_SLOPE_DEG} degrees"
        tree_site = sites.tree_behind_food(streams.sites, food, spawn, fruit_tree)
        if not sites.fruit_tree_site_ok(ground, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"
        constraint = Constraint(centre=food, inner_radius_m=inner, outer_radius_m=outer, path=(spawn, food))
        try:
            plan = obstacle(draft, streams, difficulty, constraint, guards=draws.guards, facing_yaw_rad=yaw)
        except ImpossibleWorldError as error:
            return str(error)

        def build() -> GuardLayout:
            piece = plan.build(draft)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task=task, difficulty=difficulty, spawn=spawn, spawn_yaw_rad=yaw,
                foods=[assembly.FoodPlacement(kind=food_kind, x=food[0], z=food[1],
                                              yaw_rad=float(streams.food.uniform(-math.pi, math.pi)))],
                tree_site=tree_site, keep_clear=list(piece.draft.keep_clear),
            )
            items = piece.items(ground)
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + items)
            need = piece.crossing.requirement
            if need.keep_out and not certify(world, world.food[0], need.skills, need.allowed, keep_out=need.keep_out).solvable:
                raise ImpossibleWorldError(f"{task}: no walking route to the food keeps out of the predators' reach")
            tools = tuple(item for item in items if item.kind in TOOL_KINDS)
            return GuardLayout(outdoor=outdoor, draws=draws, obstacle=piece, tools=tools, world=world)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, ground, mask, config.site_attempts), fit,
        max_builds=max_builds, failure=f"{task}: no spawn site keeps the guarantees on this island",
    )
