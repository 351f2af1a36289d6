"""Biomes: which kind of ground each grid point is, whether it can be climbed, and its colour.

Slope, elevation (height above the water plane) and distance from water decide the biome, with
smooth noise on each so borders look natural. Shores get special biomes (beach, swamp, dark shore),
and the beach erodes gentle ground near the ocean into a shallow ramp, so assignment also returns
the eroded height map. Steep ground becomes bare rock (climbable) or cliff (unclimbable).
"""

from __future__ import annotations

import enum
import hashlib
import math
from typing import Any, Mapping

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.noise import smooth_noise
from avalon.datagen.terrain import HeightMap


class Biome(enum.IntEnum):
    """Biome ids stored in :attr:`BiomeMap.biome_ids` (uint8). Values are part of the world format."""

    WATER = 0  #: ocean floor (connected to the world edge)
    FRESH_WATER = 1  #: floor of an inland pool
    COASTAL = 2  #: sandy beach along the ocean
    SWAMP = 3  #: low, flat, wet ground around inland pools
    DARK_SHORE = 4  #: rocky or muddy shore (steep ocean shore, pool banks)
    TROPICAL_RAIN_FOREST = 5
    TROPICAL_SEASONAL_FOREST = 6
    TEMPERATE_RAIN_FOREST = 7
    TEMPERATE_DECIDUOUS_FOREST = 8
    GRASSLAND = 9
    TEMPERATE_DESERT = 10
    SUBTROPICAL_DESERT = 11
    BARE_MOUNTAIN = 12  #: bare rock: steep or high ground that can be climbed
    UNCLIMBABLE_MOUNTAIN = 13  #: cliff: too steep and smooth to climb

    @property
    def is_water(self) -> bool:
        return self in (Biome.WATER, Biome.FRESH_WATER)


NATURAL_BIOMES: tuple[Biome, ...] = (
    Biome.TROPICAL_RAIN_FOREST,
    Biome.TROPICAL_SEASONAL_FOREST,
    Biome.TEMPERATE_RAIN_FOREST,
    Biome.TEMPERATE_DECIDUOUS_FOREST,
    Biome.GRASSLAND,
    Biome.TEMPERATE_DESERT,
    Biome.SUBTROPICAL_DESERT,
)
WATER_BIOMES: tuple[Biome, ...] = (Biome.WATER, Biome.FRESH_WATER)
MOUNTAIN_BIOMES: tuple[Biome, ...] = (Biome.BARE_MOUNTAIN, Biome.UNCLIMBABLE_MOUNTAIN)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BiomeStyle:
    """How one biome's ground is coloured."""

    #: Base RGB colour, each channel in [0, 1].
    color: tuple[float, float, float] = attr.ib(converter=check.float_triple, validator=check.rgb())
    #: Standard deviation of independent per-vertex noise added to each channel.
    color_noise: float = attr.ib(default=0.025, validator=check.between(0.0, 0.5))
    #: Standard deviation of low-frequency colour variation (patches a few metres across).
    patch_noise: float = attr.ib(default=0.04, validator=check.between(0.0, 0.5))


DEFAULT_STYLES: dict[Biome, BiomeStyle] = {
    Biome.WATER: BiomeStyle(color=(0.55, 0.52, 0.40)),
    Biome.FRESH_WATER: BiomeStyle(color=(0.33, 0.31, 0.22)),
    Biome.COASTAL: BiomeStyle(color=(0.86, 0.79, 0.57), color_noise=0.02),
    Biome.SWAMP: BiomeStyle(color=(0.31, 0.35, 0.19)),
    Biome.DARK_SHORE: BiomeStyle(color=(0.30, 0.27, 0.22)),
    Biome.TROPICAL_RAIN_FOREST: BiomeStyle(color=(0.15, 0.42, 0.12)),
    Biome.TROPICAL_SEASONAL_FOREST: BiomeStyle(color=(0.42, 0.52, 0.16)),
    Biome.TEMPERATE_RAIN_FOREST: BiomeStyle(color=(0.13, 0.32, 0.17)),
    Biome.TEMPERATE_DECIDUOUS_FOREST: BiomeStyle(color=(0.29, 0.46, 0.16)),
    Biome.GRASSLAND: BiomeStyle(color=(0.53, 0.63, 0.25)),
    Biome.TEMPERATE_DESERT: BiomeStyle(color=(0.68, 0.63, 0.45)),
    Biome.SUBTROPICAL_DESERT: BiomeStyle(color=(0.83, 0.65, 0.41)),
    Biome.BARE_MOUNTAIN: BiomeStyle(color=(0.52, 0.47, 0.42), color_noise=0.04, patch_noise=0.05),
    # Cliffs are darker and bluer than bare rock so players can tell what is climbable.
    Biome.UNCLIMBABLE_MOUNTAIN: BiomeStyle(color=(0.27, 0.27, 0.31), color_noise=0.03, patch_noise=0.03),
}


