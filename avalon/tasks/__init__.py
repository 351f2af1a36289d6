"""Task registry: one world generator per task, ``(rng, difficulty, config) -> World``.

A new task is one module in this package plus one line in :data:`TASKS`. Generators turn the
difficulty in [0, 1] into every lower-level factor themselves; :func:`generate_world` fills in
the bookkeeping (task name, difficulty, seed) and exports the world folder.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Callable, Optional

import attr
import numpy as np

from avalon.datagen.export import export_world
from avalon.datagen.world import World
from avalon.tasks import trivial

TaskGenerator = Callable[[np.random.Generator, float, Optional[object]], World]

TASKS: dict[str, TaskGenerator] = {
    "trivial": trivial.generate,
}


def check_task(task: str) -> TaskGenerator:
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the tasks are: {', '.join(sorted(TASKS))}")
    return TASKS[task]


def check_difficulty(difficulty: float) -> float:
    if isinstance(difficulty, bool) or not isinstance(difficulty, (int, float)) or math.isnan(difficulty) or not 0.0 <= difficulty <= 1.0:
        raise ValueError(f"difficulty {difficulty!r} must be a number in [0, 1]")
    return float(difficulty)


def build_world(task: str, difficulty: float, seed: int, config: object | None = None) -> World:
    """The world of ``task`` at ``difficulty`` for ``seed`` (pure Python, no files)."""
    generator = check_task(task)
    difficulty = check_difficulty(difficulty)
    world = generator(np.random.default_rng(seed), difficulty, config)
    return attr.evolve(world, task=task, difficulty=difficulty, seed=seed)


def generate_world(task: str, difficulty: float, seed: int, output_dir: str | os.PathLike, config: object | None = None) -> Path:
    """Builds the world and writes it as a world folder at ``output_dir``; returns its path."""
    return export_world(build_world(task, difficulty, seed, config), output_dir)
