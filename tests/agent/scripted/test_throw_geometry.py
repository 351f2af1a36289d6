"""The scripted hunter's geometry, without the simulator: where it stands to throw, which way it
faces, how the range changes with the ground's drop, and from which side it throws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.agent.scripted import throw
from avalon.agent.scripted.body import yaw_towards
from avalon.agent.scripted.ground import Ground
from avalon.datagen.world import FlatGround, World


def _facing(yaw_rad):
    return -math.sin(yaw_rad), -math.cos(yaw_rad)


@pytest.mark.parametrize("angle", np.linspace(0.0, 2.0 * math.pi, 7, endpoint=False))
def test_from_the_spot_facing_the_aim_the_target_lies_on_the_throwing_line_at_the_range(angle):
    target = (3.0, -2.0)
    direction = (math.cos(angle), math.sin(angle))
    spot = throw.throw_spot(direction, target)
    yaw = throw.aim_yaw_rad(spot, target)
    fx, fz = _facing(yaw)
    right = (-fz, fx)
    dx, dz = target[0] - spot[0], target[1] - spot[1]
    assert dx * fx + dz * fz == pytest.approx(throw.THROW_RANGE_M, abs=1e-9)  # ahead by the range
    assert dx * right[0] + dz * right[1] == pytest.approx(throw.HAND_OFFSET_M, abs=1e-9)  # on the hand's side
    # The body faces along the approach direction (the hand's line is parallel to it).
    assert math.remainder(yaw - yaw_towards((0.0, 0.0), direction), 2 * math.pi) == pytest.approx(0.0, abs=1e-9)


def test_the_range_grows_when_the_target_lies_lower_and_shrinks_when_higher():
    assert throw.throw_range_m(0.0) == throw.THROW_RANGE_M
    assert throw.throw_range_m(0.5) > throw.THROW_RANGE_M > throw.throw_range_m(-0.5)
    ranges = [throw.throw_range_m(drop) for drop in np.linspace(-0.8, 1.0, 10)]
    assert all(b > a for a, b in zip(ranges, ranges[1:]))


def test_on_level_ground_the_throw_is_made_from_the_near_side():
    world = World(task="throw", difficulty=0.0, seed=0, ground=FlatGround(size_m=40.0), entities=(),
                  spawn_position=(0.0, 0.0, 0.0), spawn_yaw_rad=0.0, time_limit_frames=100)
    ground = Ground(world)
    body, target = (0.0, 0.0), (0.0, -6.0)
    direction = throw.throw_direction(ground, body, target)
    spot = throw.throw_spot(direction, target)
    # Towards the target from the body's side: the spot lies between them.
    assert direction[1] < -0.9 and math.dist(body, spot) < math.dist(body, target)


def test_a_moving_prey_is_led_by_its_velocity_over_the_last_steps():
    from avalon.agent.scripted.animal_watch import PreyWatch
    from avalon.tasks import build_world

    watch = PreyWatch(build_world("throw", 0.0, 0))
    rows = np.full((24, 5), -1.0)
    for step in range(6):
        rows[watch.slots[0]] = (1.0 + 0.1 * step, 0.0, 2.0 - 0.2 * step, 0.0, 0.0)
        watch.update({"animals": rows.copy()})
    x, z = watch.lead(0, 5.0)
    assert (x, z) == pytest.approx((1.5 + 0.5, 1.0 - 1.0))
    still = PreyWatch(build_world("throw", 0.0, 0))
    still.update({"animals": rows.copy()})
    assert still.lead(0, 5.0) == pytest.approx((1.5, 1.0))  # one step seen: where it is