def _styles(value: Any) -> tuple[tuple[Biome, BiomeStyle], ...]:
    if isinstance(value, Mapping):
        value = value.items()
    try:
        return tuple(sorted(((Biome(k), v) for k, v in value), key=lambda kv: int(kv[0])))
    except (TypeError, ValueError):
        return value


def _check_styles(instance: Any, attribute: Any, value: Any) -> None:
    biomes = [b for b, _ in value] if isinstance(value, tuple) else []
    ok = isinstance(value, tuple) and all(isinstance(s, BiomeStyle) for _, s in value)
    missing = sorted(set(Biome) - set(biomes), key=int)
    if not ok or missing or len(biomes) != len(set(biomes)):
        raise ValueError(
            f"BiomeConfig.styles={value!r}: expected one BiomeStyle per Biome (missing {[b.name for b in missing]})"
        )


def _biome_set(value: Any) -> frozenset[Biome]:
    try:
        return frozenset(Biome(v) for v in value)
    except (TypeError, ValueError):
        return value


def _check_climbable(instance: Any, attribute: Any, value: Any) -> None:
    if not isinstance(value, frozenset) or any(b.is_water for b in value):
        raise ValueError(f"BiomeConfig.climbable_biomes={value!r}: expected a set of land Biome values")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BiomeConfig:
    """Thresholds (metres, degrees) mapping slope, elevation and water distance to biomes, and colours.

    *Elevation* is height above the water plane. Noise amplitudes are bounded: a threshold plus its
    noise amplitude is a hard limit (for example, land steeper than ``bare_slope_min_deg +
    slope_noise_deg`` is always a mountain biome).
    """

    #: Land at least this steep is bare rock (climbable), degrees.
    bare_slope_min_deg: float = attr.ib(default=38.0, validator=check.between(0.0, 90.0))
    #: Land at least this steep is an unclimbable cliff, degrees.
    cliff_slope_min_deg: float = attr.ib(default=58.0, validator=check.between(0.0, 90.0))
    #: Bound of the smooth noise added to slopes before thresholding, degrees.
    slope_noise_deg: float = attr.ib(default=3.0, validator=check.between(0.0, 45.0))
    #: Land higher than this above the water is bare mountain whatever its slope, metres.
    mountain_elevation_min_m: float = attr.ib(default=16.0, validator=check.positive())
    #: Below this elevation the natural biomes are tropical/subtropical, above it temperate, metres.
    warm_elevation_max_m: float = attr.ib(default=4.0, validator=check.non_negative())
    #: Bound of the smooth noise added to elevations before thresholding, metres.
    elevation_noise_m: float = attr.ib(default=1.5, validator=check.non_negative())
    #: Within this distance of water the natural biome is a rain forest, metres.
    wet_distance_max_m: float = attr.ib(default=10.0, validator=check.non_negative())
    #: Within this distance of water: seasonal / deciduous forest, metres.
    moist_distance_max_m: float = attr.ib(default=25.0, validator=check.non_negative())
    #: Within this distance of water: grassland (temperate) ; farther: desert, metres.
    dry_distance_max_m: float = attr.ib(default=50.0, validator=check.non_negative())
    #: Bound of the smooth noise added to water distances before thresholding, metres.
    moisture_noise_m: float = attr.ib(default=5.0, validator=check.non_negative())
    #: Size of the noise blobs that make biome borders irregular, metres.
    border_noise_size_m: float = attr.ib(default=16.0, validator=check.positive())
    #: Ocean shore within this distance of the ocean is beach (gentle) or dark shore (steep), metres.
    beach_width_m: float = attr.ib(default=6.0, validator=check.non_negative())
    #: Shore steeper than this is dark shore and is not eroded, degrees.
    beach_slope_cutoff_deg: float = attr.ib(default=25.0, validator=check.between(0.0, 90.0))
    #: Shore higher than this above the water is not beach, metres.
    beach_max_elevation_m: float = attr.ib(default=2.5, validator=check.non_negative())
    #: Erosion lowers gentle ground near the ocean to at most this slope up from the waterline, degrees.
    beach_erosion_slope_deg: float = attr.ib(default=6.0, validator=check.between(0.0, 45.0))
    #: Land within this distance of an inland pool, low and flat, is swamp, metres.
    swamp_distance_m: float = attr.ib(default=6.0, validator=check.non_negative())
    #: Swamp is at most this high above the water, metres.
    swamp_elevation_max_m: float = attr.ib(default=1.2, validator=check.non_negative())
    #: Swamp is at most this steep, degrees.
    swamp_slope_max_deg: float = attr.ib(default=14.0, validator=check.between(0.0, 90.0))
    #: Pool banks within this distance that are not swamp are dark shore, metres.
    dark_shore_distance_m: float = attr.ib(default=3.0, validator=check.non_negative())
    #: Size of the colour patches, metres.
    color_patch_size_m: float = attr.ib(default=6.0, validator=check.positive())
    #: Colours of every biome.
    styles: tuple[tuple[Biome, BiomeStyle], ...] = attr.ib(
        default=DEFAULT_STYLES, converter=_styles, validator=_check_styles
    )
    #: Biomes whose ground the agent can climb.
    climbable_biomes: frozenset[Biome] = attr.ib(
        default=frozenset({Biome.BARE_MOUNTAIN}), converter=_biome_set, validator=_check_climbable
    )

    def __attrs_post_init__(self) -> None:
        if self.cliff_slope_min_deg < self.bare_slope_min_deg:
            raise ValueError(
                f"BiomeConfig.cliff_slope_min_deg={self.cliff_slope_min_deg!r}: expected >= bare_slope_min_deg="
                f"{self.bare_slope_min_deg!r}"
            )
        if not self.wet_distance_max_m <= self.moist_distance_max_m <= self.dry_distance_max_m:
            raise ValueError(
                f"BiomeConfig water distances wet={self.wet_distance_max_m!r}, moist={self.moist_distance_max_m!r}, "
                f"dry={self.dry_distance_max_m!r}: expected wet <= moist <= dry"
            )

    def style(self, biome: Biome) -> BiomeStyle:
        return dict(self.styles)[Biome(biome)]


