"""The scripted agent solves today's tasks in the real simulator: eat and move worlds at d = 0 and
d = 0.5 (move's from d = 0.35 on cross a chasm on a causeway), in evaluation mode within each
world's own time limit, eating all the food (``success``)."""

from __future__ import annotations

import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import walk_route
from avalon.datagen.export import export_world
from avalon.tasks import move

pytestmark = pytest.mark.godot

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=32, is_training=False))
    yield env
    env.close()


@pytest.mark.parametrize("task, difficulty", [("eat", 0.0), ("eat", 0.5), ("move", 0.0), ("move", 0.5)])
def test_the_scripted_agent_eats_the_food(env, tmp_path, task, difficulty):
    for seed in SEEDS:
        world, route = walk_route(task, difficulty, seed)
        if task == "move" and move.has_chasm(difficulty):
            assert len(route.steps) >= 2, "the route crosses the causeway"
        world_dir = export_world(world, tmp_path / f"{task}-{difficulty}-{seed}")
        episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"{task} d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert not episode.truncated and episode.steps < world.time_limit_frames, where
        assert episode.info["food_eaten"] == len(world.food) and "eat" in episode.info["achievements"], where
        assert all(result.succeeded for result in episode.follow.primitives), where
