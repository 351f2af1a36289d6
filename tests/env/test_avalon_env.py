"""AvalonEnv against the real Godot simulator in the trivial world."""

import math

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import avalon  # noqa: F401  (registers avalon/Avalon-v0)
from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.env.wrappers import FlattenAction
from avalon.rules import mechanics
from avalon.sim.protocol import depth_to_metres
from avalon.tasks.trivial import trivial_world
from tests.conftest import zero_action

pytestmark = pytest.mark.godot
STEP_YAW = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * mechanics.STEP_SECONDS
STEP_WALK = mechanics.MAX_WALK_SPEED_M_PER_S * mechanics.STEP_SECONDS
STEP_HAND = mechanics.MAX_HAND_SPEED_M_PER_S * mechanics.STEP_SECONDS


@pytest.fixture(scope="module")
def env(long_trivial_world_dir):
    env = AvalonEnv(EnvConfig(renderer="GLES2", world_dir=str(long_trivial_world_dir)))
    yield env
    env.close()


def steps(env, action, count):
    for _ in range(count):
        observation, reward, terminated, truncated, info = env.step(action)
    return observation, reward, terminated, truncated, info


@pytest.mark.parametrize("renderer", ["GLES3", "GLES2"])
def test_reset_and_step_shapes_dtypes_and_info(renderer, trivial_world_dir):
    env = AvalonEnv(renderer=renderer, world_dir=str(trivial_world_dir))
    try:
        observation, info = env.reset(seed=5)
        assert observation in env.observation_space
        assert observation["rgbd"].shape == (96, 96, 4) and observation["rgbd"].dtype == np.uint8
        assert observation["frames_remaining"][0] == 200 and observation["energy"][0] == 1.0
        assert info["seed"] == 5 and info["task"] == "trivial" and info["frame"] == 0
        observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert observation in env.observation_space
        # A random action moves the hands, so the movement penalty (Appendix B) lowers the reward too.
        assert isinstance(reward, float) and reward == pytest.approx(-mechanics.FRAME_PENALTY - info["movement_penalty"])
        assert info["movement_penalty"] >= 0.0
        assert (terminated, truncated, info["frame"]) == (False, False, 1)
        assert observation["frames_remaining"][0] == 199
        assert observation["rgbd"][..., :3].std() > 10  # a real picture, not a blank frame
    finally:
        env.close()


def _pixel(point, resolution=96, eye=(0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0)):
    """Row and column where a world point appears from the spawn pose (facing -z, level head)."""
    focal = (resolution / 2) / math.tan(math.radians(mechanics.CAMERA_FOV_DEG / 2))
    x, y, z = (p - e for p, e in zip(point, eye))
    return round(resolution / 2 - focal * y / -z), round(resolution / 2 + focal * x / -z)


def test_depth_reads_the_nearer_box_nearer_at_its_true_distance(env):
    observation, _ = env.reset(seed=0)
    rgbd = observation["rgbd"]
    metres = depth_to_metres(rgbd[..., 3])
    near_row, near_col = _pixel((-1.5, 0.5, -3.5))  # centre of the near box's front face
    middle_row, middle_col = _pixel((1.5, 0.5, -7.5))
    assert metres[near_row, near_col] == pytest.approx(3.5, rel=0.05)
    assert metres[middle_row, middle_col] == pytest.approx(7.5, rel=0.05)
    assert metres[near_row, near_col] < metres[middle_row, middle_col]
    # Rows run top-down: the top row is sky (beyond the depth range), the bottom row is ground.
    assert np.all(rgbd[0, :, 3] == 0) and np.all(np.isinf(metres[0]))
    assert np.all(metres[-1] < 5)
    # The near box is red and the middle box blue, where the projection says.
    red, blue = rgbd[near_row, near_col, :3].astype(int), rgbd[middle_row, middle_col, :3].astype(int)
    assert red[0] > red[2] + 60 and blue[2] > blue[0] + 60