def _grid_mask(value: Any, shape: tuple[int, int], name: str) -> np.ndarray | None:
    if value is None:
        return None
    mask = np.asarray(value)
    if mask.shape != shape or mask.dtype != bool:
        raise ValueError(f"{name} has shape {mask.shape} and dtype {mask.dtype}: expected a bool grid of shape {shape}")
    return mask


def _read_only(array: np.ndarray, dtype: Any) -> np.ndarray:
    out = np.array(array, dtype=dtype, copy=True, order="C")
    out.setflags(write=False)
    return out


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class BiomeMap:
    """Per-grid-point biome ids, climbability and RGB colours, plus the (eroded) height map they describe."""

    #: Biome id (``Biome`` value) of each grid point, uint8 [rows, cols].
    biome_ids: np.ndarray = attr.ib(converter=lambda v: _read_only(v, np.uint8), repr=False)
    #: True where the terrain surface can be climbed, bool [rows, cols].
    climbable: np.ndarray = attr.ib(converter=lambda v: _read_only(v, bool), repr=False)
    #: Vertex colours, float32 [rows, cols, 3] in [0, 1].
    colors: np.ndarray = attr.ib(converter=lambda v: _read_only(v, np.float32), repr=False)
    #: The height map after beach erosion; use it (not the input map) for everything downstream.
    heightmap: HeightMap

    def __attrs_post_init__(self) -> None:
        shape = self.heightmap.shape
        if self.biome_ids.shape != shape or self.climbable.shape != shape or self.colors.shape != (*shape, 3):
            raise ValueError(
                f"BiomeMap grids have shapes {self.biome_ids.shape}, {self.climbable.shape}, {self.colors.shape}: "
                f"expected {shape}, {shape}, {(*shape, 3)}"
            )
        if self.biome_ids.max(initial=0) >= len(Biome):
            raise ValueError(f"BiomeMap.biome_ids holds {int(self.biome_ids.max())}: expected ids below {len(Biome)}")
        if not ((self.colors >= 0.0) & (self.colors <= 1.0)).all():
            raise ValueError("BiomeMap.colors: expected every channel in [0, 1]")

    def mask(self, *biomes: Biome) -> np.ndarray:
        """True where the biome is one of ``biomes``."""
        return np.isin(self.biome_ids, [int(b) for b in biomes])

    def biome_at(self, x: float, z: float) -> Biome:
        """Biome of the grid point nearest to world (x, z), metres."""
        row, col = self.heightmap.nearest_index(x, z)
        return Biome(int(self.biome_ids[row, col]))

    def fractions(self) -> dict[Biome, float]:
        """Share of grid points in each biome present."""
        counts = np.bincount(self.biome_ids.ravel(), minlength=len(Biome))
        total = counts.sum()
        return {Biome(i): float(c / total) for i, c in enumerate(counts) if c}

    def digest(self) -> str:
        """SHA-256 over ids, climbability, colours and the height map."""
        sha = hashlib.sha256(self.heightmap.digest().encode())
        for array in (self.biome_ids, self.climbable, self.colors):
            sha.update(np.ascontiguousarray(array).tobytes())
        return sha.hexdigest()


