"""The scripted agent solves stack worlds of d = 0 in the real simulator: following the certificate's
route (``task_route("stack", 0, seed)``: walk to the staircase's foot, jump up its two layers of
stones, jump onto the plateau) over the ground with the staircase in place (``stack.solved_world``:
the stones standing where the generator put them), it eats the apple on the plateau, in evaluation
mode within the world's own time limit, three seeds."""

from __future__ import annotations

import pytest

from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower, route_primitives
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.jump_up import standing_jumps
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.tasks import stack

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_jumps_up_the_stones_and_eats_the_food(env, tmp_path, seed):
    world, route = task_route("stack", 0.0, seed)
    staircase = stack.staircase_of(world)
    assert [step.skill for step in route.steps].count("jump") == staircase.layers + 1
    world_dir = export_world(world, tmp_path / f"stack-0-{seed}")
    follower = RouteFollower(stack.solved_world(world), route, foods=world.food,
                              primitives=standing_jumps(route_primitives(route), Ground(world)))
    episode = run_episode(env, follower, seed=seed, options={"world_dir": str(world_dir)})
    where = f"stack d=0 seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert {"jump", "eat"} <= episode.info["achievements"], where
    assert all(result.succeeded for result in episode.follow.primitives), where
    # It ate up on the plateau: the stones' two layers and the ledge above the yard.
    assert episode.info["world_body_position"][1] >= staircase.base_m + stack.cliff_height_m(staircase.layers) - 0.1, where