def test_vr_head_translation_walks_the_body_forward(env):
    env.reset(seed=0)
    observation, _, _, _, info = steps(env, zero_action(head_position=[0, 0, -1]), 4)
    assert info["world_body_position"] == pytest.approx([0, 0, -4 * STEP_WALK], abs=0.02)
    assert observation["body_delta_position"] == pytest.approx([0, 0, -STEP_WALK], abs=0.02)
    # Strafing right moves along +x in the body frame.
    observation, _, _, _, info = env.step(zero_action(head_position=[1, 0, 0]))
    assert observation["body_delta_position"] == pytest.approx([STEP_WALK, 0, 0], abs=0.02)


def test_vr_yaw_turns_the_whole_agent_while_pitch_and_roll_turn_only_the_head(env):
    env.reset(seed=0)
    observation, _, _, _, info = env.step(zero_action(head_rotation=[0, 1, 0]))
    assert info["world_body_yaw"] == pytest.approx(STEP_YAW, abs=1e-4)
    assert observation["body_delta_rotation"] == pytest.approx([0, STEP_YAW, 0], abs=1e-4)
    assert observation["head_relative_rotation"] == pytest.approx([0, 0, 0], abs=1e-4)
    observation, _, _, _, info = env.step(zero_action(head_rotation=[1, 0, -1]))
    assert info["world_body_yaw"] == pytest.approx(STEP_YAW, abs=1e-4)  # unchanged
    assert observation["head_relative_rotation"] == pytest.approx([STEP_YAW, 0, -STEP_YAW], abs=1e-4)
    # Walking forward after turning left moves along the new facing.
    _, _, _, _, info = env.step(zero_action(head_position=[0, 0, -1]))
    x, _, z = info["world_body_position"]
    assert math.atan2(-x, -z) == pytest.approx(STEP_YAW, abs=0.01)


def test_pitch_is_limited_and_crouching_moves_only_the_head(env):
    env.reset(seed=0)
    observation, *_ = steps(env, zero_action(head_rotation=[1, 0, 0]), 10)
    assert observation["head_relative_rotation"][0] == pytest.approx(mechanics.HEAD_MAX_PITCH_RAD, abs=1e-4)
    observation, _, _, _, info = steps(env, zero_action(head_position=[0, -1, 0]), 2)
    assert observation["head_relative_position"][1] == pytest.approx(mechanics.HEAD_DEFAULT_HEIGHT_M - 2 * 0.2, abs=1e-4)
    assert info["world_body_position"][1] == pytest.approx(0, abs=0.02)
    observation, *_ = steps(env, zero_action(head_position=[0, -1, 0]), 20)
    assert observation["head_relative_position"][1] == pytest.approx(mechanics.HEAD_MIN_HEIGHT_M, abs=1e-4)


def test_hands_move_relative_to_the_body_within_reach(env):
    observation, _ = env.reset(seed=0)
    start = observation["left_hand_relative_position"].copy()
    observation, *_ = env.step(zero_action(left_hand_position=[0, 1, 0], right_hand_rotation=[0, 0, 1]))
    assert observation["left_hand_relative_position"] == pytest.approx(start + [0, STEP_HAND, 0], abs=1e-4)
    assert observation["right_hand_relative_rotation"][2] == pytest.approx(math.radians(36), abs=1e-4)
    # The hand keeps its pose relative to the body when the body walks and turns.
    before = observation["left_hand_relative_position"].copy()
    observation, *_ = steps(env, zero_action(head_position=[0, 0, -1], head_rotation=[0, 1, 0]), 3)
    assert observation["left_hand_relative_position"] == pytest.approx(before, abs=0.01)
    # Reach is limited to ARM_REACH_M from the shoulder.
    observation, *_ = steps(env, zero_action(left_hand_position=[-1, 0, -1]), 20)
    shoulder = np.array([-mechanics.SHOULDER_HALF_WIDTH_M, mechanics.SHOULDER_HEIGHT_M, 0])
    assert np.linalg.norm(observation["left_hand_relative_position"] - shoulder) == pytest.approx(mechanics.ARM_REACH_M, abs=0.01)


