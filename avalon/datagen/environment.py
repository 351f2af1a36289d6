"""Sky, sun, ambient light and fog of a world (the paper's "environment" factors, Appendix E.3).

The benchmark keeps the environment fixed and varies only the terrain (Section 4), so
:func:`random_lighting` returns the fixed :class:`~avalon.datagen.world.Lighting` unless asked to
vary it. Varied lighting stays within natural ranges: a sun between 20 and 75 degrees above the
horizon from any direction, warmer and dimmer when low; a blue sky of varying depth; a sky-tinted
ambient light; and sometimes a light haze (fog coloured like the horizon).
"""

from __future__ import annotations

import math

import numpy as np

from avalon.datagen.world import Lighting

#: The fixed benchmark setting (the defaults of ``Lighting``).
BENCHMARK_LIGHTING = Lighting()

#: Range of the sun's elevation above the horizon, degrees (``sun_pitch_deg`` is its negative).
SUN_ELEVATION_RANGE_DEG = (20.0, 75.0)
SUN_ENERGY_RANGE = (0.8, 1.25)
AMBIENT_ENERGY_RANGE = (0.45, 0.75)
#: Probability that a varied world has fog, and the ranges of its start and end distances, metres.
FOG_PROBABILITY = 0.3
FOG_BEGIN_RANGE_M = (30.0, 80.0)
FOG_END_RANGE_M = (150.0, 400.0)

_LOW_SUN_COLOR = np.array([1.0, 0.78, 0.55])  # near the horizon: warm
_HIGH_SUN_COLOR = np.array([1.0, 0.98, 0.93])  # high in the sky: almost white
_ZENITH_BASE = np.array([0.30, 0.50, 0.85])


def _rgb(values: np.ndarray) -> tuple[float, float, float]:
    r, g, b = (float(v) for v in np.clip(values, 0.0, 1.0))
    return (r, g, b)


#: Linear tonemap exposure (see Lighting.exposure).
EXPOSURE_RANGE = (0.85, 1.15)


def random_lighting(rng: np.random.Generator, vary: bool) -> Lighting:
    """The lighting of one world: the fixed benchmark setting, or (``vary``) a random natural one.

    Draws nothing from ``rng`` when ``vary`` is False, so turning variation on or off never
    changes anything else drawn from the same generator afterwards.
    """
    if not vary:
        return BENCHMARK_LIGHTING
    elevation = rng.uniform(*SUN_ELEVATION_RANGE_DEG)
    sun_yaw = rng.uniform(0.0, 360.0)
    # 0 for a sun on the horizon, 1 overhead: low suns are warmer and a little dimmer.
    height = math.sin(math.radians(elevation))
    sun_color = _LOW_SUN_COLOR + (_HIGH_SUN_COLOR - _LOW_SUN_COLOR) * height + rng.normal(0.0, 0.02, 3)
    sun_energy = rng.uniform(*SUN_ENERGY_RANGE) * (0.85 + 0.15 * height)
    # Sky: a deeper or paler blue with a slight hue shift; the horizon is the zenith mixed with white.
    depth = rng.uniform(-0.12, 0.12)
    hue = rng.uniform(-0.05, 0.05)
    zenith = _ZENITH_BASE + np.array([depth + hue, depth, depth * 0.5 - hue])
    haze = rng.uniform(0.45, 0.7)
    horizon = zenith + (1.0 - zenith) * haze
    ambient = 0.5 * horizon + 0.5 * np.array([0.55, 0.6, 0.7]) + rng.normal(0.0, 0.02, 3)
    ambient_energy = rng.uniform(*AMBIENT_ENERGY_RANGE)
    fog_enabled = bool(rng.uniform() < FOG_PROBABILITY)
    fog_begin = rng.uniform(*FOG_BEGIN_RANGE_M)
    fog_end = rng.uniform(*FOG_END_RANGE_M)
    exposure = rng.uniform(*EXPOSURE_RANGE)
    return Lighting(
        sun_pitch_deg=-float(elevation),
        sun_yaw_deg=float(sun_yaw),
        sun_energy=float(sun_energy),
        sun_color=_rgb(sun_color),
        ambient_color=_rgb(ambient),
        ambient_energy=float(ambient_energy),
        sky_zenith_color=_rgb(zenith),
        sky_horizon_color=_rgb(horizon),
        fog_enabled=fog_enabled,
        fog_color=_rgb(horizon),
        fog_depth_begin_m=float(fog_begin),
        fog_depth_end_m=float(fog_end),
        exposure=float(exposure),
    )
