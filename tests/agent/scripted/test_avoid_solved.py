"""The predator tasks in the real simulator: the scripted agent (``AvoidFollower``, the follower
``follower_for`` gives avoid and fight worlds) walks the certificate's route round the predators of
d = 0 avoid worlds, watching their live positions in ``info["animals"]``, and eats the apple with
``success``, its feet never within the bee's activation radius of its home (the bee wanders, so it
may still fly up and sting once: at most a quarter of the energy); at d = 0 fight it eats the apple
too (a bee guards it). Evaluation mode, 32 x 32."""

from __future__ import annotations

import math

import pytest

from avalon.agent.scripted.avoid import AvoidFollower
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.rules.animals import ANIMALS

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def _play(env, tmp_path, task, difficulty, seed):
    world, route = task_route(task, difficulty, seed)
    follower = follower_for(world, route)
    assert isinstance(follower, AvoidFollower)
    folder = export_world(world, tmp_path / f"{task}-{difficulty}-{seed}")
    observation, info = env.reset(seed=seed, options={"world_dir": str(folder)})
    follower.reset(observation, info)
    states, nearest_home, steps = set(), math.inf, 0
    while not (info["success"] or follower.result.finished) and steps < world.time_limit_frames:
        observation, _, terminated, truncated, info = env.step(follower.act(observation, info))
        steps += 1
        x, _, z = info["world_body_position"]
        for row, animal in zip(info["animals"], world.animals):
            states.add(int(row[3]))
            nearest_home = min(nearest_home, math.hypot(animal.position[0] - x, animal.position[2] - z))
        if terminated or truncated:
            break
    return world, info, follower, states, nearest_home, steps


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_scripted_agent_walks_round_the_predators_of_an_easy_avoid_world_and_eats(env, tmp_path, seed):
    world, info, follower, states, nearest_home, steps = _play(env, tmp_path, "avoid", 0.0, seed)
    where = (f"avoid d = 0 seed {seed}: {follower.result.describe()}, {steps} steps, waited {follower.waited_steps}, "
             f"states seen {sorted(states)}")
    assert info["success"] and info["food_eaten"] == 1, where
    assert info["energy"] >= 2.0 - ANIMALS["bee"].attack_damage - 1e-6, where  # +1 for the apple, at most one sting
    assert nearest_home > ANIMALS["bee"].activation_radius_m, where


def test_the_scripted_agent_eats_the_food_a_bee_guards_in_an_easy_fight_world(env, tmp_path):
    for seed in (0, 1):
        world, info, follower, states, nearest_home, steps = _play(env, tmp_path, "fight", 0.0, seed)
        assert [a.kind for a in world.animals] == ["bee"]
        assert info["success"], f"fight d = 0 seed {seed}: {follower.result.describe()}, {steps} steps"
