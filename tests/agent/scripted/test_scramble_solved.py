"""The scripted agent on scramble worlds in the real simulator, following the certificate's route
(``task_route("scramble", d, seed)``) in evaluation mode within each world's own time limit.

- d = 0 (one chasm, jumped where it narrows): it jumps, eats the apple and gets ``success``.
- d = 0.5 (a chasm and a cliff climbed on its strip of bare rock, in a drawn order): it jumps,
  climbs, eats and gets ``success``.
- d = 1 (three cliffs): the climbs are not reliable yet (docs/tasks/scramble.md, scramble), so there this
  proves the mechanics on scramble's geometry: what comes before the first climb succeeds, a hand
  grasps the strip and the body rises up the face.
"""

from __future__ import annotations

import numpy as np
import pytest

from avalon.agent.scripted.body import Body
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.task_routes import task_route
from avalon.datagen.export import export_world

pytestmark = pytest.mark.godot

SEEDS = (0, 1, 2)
#: d = 1: seeds whose first climb is checked for its mechanics.
CLIMB_SEEDS = (0, 4, 5)
#: Climb steps given to the mechanics check before it looks at how high the body got.
CLIMB_STEPS = 150


def _solve(env, tmp_path, difficulty: float, seed: int):
    world, route = task_route("scramble", difficulty, seed)
    world_dir = export_world(world, tmp_path / f"scramble-{difficulty}-{seed}")
    episode = run_episode(env, RouteFollower(world, route), seed=seed, options={"world_dir": str(world_dir)})
    where = f"scramble d={difficulty} seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    assert episode.info["food_eaten"] == 1 and "eat" in episode.info["achievements"], where
    return route, episode, where


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_jumps_climbs_and_eats_at_difficulty_one_half(env, tmp_path, seed):
    route, episode, where = _solve(env, tmp_path, 0.5, seed)
    assert {"jump", "climb"} <= route.skills()
    names = [result.name for result in episode.follow.primitives]
    assert "jump" in names and "climb" in names, where
    assert "jump" in episode.info["achievements"], where


@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_jumps_the_chasm_and_eats_at_difficulty_zero(env, tmp_path, seed):
    route, episode, where = _solve(env, tmp_path, 0.0, seed)
    assert "jump" in route.skills()
    assert "jump" in [result.name for result in episode.follow.primitives], where
    assert "jump" in episode.info["achievements"], where


@pytest.mark.parametrize("seed", CLIMB_SEEDS)
def test_at_difficulty_one_a_hand_holds_the_strip_as_the_body_rises(env, tmp_path, seed):
    world, route = task_route("scramble", 1.0, seed)
    skills = [step.skill for step in route.steps]
    assert "climb" in skills
    climb_index = skills.index("climb")
    world_dir = export_world(world, tmp_path / f"scramble-1-{seed}")
    follower = RouteFollower(world, route)
    observation, info = env.reset(seed=seed, options={"world_dir": str(world_dir)})
    follower.reset(observation, info)
    foot_y, climb_steps, highest_held = None, 0, -np.inf
    climbable = world.ground.biome_map.climbable
    heightmap = world.ground.heightmap
    held_on_strip = False
    for _ in range(world.time_limit_frames):
        observation, _, terminated, truncated, info = env.step(follower.act(observation, info))
        result = follower.result
        assert result.failed_step is None or result.failed_step >= climb_index, f"seed {seed}: {result.describe()}"
        body = Body.read(observation, info)
        current = len(result.primitives)  # the primitive under way (none has failed)
        if current == climb_index:
            if foot_y is None:
                foot_y = body.feet_y_m
            climb_steps += 1
            if any(body.grasping):
                highest_held = max(highest_held, body.feet_y_m)
                row, col = (int(round(float(v))) for v in heightmap.world_to_grid(*body.xz))
                held_on_strip |= bool(climbable[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3].any())
        if terminated or truncated or result.finished or climb_steps >= CLIMB_STEPS or current > climb_index:
            break
    names = [primitive.name for primitive in follower.result.primitives]
    assert all(p.succeeded for p in follower.result.primitives[:climb_index]), names
    assert foot_y is not None, f"seed {seed}: never got to the climb ({follower.result.describe()})"
    assert held_on_strip, f"seed {seed}: no hand held on by the strip of bare rock"
    assert highest_held - foot_y > 2.0, f"seed {seed}: the body rose only {highest_held - foot_y:.2f} m holding on"
