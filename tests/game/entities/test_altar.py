"""Food on an altar in the real simulator: it stays on the altar's top, and a short scripted motion
(VR or mouse and keyboard) grasps and eats it at difficulty 0."""

import math

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.rules import mechanics
from avalon.tasks import build_world
from tests.conftest import zero_action

pytestmark = pytest.mark.godot
SEEDS = (0, 1)
HAND_STEP_M = mechanics.MAX_HAND_SPEED_M_PER_S * mechanics.STEP_SECONDS
TURN_STEP_RAD = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS


@pytest.fixture(scope="module")
def vr_env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="vr", task="eat", difficulty=0.0))
    yield env
    env.close()


@pytest.fixture(scope="module")
def mk_env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", task="eat", difficulty=0.0))
    yield env
    env.close()


def _in_body_frame(point, info) -> np.ndarray:
    """A world point in the agent's body frame (x right, y up from the feet, z back)."""
    dx, dy, dz = np.asarray(point, dtype=float) - info["world_body_position"]
    c, s = math.cos(info["world_body_yaw"]), math.sin(info["world_body_yaw"])
    return np.array([c * dx - s * dz, dy, s * dx + c * dz])


def _rate_toward(current, target) -> np.ndarray:
    """A hand translation rate that moves ``current`` toward ``target`` (at most full speed)."""
    rate = (np.asarray(target) - np.asarray(current)) / HAND_STEP_M
    return (rate / max(1.0, float(np.linalg.norm(rate)))).astype(np.float32)


def _altar_food(seed):
    world = build_world("eat", 0.0, seed)
    altar = world.entity("altar")
    (food,) = world.food
    assert food.kind == "apple" and altar.kind == "box"
    return world, altar, food


def _grasp_and_eat_vr(env, food, observation, info, max_steps=20):
    """Right hand to the apple with the hand closed; once it holds it, up and back to the head."""
    steps = 0
    while not observation["right_hand_is_grasping"][0]:
        target = _in_body_frame(food.position, info)
        rate = _rate_toward(observation["right_hand_relative_position"], target)
        observation, reward, terminated, _, info = env.step(zero_action("vr", right_hand_position=rate, right_grasp=1))
        steps += 1
        assert steps <= 6, "the right hand never grasped the apple"
    reach_steps = steps
    while steps < max_steps:
        head = observation["head_relative_position"]
        rate = _rate_toward(observation["right_hand_relative_position"], head)
        observation, reward, terminated, _, info = env.step(zero_action("vr", right_hand_position=rate, right_grasp=1))
        steps += 1
        if observation["energy_gained_from_eating"][0] > 0:
            return observation, reward, info, reach_steps, steps - reach_steps
        assert observation["right_hand_is_grasping"][0], "the apple slipped out of the hand"
    raise AssertionError("the apple was never eaten")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_apple_stays_on_the_altar_and_a_short_vr_motion_eats_it(vr_env, seed):
    world, altar, food = _altar_food(seed)
    observation, info = vr_env.reset(seed=seed)
    spawn = np.array(world.spawn_position)
    for _ in range(10):
        observation, *_ = vr_env.step(zero_action("vr"))
    settled = observation["rgbd"].copy()
    red = (settled[..., 0] > 120) & (settled[..., 1] < 70) & (settled[..., 2] < 70)
    assert red.sum() > 0.01 * red.size, "the apple is in view at spawn"
    for _ in range(100):  # ten seconds of doing nothing: nothing moves, the apple does not roll off
        observation, reward, terminated, truncated, info = vr_env.step(zero_action("vr"))
        assert not terminated and not truncated
    assert np.array_equal(observation["rgbd"], settled)
    # The altar does not shove the body (on a slope the capsule's round bottom rests a little high).
    assert info["world_body_position"][[0, 2]] == pytest.approx(spawn[[0, 2]], abs=0.02)
    assert info["world_body_position"][1] == pytest.approx(spawn[1], abs=0.1)

    observation, reward, info, reach_steps, carry_steps = _grasp_and_eat_vr(vr_env, food, observation, info)
    assert observation["energy_gained_from_eating"][0] == pytest.approx(1.0)
    assert reward == pytest.approx(1.0 - mechanics.FRAME_PENALTY, abs=1e-5)
    assert observation["energy"][0] == pytest.approx(2.0)
    assert info["success"] and "eat_apple" in info["achievements"]
    assert reach_steps <= 2 and carry_steps <= 4  # a hand moves a little forward, then back to the head
    assert info["world_body_position"][[0, 2]] == pytest.approx(spawn[[0, 2]], abs=0.05)  # without walking
    for _ in range(mechanics.FRAMES_AFTER_LAST_FOOD - 1):
        observation, reward, terminated, truncated, info = vr_env.step(zero_action("vr"))
        assert not terminated
    _, _, terminated, _, _ = vr_env.step(zero_action("vr"))
    assert terminated


@pytest.mark.parametrize("seed", SEEDS)
def test_mouse_and_keyboard_looks_at_the_apple_grasps_it_and_eats_it(mk_env, seed):
    world, altar, food = _altar_food(seed)
    observation, info = mk_env.reset(seed=seed)
    # Look at the apple: turn and pitch the head until its centre is on the camera's axis.
    for _ in range(8):
        local = _in_body_frame(food.position, info) - observation["head_relative_position"]
        yaw_error = math.atan2(-local[0], -local[2])
        pitch_error = math.atan2(local[1], math.hypot(local[0], local[2])) - observation["head_relative_rotation"][0]
        if abs(yaw_error) < math.radians(1) and abs(pitch_error) < math.radians(1):
            break
        action = zero_action(
            "mouse_keyboard",
            head_yaw=[np.clip(yaw_error / TURN_STEP_RAD, -1, 1)],
            head_pitch=[np.clip(pitch_error / TURN_STEP_RAD, -1, 1)],
        )
        observation, *_, info = mk_env.step(action)
    else:
        raise AssertionError("the head never came to look at the apple")
    assert observation["head_relative_rotation"][0] < -math.radians(5)  # it looked down at the apple
    steps = 0
    while not observation["right_hand_is_grasping"][0]:
        observation, *_, info = mk_env.step(zero_action("mouse_keyboard", right_grasp=1))
        steps += 1
        assert steps <= 3, "grasping did not take the apple"
    for steps in range(1, 9):  # noqa: B007 (read after the loop)
        observation, reward, terminated, _, info = mk_env.step(zero_action("mouse_keyboard", right_grasp=1, eat=1))
        if observation["energy_gained_from_eating"][0] > 0:
            break
        assert observation["right_hand_is_grasping"][0]
    else:
        raise AssertionError("eating never brought the apple to the mouth")
    assert steps <= 4
    assert observation["energy"][0] == pytest.approx(2.0)
    assert info["success"] and "eat_apple" in info["achievements"]
