"""Predators around the food: where they stand, and a walking route that keeps out of their reach.

Shared by the predator tasks (``avoid``, ``fight``): the species ladder they draw from (Table 3,
easiest first), the placement of each predator's home a drawn distance and bearing from the food
(:func:`predator_site`, which says why a site does not do), and the route certificate that keeps
the body outside every predator's activation radius (:func:`certify_avoiding`, the kit's route
search with each predator's disc as an obstacle). The discs are the predators' homes, where they
stand at frame 0: the wanderers among them (bee, alligator, eagle, bear) may come nearer later,
which the scripted agent (``avalon/agent/scripted/avoid.py``) watches for in ``info["animals"]``.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence, Union

import attr
import numpy as np

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World
from avalon.errors import check_choice
from avalon.rules.animals import PREDATOR_KINDS, animal_spec
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    FOOD_MAX_SLOPE_DEG,
    FoodPlacement,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    resolve_config,
    scaled_scenery,
    split_streams,
)
from avalon.tasks.kit.certificate import Certificate, certify
from avalon.tasks.kit.curves import Band
from avalon.tasks.kit.geometry import XZ, facing_direction, ground_height, is_dry_land, triangle_index, triangle_slopes_deg
from avalon.tasks.kit.sites import build_at_first_fitting_site, candidate_points, fruit_tree_site_ok, site_mask, tree_behind_food

#: The predators from easiest to hardest (Table 3's order).
PREDATOR_LADDER: tuple[str, ...] = PREDATOR_KINDS
#: Predators a tool can knock out (hippo and bear are indestructible: ``hits_to_ko`` 0).
DESTRUCTIBLE_PREDATORS: tuple[str, ...] = tuple(kind for kind in PREDATOR_KINDS if animal_spec(kind).hits_to_ko > 0)
#: A predator's home keeps this far beyond its activation radius from the spawn: none is active at frame 0.
SPAWN_GAP_M = 2.0
#: The avoiding route keeps this far beyond each activation radius: its grid (1 m) cuts corners by
#: less than a cell, and the follower's walk strays a little from the line.
ROUTE_MARGIN_M = 1.5
#: Ground predators stand at least this far from water (they never step into it).
WATER_GAP_M = 1.0


def ladder_prefix(ladder: Sequence[str], per_unit: int, difficulty: float) -> tuple[str, ...]:
    """The first ``min(len(ladder), 1 + floor(per_unit * difficulty))`` kinds of ``ladder``."""
    return tuple(ladder[:min(len(ladder), 1 + int(math.floor(per_unit * difficulty)))])


def draw_species(rng: np.random.Generator, kinds: Sequence[str], count: int) -> list[str]:
    """``count`` species drawn uniformly (with replacement) from ``kinds``: one draw each."""
    return [kinds[int(rng.integers(len(kinds)))] for _ in range(count)]


def activation_radius_m(animal: Entity) -> float:
    """The radius within which ``animal`` activates: its own override, else its species'."""
    value = animal.param("activation_radius_m", None)
    return float(animal_spec(animal.kind).activation_radius_m if value is None else value)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PredatorSite:
    """Where one predator's home is: the ground point under it, and which way it faces."""

    species: str
    x: float
    y: float
    z: float
    yaw_rad: float

    def entity(self, name: str) -> Entity:
        """The predator standing (or flying its height above) this site."""
        return animal_entity(self.species, name, (self.x, self.y, self.z), self.yaw_rad)


