"""The ``explore`` task (outdoor): the food lies out of sight of the spawn; find it.

Paper, Appendix F.1: "In explore, fruit cannot be seen from where the agent spawns. Thus, the
agent must explore the terrain in order to find the fruit... In the outdoor variant, as difficulty
increases, the world gets larger and the terrain rockier, making it more difficult to spot and
reach the fruit." Difficulty sets every factor through :data:`KNOBS` (:class:`ExploreKnobs`, the
table below; ``docs/tasks/explore.md`` quotes it):

- the world: a Small island (64 m) at d = 0 growing to a Large one (256 m) at d = 1, in steps of
  32 m, with more mountains, more rugged mountains and bumpier ground (rockier);
- the distance from the spawn to the food: 8-12 m at d = 0, 60-90 m at d = 1;
- where the food is relative to the way the agent faces: straight ahead (behind the hill) at
  d = 0, anywhere at 1.

The food (an apple, under a fruit tree) is hidden by the terrain: from the spawn's eyes, standing
tall and turning in place, every sight line to any part of the apple passes under the ground
(:func:`hidden_by_terrain`, at every level of detail the simulator draws). Where the island's
own hills and mountains do not hide it, the generator raises a round walkable hill between the
spawn and the food, which then lies at the hill's far foot (:class:`Hill`). Plants are not relied
on to hide it (the sight model bounds them by cylinders, which may see through leaves).

Every world is certified (``TASK.certificate``): the food is reached from the spawn on foot
(``ROUTE_SKILLS``: walking only, with the route's margins) and the certificate's route is the
scripted agent's reference path (an explorer who knows the map). Nothing is required, so nothing
can be bypassed.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.export.terrain_data import LOD_STEPS
from avalon.datagen.noise import smoothstep
from avalon.datagen.terrain import WORLD_SIZES_M, HeightMap
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError, assembly, geometry, sites
from avalon.tasks.kit.certificate import Certificate, certify, require_certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ExploreKnobs:
    """Every factor of an explore world that the difficulty d in [0, 1] sets (docs/tasks/explore.md quotes it).

    Bands are drawn from uniformly.
    """

    #: Side of the square world, metres, rounded down to a multiple of 32 m (64 m, Small, at d = 0;
    #: 256 m, Large, at 1).
    world_size_m: Ramp = Ramp(64.0, 192.0)
    #: Horizontal spawn-to-food distance, metres (8-12 m at d = 0, 60-90 m at 1).
    food_distance_m: Band = Band(Ramp(8.0, 52.0), Ramp(12.0, 78.0))
    #: Mountains per hectare of world, rounded to the nearest whole mountain (none at d = 0, about
    #: 5 on a Large island at 1).
    mountains_per_hectare: Ramp = Ramp(0.0, 0.8)
    #: Standard deviation of the rugged noise on the mountains at their summits, metres (1.5 to 3).
    mountain_roughness_m: Ramp = Ramp(1.5, 1.5)
    #: Standard deviation of the ground's coarsest (64 m) noise, metres (1.5 to 3): bumpier lowland.
    ground_roughness_m: Ramp = Ramp(1.5, 1.5)
    #: The direction to the food lies within this angle of the spawn's facing direction, either
    #: side, degrees (it is out of sight either way).
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 180 s at 1): a few
    #: times what finding and walking to food 10-90 m away takes.
    training_time_limit_s: Ramp = Ramp(30.0, 150.0)


#: The explore task's difficulty curves.
KNOBS = ExploreKnobs()
#: World sides are multiples of this, metres: the grid then splits into the exporter's chunks and
#: levels of detail exactly (every level's points are every 1st, 2nd or 4th grid point).
WORLD_SIZE_STEP_M = 32.0
#: Height-map grid points per metre.
POINTS_PER_M = 1.0
#: Ten minutes at 10 steps per second: explore's evaluation time limit (paper, Appendix G.3).
EXPLORE_TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND
#: The skills a route may use: the food is reached on foot.
ROUTE_SKILLS = frozenset({"walk"})
#: The terrain rises at least this far above every sight line from the spawn's eyes to the food, metres.
HIDDEN_MARGIN_M = 0.2
#: The sight lines start this high above the spawn's feet: the agent standing tall, metres (a
#: lower eye sees less past a crest).
HIDDEN_EYE_HEIGHT_M = mechanics.HEAD_MAX_HEIGHT_M
#: Sight lines end at the centre and at this many points round the rim of the top of the food's
#: bounding cylinder (every point of the food lies below one of them).
FOOD_RIM_POINTS = 8
#: Directions tried for the food around each spawn site.
FOOD_HEADINGS = 8
#: A raised hill: its height per metre of radius (a smooth bump: steepest 1.5 x this, 31 degrees).
HILL_HEIGHT_PER_RADIUS = 0.4
#: ...its radius, metres (the largest that fits between spawn and food, at most this).
HILL_RADIUS_RANGE_M = (3.5, 8.0)
#: ...the food lies this fraction of the radius beyond the hill's centre (on its gentle foot: 12 degrees).
HILL_FOOD_AT = 0.9
#: ...and the spawn at least this far outside the hill's radius, metres.
HILL_SPAWN_GAP_M = 1.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3


def world_size_m(difficulty: float) -> float:
    """Side of the world at ``difficulty``, metres: the knob rounded down to a multiple of ``WORLD_SIZE_STEP_M``."""
    return WORLD_SIZE_STEP_M * math.floor(KNOBS.world_size_m.at(difficulty) / WORLD_SIZE_STEP_M + 1e-9)


def mountain_count(difficulty: float, size_m: float) -> int:
    """Mountains on an island of side ``size_m`` at ``difficulty``."""
    return int(math.floor(KNOBS.mountains_per_hectare.at(difficulty) * size_m * size_m / 10_000.0 + 0.5))


# --- hiding ------------------------------------------------------------------------------------------


def drawn_surfaces(heightmap: HeightMap) -> list[HeightMap]:
    """The terrain at each level of detail the exporter draws (every 1st, 2nd, 4th grid point,
    where the grid divides evenly): what the agent may see of it at any distance."""
    cells = heightmap.shape[0] - 1
    return [
        HeightMap(heights=heightmap.heights[::step, ::step], size_m=heightmap.size_m, water_height_m=heightmap.water_height_m)
        for step in LOD_STEPS
        if cells % step == 0 and cells // step >= 1
    ]


def _sight_targets(food_centre) -> np.ndarray:
    """The centre and rim of the top of the apple's bounding cylinder (x, y, z rows)."""
    x, y, z = (float(v) for v in food_centre)
    radius = FOOD_RADIUS_M["apple"]
    angles = np.arange(FOOD_RIM_POINTS) * (2.0 * math.pi / FOOD_RIM_POINTS)
    rim = np.stack([x + radius * np.cos(angles), np.full_like(angles, y + radius), z + radius * np.sin(angles)], axis=1)
    return np.concatenate([[[x, y + radius, z]], rim])


