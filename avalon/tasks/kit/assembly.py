"""World assembly: the outdoor task config, one random stream per stage, the island, and the
``World`` built on it with the guarantees every basic task makes.

Every outdoor task follows the same pipeline (see ``docs/tasks/``):

1. :func:`split_streams` splits the task's generator into independent named streams (terrain,
   sites, rings, biomes, tree, scenery, lighting, food), so a change in one stage never shifts
   the random draws of another.
2. :func:`build_island` makes the height map for a world size; the task may cut obstacle rings
   into it (before biomes), then :func:`make_biomes` runs and its eroded height map is used for
   everything after.
3. :func:`assemble_outdoor_world` places the fruit tree and the scenery (keeping discs around the
   spawn, the food and the sight lines clear), puts food on the terrain surface, and checks the
   guarantees every basic task makes: the spawn is on dry walkable land, the food can be seen from
   eye height at the spawn after turning in place, and the food can be reached on foot.

When the random draws produce a world that cannot keep a guarantee, the builder raises
:class:`~avalon.tasks.kit.ImpossibleWorldError`; :func:`avalon.tasks.build_world` then retries
with a derived seed.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.biomes import BiomeConfig, BiomeMap, assign_biomes
from avalon.datagen.environment import random_lighting
from avalon.datagen.obstacles import RingOutline
from avalon.datagen.scenery import (
    FruitTreeConfig,
    FruitTreePlacement,
    SceneryConfig,
    place_fruit_tree,
    place_scenery,
)
from avalon.datagen.terrain import WORLD_SIZES_M, HeightMap, WorldConfig, build_heightmap
from avalon.datagen.world import Entity, Terrain, World, hanging_food_entity
from avalon.errors import is_number_in
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.geometry import (
    XZ,
    KeepClear,
    component_labels,
    ground_height,
    is_dry_land,
    triangle_index,
    triangle_slopes_deg,
    walkable_grid,
    wrap_angle,
)
from avalon.tasks.kit.sight import eye_position, line_of_sight, scenery_occluders
from avalon.tasks.kit.sites import corridor_discs

#: Five minutes at 10 steps per second: the time limit of every basic task but stack, carry and
#: explore (paper, Appendix G.3).
TIME_LIMIT_FRAMES = 5 * 60 * mechanics.STEPS_PER_SECOND
#: No plant's footprint comes closer to the spawn than this, metres (the body has radius 0.4 m).
SPAWN_CLEAR_RADIUS_M = 1.5
#: Nor closer to a food item than this, metres.
FOOD_CLEAR_RADIUS_M = 1.0
#: Food rests on terrain triangles at most this steep, degrees.
FOOD_MAX_SLOPE_DEG = 20.0
#: Food hanging in the fruit tree keeps at least this gap to the trunk and to the canopy's edge, metres.
HANGING_FOOD_TRUNK_GAP_M = 0.1


# --- configuration -------------------------------------------------------------------------------


def _check_world_size(instance, attribute, value) -> None:
    if value is None:
        return
    if isinstance(value, str):
        if value not in WORLD_SIZES_M:
            raise ValueError(
                f"OutdoorTaskConfig.world_size={value!r}: expected None, one of {sorted(WORLD_SIZES_M)} or metres"
            )
        return
    if not is_number_in(value, low=16):
        raise ValueError(f"OutdoorTaskConfig.world_size={value!r}: expected None, a size name or at least 16 metres")


def _check_optional_positive(instance, attribute, value) -> None:
    if value is not None:
        check.between(0.25, 8.0)(instance, attribute, value)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class OutdoorTaskConfig:
    """What an outdoor task may vary besides difficulty. ``None`` lets the task choose."""

    #: World size: a name of ``WORLD_SIZES_M`` or the side in metres (``None``: the task's choice,
    #: large enough for its distances).
    world_size: Optional[Union[str, float]] = attr.ib(default=None, validator=_check_world_size)
    #: Height-map grid points per metre (``None``: the task's choice; narrow paths need 2).
    points_per_m: Optional[float] = attr.ib(default=None, validator=_check_optional_positive)
    #: Vary sun, sky and fog per world (the benchmark keeps them fixed, paper Section 4).
    vary_lighting: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))
    #: Multiplies every plant density (0 = bare islands).
    scenery_density_scale: float = attr.ib(default=1.0, validator=check.between(0.0, 10.0))
    #: Episode length limit in frames (10 frames per simulated second).
    time_limit_frames: int = attr.ib(default=TIME_LIMIT_FRAMES, validator=check.int_between(1, 10**7))
    #: Candidate sites a task tries on one terrain before giving up on it.
    site_attempts: int = attr.ib(default=40, validator=check.int_between(1, 10_000))
    biomes: BiomeConfig = attr.ib(factory=BiomeConfig, validator=attr.validators.instance_of(BiomeConfig))
    scenery: SceneryConfig = attr.ib(factory=SceneryConfig, validator=attr.validators.instance_of(SceneryConfig))


def resolve_config(config: object | None) -> OutdoorTaskConfig:
    """``config`` itself, or the defaults for ``None``; anything else is a ``TypeError``."""
    if config is None:
        return OutdoorTaskConfig()
    if not isinstance(config, OutdoorTaskConfig):
        raise TypeError(f"config {config!r}: expected an OutdoorTaskConfig or None")
    return config


def scaled_scenery(config: OutdoorTaskConfig) -> SceneryConfig:
    """The scenery config with every plant density multiplied by ``scenery_density_scale``."""
    scale = config.scenery_density_scale
    if scale == 1.0:
        return config.scenery
    flora = tuple(
        attr.evolve(f, density_per_100m2=tuple((b, d * scale) for b, d in f.density_per_100m2))
        for f in config.scenery.flora
    )
    return attr.evolve(config.scenery, flora=flora)


# --- random streams ------------------------------------------------------------------------------

STREAM_NAMES = ("terrain", "sites", "rings", "biomes", "tree", "scenery", "lighting", "food")


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Streams:
    """Independent generators for the stages of world building (seeded from the task's generator)."""

    terrain: np.random.Generator
    sites: np.random.Generator
    rings: np.random.Generator
    biomes: np.random.Generator
    tree: np.random.Generator
    scenery: np.random.Generator
    lighting: np.random.Generator
    food: np.random.Generator


def split_streams(rng: np.random.Generator) -> Streams:
    """One generator per stage, each seeded by one 63-bit draw from ``rng`` (in ``STREAM_NAMES`` order)."""
    seeds = rng.integers(0, 2**63 - 1, size=len(STREAM_NAMES), dtype=np.int64)
    return Streams(**{name: np.random.default_rng(int(seed)) for name, seed in zip(STREAM_NAMES, seeds)})


# --- terrain -------------------------------------------------------------------------------------


def world_config(size: Union[str, float], points_per_m: float, **overrides) -> WorldConfig:
    """``WorldConfig.for_size`` at ``points_per_m``, with the fractal's coarsest lattice kept at 64 m;
    ``overrides`` replace any other field."""
    iterations = 6 + int(round(math.log2(points_per_m)))
    fields = dict(points_per_m=float(points_per_m), fractal_iteration_count=max(1, iterations))
    fields.update(overrides)
    return WorldConfig.for_size(size, **fields)


def build_island(rng: np.random.Generator, size: Union[str, float], points_per_m: float, **overrides) -> HeightMap:
    """The island height map of a size (see :func:`world_config`)."""
    return build_heightmap(rng, world_config(size, points_per_m, **overrides))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class IslandShape:
    """The island a task builds unless its config says otherwise (an ``OutdoorTaskConfig``'s
    ``world_size`` and ``points_per_m`` override the size and the grid), and the terrain defaults
    it changes (:func:`world_config`'s fields; None: the size's own)."""

    #: A named size ("small", "medium", ...) or the island's side, metres.
    size: Union[str, float] = "small"
    #: Height-map grid points per metre.
    points_per_m: float = 1.0
    #: Pools carved into the island.
    pool_count: Optional[int] = None
    #: Hills raised on it.
    hill_count: Optional[int] = None
    #: The coarsest noise amplitude, metres (the terrain's default is 1.5).
    initial_noise_scale_m: Optional[float] = None

    def build(self, rng: np.random.Generator, config: OutdoorTaskConfig) -> HeightMap:
        """The island drawn from ``rng`` (the terrain stream), ``config``'s size and grid where it sets them."""
        overrides = {name: value for name, value in (("pool_count", self.pool_count), ("hill_count", self.hill_count),
                                                     ("initial_noise_scale_m", self.initial_noise_scale_m))
                     if value is not None}
        return build_island(rng, config.world_size or self.size, config.points_per_m or self.points_per_m, **overrides)


def make_biomes(
    rng: np.random.Generator,
    heightmap: HeightMap,
    config: OutdoorTaskConfig,
    climbable: np.ndarray | None = None,
    unclimbable: np.ndarray | None = None,
) -> BiomeMap:
    """Biomes of a (ring-shaped) height map; use the result's ``heightmap`` from now on."""
    return assign_biomes(rng, heightmap, config.biomes, climbable_mask=climbable, unclimbable_mask=unclimbable)


# --- the world -----------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FoodPlacement:
    """A food item to put on the ground, or with ``hanging`` to hang in the fruit tree above (x, z)
    (see ``avalon.datagen.world.hanging_food_entity``): its kind, its (x, z) and its yaw."""

    kind: str = attr.ib(validator=attr.validators.in_(tuple(FOOD_RADIUS_M)))
    x: float
    z: float
    yaw_rad: float = 0.0
    hanging: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class OutdoorLayout:
    """A finished outdoor world and what the builder knows about it (for tasks and tests)."""

    world: World
    biome_map: BiomeMap
    #: Walkable triangles of the final terrain (see :func:`walkable_grid`).
    walkable: np.ndarray = attr.ib(repr=False)
    tree: Optional[FruitTreePlacement]
    #: Scenery instances removed because they hid the food from the spawn.
    removed_occluders: int

    @property
    def heightmap(self) -> HeightMap:
        return self.biome_map.heightmap


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class TaskLayout:
    """A task's world as its generator built it; each task's layout adds what difficulty chose for it."""

    #: The island, its scenery, spawn and food as assembled.
    outdoor: OutdoorLayout
    #: The world itself: the outdoor world, with the items the task added after assembling it (if any).
    world: World = attr.ib(default=attr.Factory(lambda layout: layout.outdoor.world, takes_self=True))


def ground_apple(streams: Streams, food: tuple[float, float]) -> list[FoodPlacement]:
    """A task's one food: the canonical apple on the ground at ``food`` (x, z), its yaw drawn from
    ``streams.sites``."""
    return [FoodPlacement(kind="apple", x=food[0], z=food[1], yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]


def _hanging_food(
    food: FoodPlacement, name: str, ground: HeightMap, tree: Optional[FruitTreePlacement], config: FruitTreeConfig
) -> Entity:
    """The entity of a food hanging from ``tree``'s canopy above (food.x, food.z)."""
    if tree is None:
        raise ValueError(f"{name} ({food.kind}) is to hang in the fruit tree, but the world has no fruit tree")
    tx, ty, tz = tree.tree.position
    scale = tree.tree.scale
    radius = FOOD_RADIUS_M[food.kind]
    reach = math.hypot(food.x - tx, food.z - tz)
    nearest = config.trunk_radius_m * scale + radius + HANGING_FOOD_TRUNK_GAP_M
    farthest = config.canopy_radius_m * scale - radius - HANGING_FOOD_TRUNK_GAP_M
    if not nearest <= reach <= farthest:
        raise ImpossibleWorldError(
            f"{name} would hang {reach:.2f} m from the fruit tree's trunk: expected {nearest:.2f} to {farthest:.2f} m"
        )
    try:
        return hanging_food_entity(
            food.kind, name, (food.x, ground_height(ground, food.x, food.z), food.z),
            branch_height_m=ty + config.canopy_bottom_m * scale, yaw_rad=food.yaw_rad,
        )
    except ValueError as error:
        raise ImpossibleWorldError(str(error)) from error


def assemble_outdoor_world(
    streams: Streams,
    config: OutdoorTaskConfig,
    biome_map: BiomeMap,
    *,
    task: str,
    difficulty: float,
    spawn: XZ,
    spawn_yaw_rad: float,
    foods: Sequence[FoodPlacement],
    tree_site: Optional[XZ],
    keep_clear: Sequence[KeepClear] = (),
    exclude_mask: Optional[np.ndarray] = None,
    ring_outlines: Sequence[RingOutline] = (),
    food_in_sight: bool = True,
    clear_sight_lines: bool = True,
    food_on_foot: bool = True,
) -> OutdoorLayout:
    """Place the fruit tree, scenery and food on ``biome_map``'s (eroded) terrain and check the guarantees.

    Food rests on the terrain surface (centre one radius above it), or, when ``hanging``, hangs
    from the fruit tree's canopy above that point with its lowest point
    ``HANGING_FOOD_CLEARANCE_M`` above the surface (under the canopy, clear of the trunk). Plants keep clear of the
    spawn, the food, the tree and ``keep_clear`` discs, stay off ``exclude_mask`` cells, and any
    plant still hiding a food from the spawn is removed. Raises :class:`ImpossibleWorldError`
    unless the spawn is on dry walkable land, every food is on dry land, visible from the spawn at
    eye height and reachable on foot over triangles gentler than ``WALKABLE_SLOPE_DEG``. A task
    whose obstacle hides the food (``food_in_sight=False``: a cliff's top) or whose food takes a
    skill to reach (``food_on_foot=False``: a jump, a climb, a fall; it proves the way with a
    solvability certificate) skips that check. With ``clear_sight_lines`` False as well (explore
    hides its food), sight is not cleared either: no plant-free corridor to the food, no plant
    removed for hiding it; the task checks what it promises itself.
    """
    ground = biome_map.heightmap
    scenery_config = scaled_scenery(config)

    if not is_dry_land(ground, *spawn, min_water_distance_m=1.0):
        raise ImpossibleWorldError(f"spawn {spawn} is not on dry land")
    spawn_position = (spawn[0], ground_height(ground, *spawn), spawn[1])
    eye = eye_position(spawn_position)

    tree: Optional[FruitTreePlacement] = None
    discs: list[KeepClear] = [(spawn[0], spawn[1], SPAWN_CLEAR_RADIUS_M), *keep_clear]
    if tree_site is not None:
        try:
            tree = place_fruit_tree(streams.tree, ground, tree_site[0], tree_site[1], scenery_config.fruit_tree, food_count=0)
        except ValueError as error:
            raise ImpossibleWorldError(f"no fruit tree at {tree_site}: {error}") from error
        trunk = scenery_config.fruit_tree.trunk_radius_m * tree.tree.scale
        if math.dist(spawn, tree_site) < SPAWN_CLEAR_RADIUS_M + trunk:
            raise ImpossibleWorldError(f"the fruit tree at {tree_site} stands on the spawn")
        discs.append(tree.keep_clear)

    entities: list[Entity] = []
    slopes = triangle_slopes_deg(ground)
    for index, food in enumerate(foods):
        if not is_dry_land(ground, food.x, food.z, min_water_distance_m=0.5):
            raise ImpossibleWorldError(f"food at ({food.x:.2f}, {food.z:.2f}) is not on dry land")
        if slopes[triangle_index(ground, food.x, food.z)] > FOOD_MAX_SLOPE_DEG:
            raise ImpossibleWorldError(f"food at ({food.x:.2f}, {food.z:.2f}) is on ground steeper than {FOOD_MAX_SLOPE_DEG} degrees")
        radius = FOOD_RADIUS_M[food.kind]
        if food.hanging:
            entities.append(_hanging_food(food, f"food_{index}", ground, tree, scenery_config.fruit_tree))
        else:
            position = (food.x, ground_height(ground, food.x, food.z) + radius, food.z)
            entities.append(
                Entity(kind=food.kind, name=f"food_{index}", position=position, yaw_rad=food.yaw_rad, params={"radius": radius})
            )
        discs.append((food.x, food.z, FOOD_CLEAR_RADIUS_M))
        if clear_sight_lines:
            discs.extend(corridor_discs(spawn, (food.x, food.z), 1.0))

    plants = place_scenery(streams.scenery, ground, biome_map, scenery_config, discs, exclude_mask=exclude_mask)
    hiding = np.zeros(len(plants), dtype=bool)
    if clear_sight_lines:
        occluders = scenery_occluders(plants)
        for entity in entities:
            hiding[occluders.owner[occluders.blocking(eye, entity.position)]] = True
        plants = tuple(p for p, hide in zip(plants, hiding) if not hide)
    scenery = plants + ((tree.tree,) if tree is not None else ())

    if food_in_sight:
        everything = scenery_occluders(scenery)
        for entity in entities:
            if not line_of_sight(ground, eye, entity.position, everything):
                raise ImpossibleWorldError(f"{entity.name} ({entity.kind}) cannot be seen from the spawn")

    walkable = walkable_grid(ground)
    labels = component_labels(walkable)
    start = labels[triangle_index(ground, *spawn)]
    if start < 0:
        raise ImpossibleWorldError(f"spawn {spawn} is on ground too steep to walk")
    for entity in entities if food_on_foot else ():
        goal = labels[triangle_index(ground, entity.position[0], entity.position[2])]
        if goal != start:
            raise ImpossibleWorldError(f"{entity.name} cannot be reached on foot from the spawn")

    world = World(
        task=task,
        difficulty=difficulty,
        seed=0,  # build_world records the requested seed
        ground=Terrain(biome_map=biome_map, ring_outlines=tuple(ring_outlines)),
        entities=tuple(entities),
        scenery=scenery,
        spawn_position=spawn_position,
        spawn_yaw_rad=float(wrap_angle(spawn_yaw_rad)),
        time_limit_frames=config.time_limit_frames,
        lighting=random_lighting(streams.lighting, config.vary_lighting),
    )
    return OutdoorLayout(
        world=world, biome_map=biome_map, walkable=walkable, tree=tree, removed_occluders=int(hiding.sum())
    )
