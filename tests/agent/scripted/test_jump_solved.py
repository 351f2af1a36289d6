"""The scripted agent solves jump worlds in the real simulator: it follows the certificate's route
(``task_route("jump", d, seed)``), jumps the chasm's trench where it is narrow, eats the apple and
gets ``success`` at d = 0 and d = 0.5, in evaluation mode within the world's own time limit."""

from __future__ import annotations

import pytest

from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("difficulty", [0.0, 0.5])
def test_the_scripted_agent_jumps_the_chasm_and_eats_the_food(env, tmp_path, difficulty):
    for seed in SEEDS:
        world, route = task_route("jump", difficulty, seed)
        assert "jump" in route.skills()
        world_dir = export_world(world, tmp_path / f"jump-{difficulty}-{seed}")
        episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"jump d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert not episode.truncated and episode.steps < world.time_limit_frames, where
        assert episode.info["food_eaten"] == len(world.food) and "eat" in episode.info["achievements"], where
        jumps = [result for result in episode.follow.primitives if result.name == "jump"]
        assert jumps and all(result.succeeded for result in jumps), where
