"""ThreadedVectorEnv: its action check, gymnasium.make_vec, time limits through autoresets."""

import warnings

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

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


def test_make_vec_gives_the_threaded_vector_env_with_the_kwargs_it_passes():
    import gymnasium

    import avalon  # noqa: F401  (registers avalon/Avalon-v0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns about a vector env's missing metadata
        envs = gymnasium.make_vec("avalon/Avalon-v0", num_envs=3, max_episode_steps=7, resolution=32, seed=5)
    try:
        assert isinstance(envs, ThreadedVectorEnv) and envs.num_envs == 3
        assert all(isinstance(env, AvalonEnv) for env in envs.envs)
        assert [env.config.time_limit_frames for env in envs.envs] == [7, 7, 7]
        assert [env.config.seed for env in envs.envs] == [5, 6, 7]
        assert envs.single_observation_space["rgbd"].shape == (32, 32, 4)
        assert envs.observation_space["rgbd"].shape == (3, 32, 32, 4)
        assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        assert envs.spec.id == "avalon/Avalon-v0" and envs.spec.kwargs["vectorization_mode"] == "vector_entry_point"
    finally:
        envs.close()
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make_vec("avalon/Avalon-v0", num_envs=2, frameskip=1)
    with pytest.raises(ValueError, match="num_envs=0 must be an int >= 1"):
        gymnasium.make_vec("avalon/Avalon-v0", num_envs=0)


@pytest.mark.godot
def test_make_vec_envs_step_in_parallel_and_truncate_at_max_episode_steps(trivial_world_dir):
    import gymnasium

    import avalon  # noqa: F401

    envs = gymnasium.make_vec("avalon/Avalon-v0", num_envs=2, max_episode_steps=3, renderer="GLES2",
                              world_dir=str(trivial_world_dir))
    try:
        observations, infos = envs.reset(seed=1)
        assert observations in envs.observation_space and list(infos["seed"]) == [1, 2]
        assert list(observations["frames_remaining"][:, 0]) == [3, 3]
        pids = {env.simulator_pid for env in envs.envs}
        assert len(pids) == 2 and None not in pids
        for _ in range(3):
            observations, _, terminated, truncated, infos = envs.step(zero_actions(envs))
        assert list(truncated) == [True, True] and not terminated.any()
        assert list(observations["frames_remaining"][:, 0]) == [3, 3]  # autoreset: the new episodes' first
    finally:
        envs.close()


@pytest.mark.godot
def test_the_time_limit_reset_option_reaches_autoresets_until_a_reset_without_it(trivial_world_dir):
    envs = ThreadedVectorEnv([lambda: AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir))] * 2)
    try:
        observations, _ = envs.reset(seed=0, options={"time_limit_frames": 2})
        assert list(observations["frames_remaining"][:, 0]) == [2, 2]
        for _ in range(2):
            envs.step(zero_actions(envs))
            observations, _, _, truncated, infos = envs.step(zero_actions(envs))
            assert list(truncated) == [True, True]
            assert [final["frames_remaining"][0] for final in infos["final_obs"]] == [0, 0]
            assert list(observations["frames_remaining"][:, 0]) == [2, 2]  # the autoreset kept the option
            assert [env.episode_time_limit_frames for env in envs.envs] == [2, 2]
        observations, _ = envs.reset(seed=0)
        assert list(observations["frames_remaining"][:, 0]) == [200, 200]  # the world's own limit again
    finally:
        envs.close()


def test_infos_whose_arrays_differ_in_shape_between_worlds_are_kept_per_environment():
    # Multi-task training steps worlds with different numbers of animals side by side.
    vector = object.__new__(ThreadedVectorEnv)
    vector.num_envs = 3
    none, one, two = np.zeros((0, 5), np.float32), np.ones((1, 5), np.float32), np.full((2, 5), 2.0, np.float32)
    infos = {}
    for index, rows in enumerate((none, one, two)):
        infos = vector._add_info(infos, {"animals": rows, "success": bool(index), "final_info": {"animals": rows}}, index)
    for batched in (infos["animals"], infos["final_info"]["animals"]):
        assert batched.dtype == object and [array.shape for array in batched] == [(0, 5), (1, 5), (2, 5)]
        assert (batched[2] == 2.0).all() and infos["_animals"].all()
    same = {}
    for index in range(3):
        same = vector._add_info(same, {"animals": one * index}, index)
    assert same["animals"].shape == (3, 1, 5) and same["animals"].dtype == np.float32  # Gymnasium's stacking when shapes agree