def predator_site(ground: HeightMap, species: str, food: XZ, spawn: XZ, distance_m: float, bearing_rad: float,
                  yaw_rad: float) -> Union[PredatorSite, str]:
    """The home of a ``species`` predator ``distance_m`` from ``food`` at ``bearing_rad`` (world
    angle about y from +x towards +z), or why it cannot be there: outside the world, a ground
    animal's footprint in or near water, or nearer the spawn than its activation radius plus
    :data:`SPAWN_GAP_M`. It stands on the highest ground under its footprint."""
    spec = animal_spec(species)
    x, z = food[0] + distance_m * math.cos(bearing_rad), food[1] + distance_m * math.sin(bearing_rad)
    if math.dist((x, z), spawn) < spec.activation_radius_m + SPAWN_GAP_M:
        return f"a {species} at ({x:.1f}, {z:.1f}) would be within its activation radius of the spawn"
    reach = max(spec.size_m[0], spec.size_m[2]) / 2.0
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    xs = np.concatenate([[x], x + reach * np.cos(angles)])
    zs = np.concatenate([[z], z + reach * np.sin(angles)])
    inside = ground.half_size_m - 1.0
    if not bool(np.all((np.abs(xs) <= inside) & (np.abs(zs) <= inside))):
        return f"a {species} at ({x:.1f}, {z:.1f}) would stand outside the world"
    if spec.domain == "ground" and not all(is_dry_land(ground, px, pz, WATER_GAP_M) for px, pz in zip(xs, zs)):
        return f"a {species} at ({x:.1f}, {z:.1f}) would stand in or near water"
    height = max(float(ground_height(ground, px, pz)) for px, pz in zip(xs, zs))
    return PredatorSite(species=species, x=float(x), y=height, z=float(z), yaw_rad=float(yaw_rad))


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
    return certify(world, food, frozenset(), frozenset({"walk"}), keep_out=keep_out_discs(world))


def certify_on_foot(world: World, food: Entity) -> Certificate:
    """A walking route from the spawn to beside ``food``, predators or not."""
    return certify(world, food, frozenset(), frozenset({"walk"}))


# --- a world whose food predators guard ------------------------------------------------------------


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
class GuardDraws:
    """What a predator world drew before it looked at the terrain (from the food stream)."""

    species: tuple[str, ...]
    food_distance_m: float
    food_bearing_rad: float
    guard_distances_m: tuple[float, ...]


def draw_guards(rng: np.random.Generator, knobs: GuardKnobs, ladder: Sequence[str], difficulty: float,
                forced_kind: Optional[str] = None) -> GuardDraws:
    """The species (the first replaced by ``forced_kind``, which must be on ``ladder``, after its
    draw), the food's distance and bearing and each predator's distance from the food."""
    kinds = ladder_prefix(ladder, knobs.species_per_unit, difficulty)
    species = draw_species(rng, kinds, predator_count(knobs, difficulty))
    if forced_kind is not None:
        species[0] = check_choice(forced_kind, "predator_kind", tuple(ladder))
    distance = float(rng.uniform(*knobs.food_distance_m.at(difficulty)))
    bearing = math.radians(rng.uniform(*knobs.food_bearing_deg.at(difficulty)))
    bearing *= 1.0 if rng.uniform() < 0.5 else -1.0
    guards = tuple(float(rng.uniform(*knobs.guard_distance_m.at(difficulty))) for _ in species)
    return GuardDraws(species=tuple(species), food_distance_m=distance, food_bearing_rad=bearing, guard_distances_m=guards)


def place_guards(rng: np.random.Generator, ground: HeightMap, draws: GuardDraws, food: XZ,
                 spawn: XZ) -> Union[list[PredatorSite], str]:
    """Each predator's home around ``food`` at its drawn distance and a bearing drawn here (two
    draws each: bearing, facing), or why one cannot stand there (:func:`predator_site`)."""
    sites = []
    for species, distance in zip(draws.species, draws.guard_distances_m):
        bearing = float(rng.uniform(-math.pi, math.pi))
        site = predator_site(ground, species, food, spawn, distance, bearing, float(rng.uniform(-math.pi, math.pi)))
        if isinstance(site, str):
            return site
        sites.append(site)
    return sites


def with_predators(world: World, sites: Sequence[PredatorSite]) -> World:
    """``world`` with one predator per site, named ``predator_<i>_<species>``."""
    for index, site in enumerate(sites):
        world = world.add_animal(site.entity(f"predator_{index}_{site.species}"))
    return world


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class GuardLayout:
    """A world whose food predators guard, and what was chosen for it."""

    outdoor: OutdoorLayout
    draws: GuardDraws
    #: Each predator's home (also in the world, as its entities ``predator_<i>_<species>``).
    predator_sites: tuple[PredatorSite, ...]
    #: The tools the task laid out (entities of the world; they are used on the predators at ``predator_sites``).
    tools: tuple[Entity, ...] = ()
    #: The world itself (the outdoor world with predators and tools added).
    world: World

    @property
    def food(self) -> Entity:
        return self.world.food[0]


