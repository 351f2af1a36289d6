"""The kinds of plants and how each is scattered: :class:`SceneryKind`, :class:`FloraConfig` and
:data:`DEFAULT_FLORA`, the default table (density per biome, colour, size, spacing, slope and water
limits of each kind). :mod:`avalon.datagen.scenery` places them.
"""

from __future__ import annotations

import enum
import math
from typing import Any, Mapping

import attr

from avalon import errors as check
from avalon.datagen.biomes import Biome


class SceneryKind(str, enum.Enum):
    """Kinds of scenery; the value names the Godot scene."""

    MAPLE = "maple"
    ACACIA = "acacia"
    FIR = "fir"
    PALM = "palm"
    BUSH = "bush"
    FLOWER = "flower"
    MUSHROOM = "mushroom"
    FRUIT_TREE = "fruit_tree"

    @property
    def is_tree(self) -> bool:
        """Trees collide with the agent and can be climbed; everything else can be walked through."""
        return self in _TREES


_TREES = frozenset({SceneryKind.MAPLE, SceneryKind.ACACIA, SceneryKind.FIR, SceneryKind.PALM, SceneryKind.FRUIT_TREE})


def _densities(value: Any) -> tuple[tuple[Biome, float], ...]:
    if isinstance(value, Mapping):
        value = value.items()
    try:
        return tuple(sorted(((Biome(b), float(d)) for b, d in value), key=lambda bd: int(bd[0])))
    except (TypeError, ValueError):
        return value


def _check_densities(instance: Any, attribute: Any, value: Any) -> None:
    ok = isinstance(value, tuple) and all(
        isinstance(b, Biome) and math.isfinite(d) and d >= 0 for b, d in value
    )
    if not ok or len({b for b, _ in value}) != len(value):
        raise ValueError(
            f"FloraConfig.density_per_100m2={value!r}: expected one finite, non-negative density per biome"
        )
    if any(b.is_water and d > 0 for b, d in value):
        raise ValueError(f"FloraConfig.density_per_100m2={value!r}: expected no density in water biomes")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FloraConfig:
    """How one kind of plant is scattered and varied."""

    kind: SceneryKind = attr.ib(converter=SceneryKind)
    #: Instances per 100 m² in each biome (biomes not listed get none).
    density_per_100m2: tuple[tuple[Biome, float], ...] = attr.ib(converter=_densities, validator=_check_densities)
    #: Base RGB colour (foliage / cap / petals).
    color: tuple[float, float, float] = attr.ib(converter=check.float_triple, validator=check.rgb())
    #: Standard deviation of per-instance noise on each colour channel.
    color_noise: float = attr.ib(default=0.04, validator=check.between(0.0, 0.5))
    #: Uniform range of the per-instance scale factor (1 = the model's own size).
    scale_range: tuple[float, float] = attr.ib(
        default=(0.8, 1.25), converter=check.float_pair, validator=check.ordered_pair(0.0, strictly_above=True)
    )
    #: Yaw is uniform in [-yaw_noise_rad, yaw_noise_rad]; pi means any direction.
    yaw_noise_rad: float = attr.ib(default=math.pi, validator=check.between(0.0, math.pi))
    #: Relative amplitude of smooth noise on the density (irregular, patchy borders), 0..1.
    border_noise: float = attr.ib(default=0.6, validator=check.between(0.0, 1.0))
    #: Density multiplier inside clearings (0 = clearings are empty of this kind).
    clearing_density_factor: float = attr.ib(default=0.0, validator=check.between(0.0, 1.0))
    #: Minimum distance between trunks of colliding plants, metres (0 = no spacing rule).
    min_spacing_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: Radius of the plant's footprint at scale 1 (trunk or stem), metres; kept out of keep-clear discs.
    footprint_radius_m: float = attr.ib(default=0.3, validator=check.non_negative())
    #: Steepest ground the plant grows on, degrees.
    max_slope_deg: float = attr.ib(default=30.0, validator=check.between(0.0, 90.0))
    #: Minimum distance from water, metres.
    water_clearance_m: float = attr.ib(default=0.5, validator=check.non_negative())

    def density(self, biome: Biome) -> float:
        return dict(self.density_per_100m2).get(Biome(biome), 0.0)


