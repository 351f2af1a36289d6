"""EnvConfig (its simulator settings held as one object) and AvalonEnv construction errors, without Godot."""

import math
from pathlib import Path

import attr
import gymnasium
import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.sim.protocol import MAX_TIME_LIMIT_FRAMES
from avalon.sim.settings import SimulatorSettings


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("renderer", "Vulkan", "renderer='Vulkan' is not one of 'GLES3', 'GLES2'"),
        ("renderer", ["GLES2"], r"renderer=\['GLES2'\] is not one of"),
        ("action_space", "gamepad", "action_space='gamepad' is not one of 'vr', 'mouse_keyboard'"),
        ("resolution", 0, "resolution=0 must be an int from 16 to 1024"),
        ("resolution", 96.0, "resolution=96.0 must be an int"),
        ("resolution", True, "resolution=True must be an int"),
        ("render_resolution", 8, "render_resolution=8 must be None or an int from 16 to 1024"),
        ("render_resolution", "256", "render_resolution='256' must be None or an int"),
        ("difficulty", 1.5, "difficulty 1.5 must be a number in \\[0, 1\\]"),
        ("difficulty", math.nan, "difficulty nan must be"),
        ("difficulty", "0.5", "difficulty '0.5' must be"),
        ("task", "fly", "unknown task 'fly'; the tasks are: .*trivial"),
        ("task", ["eat"], r"task=\['eat'\] must be a task name \(str\)"),
        ("seed", -1, r"seed=-1 must be None or an int in \[0, 2\*\*64\)"),
        ("seed", 2**64, r"seed=18446744073709551616 must be None or an int in \[0, 2\*\*64\)"),
        ("seed", 1.5, r"seed=1.5 must be None or an int in \[0, 2\*\*64\)"),
        ("seed", True, r"seed=True must be None or an int"),
        ("seed", "3", r"seed='3' must be None or an int"),
        ("time_limit_frames", 0, r"time_limit_frames=0 must be None or an int from 1 to 4294967295 \(frames\)"),
        ("time_limit_frames", 2**32, r"time_limit_frames=4294967296 must be None or an int from 1"),
        ("time_limit_frames", 60.0, r"time_limit_frames=60.0 must be None or an int"),
        ("is_training", 1, r"is_training=1 must be a bool"),
        ("is_training", "no", r"is_training='no' must be a bool"),
        ("world_dir", 5, r"world_dir=5 must be None or a path \(str or os.PathLike\)"),
        ("log_dir", b"/tmp", r"log_dir=b'/tmp' must be None or a path"),
        ("godot_binary", "", r"godot_binary='' must be a non-empty str"),
        ("godot_binary", None, r"godot_binary=None must be a non-empty str"),
        ("step_timeout_s", 0, "step_timeout_s=0 must be a finite number > 0 \\(seconds\\)"),
        ("step_timeout_s", math.inf, "step_timeout_s=inf must be a finite number > 0"),
        ("reset_timeout_s", "60", "reset_timeout_s='60' must be a finite number > 0"),
        ("startup_timeout_s", True, "startup_timeout_s=True must be a finite number > 0"),
        ("movement_coefficient", math.nan, "movement_coefficient=nan must be a finite number >= 0"),
        ("movement_coefficient", -1e-8, "movement_coefficient=-1e-08 must be a finite number >= 0"),
        ("movement_coefficient", "1e-8", "movement_coefficient='1e-8' must be a finite number >= 0"),
        ("llvmpipe_threads", -3, r"llvmpipe_threads=-3 must be None or an int >= 0"),
        ("llvmpipe_threads", "x", r"llvmpipe_threads='x' must be None or an int >= 0"),
        ("llvmpipe_threads", True, r"llvmpipe_threads=True must be None or an int >= 0"),
        ("llvmpipe_threads", 2.0, r"llvmpipe_threads=2.0 must be None or an int >= 0"),
    ],
)
def test_bad_config_values_name_the_value_and_the_choices(field, value, message):
    with pytest.raises(ValueError, match=message):
        EnvConfig(**{field: value})


def test_good_config_values_are_kept_as_plain_python_values(tmp_path):
    config = EnvConfig(seed=np.uint64(2**64 - 1), llvmpipe_threads=np.int32(3), world_dir=tmp_path, log_dir=Path("/tmp"),
                       time_limit_frames=np.int64(MAX_TIME_LIMIT_FRAMES), render_resolution=256, difficulty=np.float32(0.5))
    assert config.seed == 2**64 - 1 and type(config.seed) is int
    assert config.llvmpipe_threads == 3 and type(config.llvmpipe_threads) is int
    assert config.time_limit_frames == MAX_TIME_LIMIT_FRAMES and type(config.time_limit_frames) is int
    assert config.world_dir == str(tmp_path) and config.log_dir == "/tmp"
    assert config.difficulty == 0.5 and type(config.difficulty) is float
    assert EnvConfig(llvmpipe_threads=None).llvmpipe_threads is None and EnvConfig(seed=0).seed == 0