def test_hands_collide_with_a_box_and_the_body_cannot_pass_it(env):
    env.reset(seed=0)
    walk = zero_action(head_position=[0, 0, -1])
    observation, _, _, _, info = steps(env, walk, 40)  # the far box's front face is 15 m ahead
    assert observation["left_hand_is_colliding"][0] == 1 and observation["right_hand_is_colliding"][0] == 1
    assert info["world_body_position"][2] > -15.0  # stopped in front of the box
    assert observation["left_hand_relative_position"][2] > -0.6 + 0.1  # pushed back towards the body


def test_jump_rises_and_gravity_brings_the_body_back(env):
    env.reset(seed=0)
    heights = [steps(env, zero_action(jump=1 if i == 0 else 0), 1)[4]["world_body_position"][1] for i in range(14)]
    assert max(heights) == pytest.approx(
        mechanics.JUMP_SPEED_M_PER_S**2 / (2 * mechanics.GRAVITY_M_PER_S2), rel=0.25
    )
    assert heights[-1] == pytest.approx(0, abs=0.02)


def test_mouse_keyboard_walks_and_looks(long_trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", action_space="mouse_keyboard", world_dir=str(long_trivial_world_dir))
    try:
        env.reset(seed=0)
        observation, _, _, _, info = steps(env, zero_action("mouse_keyboard", move_forward=[1]), 3)
        assert info["world_body_position"] == pytest.approx([0, 0, -3 * STEP_WALK], abs=0.02)
        observation, _, _, _, info = env.step(zero_action("mouse_keyboard", head_yaw=[-1], head_pitch=[0.5]))
        assert info["world_body_yaw"] == pytest.approx(-STEP_YAW, abs=1e-4)
        assert observation["head_relative_rotation"][0] == pytest.approx(0.5 * STEP_YAW, abs=1e-4)
        _, _, _, _, info = steps(env, zero_action("mouse_keyboard", jump=[0.8]), 3)
        assert info["world_body_position"][1] > 0.5
    finally:
        env.close()


def test_bad_actions_raise_before_anything_is_sent_and_the_next_step_works(env):
    observation, info = env.reset(seed=0)
    bad = zero_action(head_rotation=[0, np.nan, 0])
    with pytest.raises(ValueError, match="head_rotation.*non-finite"):
        env.step(bad)
    with pytest.raises(ValueError, match=r"right_hand_position.*shape \(4,\)"):
        env.step(zero_action(right_hand_position=[0, 0, 0, 0]))
    _, _, _, _, info = env.step(zero_action())
    assert info["frame"] == 1  # the bad actions never reached the simulator


def test_time_limit_truncates(tmp_path):
    world = export_world(trivial_world(time_limit_frames=3), tmp_path / "short")
    env = AvalonEnv(renderer="GLES2", world_dir=str(world))
    try:
        env.reset(seed=0)
        results = [env.step(zero_action())[2:4] for _ in range(3)]
        assert results == [(False, False), (False, False), (False, True)]
        with pytest.raises(RuntimeError, match="call reset"):
            env.step(zero_action())
        env.reset()
        assert env.step(zero_action())[3] is False
    finally:
        env.close()


def test_gymnasium_check_env_passes(trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))
    try:
        check_env(env.unwrapped, skip_render_check=False)
    finally:
        env.close()


def test_gymnasium_check_env_passes_with_larger_pictures(trivial_world_dir):
    env = gymnasium.make("avalon/Avalon-v0", renderer="GLES2", world_dir=str(trivial_world_dir),
                         render_mode="rgb_array", render_resolution=64)
    try:
        check_env(env.unwrapped, skip_render_check=False)  # render() after reset and after steps; closes
        env.reset(seed=0)
        assert env.render().shape == (64, 64, 3)
    finally:
        env.close()


def test_gymnasium_make_generates_the_task_world_and_flat_actions_work():
    env = FlattenAction(gymnasium.make("avalon/Avalon-v0", renderer="GLES2", render_mode="rgb_array"))
    try:
        observation, info = env.reset(seed=3)
        assert info["task"] == "trivial" and info["world_dir"].endswith("trivial-0.000000-3")
        assert env.action_space.shape == (21,)
        observation, *_ = env.step(env.action_space.sample())
        frame = env.render()
        assert frame.shape == (96, 96, 3) and np.array_equal(frame, observation["rgbd"][..., :3])
    finally:
        env.close()
