"""Why :class:`~avalon.agent.scripted.strike.StrikeGuard` throws when it does: a standing throw
comes down on a chaser's back where the chaser stands, fast enough to be a hit, and not on a back
higher than about 1 m above the feet (pure Python: the throw's ballistics and the animal table)."""

from __future__ import annotations

import numpy as np
import pytest

from avalon.agent.scripted.animal_watch import GuardWatch
from avalon.agent.scripted.strike import STRIKE_REACH_M, falling_rock_at
from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.world import FlatGround, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.animals import ANIMALS, CHASE_STOP_GAP_M, STATE_ACTIVE, STATE_KNOCKED_OUT

#: Where a chaser's near end stands from the body's axis once it has stopped, metres.
STOPPED_NEAR_END_M = mechanics.BODY_RADIUS_M + CHASE_STOP_GAP_M


@pytest.mark.parametrize("kind", ["alligator", "wolf", "jaguar"])
def test_a_standing_throw_comes_down_on_a_stopped_chasers_back_as_a_hit(kind):
    spec = ANIMALS[kind]
    length = max(spec.size_m[0], spec.size_m[2])
    ahead, speed = falling_rock_at(spec.size_m[1])
    assert STOPPED_NEAR_END_M < ahead < STOPPED_NEAR_END_M + length, (kind, ahead)
    assert speed >= mechanics.HIT_MIN_SPEED_M_PER_S, (kind, speed)
    # A chaser that stops comes within the reach the throw waits for.
    assert STOPPED_NEAR_END_M <= STRIKE_REACH_M


def test_a_back_a_metre_above_the_feet_is_struck_too_slowly():
    assert falling_rock_at(1.0)[1] >= mechanics.HIT_MIN_SPEED_M_PER_S
    assert falling_rock_at(1.1)[1] < mechanics.HIT_MIN_SPEED_M_PER_S


def test_the_guard_watch_reads_the_predators_rows_of_info():
    world = World(task="fight", difficulty=0.0, seed=0, ground=FlatGround(size_m=50.0), spawn_position=(0.0, 0.0, 0.0),
                  spawn_yaw_rad=0.0, time_limit_frames=100,
                  entities=(animal_entity("frog", "frog", (1.0, 0.0, 1.0)), tool_entity("rock", "rock", (0.0, 0.07, -2.0)),
                            animal_entity("alligator", "gator", (0.0, 0.0, -8.0))))
    watch = GuardWatch(world)
    assert [e.name for e in watch.entities] == ["gator"]
    rows = np.array([[1.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.2, -3.0, STATE_ACTIVE, 0.0]], np.float32)
    watch.update({"animals": rows})
    assert watch.position(0) == pytest.approx((0.0, 0.2, -3.0)) and watch.state(0) == STATE_ACTIVE
    assert not watch.is_down(0) and watch.near_end_m(0, (0.0, 0.0)) == pytest.approx(3.0 - 1.5)
    rows[1, 3:] = (STATE_KNOCKED_OUT, 1.0)
    watch.update({"animals": rows})
    assert watch.is_down(0) and watch.hits(0) == 1
