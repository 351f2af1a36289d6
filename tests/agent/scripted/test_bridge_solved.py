"""The scripted agent crosses bridge worlds in the real simulator, at d = 0 and 0.5, seeds 0-2: it
follows the certificate's route (``task_route("bridge", d, seed)``) with
:class:`~avalon.agent.scripted.bridge.LogBridgeFollower`: where the log lies across the trench
already (always at d = 0), it jumps onto the log's end, walks along its top over the trench, steps
off on the plateau, eats the apple and gets ``success`` in evaluation mode; where it lies elsewhere
(d = 0.5, seed 1), it fetches the log, lays it across and crosses. Walking the log's top at its
height over the chasm also shows the log where it was placed. Then the log observed in the
frames: it settles where the World spec puts it."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.actions import action, turn_rate
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.bridge import LogBridgeFollower
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.tasks import build_world
from avalon.tasks.bridge import layout_of
from avalon.tasks.kit.log import LOG_SIZE_M, log_footprint
from tests.agent.scripted.track import Track
from tests.game.camera import colour_mask, world_points

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("difficulty", [0.0, 0.5])
@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_crosses_on_the_log_and_eats_the_food(env, tmp_path, difficulty, seed):
    world, route = task_route("bridge", difficulty, seed)
    layout = layout_of(world)
    log = next(entity for entity in world.entities if entity.kind == "log")
    world_dir = export_world(world, tmp_path / f"bridge-{difficulty}-{seed}")
    track = Track(env)
    episode = run_episode(track, LogBridgeFollower(world, route, layout), seed=seed, options={"world_dir": str(world_dir)})
    where = f"bridge d={difficulty} seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert episode.info["food_eaten"] == 1 and "eat" in episode.info["achievements"], where
    names = [result.name for result in episode.follow.primitives]
    if layout.in_place:  # walk, mount, walk along, step off, walk, eat
        assert names == ["walk", "mount", "walk", "fall", "walk", "eat"], where
    else:  # fetched: grasped, carried, laid, then crossed within the one primitive
        assert math.dist(log.position, layout.solved_log.position) > 5.0
        assert names == ["lay log", "eat"] and "grasp" in episode.info["achievements"], where
    # Over the trench (the middle third of the laid log), the feet were on the log's top.
    block = log_footprint(layout.solved_log)
    positions = np.array(track.positions)
    across, along = block.local(positions[:, 0], positions[:, 2])
    middle = (np.abs(along) < block.length_m / 6.0) & (np.abs(across) < block.width_m / 2.0)
    assert middle.sum() >= 2, where
    on_log = positions[middle, 1] - block.top_m
    # Where the agent first stands over the trench the log is where it was placed (or laid); under
    # the agent's weight it may give a little as it is walked.
    assert abs(on_log[0]) < 0.1 and np.all(np.abs(on_log) < 0.3), (positions[middle], block.top_m)
    assert block.top_m - layout.solved_log.position[1] == pytest.approx(LOG_SIZE_M[1] / 2.0)


def test_bridge_worlds_get_the_log_bridge_follower():
    # ScriptedPolicy and evaluation's ReferencePolicy take their follower from follower_for.
    world, route = task_route("bridge", 0.0, 0)
    assert type(follower_for(world, route)) is LogBridgeFollower
    jump_world, jump_route = task_route("jump", 0.0, 0)
    assert type(follower_for(jump_world, jump_route)) is RouteFollower


def test_some_worlds_need_the_log_fetched():
    # d = 0.5, seeds 0-2 hold both kinds: the log across already, and one to fetch (seed 1).
    assert {layout_of(task_route("bridge", 0.5, seed)[0]).in_place for seed in SEEDS} == {True, False}


def _magenta(r, g, b):  # nothing else in these worlds is magenta
    return (r > g + 40) & (b > g + 40)


@pytest.fixture(scope="module")
def camera_env():
    """Frames fine enough to see the log in."""
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=96, is_training=False))
    yield env
    env.close()


@pytest.mark.parametrize("difficulty, seed", [(0.0, 0), (0.0, 3), (0.0, 6), (0.0, 7), (1.0, 4), (1.0, 7), (1.0, 9)])
def test_the_log_settles_where_it_was_placed(camera_env, tmp_path, difficulty, seed):
    # The world as generated but for the log's colour (magenta, to find it in the frames). The agent
    # turns to the log and looks down at it (12 steps at most); then and after 40 steps the log's top is where the
    # World spec puts it and its pixels lie over its footprint. (Without the piers, logs resting on
    # the height field's lips slid into the trench in 3 of 10 worlds at d = 0: seeds 3, 6 and 7. At
    # d = 1 the three seeds of 0-9 whose log lies within 13 m of the spawn: farther, 96-pixel frames
    # resolve it too coarsely.)
    world = build_world("bridge", difficulty, seed)
    log = next(entity for entity in world.entities if entity.kind == "log")
    painted = attr.evolve(log, params={**dict(log.params), "base_color": (0.9, 0.1, 0.9)})
    world = attr.evolve(world, entities=tuple(painted if entity is log else entity for entity in world.entities))
    world_dir = export_world(world, tmp_path / f"settle-{difficulty}-{seed}")
    observation, info = camera_env.reset(seed=seed, options={"world_dir": str(world_dir)})
    block = log_footprint(log)
    target = (block.centre[0], block.top_m, block.centre[1])
    seen = []
    for step in range(40):
        body = Body.read(observation, info)
        pitch = body.pitch_to_rad(target) - body.head_pitch_rad
        observation, _, _, _, info = camera_env.step(action(head_yaw=turn_rate(body.yaw_error_rad(target)), head_pitch=turn_rate(pitch)))
        if step in (12, 39):
            points = world_points(observation, info, colour_mask(observation["rgbd"], _magenta))
            assert len(points) >= 30, f"step {step}: the log is out of sight"
            seen.append(points)
    for points in seen:
        top = float(np.percentile(points[:, 1], 95))
        assert top == pytest.approx(block.top_m, abs=0.1), (top, block.top_m)
        across, along = block.local(points[:, 0], points[:, 2])
        assert np.percentile(np.abs(across), 95) < block.width_m / 2 + 0.2
        assert np.percentile(np.abs(along), 95) < block.length_m / 2 + 0.2
