"""``info["animals"]``: the ground-truth state of a world's animals (real Godot), which scripted
agents read as they read ``world_body_position``."""

from __future__ import annotations

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.export import export_world
from avalon.datagen.world import FlatGround, World, tool_entity
from avalon.rules import animals
from tests.conftest import zero_action

pytestmark = pytest.mark.godot


def _world(entities) -> World:
    return World(task="mechanics", difficulty=0.0, seed=0, ground=FlatGround(size_m=60.0), entities=tuple(entities),
                 spawn_position=(0.0, 0.0, 0.0), spawn_yaw_rad=0.0, time_limit_frames=100)


def test_info_lists_each_animal_in_world_order_with_its_position_state_and_hits(tmp_path):
    rabbit_top = animals.ANIMALS["rabbit"].size_m[1]
    entities = [
        tool_entity("rock", "rock", (12.0, rabbit_top + 1.5, -12.0)),  # falls on the rabbit: a hit, a knock-out
        animal_entity("wolf", "wolf", (-15.0, 0.0, -15.0), activation=(), idle_speed_m_per_s=0.0),
        animal_entity("rabbit", "rabbit", (12.0, 0.0, -12.0), activation=(), idle_speed_m_per_s=0.0),
    ]
    folder = export_world(_world(entities), tmp_path / "two")
    empty = export_world(_world(entities[:1]), tmp_path / "none")
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=32, world_dir=str(folder)))
    try:
        _, info = env.reset(seed=0)
        rows = info["animals"]
        assert rows.shape == (2, len(animals.ANIMAL_STATE_FIELDS)) and rows.dtype == np.float32
        np.testing.assert_allclose(rows[:, [0, 2]], [[-15.0, -15.0], [12.0, -12.0]], atol=0.3)
        assert rows[:, 4].tolist() == [0.0, 0.0]
        for _ in range(15):
            _, _, _, _, info = env.step(zero_action())
        wolf, rabbit = info["animals"]
        assert wolf[3] == animals.STATE_IDLE and wolf[4] == 0
        assert rabbit[3] == animals.STATE_KNOCKED_OUT and rabbit[4] == 1
        _, info = env.reset(options={"world_dir": str(empty)})
        assert info["animals"].shape == (0, len(animals.ANIMAL_STATE_FIELDS))
    finally:
        env.close()
