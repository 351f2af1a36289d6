"""Spaces and action checking, without Godot."""

import math

import numpy as np
import pytest
from gymnasium import spaces

from avalon.env.spaces import ActionCodec, action_space, observation_space
from avalon.env.wrappers import FlattenAction
from avalon.rules import mechanics
from avalon.sim.protocol import OBSERVED_FEATURES
from tests.conftest import zero_action


def test_observation_space_has_rgbd_and_the_23_features():
    space = observation_space(64)
    assert space["rgbd"] == spaces.Box(0, 255, (64, 64, 4), np.uint8)
    assert set(space.spaces) == {"rgbd"} | {f.name for f in OBSERVED_FEATURES}
    assert space["left_hand_is_grasping"].low[0] == 0 and space["left_hand_is_grasping"].high[0] == 1
    assert space["energy"].low[0] == 0 and np.isinf(space["energy"].high[0])


def test_observation_bounds_are_finite_where_the_game_keeps_them():
    space = observation_space(64)
    turn = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS
    slack = 1e-3
    np.testing.assert_allclose(space["head_relative_position"].low, [-slack, mechanics.HEAD_MIN_HEIGHT_M - slack, -slack], rtol=1e-6)
    np.testing.assert_allclose(space["head_relative_position"].high, [slack, mechanics.HEAD_MAX_HEIGHT_M + slack, slack], rtol=1e-6)
    np.testing.assert_allclose(space["head_relative_rotation"].high,
                               [mechanics.HEAD_MAX_PITCH_RAD + slack, slack, mechanics.HEAD_MAX_ROLL_RAD + slack], rtol=1e-6)
    np.testing.assert_allclose(space["left_hand_relative_rotation"].high, [math.pi / 2 + slack, math.pi, math.pi], rtol=1e-6)
    np.testing.assert_allclose(space["body_delta_rotation"].high, [slack, turn + slack, slack], rtol=1e-6)
    np.testing.assert_allclose(space["head_delta_rotation"].low, [-turn - slack] * 3, rtol=1e-6)
    np.testing.assert_allclose(space["right_hand_delta_rotation"].high, [math.pi] * 3, rtol=1e-6)
    assert space["frames_remaining"].low[0] == 0 and space["frames_remaining"].high[0] == np.float32(2**32 - 1)
    # No bound holds for positions (falls, climbing holds) or for energy above (eating).
    for name in ("body_delta_position", "head_delta_position", "left_hand_relative_position", "right_hand_delta_position"):
        assert np.isinf(space[name].low).all() and np.isinf(space[name].high).all()
    assert np.isinf(space["energy"].high[0])
    bounded = [name for name, part in space.spaces.items() if name != "rgbd" and part.is_bounded()]
    assert set(bounded) == {
        "body_delta_rotation", "head_delta_rotation", "left_hand_delta_rotation", "right_hand_delta_rotation",
        "head_relative_position", "head_relative_rotation", "left_hand_relative_rotation", "right_hand_relative_rotation",
        "left_hand_is_colliding", "right_hand_is_colliding", "left_hand_is_grasping", "right_hand_is_grasping",
        "frames_remaining",
    }


@pytest.mark.parametrize("name, size", [("vr", 21), ("mouse_keyboard", 9)])
def test_sampled_actions_encode_and_decode(name, size):
    space = action_space(name)
    space.seed(3)
    codec = ActionCodec(name)
    for _ in range(20):
        action = space.sample()
        vector = codec.encode(action)
        assert vector.shape == (size,) and vector.dtype == np.float32
        np.testing.assert_array_equal(codec.encode(codec.decode(vector)), vector)


def test_vr_layout_puts_binaries_last():
    vector = ActionCodec("vr").encode(zero_action("vr", head_position=[0.5, -0.25, -1.0], jump=1))
    np.testing.assert_array_equal(vector[:3], [0.5, -0.25, -1.0])
    assert vector[20] == 1 and not vector[3:20].any()


@pytest.mark.parametrize(
    "part, value, message",
    [
        ("head_position", [np.nan, 0, 0], "head_position.*non-finite"),
        ("head_rotation", [0, np.inf, 0], "head_rotation.*non-finite"),
        ("left_hand_position", [0, 0], r"left_hand_position.*shape \(2,\), expected \(3,\)"),
        ("right_hand_rotation", [0, 0, 1.5], r"right_hand_rotation.*outside \[-1.0, 1.0\]"),
        ("jump", 2, "'jump'.*must be 0 or 1"),
        ("left_grasp", 0.5, "'left_grasp'.*must be 0 or 1"),
    ],
)
def test_bad_action_parts_are_named(part, value, message):
    action = zero_action("vr")
    action[part] = value if np.isscalar(value) else np.array(value, np.float64)
    with pytest.raises(ValueError, match=message):
        ActionCodec("vr").encode(action)


