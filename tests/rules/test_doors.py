"""The door table (avalon/rules/doors.py): its rows are checked, and what a door can hold."""

import math

import pytest

from avalon.rules import doors, mechanics


def test_every_mechanism_and_lock_has_a_row_and_a_door_can_be_grasped():
    assert set(doors.MECHANISM_NAMES) == {"hinged_both", "hinged_push", "hinged_pull", "sliding"}
    assert tuple(doors.LOCKS) == doors.LOCK_KINDS == ("bolt", "bar", "button")
    assert doors.DOOR_MASS_KG <= mechanics.MAX_LIFT_MASS_KG
    assert doors.BUTTON_UNLOCK_S > 0
    assert doors.HINGE_GAP_M > doors.DOOR_THICKNESS_M / 2  # a turning leaf's corners stay clear of the wall


def test_all_three_locks_fit_on_a_push_door_and_a_sliding_door():
    for mechanism in ("hinged_push", "sliding"):
        assert doors.locks_error(mechanism, ("bolt", "bar", "button")) is None


@pytest.mark.parametrize("mechanism, locks, reason", [
    ("hinged_pull", ("bolt",), "cannot hold a bolt"),
    ("hinged_both", ("bar", "bolt"), "cannot hold a bolt"),
    ("sliding", ("bar", "bar"), "twice"),
    ("sliding", ("chain",), "unknown lock kind 'chain'"),
])
def test_locks_a_door_cannot_hold_are_named(mechanism, locks, reason):
    assert reason in doors.locks_error(mechanism, locks)


def test_unknown_names_are_clear_errors():
    with pytest.raises(ValueError, match="unknown door mechanism 'revolving'"):
        doors.mechanism_spec("revolving")
    with pytest.raises(ValueError, match="unknown lock kind 'chain'"):
        doors.lock_spec("chain")


def test_bad_rows_are_refused_naming_the_field():
    with pytest.raises(ValueError, match="push_rad"):
        doors.MechanismSpec(name="x", motion="hinged", push_rad=math.nan)
    with pytest.raises(ValueError, match="turn one way"):
        doors.MechanismSpec(name="x", motion="hinged")
    with pytest.raises(ValueError, match="unlocked_from"):
        doors.LockSpec(kind="x", description="", size_m=(0.1, 0.1, 0.1), mass_kg=1.0, color=(0, 0, 0), height_m=1.0,
                       travel=0.1, unlocked_from=0.2)
