"""The person's controls as ``vr`` actions (no window, no simulator)."""

from __future__ import annotations

import numpy as np
import pytest

from avalon.app.play.controls import CARRY_M, THROW_DIRECTION, ControlSettings, ControlState, look_point, vr_action
from avalon.env.spaces import ActionCodec
from avalon.rules import mechanics as m
from avalon.sim.protocol import metres_to_depth


def observation(depth_m: float = 1.5, pitch: float = 0.0, height: float = 1.7, holding=(False, False),
                right_hand=m.RIGHT_HAND_REST_M) -> dict:
    rgbd = np.zeros((32, 32, 4), np.uint8)
    rgbd[..., 3] = metres_to_depth(np.array(depth_m))
    return {
        "rgbd": rgbd,
        "head_relative_position": np.float32([0.0, height, 0.0]),
        "head_relative_rotation": np.float32([pitch, 0.0, 0.0]),
        "left_hand_relative_position": np.float32(m.LEFT_HAND_REST_M),
        "right_hand_relative_position": np.float32(right_hand),
        "left_hand_is_grasping": np.float32([holding[0]]),
        "right_hand_is_grasping": np.float32([holding[1]]),
    }


def test_keys_walk_crouch_and_jump_and_the_action_is_valid():
    state = ControlState(keys={"w", "a", "tab"}, jump=True)
    action = vr_action(state, observation())
    ActionCodec("vr").encode(action)  # a valid vr action
    assert action["head_position"].tolist() == [-1.0, -1.0, -1.0]  # left, down (crouch), forward
    assert action["jump"] == 1 and action["left_grasp"] == action["right_grasp"] == 0
    standing_up = vr_action(ControlState(keys={"s", "d"}), observation(height=1.6))
    assert standing_up["head_position"].tolist() == pytest.approx([1.0, 0.5, 1.0])  # 0.1 m of 0.2 per step


def test_the_mouse_turns_at_most_one_steps_turn():
    per_pixel = ControlSettings().mouse_radians_per_pixel
    turn_step = m.MAX_HEAD_TURN_SPEED_RAD_PER_S * m.STEP_SECONDS
    action = vr_action(ControlState(mouse_dx=10.0, mouse_dy=-20.0), observation())
    assert action["head_rotation"][1] == pytest.approx(-10 * per_pixel / turn_step)  # right: negative yaw
    assert action["head_rotation"][0] == pytest.approx(20 * per_pixel / turn_step)  # mouse up: look up
    assert vr_action(ControlState(mouse_dx=-1e6), observation())["head_rotation"][1] == 1.0


def test_a_held_button_reaches_toward_the_crosshair_and_closes_the_hand():
    point, forward = look_point(observation(depth_m=1.0, pitch=-0.3))
    assert forward[1] < 0 and np.linalg.norm(point - np.array([0.0, 1.7, 0.0])) == pytest.approx(1.0, rel=0.04)
    state = ControlState(buttons=[False, True])
    action = vr_action(state, observation(depth_m=1.0, pitch=-0.3))
    expected = (point - np.array(m.RIGHT_HAND_REST_M)) / (m.MAX_HAND_SPEED_M_PER_S * m.STEP_SECONDS)
    expected /= max(1.0, np.linalg.norm(expected))
    assert action["right_grasp"] == 1 and action["right_hand_position"] == pytest.approx(expected, abs=1e-5)
    assert action["left_grasp"] == 0 and np.allclose(action["left_hand_position"], 0.0, atol=1e-5)  # at rest already
    # The sky under the crosshair: the hand reaches a step beyond arm's reach, no farther.
    far, _ = look_point(observation(depth_m=1e6))
    assert np.linalg.norm(far - np.array([0.0, 1.7, 0.0])) == pytest.approx(m.ARM_REACH_M + 1.0)


def test_holding_carries_eats_throws_and_the_wheel_reaches():
    held = observation(holding=(False, True), right_hand=(0.3, 1.0, -0.9))
    carry = vr_action(ControlState(buttons=[False, True]), held)["right_hand_position"]
    toward = CARRY_M[1] - np.array([0.3, 1.0, -0.9])  # 0.47 m: more than a step, so at full rate
    assert carry == pytest.approx(toward / np.linalg.norm(toward), abs=1e-5)
    eat = vr_action(ControlState(buttons=[False, True], keys={"e"}), held)["right_hand_position"]
    assert eat[1] > 0 and eat[2] > 0  # up and back toward the mouth
    throw = vr_action(ControlState(buttons=[False, True], throw=True), held)
    assert throw["right_grasp"] == 0 and throw["right_hand_position"] == pytest.approx(THROW_DIRECTION)
    state = ControlState(buttons=[False, True], wheel=100)
    vr_action(state, held)
    assert state.reach_offset_m == ControlSettings().reach_offset_limit_m  # clamped
    state.end_step()
    assert state.wheel == 0 and state.buttons == [False, True]  # a held button stays held
