"""Generated task worlds in the real simulator: they load, the agent stands on the ground, it steps."""

import math

import gymnasium
import numpy as np
import pytest

import avalon  # noqa: F401  (registers avalon/Avalon-v0)
from avalon import AvalonEnv
from avalon.datagen.world import Terrain
from avalon.tasks import build_world
from tests.conftest import zero_action

pytestmark = pytest.mark.godot
CASES = [("eat", 0.0, 0), ("eat", 1.0, 3), ("move", 0.0, 1), ("move", 0.5, 3), ("move", 1.0, 7)]


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(renderer="GLES2")
    yield env
    env.close()


@pytest.mark.parametrize("task, difficulty, seed", CASES)
def test_agent_spawns_on_dry_ground_and_steps(env, tmp_path, task, difficulty, seed):
    world = build_world(task, difficulty, seed)
    assert isinstance(world.ground, Terrain)
    heightmap = world.ground.heightmap
    observation, info = env.reset(seed=seed, options={"world_dir": _export(world, tmp_path)})
    spawn = np.array(world.spawn_position)
    assert spawn[1] > heightmap.water_height_m  # on dry land
    assert info["world_body_position"] == pytest.approx(spawn, abs=0.02)
    for _ in range(10):  # standing still: the body neither sinks through the terrain nor floats
        observation, _, _, _, info = env.step(zero_action())
    assert info["world_body_position"][1] == pytest.approx(spawn[1], abs=0.15)
    assert observation["frames_remaining"][0] == world.time_limit_frames - 10
    assert observation["rgbd"][..., 3].mean() > 5  # terrain in view has depth
    for _ in range(10):  # it can walk on the terrain
        observation, _, _, _, info = env.step(zero_action(head_position=[0, 0, -1], head_rotation=[0, 0.3, 0]))
    moved = np.linalg.norm(info["world_body_position"][[0, 2]] - spawn[[0, 2]])
    assert moved > 1.0
    assert info["world_body_position"][1] > heightmap.water_height_m - 2.0


def _export(world, folder):
    from avalon.datagen.export import export_world

    return str(export_world(world, folder / "world"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_food_rests_where_the_generator_put_it(env, tmp_path, seed):
    """Food on the (uneven) terrain does not roll away while the agent stands still."""
    world = build_world("eat", 0.0, seed)  # food straight ahead, within 2.4 m
    env.reset(seed=seed, options={"world_dir": _export(world, tmp_path)})
    for _ in range(10):  # let the agent's body settle onto the ground first
        observation, *_ = env.step(zero_action())
    red = (observation["rgbd"][..., 0] > 120) & (observation["rgbd"][..., 1] < 60)
    assert red.sum() >= 5  # the apple is in view
    settled = observation["rgbd"].copy()
    for _ in range(30):
        observation, *_ = env.step(zero_action())
    assert np.array_equal(observation["rgbd"], settled)


def test_gymnasium_make_with_task_and_difficulty_steps_in_a_generated_world():
    env = gymnasium.make("avalon/Avalon-v0", task="move", difficulty=0.5, renderer="GLES2")
    try:
        observation, info = env.reset(seed=3)
        assert info["task"] == "move" and info["difficulty"] == 0.5 and info["seed"] == 3
        for _ in range(5):
            observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert observation["frames_remaining"][0] == 3000 - 5
        assert not terminated and not truncated
    finally:
        env.close()


def test_fog_fades_distant_terrain_to_the_fog_colour(env, tmp_path):
    import attr

    world = build_world("eat", 0.5, 2)
    fog_color = np.array([0.9, 0.2, 0.9])  # unmistakable
    frames = {}
    for fog in (False, True):
        lighting = attr.evolve(world.lighting, fog_enabled=fog, fog_color=tuple(fog_color), fog_depth_begin_m=5.0, fog_depth_end_m=30.0)
        folder = _export(attr.evolve(world, lighting=lighting), tmp_path / str(fog))
        observation, _ = env.reset(seed=0, options={"world_dir": folder})
        frames[fog] = observation["rgbd"]
    from avalon.sim.protocol import depth_to_metres

    metres = depth_to_metres(frames[False][..., 3])
    far = (metres > 40) & np.isfinite(metres)
    near = metres < 4
    assert far.sum() > 20 and near.sum() > 20
    target = fog_color * 255
    far_before = np.abs(frames[False][far][:, :3] - target).mean()
    far_after = np.abs(frames[True][far][:, :3] - target).mean()
    assert far_after < far_before / 3  # distant terrain takes the fog's colour
    near_change = np.abs(frames[True][near][:, :3].astype(int) - frames[False][near][:, :3]).mean()
    assert near_change < 10  # nearby things barely change


def test_fog_fades_a_distant_animal_like_the_terrain(env, tmp_path):
    import attr

    from avalon.datagen.animal_placement import animal_entity

    world = build_world("eat", 0.5, 2)
    heightmap = world.ground.heightmap
    sx, _, sz = world.spawn_position
    for yaw in np.linspace(0.0, 2.0 * math.pi, 24, endpoint=False):  # dry ground 20 m away; the agent faces it
        x, z = sx - 20.0 * math.sin(yaw), sz - 20.0 * math.cos(yaw)
        if heightmap.contains(x, z) and float(heightmap.height_at(x, z)) > heightmap.water_height_m + 0.5:
            break
    else:
        pytest.fail("no dry ground 20 m from the spawn")
    world = attr.evolve(world, spawn_yaw_rad=float(yaw))
    hippo = animal_entity("hippo", "distant_hippo", (x, float(heightmap.height_at(x, z)) + 0.8, z),
                          idle_speed_m_per_s=0.0, activation=())
    fog_color = np.array([0.9, 0.2, 0.9])
    frames = {}
    for fog in (False, True):
        lighting = attr.evolve(world.lighting, fog_enabled=fog, fog_color=tuple(fog_color), fog_depth_begin_m=5.0, fog_depth_end_m=30.0)
        for with_hippo in (False, True):
            scene = attr.evolve(world, lighting=lighting)
            scene = scene.add_animal(hippo) if with_hippo else scene
            observation, _ = env.reset(seed=0, options={"world_dir": _export(scene, tmp_path / f"{fog}-{with_hippo}")})
            frames[fog, with_hippo] = observation["rgbd"][..., :3].astype(float)
    hippo_pixels = np.any(frames[False, True] != frames[False, False], axis=-1)
    assert hippo_pixels.sum() >= 10, "the hippo is not in view"
    target = fog_color * 255
    before = np.abs(frames[False, True][hippo_pixels] - target).mean()
    after = np.abs(frames[True, True][hippo_pixels] - target).mean()
    assert after < 0.7 * before  # 20 m, in fog from 5 to 30 m: 60% of the way to its colour