DEFAULT_FLORA: tuple[FloraConfig, ...] = (
    FloraConfig(
        kind=SceneryKind.PALM,
        density_per_100m2={Biome.TROPICAL_RAIN_FOREST: 2.5, Biome.TROPICAL_SEASONAL_FOREST: 1.0, Biome.COASTAL: 0.5, Biome.SWAMP: 0.3},
        color=(0.30, 0.58, 0.18),
        min_spacing_m=2.5,
        footprint_radius_m=0.4,
        water_clearance_m=0.5,
    ),
    FloraConfig(
        kind=SceneryKind.ACACIA,
        density_per_100m2={
            Biome.TROPICAL_SEASONAL_FOREST: 0.8,
            Biome.SUBTROPICAL_DESERT: 0.2,
            Biome.GRASSLAND: 0.25,
            Biome.TROPICAL_RAIN_FOREST: 0.2,
        },
        color=(0.42, 0.52, 0.17),
        min_spacing_m=4.0,
        footprint_radius_m=0.4,
        water_clearance_m=1.0,
    ),
    FloraConfig(
        kind=SceneryKind.MAPLE,
        density_per_100m2={
            Biome.TEMPERATE_DECIDUOUS_FOREST: 2.0,
            Biome.TEMPERATE_RAIN_FOREST: 0.8,
            Biome.GRASSLAND: 0.15,
            Biome.TROPICAL_RAIN_FOREST: 0.2,
        },
        color=(0.36, 0.55, 0.17),
        min_spacing_m=3.5,
        footprint_radius_m=0.5,
        water_clearance_m=1.0,
    ),
    FloraConfig(
        kind=SceneryKind.FIR,
        density_per_100m2={
            Biome.TEMPERATE_RAIN_FOREST: 2.0,
            Biome.TEMPERATE_DECIDUOUS_FOREST: 0.4,
            Biome.BARE_MOUNTAIN: 0.15,
            Biome.TEMPERATE_DESERT: 0.05,
        },
        color=(0.11, 0.30, 0.15),
        color_noise=0.03,
        min_spacing_m=3.0,
        footprint_radius_m=0.5,
        max_slope_deg=36.0,
        water_clearance_m=1.0,
    ),
    FloraConfig(
        kind=SceneryKind.BUSH,
        density_per_100m2={
            Biome.TROPICAL_RAIN_FOREST: 2.0,
            Biome.TROPICAL_SEASONAL_FOREST: 1.5,
            Biome.TEMPERATE_RAIN_FOREST: 1.5,
            Biome.TEMPERATE_DECIDUOUS_FOREST: 1.5,
            Biome.GRASSLAND: 1.0,
            Biome.TEMPERATE_DESERT: 0.4,
            Biome.SUBTROPICAL_DESERT: 0.3,
            Biome.SWAMP: 1.0,
            Biome.DARK_SHORE: 0.5,
        },
        color=(0.22, 0.45, 0.15),
        scale_range=(0.7, 1.3),
        clearing_density_factor=0.2,
        footprint_radius_m=0.6,
        max_slope_deg=35.0,
    ),
    FloraConfig(
        kind=SceneryKind.FLOWER,
        density_per_100m2={
            Biome.GRASSLAND: 6.0,
            Biome.TEMPERATE_DECIDUOUS_FOREST: 3.0,
            Biome.TROPICAL_SEASONAL_FOREST: 2.0,
            Biome.TROPICAL_RAIN_FOREST: 1.5,
            Biome.COASTAL: 0.3,
        },
        color=(0.88, 0.42, 0.62),
        color_noise=0.2,  # flowers come in many colours
        scale_range=(0.7, 1.3),
        clearing_density_factor=1.0,  # flowers fill the clearings
        footprint_radius_m=0.15,
        water_clearance_m=0.3,
    ),
    FloraConfig(
        kind=SceneryKind.MUSHROOM,
        density_per_100m2={
            Biome.TEMPERATE_RAIN_FOREST: 2.0,
            Biome.SWAMP: 2.0,
            Biome.DARK_SHORE: 0.8,
            Biome.TEMPERATE_DECIDUOUS_FOREST: 0.8,
            Biome.TROPICAL_RAIN_FOREST: 0.5,
        },
        color=(0.78, 0.30, 0.20),
        color_noise=0.08,
        scale_range=(0.6, 1.4),
        clearing_density_factor=0.5,
        footprint_radius_m=0.15,
        max_slope_deg=35.0,
        water_clearance_m=0.3,
    ),
)
