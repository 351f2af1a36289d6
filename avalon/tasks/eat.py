"""The ``eat`` task: food right by the agent, which only has to pick it up and eat it.

Paper, Appendix F.1: "the agent starts in front of the fruit ... As difficulty increases, worlds
contain different types of fruit that must be opened in more complex ways". Difficulty here sets

- the kinds of food: uniformly one of the first ``k(d) = min(10, 1 + floor(10 d))`` kinds of
  :data:`FOOD_LADDER` (apples only below d = 0.1, every kind from d = 0.9); cherries come as a
  cluster of 2 to 4;
- how far away the food is: 1.8 to 2.4 m at d = 0, up to 4.5 m at d = 1 (centre, horizontally);
- where it is relative to the way the agent faces: within 10 degrees at d = 0, between 60 and
  180 degrees to either side at d = 1, so the agent must turn to find it.

The food lies on the ground under a fruit tree that stands behind it (seen from the spawn);
carrots grow anywhere, without a tree. From d = 0.5 the food may instead hang in the fruit tree,
within reach from the ground (``HANGING_FOOD_CLEARANCE_M``): honeycomb always (on the ground it
would get dirty), other fruit with probability ``HANGING_PROBABILITY``, carrots never. Below 0.5
worlds are exactly what they were before hanging food existed (no extra random draws).
Small world (64 m), one grid point per metre.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.scenery import FruitTreeConfig
from avalon.datagen.world import FOOD_KINDS, FOOD_RADIUS_M, World
from avalon.tasks.outdoor import (
    FOOD_MAX_SLOPE_DEG,
    HANGING_FOOD_TRUNK_GAP_M,
    FoodPlacement,
    ImpossibleWorldError,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    candidate_points,
    facing_direction,
    fruit_tree_site_ok,
    ground_height,
    is_dry_land,
    make_biomes,
    resolve_config,
    scaled_scenery,
    site_mask,
    split_streams,
    triangle_index,
    triangle_slopes_deg,
    tree_behind_food,
)

#: Food kinds from easy to hard (every kind of ``FOOD_KINDS``): apple is canonical; cherries
#: come several at once; mulberries are small; a banana gives half the energy; figs splatter;
#: honeycomb gets dirty on the ground; carrots must be pulled out; coconuts, oranges and avocados
#: must be opened (by a force, a rock or a drop).
FOOD_LADDER: tuple[str, ...] = (
    "apple", "cherry", "mulberry", "banana", "fig", "honeycomb", "carrot", "coconut", "orange", "avocado",
)
assert sorted(FOOD_LADDER) == sorted(FOOD_KINDS), "FOOD_LADDER must hold every food kind once"

#: Kinds that grow anywhere (no fruit tree needed).
GROUND_KINDS = frozenset({"carrot"})
#: How many cherries make a cluster (inclusive).
CHERRY_COUNT_RANGE = (2, 4)
#: Cherries lie this far from the cluster's centre, metres.
CHERRY_CLUSTER_RADIUS_M = 0.18
WORLD_SIZE = "small"
POINTS_PER_M = 1.0
#: Full world builds (tree, scenery, checks) tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 4
#: From this difficulty food may hang in the fruit tree instead of lying under it.
HANGING_MIN_DIFFICULTY = 0.5
#: ...with this probability (kinds of ``ALWAYS_HANGING_KINDS`` always hang).
HANGING_PROBABILITY = 0.5
#: Honeycomb gets dirty on touching the ground, so it hangs in the tree wherever food may hang (it
#: is on the ladder only from d = 0.5).
ALWAYS_HANGING_KINDS = frozenset({"honeycomb"})


def food_kinds(difficulty: float) -> tuple[str, ...]:
    """The kinds eat may use at ``difficulty``: the first ``min(10, 1 + floor(10 d))`` of the ladder."""
    count = min(len(FOOD_LADDER), 1 + int(math.floor(len(FOOD_LADDER) * difficulty)))
    return FOOD_LADDER[:count]


def food_hangs(kind: str, difficulty: float, draw: float) -> bool:
    """Whether food of ``kind`` hangs in the fruit tree, given a uniform ``draw`` in [0, 1)."""
    if difficulty < HANGING_MIN_DIFFICULTY or kind in GROUND_KINDS:
        return False
    return kind in ALWAYS_HANGING_KINDS or draw < HANGING_PROBABILITY


def food_distance_range_m(difficulty: float) -> tuple[float, float]:
    """Horizontal distance from the spawn to the food, metres."""
    return 1.8, 2.4 + 2.1 * difficulty


def food_bearing_range_deg(difficulty: float) -> tuple[float, float]:
    """Angle between the facing direction and the food, degrees (either side)."""
    return 60.0 * difficulty, 10.0 + 170.0 * difficulty


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class EatLayout:
    """An eat world and the factors difficulty chose for it."""

    outdoor: OutdoorLayout
    kind: str
    #: Horizontal distance from the spawn to the (first) food's centre, metres.
    distance_m: float
    #: Where the food lies relative to the facing direction, radians (positive: to the left).
    bearing_rad: float
    #: Whether the food hangs in the fruit tree (over the point it would lie on).
    hanging: bool = False

    @property
    def world(self) -> World:
        return self.outdoor.world


def _cluster(kind: str, centre: tuple[float, float], count: int, rng: np.random.Generator, hanging: bool = False) -> list[FoodPlacement]:
    if count == 1:
        return [FoodPlacement(kind=kind, x=centre[0], z=centre[1], yaw_rad=float(rng.uniform(-math.pi, math.pi)), hanging=hanging)]
    start = rng.uniform(0.0, 2.0 * math.pi)
    foods = []
    for i in range(count):
        angle = start + 2.0 * math.pi * i / count
        foods.append(
            FoodPlacement(
                kind=kind,
                x=centre[0] + CHERRY_CLUSTER_RADIUS_M * math.cos(angle),
                z=centre[1] + CHERRY_CLUSTER_RADIUS_M * math.sin(angle),
                yaw_rad=float(rng.uniform(-math.pi, math.pi)),
                hanging=hanging,
            )
        )
    return foods


def _under_canopy(food: FoodPlacement, tree_site: tuple[float, float], fruit_tree: FruitTreeConfig) -> bool:
    """Whether ``food`` can hang from the canopy of a fruit tree at ``tree_site`` whatever its scale
    (see ``outdoor.HANGING_FOOD_TRUNK_GAP_M``)."""
    low, high = fruit_tree.scale_range
    radius = FOOD_RADIUS_M[food.kind]
    reach = math.hypot(food.x - tree_site[0], food.z - tree_site[1])
    nearest = fruit_tree.trunk_radius_m * high + radius + HANGING_FOOD_TRUNK_GAP_M
    return nearest <= reach <= fruit_tree.canopy_radius_m * low - radius - HANGING_FOOD_TRUNK_GAP_M


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> EatLayout:
    """The eat world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees."""
    config = resolve_config(config)
    streams = split_streams(rng)
    # Task factors first, from their own stream, so they do not depend on the terrain.
    kinds = food_kinds(difficulty)
    kind = kinds[int(streams.food.integers(len(kinds)))]
    count = int(streams.food.integers(CHERRY_COUNT_RANGE[0], CHERRY_COUNT_RANGE[1] + 1)) if kind == "cherry" else 1
    distance = float(streams.food.uniform(*food_distance_range_m(difficulty)))
    bearing = math.radians(streams.food.uniform(*food_bearing_range_deg(difficulty)))
    bearing *= 1.0 if streams.food.uniform() < 0.5 else -1.0
    # Drawn only where food may hang, so easier worlds keep every earlier draw and byte.
    hanging = difficulty >= HANGING_MIN_DIFFICULTY and food_hangs(kind, difficulty, float(streams.food.uniform()))

    heightmap = build_island(streams.terrain, config.world_size or WORLD_SIZE, config.points_per_m or POINTS_PER_M)
    biome_map = make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    fruit_tree = scaled_scenery(config).fruit_tree
    slopes = triangle_slopes_deg(ground)
    mask = site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=8.0)

    failures: list[str] = []
    assemblies = 0
    for spawn in candidate_points(streams.sites, ground, mask, config.site_attempts):
        yaw = float(streams.sites.uniform(-math.pi, math.pi))
        dx, dz = facing_direction(yaw + bearing)
        centre = (spawn[0] + distance * dx, spawn[1] + distance * dz)
        if not is_dry_land(ground, *centre, min_water_distance_m=1.0):
            continue
        if slopes[triangle_index(ground, *centre)] > FOOD_MAX_SLOPE_DEG:
            continue
        tree_site = None
        if kind not in GROUND_KINDS:
            tree_site = tree_behind_food(streams.sites, centre, spawn, fruit_tree)
            if not fruit_tree_site_ok(ground, *tree_site, fruit_tree):
                continue
        foods = _cluster(kind, centre, count, streams.sites, hanging)
        if hanging and not all(_under_canopy(f, tree_site, fruit_tree) for f in foods):
            continue
        if any(abs(ground_height(ground, f.x, f.z) - ground_height(ground, *centre)) > 0.3 for f in foods):
            continue
        assemblies += 1
        try:
            outdoor = assemble_outdoor_world(
                streams,
                config,
                biome_map,
                task="eat",
                difficulty=difficulty,
                spawn=spawn,
                spawn_yaw_rad=yaw,
                foods=foods,
                tree_site=tree_site,
            )
        except ImpossibleWorldError as error:
            failures.append(str(error))
            if assemblies >= ASSEMBLY_ATTEMPTS:
                break
            continue
        return EatLayout(outdoor=outdoor, kind=kind, distance_m=distance, bearing_rad=bearing, hanging=hanging)
    reason = f"; last: {failures[-1]}" if failures else ""
    raise ImpossibleWorldError(f"eat: no spawn site keeps the guarantees on this island{reason}")


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``."""
    return build_layout(rng, difficulty, config).world
