"""The scripted agent solves carry worlds of the throw variant in the real simulator, at d = 0: the
follower the registry gives (``follower_for``: ``carry_follower``, throw's ``ThrowFollower``)
walks to the rocks where carry put them, 10-12 m from where throw laid them by the spawn, grasps
the nearest, carries it to its throwing spot short of the still frog, throws it, knocks the frog
out and eats it, with ``success`` in evaluation mode. The rock it threw left its carry place (it
was carried: the body went there first). Fight worlds get the ``AvoidFollower``, which does not
carry (checked without the simulator)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.agent.scripted.avoid import AvoidFollower
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import route_for
from avalon.agent.scripted.throw import ThrowFollower
from avalon.datagen.export import export_world
from avalon.rules.animals import STATE_EATEN
from avalon.tasks import build_world, carry
from tests.agent.scripted.track import Track

SEEDS = (0, 1, 2)


@pytest.mark.godot
@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_the_scripted_agent_fetches_a_rock_knocks_the_frog_out_and_eats_it(env, tmp_path, seed):
    world = build_world("carry", 0.0, seed, forced={"base_task": "throw"})
    layout = carry.layout_of(world)
    low, _ = carry.KNOBS.carry_distance_m.at(0.0)
    rocks = [entity for entity in world.entities if entity.kind == "rock"]
    places = {use.name: use.place for use in layout.uses}
    assert rocks and all(math.dist(r.position[::2], places[r.name].position[::2]) >= low for r in rocks)
    follower = follower_for(world, route_for(world))
    assert type(follower) is ThrowFollower
    track = Track(env)
    world_dir = export_world(world, tmp_path / f"carry-throw-{seed}")
    episode = run_episode(track, follower, seed=seed, options={"world_dir": str(world_dir)})
    where = f"carry (throw) d=0 seed={seed}: {episode.follow.describe()}"
    assert episode.success and episode.follow.succeeded, where
    assert not episode.truncated and episode.steps < world.time_limit_frames, where
    info = episode.info
    assert info["food_total"] == 1 and info["food_eaten"] == 1, where
    assert {"grasp", "throw", "kill_frog", "eat_prey"} <= set(info["achievements"]), where
    assert int(info["animals"][0][3]) == STATE_EATEN, where
    # The body went to the rocks where carry put them (within reach of one), far from their places.
    positions = np.array(track.positions)
    reach = min(float(np.hypot(positions[:, 0] - r.position[0], positions[:, 2] - r.position[2]).min()) for r in rocks)
    assert reach < 1.5, where


def test_fight_carry_worlds_get_the_avoid_follower_which_does_not_carry():
    world = build_world("carry", 0.0, 0, forced={"base_task": "fight"})
    follower = follower_for(world, route_for(world))
    assert type(follower) is AvoidFollower
