"""``AvoidFollower.threat`` (pure Python): which live predator makes the scripted agent wait."""

from __future__ import annotations

import numpy as np

from avalon.agent.scripted.avoid import WAIT_MARGIN_M, AvoidFollower
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.primitive import Situation
from avalon.agent.scripted.task_routes import task_route
from avalon.rules.animals import STATE_ACTIVE, STATE_IDLE, STATE_KNOCKED_OUT


def _follower(x: float, z: float, yaw: float):
    world, route = task_route("avoid", 0.0, 0)
    follower = AvoidFollower(world, route)
    body = Body(position=(x, 0.0, z), yaw_rad=yaw, head_height_m=1.7, head_pitch_rad=0.0,
                hand_positions=((-0.3, 1.2, -0.6), (0.3, 1.2, -0.6)), grasping=(False, False), colliding=(False, False),
                energy=1.0, food_eaten=0, food_total=1, success=False, achievements=frozenset(), frame=0)
    follower._situation = Situation(world=world, ground=follower.ground, body=body)
    return follower, world


def _rows(x, z, state):
    return {"animals": np.array([[x, 1.5, z, state, 0.0]], dtype=np.float32)}


def test_an_idle_bee_ahead_within_its_radius_makes_it_wait_one_behind_or_far_does_not():
    follower, world = _follower(0.0, 0.0, 0.0)  # facing -z
    radius = 5.0  # the d = 0 world's one predator is a bee
    assert [a.kind for a in world.animals] == ["bee"]
    assert follower.threat(_rows(0.0, -(radius + WAIT_MARGIN_M - 0.2), STATE_IDLE)) == 0
    assert follower.threat(_rows(0.0, -(radius + WAIT_MARGIN_M + 1.0), STATE_IDLE)) is None  # too far
    assert follower.threat(_rows(0.0, 3.0, STATE_IDLE)) is None  # behind: the step takes it away
    assert follower.threat(_rows(0.0, -3.0, STATE_ACTIVE)) == 0
    assert follower.threat(_rows(0.0, -3.0, STATE_KNOCKED_OUT)) is None
