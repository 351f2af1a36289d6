"""The scripted agent solves explore worlds in the real simulator: following the certificate's route
(``task_route("explore", d, seed)``: the explorer who knows the map) from a spawn that cannot see
the food, it walks round or over what hides it, eats the apple and gets ``success`` at d = 0 and
d = 0.5 (and at d = 1, on a Large rocky island), in evaluation mode within the world's own (10-minute) time limit."""

from __future__ import annotations

import pytest

from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.tasks import explore

pytestmark = pytest.mark.godot

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_scripted_agent_finds_and_eats_the_hidden_food(env, tmp_path, difficulty):
    for seed in SEEDS:
        world, route = task_route("explore", difficulty, seed)
        assert world.time_limit_frames == explore.EXPLORE_TIME_LIMIT_FRAMES
        assert route.skills() <= explore.ROUTE_SKILLS and route.steps
        world_dir = export_world(world, tmp_path / f"explore-{difficulty}-{seed}")
        episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"explore d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert not episode.truncated and episode.steps < world.time_limit_frames, where
        assert episode.info["food_eaten"] == len(world.food) and "eat" in episode.info["achievements"], where
        assert all(result.succeeded for result in episode.follow.primitives), where