def _bounded_noise(rng: np.random.Generator, shape: tuple[int, int], size_cells: float) -> np.ndarray:
    """Smooth noise squashed into [-1, 1]."""
    return np.tanh(0.8 * smooth_noise(rng, shape, size_cells))


#: Eroded beach ground stays at least this far above the water, metres, so land stays land.
BEACH_MIN_ELEVATION_M = 0.05


def erode_beaches(heightmap: HeightMap, config: BiomeConfig) -> HeightMap:
    """Lower gentle ground near the ocean to a shallow ramp up from the waterline.

    Only land within ``beach_width_m`` of the ocean and gentler than ``beach_slope_cutoff_deg`` is
    touched; the effect fades out towards both limits so no step appears. Land stays above water.
    """
    if config.beach_width_m <= 0:
        return heightmap
    water = heightmap.water_height_m
    heights = heightmap.heights.astype(np.float64)
    distance = heightmap.distance_to_ocean_m().astype(np.float64)
    if not np.isfinite(distance).any():
        return heightmap
    slope = heightmap.slope_deg()
    target = water + np.maximum(BEACH_MIN_ELEVATION_M, math.tan(math.radians(config.beach_erosion_slope_deg)) * distance)
    width = config.beach_width_m
    weight = 1.0 - np.clip((distance - 0.5 * width) / (0.5 * width), 0.0, 1.0)
    weight = weight * (1.0 - np.clip((slope - (config.beach_slope_cutoff_deg - 5.0)) / 5.0, 0.0, 1.0))
    weight[heightmap.is_water()] = 0.0
    eroded = heights - weight * np.maximum(heights - target, 0.0)
    return heightmap.with_heights(eroded)