@pytest.mark.parametrize(
    "part, value, message",
    [
        ("jump", np.array([0.5]), r"'jump'.*must be 0 or 1, got array\(\[0.5\]\)"),
        ("jump", np.array([1e-7], np.float32), r"'jump'.*must be 0 or 1"),
        ("jump", 1e-7, r"'jump'.*must be 0 or 1"),
        ("left_grasp", "1", r"'left_grasp'.*must be 0 or 1 \(one int, bool or float\), got '1'"),
        ("left_grasp", np.array(["1"]), r"'left_grasp'.*must be 0 or 1 \(one int, bool or float\)"),
        ("left_grasp", 1 + 0j, r"'left_grasp'.*must be 0 or 1 \(one int, bool or float\)"),
        ("left_grasp", np.array([1], object), r"'left_grasp'.*must be 0 or 1 \(one int, bool or float\)"),
        ("right_grasp", np.array([0, 1]), r"'right_grasp'.*must be 0 or 1 \(one int, bool or float\), got array\(\[0, 1\]\)"),
        ("right_grasp", [1, 1], r"'right_grasp'.*must be 0 or 1"),
        ("right_grasp", None, r"'right_grasp'.*must be 0 or 1"),
        ("jump", np.nan, r"'jump'.*must be 0 or 1"),
        ("head_position", ["0", "0", "0"],
         r"'head_position'.*must be 3 real number\(s\) \(int or float\), got \['0', '0', '0'\] of dtype <U1"),
        ("head_position", np.array([0, 0, 1j]), r"'head_position'.*real number.*complex128"),
        ("head_position", np.array([0, 0, 0], object), r"'head_position'.*real number.*object"),
        ("head_position", np.array([True, False, False]), r"'head_position'.*real number.*bool"),
        ("head_position", [0, [0], 0], r"'head_position'.*must be 3 real number"),
        ("head_position", 0.5, r"'head_position'.*shape \(\), expected \(3,\)"),
        ("head_position", np.zeros((1, 3), np.float32), r"'head_position'.*shape \(1, 3\), expected \(3,\)"),
    ],
)
def test_values_that_are_not_real_numbers_or_not_exactly_binary_are_named(part, value, message):
    action = zero_action("vr")
    action[part] = value
    with pytest.raises(ValueError, match=message):
        ActionCodec("vr").encode(action)


@pytest.mark.parametrize("value", [1, True, np.bool_(True), np.uint8(1), np.int16(1), 1.0, np.float32(1.0),
                                   np.array(1.0), np.array([1]), np.array([True]), [1.0]])
def test_every_real_spelling_of_a_binary_one_is_accepted(value):
    action = zero_action("vr")
    action["jump"] = value
    assert ActionCodec("vr").encode(action)[20] == 1.0


@pytest.mark.parametrize("value", [[0, 1, -1], (0.5, -0.5, 0), np.array([0, 1, -1], np.int8), np.array([0.5, 0, 1], np.float16),
                                   np.array([0.25, 0, 1], np.float64)])
def test_continuous_parts_take_any_real_dtype(value):
    action = zero_action("vr")
    action["head_position"] = value
    np.testing.assert_array_equal(ActionCodec("vr").encode(action)[:3], np.asarray(value, np.float32))


def test_missing_or_unknown_keys_and_non_dicts_are_refused():
    action = zero_action("vr")
    del action["jump"]
    action["fly"] = 1
    with pytest.raises(ValueError, match=r"missing \['jump'\], unknown \['fly'\]"):
        ActionCodec("vr").encode(action)
    with pytest.raises(ValueError, match="FlattenAction"):
        ActionCodec("vr").encode(np.zeros(21))


def test_unknown_action_space_lists_the_choices():
    with pytest.raises(ValueError, match="'vr', 'mouse_keyboard'"):
        action_space("joystick")


def test_flatten_action_thresholds_binaries_and_names_bad_indices():
    import gymnasium as gym

    class Env(gym.Env):
        def __init__(self):
            self.config = type("C", (), {"action_space": "mouse_keyboard"})()
            self.action_space = action_space("mouse_keyboard")
            self.observation_space = spaces.Discrete(1)

    wrapper = FlattenAction(Env())
    assert wrapper.action_space.shape == (9,)
    assert wrapper.action_space.low[5] == 0 and wrapper.action_space.low[0] == -1  # jump in [0, 1]
    action = wrapper.action(np.array([1, -0.5, 0.25, 0.7, 0.2, 0.6, 0, 1, 0], np.float32))
    assert action["left_grasp"] == 1 and action["right_grasp"] == 0 and action["left_throw"] == 1
    np.testing.assert_allclose(action["move_forward"], [1]) and np.testing.assert_allclose(action["jump"], [0.6])
    with pytest.raises(ValueError, match=r"flat action\[2\] \(head_yaw\) is nan"):
        wrapper.action(np.array([0, 0, np.nan, 0, 0, 0, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"shape \(8,\), expected \(9,\)"):
        wrapper.action(np.zeros(8))
    for not_numbers in (np.array(["1"] * 9), [0, 0, 0, 0, 0, 0, 0, 0, "1"], np.zeros(9, complex), [0, [0]] * 4 + [0]):
        with pytest.raises(ValueError, match=r"a flat action is 9 real numbers \(int, bool or float\)"):
            wrapper.action(not_numbers)


@pytest.mark.parametrize("name", ["vr", "mouse_keyboard"])
def test_the_fast_and_the_checked_encodings_agree(name):
    codec, space = ActionCodec(name), action_space(name)
    space.seed(3)
    for _ in range(500):
        action = space.sample()
        assert np.array_equal(codec.encode(action), codec._encode_checked(action))
    # Values the fast path does not take still encode the same way (lists, float64, bools).
    loose = {key: (value.astype(np.float64).tolist() if isinstance(value, np.ndarray) else bool(value))
             for key, value in action.items()}
    assert np.array_equal(codec.encode(loose), codec.encode(action))


def test_out_of_range_float32_parts_are_still_named():
    action = zero_action("vr", head_position=np.array([0, 0, 1.5], np.float32))
    with pytest.raises(ValueError, match="head_position"):
        ActionCodec("vr").encode(action)
    action = zero_action("vr", jump=2)
    with pytest.raises(ValueError, match="jump"):
        ActionCodec("vr").encode(action)
