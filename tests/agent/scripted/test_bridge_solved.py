"""The scripted agent crosses bridge worlds in the real simulator: at d = 0 the log lies across the
trench (its certificate's solved place); the agent follows the certificate's route
(``task_route("bridge", 0, seed)``) with :class:`~avalon.agent.scripted.bridge.LogBridgeFollower`:
it jumps onto the log's end, walks along its top over the trench, steps off on the plateau, eats the
apple and gets ``success`` in evaluation mode. Walking the log's top at the log's height over the
chasm also shows the log settled where the generator placed it."""

from __future__ import annotations

import numpy as np
import pytest

from avalon.agent.scripted.bridge import LogBridgeFollower
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.tasks.bridge import LOG_SIZE_M, log_block

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2)


class Track:
    """Wraps the env to keep the body's positions."""

    def __init__(self, env):
        self.env, self.positions = env, []

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.positions.append(np.asarray(info["world_body_position"], np.float64))
        return observation, info

    def step(self, action):
        result = self.env.step(action)
        self.positions.append(np.asarray(result[-1]["world_body_position"], np.float64))
        return result


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_walks_over_the_log_and_eats_the_food(env, tmp_path, seed):
    world, route = task_route("bridge", 0.0, seed)
    log = next(entity for entity in world.entities if entity.kind == "log")
    world_dir = export_world(world, tmp_path / f"bridge-{seed}")
    track = Track(env)
    episode = run_episode(track, LogBridgeFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
    where = f"bridge d=0 seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert episode.info["food_eaten"] == 1 and "eat" in episode.info["achievements"], where
    # Over the trench (the middle third of the log), the feet were on the log's top where it was placed.
    block = log_block(log)
    positions = np.array(track.positions)
    across, along = block.local(positions[:, 0], positions[:, 2])
    middle = (np.abs(along) < block.length_m / 6.0) & (np.abs(across) < block.width_m / 2.0)
    assert middle.sum() >= 2, where
    on_log = positions[middle, 1] - block.top_m
    # Where the agent first stands over the trench the log is where it was placed; under the agent's
    # weight it may give a little as it is walked (a log on two rims, not fixed to them).
    assert abs(on_log[0]) < 0.1 and np.all(np.abs(on_log) < 0.3), (positions[middle], block.top_m)
    assert block.top_m - log.position[1] == pytest.approx(LOG_SIZE_M[1] / 2.0)