def hidden_by_terrain(surfaces, eye, food_centre, margin_m: float = HIDDEN_MARGIN_M) -> bool:
    """Whether the terrain hides every part of an apple centred at ``food_centre`` from ``eye``
    (x, y, z): on each sight line some point of the ground, on the lowest of ``surfaces``
    (height maps of one extent), rises at least ``margin_m`` above it."""
    e = np.asarray(eye, dtype=np.float64)
    finest = min(s.cell_size_m for s in surfaces)
    for target in _sight_targets(food_centre):
        d = target - e
        length = math.hypot(d[0], d[2])
        samples = max(2, int(math.ceil(length / (0.25 * finest))))
        t = np.arange(1, samples) / samples
        x, z = e[0] + t * d[0], e[2] + t * d[2]
        ground = np.min([geometry.ground_height(s, x, z) for s in surfaces], axis=0)
        if not np.any(ground >= e[1] + t * d[1] + margin_m):
            return False
    return True


def food_hidden(heightmap: HeightMap, spawn: XZ, food_centre) -> bool:
    """Whether the terrain hides the apple at ``food_centre`` from the spawn's eyes standing tall at
    ``spawn``, at every level of detail the simulator draws."""
    eye = (spawn[0], geometry.ground_height(heightmap, *spawn) + HIDDEN_EYE_HEIGHT_M, spawn[1])
    return hidden_by_terrain(drawn_surfaces(heightmap), eye, food_centre)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Hill:
    """A round bump raised on the terrain: ``height_m`` at ``centre`` falling smoothly to 0 at ``radius_m``."""

    centre: XZ
    radius_m: float = attr.ib(validator=check.positive())
    height_m: float = attr.ib(validator=check.positive())

    def raise_on(self, heightmap: HeightMap) -> HeightMap:
        """``heightmap`` with the hill added (a smoothstep profile, steepest at half the radius)."""
        x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
        u = 1.0 - np.hypot(x - self.centre[0], z - self.centre[1]) / self.radius_m
        return heightmap.with_heights(heightmap.heights + self.height_m * smoothstep(0.0, 1.0, u))


