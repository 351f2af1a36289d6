"""The trivial test world and its task: flat ground, boxes at known distances ahead, one apple in view.

Used by the tests (depth, movement, determinism) and by ``avalon run``. The agent spawns at the
origin facing -z; every box is straight ahead or to the side at the distances named below. The
world is the same for every seed and difficulty, so the task has no table of difficulty curves.
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.world import Entity, FlatGround, World
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.spec import TaskSpec

TRIVIAL_TIME_LIMIT_FRAMES = 200


def _box(name: str, x: float, z: float, size: float, color) -> Entity:
    return Entity(kind="box", name=name, position=(x, size / 2, z), params={"size": (size, size, size), "color": color})


def trivial_world(seed: int = 0, time_limit_frames: int = TRIVIAL_TIME_LIMIT_FRAMES) -> World:
    """A flat 100 m square with four boxes and an apple; front faces at 3.5 m, 7.5 m and 15 m."""
    entities = (
        _box("near_box", -1.5, -4.0, 1.0, (0.8, 0.25, 0.2)),  # front face 3.5 m ahead, left
        _box("middle_box", 1.5, -8.0, 1.0, (0.2, 0.35, 0.8)),  # front face 7.5 m ahead, right
        _box("far_box", 0.0, -16.0, 2.0, (0.9, 0.8, 0.2)),  # front face 15 m ahead, centre
        _box("side_box", 6.0, 0.0, 2.0, (0.6, 0.3, 0.7)),  # 6 m to the right
        Entity(kind="apple", name="apple", position=(0.0, 0.15, -2.5), params={"radius": 0.15, "color": (0.85, 0.1, 0.1)}),
    )
    return World(
        task="trivial",
        difficulty=0.0,
        seed=seed,
        ground=FlatGround(size_m=100.0),
        entities=entities,
        spawn_position=(0.0, 0.0, 0.0),
        spawn_yaw_rad=0.0,
        time_limit_frames=time_limit_frames,
    )


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
    role="smoke",
    group=None,  # a test world: the same whatever the seed and difficulty; in no protocol or set
)
