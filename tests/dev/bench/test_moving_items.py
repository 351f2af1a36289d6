"""``avalon world benchmark --carry``'s scripted agent in the real simulator: it picks up a stone and
walks with it held, and pushes a push world's boulder; the benchmark's carry rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.datagen.world import FlatGround, World, tool_entity
from avalon.dev.bench.moving_items import CarryActor, movable_item
from avalon.dev.bench.worlds import WorldBenchOptions, format_rows, run_world_benchmark
from avalon.tasks import build_world

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=32))
    yield env
    env.close()


def _stone_world() -> World:
    stone = tool_entity("stone", "stone", (0.5, 0.0, -3.0))
    return World(task="carry", difficulty=0.0, seed=0, ground=FlatGround(size_m=60.0), entities=(stone,),
                 spawn_position=(0.0, 0.0, 0.0), spawn_yaw_rad=0.0, time_limit_frames=1000)


def _run(env, world, folder, steps):
    actor = CarryActor(world)
    observation, info = env.reset(seed=0, options={"world_dir": str(export_world(world, folder))})
    actor.reset(observation, info)
    trace = []
    for _ in range(steps):
        observation, _, _, _, info = env.step(actor.act(observation, info))
        trace.append((actor.moving_item, np.array(info["world_body_position"]), bool(observation["right_hand_is_grasping"][0])))
    return trace, info


def test_the_actor_picks_up_a_stone_and_walks_with_it_held(env, tmp_path):
    trace, info = _run(env, _stone_world(), tmp_path / "stone", 100)
    assert "grasp" in info["achievements"]
    held = [i for i, (moving, _, grasping) in enumerate(trace) if moving]
    assert len(held) >= 50 and all(trace[i][2] for i in held)  # "moving" steps are steps the hand held on
    first, last = trace[held[0]][1], trace[held[-1]][1]
    assert math.dist(first[::2], last[::2]) > 2.0 or sum(
        np.linalg.norm(trace[i + 1][1] - trace[i][1]) for i in held[:-1]) > 10.0  # it walked carrying it


def test_the_actor_pushes_a_push_worlds_boulder(env, tmp_path):
    world = build_world("push", 0.0, 0)
    assert movable_item(world).kind == "boulder"
    trace, info = _run(env, world, tmp_path / "push", 150)
    assert "push" in info["achievements"]
    assert sum(moving for moving, _, _ in trace) >= 10


def test_a_world_without_a_tool_has_no_carry_actor():
    with pytest.raises(ValueError, match="no tool"):
        CarryActor(build_world("eat", 0.0, 0))


def test_the_world_benchmark_adds_carry_rows_beside_a_mouse_keyboard_trivial_world():
    options = WorldBenchOptions(seeds=1, steps=60, tasks=("push", "eat"), difficulties=(0.0,), sizes=(), resolution=32,
                                carry=True)
    rows = run_world_benchmark(options, say=lambda line: None)
    assert [row.label for row in rows] == ["trivial", "push 0", "eat 0", "trivial (mk)", "push 0 carry"]
    assert rows[-1].moving_fraction > 0.0 and rows[-1].steps_per_second > 0.0
    assert all(row.moving_fraction is None for row in rows[:-1])
    assert "carry rows" in format_rows(rows, options)