def hill_between(spawn: XZ, food: XZ) -> Optional[Hill]:
    """The hill that hides ``food`` from ``spawn``: the food on its far foot, the spawn off it; None
    when they are too close for the smallest hill."""
    distance = math.dist(spawn, food)
    radius = min(HILL_RADIUS_RANGE_M[1], (distance - HILL_SPAWN_GAP_M) / (1.0 + HILL_FOOD_AT))
    if radius < HILL_RADIUS_RANGE_M[0]:
        return None
    back = HILL_FOOD_AT * radius / distance  # from the food towards the spawn
    centre = (food[0] + (spawn[0] - food[0]) * back, food[1] + (spawn[1] - food[1]) * back)
    return Hill(centre=centre, radius_m=radius, height_m=HILL_HEIGHT_PER_RADIUS * radius)


# --- the task ----------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class ExploreLayout(assembly.TaskLayout):
    """An explore world and the factors difficulty chose for it."""

    #: Horizontal distance from the spawn to the food's centre, metres.
    distance_m: float
    #: The hill raised to hide the food, or None when the island's own terrain hides it.
    hill: Optional[Hill]
    certificate: Certificate


def certify_explore(world: World) -> Certificate:
    """The solvability certificate of an explore world: its food reached from the spawn with
    ``ROUTE_SKILLS`` (nothing required)."""
    return certify(world, world.food[0], frozenset(), ROUTE_SKILLS)


def _food_site_ok(heightmap: HeightMap, slopes: np.ndarray, food: XZ) -> bool:
    if not bool(heightmap.contains(*food)) or not geometry.is_dry_land(heightmap, *food, min_water_distance_m=1.0):
        return False
    return slopes[geometry.triangle_index(heightmap, *food)] <= assembly.FOOD_MAX_SLOPE_DEG


