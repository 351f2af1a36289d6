"""The scripted agent solves carry worlds of the bridge variant in the real simulator, at d = 0,
seeds 0-3: the follower the registry gives (``follower_for``: ``carry_follower``, bridge's
``LogBridgeFollower`` told where the base task lays the log) walks to the log where carry put it,
10-12 m round the ring from the trench, grasps it, carries it round the ring, lays it across the
trench, crosses on it and eats the apple, with ``success`` in evaluation mode. The log where it
was laid is where the feet were over the trench: on its top."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.agent.scripted.bridge import LogBridgeFollower
from avalon.agent.scripted.eat import EatFood
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.stack import Unbuilt
from avalon.agent.scripted.task_routes import route_for
from avalon.datagen.export import export_world
from avalon.tasks import build_world, carry
from avalon.tasks.kit.log import log_footprint
from tests.agent.scripted.track import Track

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_fetches_the_log_lays_it_across_and_eats_the_food(env, tmp_path, seed):
    world = build_world("carry", 0.0, seed, forced={"base_task": "bridge"})
    layout = carry.layout_of(world)
    solved = layout.base.solved_log
    log = next(entity for entity in world.entities if entity.kind == "log")
    low, _ = carry.KNOBS.carry_distance_m.at(0.0)
    assert math.dist(log.position, solved.position) >= low  # the log must be fetched
    follower = follower_for(world, route_for(world))
    assert type(follower) is LogBridgeFollower
    track = Track(env)
    world_dir = export_world(world, tmp_path / f"carry-{seed}")
    episode = run_episode(track, follower, seed=seed, options={"world_dir": str(world_dir)})
    where = f"carry (bridge) d=0 seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert episode.info["food_eaten"] == 1 and "grasp" in episode.info["achievements"], where
    assert [result.name for result in episode.follow.primitives] == ["lay log", "eat"], where
    # Over the trench (the middle third of where the log goes), the feet were on a log's top.
    block = log_footprint(solved)
    positions = np.array(track.positions)
    across, along = block.local(positions[:, 0], positions[:, 2])
    middle = (np.abs(along) < block.length_m / 6.0) & (np.abs(across) < block.width_m / 2.0 + 0.3)
    assert middle.sum() >= 2, where
    assert np.all(np.abs(positions[middle, 1] - block.top_m) < 0.3), (positions[middle], block.top_m)


def test_stack_carry_worlds_get_stacks_follower_which_gives_up_at_once():
    # The scripted agent does not carry stack's 35 kg stones, and carry moved every one of them.
    world = build_world("carry", 0.0, 0, forced={"base_task": "stack"})
    follower = follower_for(world, route_for(world))
    assert type(follower) is RouteFollower
    assert [type(p) for p in follower._primitives] == [Unbuilt, EatFood]
