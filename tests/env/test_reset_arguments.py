"""reset()'s seed and options: out-of-range or wrongly typed values are refused before anything changes."""

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from tests.conftest import zero_action

BAD_SEEDS = [
    (2**64, r"seed=18446744073709551616 must be an int in \[0, 2\*\*64\)"),
    (-1, r"seed=-1 must be an int in \[0, 2\*\*64\)"),
    (1.5, r"seed=1.5 must be an int in \[0, 2\*\*64\)"),
    (3.0, r"seed=3.0 must be an int"),
    (True, r"seed=True must be an int"),
    ("7", r"seed='7' must be an int"),
    (np.float64(2.0), r"seed=.*2.0.* must be an int"),
]


@pytest.mark.parametrize("seed, message", BAD_SEEDS)
def test_bad_reset_seeds_are_refused_before_the_simulator_starts(seed, message, trivial_world_dir):
    env = AvalonEnv(world_dir=str(trivial_world_dir))
    try:
        with pytest.raises(ValueError, match=message):
            env.reset(seed=seed)
        with pytest.raises(ValueError, match="reset option episode_" + message):
            env.reset(options={"episode_seed": seed})
        assert env.simulator_pid is None and env._np_random is None  # nothing happened
    finally:
        env.close()


@pytest.mark.parametrize(
    "options, message",
    [
        ({"time_limit_frames": 2**32}, r"reset option time_limit_frames=4294967296 must be an int from 1 to 4294967295"),
        ({"time_limit_frames": 0}, r"time_limit_frames=0 must be an int from 1"),
        ({"time_limit_frames": 60.0}, r"time_limit_frames=60.0 must be an int"),
        ({"world_dir": 3}, r"reset option world_dir=3 must be a path"),
        ({"frameskip": 1}, r"unknown reset option\(s\) \['frameskip'\]"),
        (["episode_seed"], r"reset options must be a dict"),
    ],
)
def test_bad_reset_options_are_refused_before_the_simulator_starts(options, message):
    env = AvalonEnv()
    with pytest.raises(ValueError, match=message):
        env.reset(options=options)
    assert env.simulator_pid is None
    env.close()


@pytest.mark.godot
def test_the_whole_seed_range_reaches_the_simulator_and_a_refused_reset_loses_nothing(long_trivial_world_dir):
    env = AvalonEnv(EnvConfig(renderer="GLES2", world_dir=str(long_trivial_world_dir)))
    try:
        _, info = env.reset(seed=np.uint64(2**64 - 1))
        assert info["seed"] == 2**64 - 1 and type(info["seed"]) is int
        _, info = env.reset(options={"episode_seed": np.int64(2**63 - 1)})
        assert info["seed"] == 2**63 - 1
        env.step(zero_action())
        state = env.np_random.bit_generator.state
        for seed, _ in BAD_SEEDS:
            with pytest.raises(ValueError):
                env.reset(seed=seed)
            with pytest.raises(ValueError):
                env.reset(options={"episode_seed": seed})
        assert env.np_random.bit_generator.state == state
        _, _, _, _, info = env.step(zero_action())  # the episode goes on where it was
        assert info["frame"] == 2 and info["seed"] == 2**63 - 1
    finally:
        env.close()


def test_config_seed_takes_the_whole_range():
    assert EnvConfig(seed=2**64 - 1).seed == 2**64 - 1
