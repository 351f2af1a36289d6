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
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.rules.animals import ANIMALS, STATE_ACTIVE
from avalon.tasks.kit.predators import certify_on_foot

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


@pytest.mark.parametrize("task", ["avoid", "fight"])
def test_guards_of_hard_worlds_wake_and_bite_an_agent_walking_straight_to_the_food(env, tmp_path, task):
    # At d = 1 the predators stand 2-4 m (avoid) or 2-3 m (fight) from the food: a plain route
    # follower walking straight to it (no waiting) wakes some of them, and they attack. (Not every
    # one every time: a bee may have wandered off, a snake backs away first, a jaguar must see the
    # agent moving.)
    woke, attacked, seen = 0, 0, []
    for seed in (0, 1, 2):
        world, _ = task_route(task, 1.0, seed)
        route = certify_on_foot(world, world.food[0]).route
        folder = export_world(world, tmp_path / f"{task}-straight-{seed}")
        follower = RouteFollower(world, route)
        observation, info = env.reset(seed=seed, options={"world_dir": str(folder)})
        follower.reset(observation, info)
        states, lowest = set(), 1.0
        for _ in range(400):
            observation, _, terminated, truncated, info = env.step(follower.act(observation, info))
            states.update(int(row[3]) for row in info["animals"])
            lowest = min(lowest, float(info["energy"]) - float(info["food_eaten"]))
            if terminated or truncated or info["success"] or follower.result.finished:
                break
        woke += STATE_ACTIVE in states
        attacked += lowest < 1.0
        seen.append(([a.kind for a in world.animals], sorted(states), round(lowest, 2)))
    assert woke >= 2 and attacked >= 1, f"{task} d = 1: (species, states, lowest energy) per seed {seen}"
