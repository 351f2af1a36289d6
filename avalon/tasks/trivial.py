"""The trivial task: the fixed test world of :mod:`avalon.datagen.trivial` (same for every seed)."""

from __future__ import annotations

import numpy as np

from avalon.datagen.trivial import trivial_world
from avalon.datagen.world import World


def generate(rng: np.random.Generator, difficulty: float, config: object | None = None) -> World:
    return trivial_world()