def _apple_centre(heightmap: HeightMap, food: XZ) -> tuple[float, float, float]:
    return (food[0], geometry.ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1])


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> ExploreLayout:
    """The explore world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if
    the terrain offers no place that keeps the guarantees."""
    config = assembly.resolve_config(config)
    if config.time_limit_frames == assembly.TIME_LIMIT_FRAMES:  # the config's default, the other basic tasks' limit
        config = attr.evolve(config, time_limit_frames=EXPLORE_TIME_LIMIT_FRAMES)
    streams = assembly.split_streams(rng)
    size = config.world_size or world_size_m(difficulty)
    size_m = WORLD_SIZES_M[size] if isinstance(size, str) else float(size)
    distance = float(streams.food.uniform(*KNOBS.food_distance_m.at(difficulty)))
    yaw_offset = math.radians(streams.food.uniform(-1.0, 1.0) * KNOBS.max_facing_offset_deg.at(difficulty))
    island = assembly.build_island(
        streams.terrain, size_m, config.points_per_m or POINTS_PER_M,
        mountain_count=mountain_count(difficulty, size_m),
        mountain_roughness_m=KNOBS.mountain_roughness_m.at(difficulty),
        initial_noise_scale_m=KNOBS.ground_roughness_m.at(difficulty),
    )
    mask = sites.site_mask(island, min_water_distance_m=1.5, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=6.0)
    slopes = geometry.triangle_slopes_deg(island)
    labels = geometry.component_labels(geometry.walkable_grid(island))
    fruit_tree = assembly.scaled_scenery(config).fruit_tree

    def fit_spawn_site(spawn: XZ):
        """Why no food can hide ``distance`` from a spawn at ``spawn``, or the build of the world there."""
        start = labels[geometry.triangle_index(island, *spawn)]
        if start < 0:
            return f"the spawn at {spawn} is on ground too steep to walk"
        first = streams.sites.uniform(-math.pi, math.pi)
        reasons = []
        fallback = None
        for k in range(FOOD_HEADINGS):
            heading = first + k * (2.0 * math.pi / FOOD_HEADINGS)
            food = (spawn[0] + distance * math.cos(heading), spawn[1] + distance * math.sin(heading))
            if not _food_site_ok(island, slopes, food) or labels[geometry.triangle_index(island, *food)] != start:
                reasons.append(f"the food at ({food[0]:.1f}, {food[1]:.1f}) would not be on dry, gentle ground walkable from the spawn")
                continue
            if food_hidden(island, spawn, _apple_centre(island, food)):
                return _build(spawn, food, None, island)
            if fallback is None:
                fallback = food
        if fallback is None:
            return reasons[-1]
        hill = hill_between(spawn, fallback)
        if hill is None:
            return f"the food at {fallback} is too close to the spawn at {spawn} for a hill between"
        hilly = hill.raise_on(island)
        if not food_hidden(hilly, spawn, _apple_centre(hilly, fallback)):
            return f"a hill at {hill.centre} does not hide the food at {fallback} from the spawn at {spawn}"
        return _build(spawn, fallback, hill, hilly)

    def _build(spawn: XZ, food: XZ, hill: Optional[Hill], heightmap: HeightMap):
        tree_site = sites.tree_behind_food(streams.sites, food, spawn, fruit_tree)
        if not sites.fruit_tree_site_ok(heightmap, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"

        def build() -> ExploreLayout:
            biome_map = assembly.make_biomes(streams.biomes, heightmap, config)
            ground = biome_map.heightmap
            foods = assembly.ground_apple(streams, food)
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="explore", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=geometry.yaw_towards(spawn, food) - yaw_offset, foods=foods, tree_site=tree_site,
                food_in_sight=False, clear_sight_lines=False,
            )
            if not food_hidden(ground, spawn, outdoor.world.food[0].position):
                raise ImpossibleWorldError(f"explore: the terrain does not hide the food at {food} from the spawn at {spawn}")
            certificate = require_certificate(outdoor.world, outdoor.world.food[0], frozenset(), ROUTE_SKILLS)
            return ExploreLayout(outdoor=outdoor, distance_m=math.dist(spawn, food), hill=hill, certificate=certificate)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, island, mask, config.site_attempts), fit_spawn_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="explore: no spawn site hides the food on this island",
    )


TASK = TaskSpec(
    name="explore", generate=build_layout, knobs=KNOBS, certificate=certify_explore,
    evaluation_time_limit_frames=EXPLORE_TIME_LIMIT_FRAMES, food_visible_from_spawn=False, food_reachable_on_foot=True,
    table_row=14, in_sets_from_version=1, reference_agent=ROUTE_FOLLOWER,
)
