"""Scenery: trees, bushes, flowers and mushrooms scattered by biome, and the fruit tree that marks food.

The kinds and their default table are in :mod:`avalon.datagen.flora`. Density is given per biome
in instances per 100 m². It is blurred across biome borders, modulated by smooth noise (irregular
borders), and cut down in *clearings* so there are open paths to walk through. Candidates are
drawn as a Poisson process per grid cell, then rejected if they would stand in or too close to
water, on ground too steep, inside a keep-clear disc, or (for colliding plants) too close to
another trunk. Every instance gets noise on its colour, scale and yaw.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.flora import DEFAULT_FLORA, FloraConfig, SceneryKind
from avalon.datagen.noise import smooth_noise
from avalon.datagen.terrain import HeightMap
from avalon.errors import check_int

Vector3 = tuple[float, float, float]
KeepClear = tuple[float, float, float]  # (x_m, z_m, radius_m)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FruitTreeConfig:
    """Geometry and look of the fruit tree. Lengths are metres at scale 1; the Godot model must match."""

    #: Foliage colour: brighter and yellower than any other tree so it stands out from afar.
    color: tuple[float, float, float] = attr.ib(
        default=(0.60, 0.78, 0.16), converter=check.float_triple, validator=check.rgb()
    )
    color_noise: float = attr.ib(default=0.03, validator=check.between(0.0, 0.5))
    scale_range: tuple[float, float] = attr.ib(
        default=(0.9, 1.2), converter=check.float_pair, validator=check.ordered_pair(0.0, strictly_above=True)
    )
    #: Height of the bottom of the canopy above the ground (where fruit hangs), metres.
    canopy_bottom_m: float = attr.ib(default=4.5, validator=check.positive())
    #: Total height of the tree, metres (taller than every other tree).
    height_m: float = attr.ib(default=9.0, validator=check.positive())
    #: Horizontal radius of the canopy, metres.
    canopy_radius_m: float = attr.ib(default=3.0, validator=check.positive())
    #: Radius of the trunk, metres.
    trunk_radius_m: float = attr.ib(default=0.45, validator=check.positive())
    #: Fruit under the tree lies this far from the trunk axis, metres (at any scale).
    ground_food_distance_range_m: tuple[float, float] = attr.ib(
        default=(0.9, 2.5), converter=check.float_pair, validator=check.ordered_pair(0.0)
    )
    #: The site must be at least this far from water, metres.
    water_clearance_m: float = attr.ib(default=1.5, validator=check.non_negative())
    #: The site must be at most this steep, degrees.
    max_slope_deg: float = attr.ib(default=30.0, validator=check.between(0.0, 90.0))


def _flora_tuple(value: Any) -> tuple[FloraConfig, ...]:
    return tuple(value) if not isinstance(value, tuple) else value


def _check_flora(instance: Any, attribute: Any, value: Any) -> None:
    kinds = [f.kind for f in value] if all(isinstance(f, FloraConfig) for f in value) else None
    if kinds is None or len(set(kinds)) != len(kinds):
        raise ValueError(f"SceneryConfig.flora={value!r}: expected FloraConfig values with distinct kinds")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SceneryConfig:
    """Scattering rules shared by all kinds, plus one :class:`FloraConfig` per kind."""

    flora: tuple[FloraConfig, ...] = attr.ib(default=DEFAULT_FLORA, converter=_flora_tuple, validator=_check_flora)
    #: Densities fade across biome borders over about this distance, metres (0 = hard borders).
    border_blend_m: float = attr.ib(default=3.0, validator=check.non_negative())
    #: Size of the density-noise blobs, metres.
    border_noise_size_m: float = attr.ib(default=10.0, validator=check.positive())
    #: Share of the land that lies in clearings, 0..1.
    clearing_fraction: float = attr.ib(default=0.25, validator=check.between(0.0, 1.0))
    #: Typical width of a clearing, metres.
    clearing_size_m: float = attr.ib(default=12.0, validator=check.positive())
    fruit_tree: FruitTreeConfig = attr.ib(factory=FruitTreeConfig)

    def flora_for(self, kind: SceneryKind) -> FloraConfig:
        for flora in self.flora:
            if flora.kind == SceneryKind(kind):
                return flora
        raise KeyError(f"no FloraConfig for {kind!r}")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SceneryInstance:
    """One placed plant. ``position`` is its base on the terrain (x, y, z), metres; yaw is about +y."""

    kind: SceneryKind = attr.ib(converter=SceneryKind)
    position: Vector3
    yaw_rad: float
    scale: float
    color: tuple[float, float, float]


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FruitTreePlacement:
    """A fruit tree and where food can go: hanging under its canopy, or on the ground beneath it.

    Food positions are the point where the food touches the canopy (``on_tree``: the food hangs
    below it) or the ground (``under_tree``: add the food's half height to get its centre).
    """

    tree: SceneryInstance
    on_tree: tuple[Vector3, ...]
    under_tree: tuple[Vector3, ...]
    #: Disc (x, z, radius) to pass in ``keep_clear`` so other plants leave the tree room.
    keep_clear: KeepClear


def _check_keep_clear(keep_clear: Sequence[Sequence[float]]) -> np.ndarray:
    try:
        discs = np.array([[float(v) for v in disc] for disc in keep_clear], dtype=np.float64).reshape(-1, 3)
    except (TypeError, ValueError):
        discs = np.full((1, 3), np.nan)  # reported below
    if not np.isfinite(discs).all() or (discs[:, 2] < 0).any():
        raise ValueError(f"keep_clear={keep_clear!r}: expected (x_m, z_m, radius_m) triples, finite, radius >= 0")
    return discs


def _outside_discs(x: np.ndarray, z: np.ndarray, margin: np.ndarray, discs: np.ndarray) -> np.ndarray:
    ok = np.ones(x.shape, dtype=bool)
    for cx, cz, radius in discs:
        ok &= np.hypot(x - cx, z - cz) >= radius + margin
    return ok


def _thin_by_spacing(x: np.ndarray, z: np.ndarray, spacing: np.ndarray) -> np.ndarray:
    """Greedy thinning in the given order: keep a point if no kept point is closer than the larger spacing."""
    keep = np.zeros(x.shape, dtype=bool)
    if x.size == 0:
        return keep
    cell = float(spacing.max())
    if cell <= 0:
        keep[:] = True
        return keep
    buckets: dict[tuple[int, int], list[int]] = {}
    gx = np.floor(x / cell).astype(int)
    gz = np.floor(z / cell).astype(int)
    for i in range(x.size):
        ok = True
        key_x, key_z = int(gx[i]), int(gz[i])
        for bx in (key_x - 1, key_x, key_x + 1):
            for bz in (key_z - 1, key_z, key_z + 1):
                for j in buckets.get((bx, bz), ()):
                    if (x[i] - x[j]) ** 2 + (z[i] - z[j]) ** 2 < max(spacing[i], spacing[j]) ** 2:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                break
        if ok:
            keep[i] = True
            buckets.setdefault((key_x, key_z), []).append(i)
    return keep


def _require_same_terrain(heightmap: HeightMap, biome_map: BiomeMap) -> None:
    if heightmap is not biome_map.heightmap and heightmap.digest() != biome_map.heightmap.digest():
        raise ValueError(
            "heightmap differs from biome_map.heightmap: pass biome_map.heightmap (biome assignment erodes beaches)"
        )


def place_scenery(
    rng: np.random.Generator,
    heightmap: HeightMap,
    biome_map: BiomeMap,
    config: SceneryConfig = SceneryConfig(),
    keep_clear: Sequence[KeepClear] = (),
    *,
    exclude_mask: np.ndarray | None = None,
) -> tuple[SceneryInstance, ...]:
    """Scatter every kind in ``config.flora`` over the island; deterministic given ``rng``.

    ``heightmap`` must be ``biome_map.heightmap`` (the eroded terrain). ``keep_clear`` discs
    ``(x_m, z_m, radius_m)`` stay free of every plant's footprint. ``exclude_mask`` (bool grid)
    marks more cells where nothing may grow, e.g. an obstacle ring's ``wall`` so no climbable
    tree offers a way round it; cliffs and water biomes are always excluded. Instances are
    ordered by kind (config order), then by position in the grid.
    """
    _require_same_terrain(heightmap, biome_map)
    discs = _check_keep_clear(keep_clear)
    if exclude_mask is not None:
        exclude_mask = np.asarray(exclude_mask)
        if exclude_mask.shape != heightmap.shape or exclude_mask.dtype != bool:
            raise ValueError(
                f"exclude_mask has shape {exclude_mask.shape} and dtype {exclude_mask.dtype}: expected a bool grid "
                f"of shape {heightmap.shape}"
            )
    cell = heightmap.cell_size_m
    shape = heightmap.shape
    half = heightmap.half_size_m
    ids = biome_map.biome_ids
    land = ~heightmap.is_water()
    barren = biome_map.mask(Biome.WATER, Biome.FRESH_WATER, Biome.UNCLIMBABLE_MOUNTAIN)
    if exclude_mask is not None:
        barren = barren | exclude_mask

    clearing_field = smooth_noise(rng, shape, config.clearing_size_m / cell)
    if config.clearing_fraction > 0 and land.any():
        threshold = np.quantile(clearing_field[land], 1.0 - config.clearing_fraction)
        in_clearing = clearing_field > threshold
    else:
        in_clearing = np.zeros(shape, dtype=bool)
    slope = heightmap.slope_deg()
    water_distance = heightmap.distance_to_water_m()
    finite_distance = np.where(np.isfinite(water_distance), water_distance, 1e9)

    per_kind: list[dict[str, np.ndarray]] = []
    for flora in config.flora:
        lookup = np.array([flora.density(b) for b in Biome], dtype=np.float64)
        density = lookup[ids]
        if config.border_blend_m > 0:
            density = ndimage.gaussian_filter(density, sigma=config.border_blend_m / (2.0 * cell), mode="nearest")
        noise = smooth_noise(rng, shape, config.border_noise_size_m / cell)
        density = density * np.clip(1.0 + flora.border_noise * noise, 0.0, None)
        density = np.where(in_clearing, density * flora.clearing_density_factor, density)
        density[barren] = 0.0  # after the blur, so nothing bleeds onto cliffs or excluded cells
        expected = density * (cell * cell / 100.0)
        counts = rng.poisson(expected)
        rows, cols = np.nonzero(counts)
        repeats = counts[rows, cols]
        rows = np.repeat(rows, repeats)
        cols = np.repeat(cols, repeats)
        n = rows.size
        x = (cols + rng.uniform(-0.5, 0.5, n)) * cell - half
        z = (rows + rng.uniform(-0.5, 0.5, n)) * cell - half
        scale = rng.uniform(*flora.scale_range, n)
        yaw = rng.uniform(-flora.yaw_noise_rad, flora.yaw_noise_rad, n)
        color = np.clip(np.asarray(flora.color) + rng.normal(0.0, flora.color_noise, (n, 3)), 0.0, 1.0)

        ok = (np.abs(x) <= half) & (np.abs(z) <= half)
        x, z, scale, yaw, color = x[ok], z[ok], scale[ok], yaw[ok], color[ok]
        y = heightmap.sample(heightmap.heights, x, z)
        ok = (y >= heightmap.water_height_m + 0.05) & (heightmap.sample(finite_distance, x, z) >= flora.water_clearance_m)
        ok &= heightmap.sample(slope, x, z) <= flora.max_slope_deg
        near_row, near_col = heightmap.nearest_index(x, z)
        ok &= ~barren[near_row, near_col]  # jitter can carry a plant half a cell into a barren cell
        ok &= _outside_discs(x, z, flora.footprint_radius_m * scale, discs)
        per_kind.append(
            dict(x=x[ok], y=y[ok], z=z[ok], scale=scale[ok], yaw=yaw[ok], color=color[ok],
                 spacing=np.full(int(ok.sum()), flora.min_spacing_m))
        )

    # Trunks of all colliding kinds share one spacing rule; visit them in a random order so no
    # kind always wins where two forests meet.
    colliding = [i for i, flora in enumerate(config.flora) if flora.kind.is_tree and flora.min_spacing_m > 0]
    if colliding:
        owner = np.concatenate([np.full(per_kind[i]["x"].size, i) for i in colliding])
        index = np.concatenate([np.arange(per_kind[i]["x"].size) for i in colliding])
        xs = np.concatenate([per_kind[i]["x"] for i in colliding])
        zs = np.concatenate([per_kind[i]["z"] for i in colliding])
        spacing = np.concatenate([per_kind[i]["spacing"] for i in colliding])
        order = rng.permutation(xs.size)
        kept = np.zeros(xs.size, dtype=bool)
        kept[order] = _thin_by_spacing(xs[order], zs[order], spacing[order])
        for i in colliding:
            mask = np.zeros(per_kind[i]["x"].size, dtype=bool)
            mask[index[(owner == i) & kept]] = True
            per_kind[i] = {key: value[mask] for key, value in per_kind[i].items()}

    instances: list[SceneryInstance] = []
    for flora, placed in zip(config.flora, per_kind):
        for k in range(placed["x"].size):
            instances.append(
                SceneryInstance(
                    kind=flora.kind,
                    position=(float(placed["x"][k]), float(placed["y"][k]), float(placed["z"][k])),
                    yaw_rad=float(placed["yaw"][k]),
                    scale=float(placed["scale"][k]),
                    color=tuple(float(c) for c in placed["color"][k]),
                )
            )
    return tuple(instances)


def place_fruit_tree(
    rng: np.random.Generator,
    heightmap: HeightMap,
    x: float,
    z: float,
    config: FruitTreeConfig = FruitTreeConfig(),
    food_count: int = 1,
) -> FruitTreePlacement:
    """A fruit tree at (x, z) and ``food_count`` food positions on and under it.

    Raises ``ValueError`` if the site is within ``water_clearance_m`` of water or steeper than
    ``max_slope_deg``. Ground positions that would fall in water are skipped, so ``under_tree``
    can hold fewer than ``food_count`` points near a shore.
    """
    food_count = check_int(food_count, "food_count", low=0)
    if not heightmap.contains(x, z):
        raise ValueError(f"fruit tree site x={x!r}, z={z!r} (m) is outside the world (half size {heightmap.half_size_m} m)")
    water_distance = heightmap.distance_to_water_m()
    clearance = float(heightmap.sample(np.where(np.isfinite(water_distance), water_distance, 1e9), x, z))
    if clearance < config.water_clearance_m:
        raise ValueError(
            f"fruit tree site x={x!r}, z={z!r} is {clearance:.2f} m from water: expected at least "
            f"{config.water_clearance_m} m"
        )
    slope = float(heightmap.sample(heightmap.slope_deg(), x, z))
    if slope > config.max_slope_deg:
        raise ValueError(
            f"fruit tree site x={x!r}, z={z!r} has slope {slope:.1f} degrees: expected at most {config.max_slope_deg}"
        )

    scale = float(rng.uniform(*config.scale_range))
    yaw = float(rng.uniform(-math.pi, math.pi))
    color = tuple(float(c) for c in np.clip(np.asarray(config.color) + rng.normal(0.0, config.color_noise, 3), 0.0, 1.0))
    y = float(heightmap.height_at(x, z))
    tree = SceneryInstance(kind=SceneryKind.FRUIT_TREE, position=(float(x), y, float(z)), yaw_rad=yaw, scale=scale, color=color)

    canopy_y = y + config.canopy_bottom_m * scale
    canopy_r = config.canopy_radius_m * scale
    angles = rng.uniform(-math.pi, math.pi, food_count)
    radii = rng.uniform(0.35, 0.75, food_count) * canopy_r
    on_tree = tuple(
        (float(x + r * math.cos(a)), canopy_y, float(z + r * math.sin(a))) for a, r in zip(angles, radii)
    )

    under: list[Vector3] = []
    tries = max(8 * food_count, 1)
    angles = rng.uniform(-math.pi, math.pi, tries)
    radii = rng.uniform(*config.ground_food_distance_range_m, tries)
    radii = np.maximum(radii, config.trunk_radius_m * scale + 0.2)  # never inside the trunk
    for a, r in zip(angles, radii):
        if len(under) == food_count:
            break
        fx, fz = x + r * math.cos(a), z + r * math.sin(a)
        if not heightmap.contains(fx, fz):
            continue
        fy = float(heightmap.height_at(fx, fz))
        if fy < heightmap.water_height_m + 0.05:
            continue
        under.append((float(fx), fy, float(fz)))

    keep_clear = (float(x), float(z), canopy_r + 1.0)
    return FruitTreePlacement(tree=tree, on_tree=on_tree, under_tree=tuple(under), keep_clear=keep_clear)
