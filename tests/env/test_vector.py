"""ThreadedVectorEnv: its action check, gymnasium.make_vec, time limits through autoresets."""

import numpy as np
import pytest

from avalon import AvalonEnv
from avalon.env.vector import ThreadedVectorEnv


def zero_actions(envs) -> dict:
    return {key: np.zeros_like(value) for key, value in envs.action_space.sample().items()}


@pytest.mark.parametrize(
    "key, values, message",
    [
        ("head_position", np.zeros((2, 3), bool), r"'head_position' has dtype bool, expected real numbers \(int or float\)"),
        ("head_position", np.zeros((2, 3), complex), r"'head_position' has dtype complex128, expected real numbers"),
        ("head_position", np.zeros((2, 3)).astype(str), r"'head_position' has dtype <U32, expected real numbers"),
        ("jump", np.array(["0", "1"]), r"'jump' has dtype <U1, expected ints, bools or floats"),
        ("jump", np.array([0, 0.5]), r"'jump' of environment 1 is .*0.5"),
    ],
)
def test_batched_actions_are_checked_as_strictly_as_each_env_does(key, values, message):
    # Nothing starts before the first reset, and a refused batch never reaches an environment.
    envs = ThreadedVectorEnv([AvalonEnv, AvalonEnv])
    try:
        actions = zero_actions(envs)
        actions[key] = values
        with pytest.raises(ValueError, match=message):
            envs.step(actions)
        assert [env.simulator_pid for env in envs.envs] == [None, None]
    finally:
        envs.close()
