"""EnvConfig and AvalonEnv construction errors, without Godot."""

import math

import pytest

from avalon import AvalonEnv, EnvConfig


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("renderer", "Vulkan", "renderer='Vulkan' is not one of 'GLES3', 'GLES2'"),
        ("action_space", "gamepad", "action_space='gamepad' is not one of 'vr', 'mouse_keyboard'"),
        ("resolution", 0, "resolution=0 must be an int from 16 to 1024"),
        ("resolution", 96.0, "resolution=96.0 must be an int"),
        ("difficulty", 1.5, "difficulty 1.5 must be a number in \\[0, 1\\]"),
        ("difficulty", math.nan, "difficulty nan must be"),
        ("task", "fly", "unknown task 'fly'; the tasks are: .*trivial"),
        ("seed", -1, "seed=-1 must be None or an int"),
        ("step_timeout_s", 0, "step_timeout_s=0 must be positive"),
        ("movement_coefficient", math.nan, "movement_coefficient=nan must be a finite number >= 0"),
        ("movement_coefficient", -1e-8, "movement_coefficient=-1e-08 must be a finite number >= 0"),
    ],
)
def test_bad_config_values_name_the_value_and_the_choices(field, value, message):
    with pytest.raises(ValueError, match=message):
        EnvConfig(**{field: value})


def test_unknown_env_keyword_lists_the_fields():
    with pytest.raises(TypeError, match="unknown EnvConfig field.*'renderr'.*the fields are: resolution, renderer"):
        AvalonEnv(renderr="GLES2")


def test_env_spaces_follow_the_config_without_starting_godot():
    env = AvalonEnv(EnvConfig(resolution=32), action_space="mouse_keyboard")
    assert env.observation_space["rgbd"].shape == (32, 32, 4)
    assert set(env.action_space.spaces) >= {"move_forward", "head_pitch", "eat"}
    assert env.simulator_pid is None
    env.close()
