"""The trivial task: the fixed test world of :mod:`avalon.datagen.trivial` (same for every seed).

Difficulty changes nothing, so the task has no table of difficulty curves.
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.trivial import TRIVIAL_TIME_LIMIT_FRAMES, trivial_world
from avalon.datagen.world import World
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.spec import TaskSpec


def generate(rng: np.random.Generator, difficulty: float, config: object | None = None) -> World:
    """Task generator for the registry: the trivial world, whatever the draws."""
    return trivial_world()


TASK = TaskSpec(
    name="trivial",
    generate=generate,
    training_time_limit_s=Ramp(30.0),
    evaluation_time_limit_frames=TRIVIAL_TIME_LIMIT_FRAMES,
    food_visible_from_spawn=True,
    food_reachable_on_foot=True,
)
