"""Door locks in the real simulator (docs/doors.md), on a hinged push door that swings freely once
unlocked: each lock keeps the door shut against the body's pushes and its handle out of the hand's
grasp until the hand releases it (the bolt slid aside, the bar rotated up, the button touched);
the button's time runs out and the door locks again; with all three locks the agent releases each
and opens the door by its handle within the button's time."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.rules import doors, mechanics
from tests.game.entities import doorways as dw
from tests.game.runs import Run

pytestmark = pytest.mark.godot

BUTTON_STEPS = round(doors.BUTTON_UNLOCK_S * mechanics.STEPS_PER_SECOND)


env = pytest.fixture(scope="module")(dw.vr_env)
world = pytest.fixture(scope="module")(dw.doorway_worlds)


def _is_shut(run, by_hand=True, handle=None) -> bool:
    """Walked into, and (``by_hand``) pushed and pulled by a hand closed at its ``handle``, the
    door stays shut: the body stays on its side."""
    if dw.walk_forward(run, 6) <= dw.IN_FRONT_Z:
        return False
    if not by_hand:
        return True
    handle = dw.hinged_handle() if handle is None else handle
    dw.grasp_at(run, handle, steps=4)
    dw.drive(run, hand_target=handle + (0.0, 0.0, -0.5), grasp=True, steps=4)
    dw.drive(run, hand_target=handle + (0.0, 0.0, 0.5), grasp=True, steps=4)
    dw.release(run)
    return dw.walk_forward(run, 6) > dw.IN_FRONT_Z


def _hand(run) -> np.ndarray:
    return run.hand(dw.RIGHT) + run.body


def _slide_bolt(run, mechanism="hinged_push", side="left"):
    """Grasps the bolt and slides it its whole travel toward the hinge."""
    assert dw.grasp_at(run, dw.mirrored(dw.bolt_centre(mechanism=mechanism), side))
    grip = _hand(run)
    for k in range(1, 6):
        slid = min(doors.LOCKS["bolt"].travel + 0.02, 0.06 * k)
        dw.drive(run, hand_target=grip - (dw.side_sign(side) * slid, 0.0, 0.0), grasp=True)
    dw.release(run)


def _lift_bar(run, mechanism="hinged_push", side="left"):
    """Grasps the bar and turns it up about its pivot: the hand goes round the pivot from where it
    took hold, 85 degrees."""
    assert dw.grasp_at(run, dw.mirrored(dw.bar_point(mechanism=mechanism), side))
    pivot = dw.mirrored(dw.bar_point(along_m=0.0, mechanism=mechanism), side)
    dx, dy = (_hand(run) - pivot)[:2]
    radius, start = float(np.hypot(dx, dy)), math.atan2(dy, dx)
    for degrees in list(range(10, 86, 5)) + [85, 85]:
        angle = start + dw.side_sign(side) * math.radians(degrees)
        dw.drive(run, hand_target=pivot + (radius * math.cos(angle), radius * math.sin(angle), 0.0), grasp=True)
    dw.release(run)


def _press_button(run, side="left"):
    """Touches the button: the hand comes in front of it, then moves into it (and stops on it)."""
    button = dw.mirrored(dw.button_centre(), side)
    dw.drive(run, body_target=(0.6 * dw.side_sign(side), dw.WALL_FRONT_Z + 0.55), hand_target=button + (0.0, 0.0, 0.3), steps=5)
    dw.drive(run, hand_target=button + (0.0, 0.0, -0.2), steps=3)
    dw.drive(run, steps=2)


@pytest.mark.parametrize("lock, release", [("bolt", _slide_bolt), ("bar", _lift_bar), ("button", _press_button)])
def test_a_locked_door_stays_shut_until_its_lock_is_released(env, world, lock, release):
    run = Run(env, world(f"push_{lock}", "hinged_push", locks=(lock,)))
    assert _is_shut(run)
    release(run)
    dw.walk_to(run, 0.2, dw.WALL_FRONT_Z + 0.5)
    assert dw.walk_forward(run, 10) < dw.THROUGH_Z


def test_a_pull_door_locked_by_its_bar_is_not_pulled_open(env, world):
    run = Run(env, world("pull_bar", "hinged_pull", locks=("bar",)))
    assert dw.walk_forward(run, 6) > dw.IN_FRONT_Z
    assert not dw.grasp_at(run, dw.hinged_handle(), steps=6)
    for _ in range(6):  # a hand pulling at where the handle is holds nothing and moves nothing
        dw.drive(run, body_target=(0.3, dw.WALL_FRONT_Z + 0.9), hand_target=dw.hinged_handle(math.radians(30)), grasp=True)
    assert not run.grasping(dw.RIGHT)
    _lift_bar(run)
    assert dw.grasp_at(run, dw.hinged_handle())


def test_the_button_locks_the_door_again_when_its_time_runs_out(env, world):
    run = Run(env, world("push_button", "hinged_push", locks=("button",)))
    _press_button(run)
    dw.drive(run, body_target=(0.0, dw.WALL_FRONT_Z + 0.8), steps=BUTTON_STEPS)
    assert _is_shut(run)


@pytest.mark.parametrize("side", ["left", "right"])
def test_all_three_locks_released_and_the_latched_door_opened_within_the_buttons_time(env, world, side):
    run = Run(env, world(f"push_all_{side}", "hinged_push", latch="always", locks=("bolt", "bar", "button"), hinge_side=side))
    handle = dw.mirrored(dw.hinged_handle(), side)
    assert _is_shut(run, handle=handle)
    _slide_bolt(run, side=side)
    _lift_bar(run, side=side)
    assert _is_shut(run, by_hand=False)  # the button still locks it
    _press_button(run, side)
    dw.walk_to(run, 0.3 * dw.side_sign(side), dw.WALL_FRONT_Z + 0.45)
    assert dw.grasp_at(run, handle)
    dw.push_through(run)  # latched again once let go: the hand holds it open ahead of the body
    assert run.body[2] < dw.THROUGH_Z


def test_a_sliding_door_with_all_three_locks_released_and_dragged_aside(env, world):
    run = Run(env, world("sliding_all", "sliding", latch="always", locks=("bolt", "bar", "button")))
    assert _is_shut(run, handle=dw.sliding_handle())
    dw.walk_to(run, 0.3, run.body[2])
    _slide_bolt(run, "sliding")
    dw.walk_to(run, 0.3, dw.SLIDING_FRONT_Z + 0.7)  # clear of the bar's swing (it stops short of the body)
    _lift_bar(run, "sliding")
    assert _is_shut(run, by_hand=False)
    _press_button(run)
    dw.walk_to(run, 0.3, dw.SLIDING_FRONT_Z + 0.45)
    assert dw.grasp_at(run, dw.sliding_handle())
    dw.drag_aside(run)
    dw.release(run)
    dw.walk_to(run, 0.0, dw.WALL_FRONT_Z + 0.6)
    assert dw.walk_forward(run, 10) < dw.THROUGH_Z
