"""The scripted agent solves descend worlds in the real simulator: at d = 0 and d = 0.5 (a platform
part way down) it follows the certificate's route (onto the platform, off it, to the food), eats
the apple and gets ``success`` in evaluation mode, having lost no energy to falls; at d = 0.7 and 1
(no platform, 20 m and 45 m cliffs) it climbs down the strip, falling a little between grabs of
the wall, and eats the apple, again without losing energy to a fall; walking straight off the edge
instead costs the energy equation 2 gives for the drop, and kills at d = 1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world
from avalon.rules import mechanics
from avalon.rules.foods import FOODS
from avalon.tasks import descend
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.route import Route, RouteStep
from tests.tasks.test_descend import fall_energy

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("difficulty", [0.0, 0.5])
def test_the_scripted_agent_descends_by_the_platform_and_eats_the_food(env, tmp_path, difficulty):
    for seed in SEEDS:
        world, route = task_route("descend", difficulty, seed)
        assert [step.skill for step in route.steps].count("fall") == 2, "onto the platform, then off it"
        world_dir = export_world(world, tmp_path / f"descend-{difficulty}-{seed}")
        episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"descend d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert not episode.truncated and episode.steps < world.time_limit_frames, where
        assert episode.info["food_eaten"] == 1 and "eat" in episode.info["achievements"], where
        assert all(result.succeeded for result in episode.follow.primitives), where
        # No fall cost energy (evaluation mode charges no movement): the start's and the apple's.
        assert episode.info["energy"] == pytest.approx(mechanics.INITIAL_ENERGY + FOODS["apple"].energy), where


@pytest.mark.parametrize("difficulty", [0.7, 1.0])
def test_the_scripted_agent_climbs_down_the_tall_cliff_grabbing_the_strip_and_eats_the_food(env, tmp_path, difficulty):
    for seed in SEEDS:
        world, route = task_route("descend", difficulty, seed)
        assert "climb" in route.skills(), "no platform: the way down is the strip"
        world_dir = export_world(world, tmp_path / f"descend-{difficulty}-{seed}")
        episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
        where = f"descend d={difficulty} seed={seed}: {episode.follow.describe()}"
        assert episode.success and episode.follow.succeeded, where
        assert "grasp" in episode.info["achievements"], where  # a hand held the wall on the way down
        # Down 20 m (d = 0.7) or 45 m (d = 1; a straight fall kills) without losing energy to a fall.
        assert episode.info["energy"] == pytest.approx(mechanics.INITIAL_ENERGY + FOODS["apple"].energy), where


@pytest.mark.parametrize("difficulty", [0.7, 1.0])
def test_walking_straight_off_the_cliff_costs_the_fall_energy_of_equation_2_and_kills_at_the_top(env, tmp_path,
                                                                                                 difficulty):
    seed = 0
    world, _ = task_route("descend", difficulty, seed)
    food = world.food[0].position
    world_dir = export_world(world, tmp_path / f"descend-{difficulty}-{seed}")
    jump_off = Route(start=world.spawn_position, steps=(RouteStep("fall", food),))
    episode = run_episode(env, RouteFollower(world, jump_off, foods=()), seed=seed, options={"world_dir": str(world_dir)})
    lost = mechanics.INITIAL_ENERGY - episode.info["energy"]  # nothing eaten, no movement charged
    # The drop: from the spawn's height to the ground at the wall's foot towards the food.
    heightmap = world.ground.heightmap
    sx, sy, sz = world.spawn_position
    along = math.hypot(food[0] - sx, food[2] - sz)
    foot = [ground_height(heightmap, sx + (food[0] - sx) * t / along, sz + (food[2] - sz) * t / along)
            for t in np.arange(1.0, 1.0 + descend.wall_run_m(descend.cliff_height_m(difficulty)) + 3.0, 0.25)]
    drop = sy - float(min(foot))
    expected = fall_energy(drop)
    where = f"d={difficulty}: drop {drop:.1f} m, lost {lost:.3f}, expected {expected:.3f}"
    assert not episode.success, where
    if expected >= mechanics.INITIAL_ENERGY:
        assert episode.terminated and episode.info["energy"] <= 0.0, where
    else:
        assert lost == pytest.approx(expected, rel=0.25), where
