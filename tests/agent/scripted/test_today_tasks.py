"""The scripted agent solves today's tasks in the real simulator: eat and move worlds at d = 0 and
d = 0.5 (move's from d = 0.35 on cross a chasm on a causeway), in evaluation mode within each
world's own time limit, eating all the food (``success``); and as a per-env policy over episodes
whose worlds the env generates itself."""

from __future__ import annotations

import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.policy import ScriptedPolicy
from avalon.agent.scripted.task_routes import walk_route
from avalon.datagen.export import export_world
from avalon.tasks import build_world, move

pytestmark = pytest.mark.godot

SEEDS = (0, 1, 2)


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


def test_one_scripted_policy_plays_episode_after_episode_from_the_world_each_reset_made():
    policy = ScriptedPolicy()
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space=policy.action_space, resolution=32, is_training=False,
                              task="move", difficulty=0.5))
    try:
        for seed in (4, 5):
            observation, info = env.reset(seed=seed)
            policy.reset(build_world(info["task"], info["difficulty"], info["seed"]), observation, info)
            for _ in range(env.episode_time_limit_frames):
                observation, _, terminated, truncated, info = env.step(policy.act(observation, info))
                if terminated or truncated or info["success"]:
                    break
            assert info["success"], f"seed {seed}: {policy.result.describe()}"
            assert [result.name for result in policy.result.primitives][:2] == ["walk", "walk"]  # along the causeway
    finally:
        env.close()