def test_unknown_env_keyword_is_a_type_error_in_pythons_words():
    # TorchRL's GymEnv passes frameskip=1 and drops it only when the error says exactly this.
    with pytest.raises(TypeError) as error:
        AvalonEnv(frameskip=1)
    assert str(error.value).startswith("AvalonEnv.__init__() got an unexpected keyword argument 'frameskip'")
    assert "the EnvConfig fields are: resolution, render_resolution, renderer" in str(error.value)
    with pytest.raises(TypeError, match=r"^AvalonEnv.__init__\(\) got an unexpected keyword argument 'renderr'"):
        AvalonEnv(resolution=32, renderr="GLES2", zzz=1, aaa=2)  # Python names the first unknown one


def test_gymnasium_make_passes_on_the_unknown_keyword_error_torchrl_looks_for():
    import avalon  # noqa: F401  (registers avalon/Avalon-v0)

    with pytest.raises(TypeError) as error:
        gymnasium.make("avalon/Avalon-v0", frameskip=1)
    assert "unexpected keyword argument 'frameskip'" in str(error.value)  # torchrl.envs.libs.gym.ACCEPTED_TYPE_ERRORS


def test_env_spaces_follow_the_config_without_starting_godot():
    env = AvalonEnv(EnvConfig(resolution=32), action_space="mouse_keyboard")
    assert env.observation_space["rgbd"].shape == (32, 32, 4)
    assert set(env.action_space.spaces) >= {"move_forward", "head_pitch", "eat"}
    assert env.simulator_pid is None
    env.close()


def test_the_simulator_settings_are_one_object_read_through():
    config = EnvConfig(renderer="GLES2", resolution=64, action_space="mouse_keyboard", task="eat", llvmpipe_threads=np.int16(2))
    assert config.simulator == SimulatorSettings(renderer="GLES2", resolution=64, action_space="mouse_keyboard", llvmpipe_threads=2)
    assert (config.renderer, config.resolution, config.action_space, config.task) == ("GLES2", 64, "mouse_keyboard", "eat")
    assert EnvConfig().simulator == SimulatorSettings()  # one set of defaults
    # Declared once: EnvConfig has none of the simulator's fields of its own.
    assert not set(attr.fields_dict(EnvConfig)) & set(attr.fields_dict(SimulatorSettings))
    assert set(EnvConfig.keywords()) == set(attr.fields_dict(EnvConfig)) | set(attr.fields_dict(SimulatorSettings))


def test_evolve_and_a_given_simulator_take_keywords_of_both():
    config = EnvConfig(renderer="GLES2", resolution=64, task="eat")
    changed = attr.evolve(config, renderer="GLES3", is_training=False)
    assert (changed.renderer, changed.resolution, changed.task, changed.is_training) == ("GLES3", 64, "eat", False)
    assert (config.renderer, config.is_training) == ("GLES2", True)  # frozen: the original is unchanged
    settings = SimulatorSettings(renderer="GLES2", step_timeout_s=5.0)
    given = EnvConfig(simulator=settings, resolution=32)
    assert given.simulator == attr.evolve(settings, resolution=32)
    assert attr.evolve(config, simulator=settings).simulator == settings
    env = AvalonEnv(config, step_timeout_s=7)
    assert env.config.simulator == attr.evolve(config.simulator, step_timeout_s=7)
    env.close()


def test_bad_simulator_settings_are_refused_where_they_are_made():
    with pytest.raises(ValueError, match="renderer='Vulkan' is not one of 'GLES3', 'GLES2'"):
        SimulatorSettings(renderer="Vulkan")
    with pytest.raises(ValueError, match="simulator='GLES2' must be a SimulatorSettings"):
        EnvConfig(simulator="GLES2")
    with pytest.raises(ValueError, match=r"resolution=8 must be an int from 16 to 1024 \(pixels\)"):
        EnvConfig(simulator=SimulatorSettings(), resolution=8)
    with pytest.raises(TypeError, match=r"^EnvConfig.__init__\(\) got an unexpected keyword argument 'frameskip'$"):
        EnvConfig(frameskip=1)


def test_gymnasium_make_passes_simulator_keywords_into_the_settings():
    import avalon  # noqa: F401  (registers avalon/Avalon-v0)

    env = gymnasium.make("avalon/Avalon-v0", renderer="GLES2", resolution=32, max_episode_steps=40)
    try:
        assert env.unwrapped.config.simulator == SimulatorSettings(renderer="GLES2", resolution=32)
        assert env.unwrapped.config.time_limit_frames == 40
    finally:
        env.close()
