"""Things scattered over an island by density: the extra foods and tools of the
compositional tasks (gather, survive). Sites are drawn uniformly over the island's dry, gentle
ground, away from the spawn and from one another; nothing about them is guaranteed reachable."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules.foods import FOODS
from avalon.tasks.kit import ImpossibleWorldError, assembly
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, triangle_index, triangle_slopes_deg

#: Sites drawn per thing before the world is given up.
SITE_DRAWS = 200


def count_for_area(heightmap: HeightMap, per_m2: float) -> int:
    """How many things a density of ``per_m2`` puts on the island: round(area x density) + 1 (the paper's rule)."""
    return int(round(heightmap.size_m ** 2 * per_m2)) + 1


def scatter_sites(rng: np.random.Generator, heightmap: HeightMap, count: int, *, away_from: Sequence[XZ],
                  min_distance_m: float, spacing_m: float, max_slope_deg: float = assembly.FOOD_MAX_SLOPE_DEG,
                  what: str = "site") -> list[XZ]:
    """``count`` points of dry ground no steeper than ``max_slope_deg``, each at least
    ``min_distance_m`` from every point of ``away_from`` and ``spacing_m`` from the others, drawn
    from ``rng``; ``ImpossibleWorldError`` naming ``what`` when ``SITE_DRAWS`` draws find none."""
    slopes = triangle_slopes_deg(heightmap)
    reach = heightmap.half_size_m - 2.0
    placed: list[XZ] = []
    for _ in range(count):
        for _ in range(SITE_DRAWS):
            x, z = (float(v) for v in rng.uniform(-reach, reach, 2))
            if any(math.hypot(x - a, z - b) < min_distance_m for a, b in away_from) or \
                    any(math.hypot(x - a, z - b) < spacing_m for a, b in placed):
                continue
            if is_dry_land(heightmap, x, z, min_water_distance_m=1.0) and slopes[triangle_index(heightmap, x, z)] <= max_slope_deg:
                placed.append((x, z))
                break
        else:
            raise ImpossibleWorldError(f"no {what} site on this island in {SITE_DRAWS} draws")
    return placed


#: The foods that may lie on the ground (not those that spoil there: they only hang in trees).
GROUND_FOODS: tuple[str, ...] = tuple(kind for kind, food in FOODS.items() if not food.dirty_on_ground)


def scattered_foods(rng: np.random.Generator, heightmap: HeightMap, count: int, *, away_from: Sequence[XZ],
                    min_distance_m: float, spacing_m: float, kinds: Sequence[str] = ("apple",)) -> list[assembly.FoodPlacement]:
    """``count`` foods on the ground at :func:`scatter_sites`, each of a kind drawn from ``kinds``
    (no draw for one kind) and a yaw, from ``rng``."""
    sites = scatter_sites(rng, heightmap, count, away_from=away_from, min_distance_m=min_distance_m,
                          spacing_m=spacing_m, what="food")
    foods = []
    for x, z in sites:
        kind = kinds[int(rng.integers(len(kinds)))] if len(kinds) > 1 else kinds[0]
        foods.append(assembly.FoodPlacement(kind=kind, x=x, z=z, yaw_rad=float(rng.uniform(-math.pi, math.pi))))
    return foods


def scattered_tools(rng: np.random.Generator, world: World, kinds: Sequence[str], *, min_distance_m: float,
                    spacing_m: float, name_prefix: str = "tool") -> tuple[Entity, ...]:
    """One tool of each of ``kinds`` on the world's ground, named ``<name_prefix>_<i>_<kind>``,
    away from the spawn and every entity."""
    heightmap = world.ground.heightmap
    spawn = (world.spawn_position[0], world.spawn_position[2])
    taken = [spawn] + [(e.position[0], e.position[2]) for e in world.entities]
    sites = scatter_sites(rng, heightmap, len(kinds), away_from=taken, min_distance_m=min_distance_m,
                          spacing_m=spacing_m, what="tool")
    return tuple(tool_entity(kind, f"{name_prefix}_{index}_{kind}", (x, float(ground_height(heightmap, x, z)), z),
                             yaw_rad=float(rng.uniform(-math.pi, math.pi)))
                 for index, (kind, (x, z)) in enumerate(zip(kinds, sites)))