def assign_biomes(
    rng: np.random.Generator,
    heightmap: HeightMap,
    config: BiomeConfig = BiomeConfig(),
    *,
    climbable_mask: np.ndarray | None = None,
    unclimbable_mask: np.ndarray | None = None,
) -> BiomeMap:
    """Erode beaches, classify every grid point, and colour it.

    ``climbable_mask`` / ``unclimbable_mask`` (bool grids, e.g. from obstacle rings) force land
    cells to bare rock / cliff after everything else, so a task decides what can be climbed.
    Water cells are never overridden.
    """
    shape = heightmap.shape
    climb_force = _grid_mask(climbable_mask, shape, "climbable_mask")
    cliff_force = _grid_mask(unclimbable_mask, shape, "unclimbable_mask")

    eroded = erode_beaches(heightmap, config)
    cell = eroded.cell_size_m
    noise_cells = config.border_noise_size_m / cell
    slope_noise = _bounded_noise(rng, shape, noise_cells) * config.slope_noise_deg
    elevation_noise = _bounded_noise(rng, shape, noise_cells) * config.elevation_noise_m
    moisture_noise = _bounded_noise(rng, shape, noise_cells) * config.moisture_noise_m

    water = eroded.is_water()
    elevation = eroded.heights - eroded.water_height_m
    slope = eroded.slope_deg() + slope_noise
    warm_elevation = elevation + elevation_noise
    dryness = eroded.distance_to_water_m() + moisture_noise  # inf where there is no water at all
    ids = np.empty(shape, dtype=np.uint8)

    # Natural biomes: a Whittaker-style table of temperature (elevation) by moisture (water distance).
    warm = warm_elevation < config.warm_elevation_max_m
    wet = dryness < config.wet_distance_max_m
    moist = dryness < config.moist_distance_max_m
    dry = dryness < config.dry_distance_max_m
    ids[:] = Biome.TEMPERATE_DESERT
    ids[dry] = Biome.GRASSLAND
    ids[moist] = Biome.TEMPERATE_DECIDUOUS_FOREST
    ids[wet] = Biome.TEMPERATE_RAIN_FOREST
    ids[warm] = Biome.SUBTROPICAL_DESERT
    ids[warm & moist] = Biome.TROPICAL_SEASONAL_FOREST
    ids[warm & wet] = Biome.TROPICAL_RAIN_FOREST

    # Shores.
    ocean_distance = eroded.distance_to_ocean_m()
    near_ocean = (ocean_distance <= config.beach_width_m) & (elevation <= config.beach_max_elevation_m)
    ids[near_ocean] = Biome.DARK_SHORE
    ids[near_ocean & (slope <= config.beach_slope_cutoff_deg)] = Biome.COASTAL
    pool_distance = eroded.distance_to_fresh_water_m()
    ids[pool_distance <= config.dark_shore_distance_m] = Biome.DARK_SHORE
    swamp = (
        (pool_distance <= config.swamp_distance_m)
        & (elevation <= config.swamp_elevation_max_m)
        & (slope <= config.swamp_slope_max_deg)
    )
    ids[swamp] = Biome.SWAMP

    # Mountains: high or steep ground is bare rock, the steepest is cliff.
    ids[(slope >= config.bare_slope_min_deg) | (elevation >= config.mountain_elevation_min_m)] = Biome.BARE_MOUNTAIN
    ids[slope >= config.cliff_slope_min_deg] = Biome.UNCLIMBABLE_MOUNTAIN

    if climb_force is not None:
        ids[climb_force] = Biome.BARE_MOUNTAIN
    if cliff_force is not None:
        ids[cliff_force] = Biome.UNCLIMBABLE_MOUNTAIN
    ids[water & eroded.ocean_mask()] = Biome.WATER
    ids[water & ~eroded.ocean_mask()] = Biome.FRESH_WATER

    climbable = np.isin(ids, [int(b) for b in config.climbable_biomes])
    colors = _colour(rng, ids, config, config.color_patch_size_m / cell)
    return BiomeMap(biome_ids=ids, climbable=climbable, colors=colors, heightmap=eroded)


def _colour(rng: np.random.Generator, ids: np.ndarray, config: BiomeConfig, patch_cells: float) -> np.ndarray:
    """Base colour per biome + low-frequency patches + per-vertex noise, clipped to [0, 1]."""
    styles = config.styles
    base = np.array([style.color for _, style in styles], dtype=np.float64)
    vertex_noise = np.array([style.color_noise for _, style in styles])
    patch_noise = np.array([style.patch_noise for _, style in styles])
    shape = ids.shape
    # One patch field for brightness and one for hue shift keep patches natural (not rainbow).
    brightness = smooth_noise(rng, shape, patch_cells)
    tint = smooth_noise(rng, shape, patch_cells)
    white = rng.standard_normal((*shape, 3))
    colors = base[ids]
    colors += (patch_noise[ids] * brightness)[..., None]
    colors[..., 0] += 0.5 * patch_noise[ids] * tint
    colors[..., 2] -= 0.5 * patch_noise[ids] * tint
    colors += vertex_noise[ids][..., None] * white
    # A one-cell blur softens the hard biome borders between mesh vertices.
    colors = ndimage.gaussian_filter(colors, sigma=(0.7, 0.7, 0.0), mode="nearest")
    return np.clip(colors, 0.0, 1.0).astype(np.float32)
