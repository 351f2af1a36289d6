"""The throw task in the real simulator: the scripted agent (``follower_for`` a throw world: the
:class:`~avalon.agent.scripted.throw.ThrowFollower`) takes a rock, walks up to the frog of a d = 0
world, throws the rock at it, knocks it out, takes it and eats it, with ``success`` in evaluation
mode; and the body a knocked-out frog leaves under the rock that struck it stays on the terrain
(it used to fall through the height field: ``godot/entities/animals/corpse.gd``)."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.agent.scripted.actions import action
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route
from avalon.agent.scripted.throw import ThrowFollower
from avalon.datagen.export import export_world
from avalon.datagen.world import tool_entity
from avalon.rules.animals import STATE_EATEN, STATE_KNOCKED_OUT
from avalon.tasks import build_world
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.prey import prey_of

pytestmark = [pytest.mark.godot, pytest.mark.slow]

SEEDS = (1, 2, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_knocks_the_frog_out_with_a_thrown_rock_and_eats_it(env, tmp_path, seed):
    world, route = task_route("throw", 0.0, seed)
    agent = follower_for(world, route)
    assert isinstance(agent, ThrowFollower)
    world_dir = export_world(world, tmp_path / f"throw-0-{seed}")
    episode = run_episode(env, agent, seed=seed, options={"world_dir": str(world_dir)})
    where = f"throw d=0 seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    info = episode.info
    assert info["food_total"] == 1 and info["food_eaten"] == 1, where
    assert {"grasp", "throw", "hit_frog", "kill_frog", "eat", "eat_prey"} <= set(info["achievements"]), where
    assert int(info["animals"][0][3]) == STATE_EATEN, where


def _rock_dropped_on_the_frog(seed):
    """The d = 0 throw world of ``seed`` without its rocks, a rock 1.5 m above the frog's back."""
    world = build_world("throw", 0.0, seed)
    (frog,) = prey_of(world)
    x, y, z = frog.position
    rock = tool_entity("rock", "rock_drop", (x, y + 1.5, z))
    return attr.evolve(world, entities=tuple(e for e in world.entities if e.kind != "rock") + (rock,)), frog


@pytest.mark.parametrize("seed", range(8))
def test_a_knocked_out_frog_stays_on_the_terrain_under_the_rock_that_struck_it(env, tmp_path, seed):
    world, frog = _rock_dropped_on_the_frog(seed)
    world_dir = export_world(world, tmp_path / f"drop-{seed}")
    _, info = env.reset(seed=0, options={"world_dir": str(world_dir)})
    lowest = math.inf
    for _ in range(80):
        _, _, _, _, info = env.step(action())
        x, y, z, state, _ = (float(v) for v in info["animals"][0])
        ground = float(ground_height(world.ground.heightmap, x, z)) if world.ground.heightmap.contains(x, z) else -math.inf
        lowest = min(lowest, y - ground)
    assert int(state) == STATE_KNOCKED_OUT
    # The body's centre never went below the surface (it is put back if pressed into it) and it
    # lies near where the frog was (a slope and the rock may shift it a little).
    assert lowest >= -0.05, f"seed {seed}: the body sank {lowest:.2f} m into the ground"
    assert np.hypot(x - frog.position[0], z - frog.position[2]) < 2.5


@pytest.mark.parametrize("seed", (0, 1))
def test_the_scripted_agent_solves_a_hunt_world_with_the_rocks_it_holds(env, tmp_path, seed):
    world, route = task_route("hunt", 0.0, seed)
    assert any(tool.kind == "rock" for tool in world.entities)
    agent = follower_for(world, route)
    assert isinstance(agent, ThrowFollower)
    world_dir = export_world(world, tmp_path / f"hunt-0-{seed}")
    episode = run_episode(env, agent, seed=seed, options={"world_dir": str(world_dir)})
    assert episode.success and episode.follow.succeeded, f"hunt d=0 seed={seed}: {episode.follow.describe()}"
    assert {"throw", "kill_frog", "eat_prey"} <= set(episode.info["achievements"])
