"""Site search: where on the island things may go, and the one loop that tries random sites.

A task draws candidate sites (:func:`candidate_points` on a :func:`site_mask`), and
:func:`build_at_first_fitting_site` tries them in turn: a cheap check on the terrain rejects a
site with a reason, or hands back the (costly) build of the world there, which may still fail with
:class:`~avalon.tasks.kit.ImpossibleWorldError`. After a fixed number of failed builds, or when
the candidates run out, the island is given up on and the registry retries with another seed.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, TypeVar, Union

import attr
import numpy as np

from avalon.datagen.scenery import FruitTreeConfig
from avalon.datagen.terrain import HeightMap
from avalon.errors import is_int_in
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import DRY_MARGIN_M, XZ, KeepClear

Site = TypeVar("Site")
Built = TypeVar("Built")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ApproachKnobs:
    """Where a task with its food on a plateau above a way up (climb's cliff path, stack's staircase)
    puts the spawn and the food, as the difficulty d in [0, 1] sets it: each such task's
    ``KNOBS.approach``. Bands are drawn from uniformly."""

    #: Horizontal distance from the spawn to the foot of the way up, metres.
    spawn_distance_m: Band
    #: The foot of the way up lies within this angle of the spawn's facing direction, either side, degrees.
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: The food lies this far inside the plateau's edge above the way up, metres.
    food_inset_m: Band

    def draw(self, rng: np.random.Generator, difficulty: float) -> tuple[float, float, float]:
        """The spawn's distance and the food's inset (metres) and the facing offset (radians) at
        ``difficulty``, drawn from ``rng`` in that order."""
        spawn_distance = float(rng.uniform(*self.spawn_distance_m.at(difficulty)))
        food_inset = float(rng.uniform(*self.food_inset_m.at(difficulty)))
        return spawn_distance, food_inset, math.radians(rng.uniform(-1.0, 1.0) * self.max_facing_offset_deg.at(difficulty))


def site_mask(
    heightmap: HeightMap,
    *,
    min_water_distance_m: float,
    max_slope_deg: float,
    min_ocean_distance_m: float = 0.0,
    edge_margin_m: float = 2.0,
) -> np.ndarray:
    """Grid points on dry land at least the given distances from water and the ocean, gentle enough,
    and at least ``edge_margin_m`` inside the world edge."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    inside = np.maximum(np.abs(x), np.abs(z)) <= heightmap.half_size_m - edge_margin_m
    return (
        inside
        & (heightmap.heights >= heightmap.water_height_m + DRY_MARGIN_M)
        & (heightmap.distance_to_water_m() >= min_water_distance_m)
        & (heightmap.distance_to_ocean_m() >= min_ocean_distance_m)
        & (heightmap.slope_deg() <= max_slope_deg)
    )


def candidate_points(rng: np.random.Generator, heightmap: HeightMap, mask: np.ndarray, count: int) -> list[XZ]:
    """Up to ``count`` distinct random grid points of ``mask`` as (x, z), jittered within a quarter cell."""
    indices = np.flatnonzero(mask)
    if indices.size == 0:
        return []
    chosen = rng.choice(indices, size=min(count, indices.size), replace=False)
    rows, cols = np.divmod(chosen, mask.shape[1])
    x, z = heightmap.grid_to_world(rows, cols)
    jitter = rng.uniform(-0.25, 0.25, (2, chosen.size)) * heightmap.cell_size_m
    half = heightmap.half_size_m
    x = np.clip(x + jitter[0], -half, half)
    z = np.clip(z + jitter[1], -half, half)
    return [(float(a), float(b)) for a, b in zip(x, z)]


def fruit_tree_site_ok(heightmap: HeightMap, x: float, z: float, config: FruitTreeConfig) -> bool:
    """The checks ``place_fruit_tree`` makes (water clearance, slope), without raising."""
    if not bool(heightmap.contains(x, z)):
        return False
    distance = heightmap.distance_to_water_m()
    finite = np.where(np.isfinite(distance), distance, 1e9)
    if float(heightmap.sample(finite, x, z)) < config.water_clearance_m:
        return False
    return float(heightmap.sample(heightmap.slope_deg(), x, z)) <= config.max_slope_deg


def tree_behind_food(rng: np.random.Generator, food: XZ, viewer: XZ, config: FruitTreeConfig, spread_deg: float = 45.0) -> XZ:
    """A fruit-tree trunk position a canopy's reach behind ``food`` as seen from ``viewer``.

    The food then lies under the canopy (within ``ground_food_distance_range_m`` of the trunk) and
    the trunk is not between the viewer and the food.
    """
    away = math.atan2(food[1] - viewer[1], food[0] - viewer[0])
    angle = away + math.radians(rng.uniform(-spread_deg, spread_deg))
    distance = rng.uniform(*config.ground_food_distance_range_m)
    distance = max(distance, config.trunk_radius_m * config.scale_range[1] + 0.45)
    return food[0] + distance * math.cos(angle), food[1] + distance * math.sin(angle)


def corridor_discs(a: XZ, b: XZ, radius_m: float) -> list[KeepClear]:
    """Keep-clear discs of ``radius_m`` covering the segment from ``a`` to ``b`` (a corridor)."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    count = max(1, int(math.ceil(length / max(0.5 * radius_m, 0.25))))
    return [
        (a[0] + (b[0] - a[0]) * i / count, a[1] + (b[1] - a[1]) * i / count, float(radius_m)) for i in range(count + 1)
    ]


def build_at_first_fitting_site(
    sites: Iterable[Site],
    fit: Callable[[Site], Union[str, Callable[[], Built]]],
    *,
    max_builds: int,
    failure: str,
) -> Built:
    """The world built at the first of ``sites`` that fits.

    ``fit(site)`` makes the cheap checks (and the random draws that go with them) and returns
    either the reason the site does not fit or a function that builds the world there. Sites are
    taken in order and each build runs as soon as ``fit`` returns it, so random draws interleave
    exactly as in a hand-written loop. A build may raise :class:`ImpossibleWorldError`; after
    ``max_builds`` such failures, or when ``sites`` run out, raises :class:`ImpossibleWorldError`
    with ``failure`` and the last reason.
    """
    if not is_int_in(max_builds, low=1):
        raise ValueError(f"max_builds={max_builds!r}: expected an int >= 1")
    reasons: list[str] = []
    builds = 0
    for site in sites:
        build = fit(site)
        if isinstance(build, str):
            reasons.append(build)
            continue
        builds += 1
        try:
            return build()
        except ImpossibleWorldError as error:
            reasons.append(str(error))
            if builds >= max_builds:
                break
    last = f"; last: {reasons[-1]}" if reasons else ""
    raise ImpossibleWorldError(f"{failure}{last}")