#: Lays a task's tools for a spawn facing ``yaw`` with the food at ``food``: (rng, ground, spawn,
#: yaw, food) -> entities, or why they cannot lie there.
ToolLayer = Callable[[np.random.Generator, HeightMap, XZ, float, XZ], Union[Sequence[Entity], str]]


def build_guarded_food(rng: np.random.Generator, difficulty: float, config: object | None, *, task: str,
                       knobs: GuardKnobs, ladder: Sequence[str], food_kind: str, world_size: str,
                       points_per_m: float, max_builds: int, forced_kind: Optional[str] = None,
                       safe_route: bool = False, lay_tools: Optional[ToolLayer] = None) -> GuardLayout:
    """A ``task`` world at ``difficulty``: one ``food_kind`` under its fruit tree, in sight and on foot
    from the spawn, ``knobs``' predators of ``ladder`` around it, and the tools ``lay_tools`` lays.
    With ``safe_route`` the world must have a walking route outside every predator's activation
    radius (:func:`certify_avoiding`). Raises ``ImpossibleWorldError`` if the terrain offers no
    place that keeps the guarantees."""
    config = resolve_config(config)
    streams = split_streams(rng)
    draws = draw_guards(streams.food, knobs, ladder, difficulty, forced_kind)
    heightmap = build_island(streams.terrain, config.world_size or world_size, config.points_per_m or points_per_m)
    biome_map = make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    fruit_tree = scaled_scenery(config).fruit_tree
    slopes = triangle_slopes_deg(ground)
    mask = site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=8.0)

    def fit(spawn: XZ):
        yaw = float(streams.sites.uniform(-math.pi, math.pi))
        dx, dz = facing_direction(yaw + draws.food_bearing_rad)
        food = (spawn[0] + draws.food_distance_m * dx, spawn[1] + draws.food_distance_m * dz)
        if not bool(ground.contains(*food)) or not is_dry_land(ground, *food, min_water_distance_m=1.0):
            return f"the food at {food} would not be on dry land"
        if slopes[triangle_index(ground, *food)] > FOOD_MAX_SLOPE_DEG:
            return f"the food at {food} would be on ground steeper than {FOOD_MAX_SLOPE_DEG} degrees"
        tree_site = tree_behind_food(streams.sites, food, spawn, fruit_tree)
        if not fruit_tree_site_ok(ground, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"
        sites = place_guards(streams.sites, ground, draws, food, spawn)
        if isinstance(sites, str):
            return sites
        tools: Sequence[Entity] = ()
        if lay_tools is not None:
            tools = lay_tools(streams.sites, ground, spawn, yaw, food)
            if isinstance(tools, str):
                return tools

        def build() -> GuardLayout:
            keep_clear = [(t.position[0], t.position[2], 1.0) for t in tools]
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task=task, difficulty=difficulty, spawn=spawn, spawn_yaw_rad=yaw,
                foods=[FoodPlacement(kind=food_kind, x=food[0], z=food[1],
                                     yaw_rad=float(streams.food.uniform(-math.pi, math.pi)))],
                tree_site=tree_site, keep_clear=keep_clear,
            )
            world = with_predators(attr.evolve(outdoor.world, entities=outdoor.world.entities + tuple(tools)), sites)
            if safe_route and not certify_avoiding(world, world.food[0]).solvable:
                raise ImpossibleWorldError(f"{task}: no walking route to the food keeps out of the predators' reach")
            return GuardLayout(outdoor=outdoor, draws=draws, predator_sites=tuple(sites), tools=tuple(tools), world=world)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, ground, mask, config.site_attempts), fit,
        max_builds=max_builds, failure=f"{task}: no spawn site keeps the guarantees on this island",
    )
