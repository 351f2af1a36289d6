"""One time limit: EnvConfig.time_limit_frames, gymnasium.make's max_episode_steps and the reset
option all set what frames_remaining counts down from and where the env itself truncates."""

import inspect

import gymnasium
import pytest
from gymnasium.wrappers import TimeLimit

import avalon  # noqa: F401  (registers avalon/Avalon-v0)
from avalon import AvalonEnv
from tests.conftest import zero_action


def run_until_truncated(env, limit):
    """Steps ``limit`` times; returns frames_remaining after each step and the flags."""
    remaining, flags = [], []
    for _ in range(limit):
        observation, _, terminated, truncated, _ = env.step(zero_action())
        remaining.append(int(observation["frames_remaining"][0]))
        flags.append((terminated, truncated))
    return remaining, flags


def test_gymnasium_make_still_hides_max_episode_steps_from_the_env():
    # What AvalonEnv's spec setter relies on: make wraps TimeLimit(N) around an env whose spec says
    # None, and decides N from these two names. If this fails, gymnasium changed make: revisit
    # avalon.env.avalon_env._gymnasium_make_time_limit.
    source = inspect.getsource(gymnasium.envs.registration.make)
    assert "max_episode_steps: int | None = None" in source and "env = gym.wrappers.TimeLimit(env, max_episode_steps)" in source
    assert "env_spec.max_episode_steps" in source and "max_episode_steps=None," in source


def test_make_writes_max_episode_steps_into_the_config_without_starting_godot():
    env = gymnasium.make("avalon/Avalon-v0", max_episode_steps=60)
    assert env.unwrapped.config.time_limit_frames == 60 and env.unwrapped.spec.max_episode_steps is None
    assert gymnasium.make("avalon/Avalon-v0", time_limit_frames=70).unwrapped.config.time_limit_frames == 70
    assert gymnasium.make("avalon/Avalon-v0", max_episode_steps=-1).unwrapped.config.time_limit_frames is None
    # make's TimeLimit and the env must agree: make's N wins over the keyword.
    assert gymnasium.make("avalon/Avalon-v0", max_episode_steps=60, time_limit_frames=70).unwrapped.config.time_limit_frames == 60
    assert AvalonEnv(time_limit_frames=80).config.time_limit_frames == 80 and AvalonEnv().spec is None


@pytest.mark.godot
def test_make_max_episode_steps_counts_down_and_truncates_in_the_env_itself(trivial_world_dir):
    limit = 6  # the world's own limit is 200
    env = gymnasium.make("avalon/Avalon-v0", max_episode_steps=limit, renderer="GLES2", world_dir=str(trivial_world_dir))
    try:
        assert isinstance(env, TimeLimit)
        observation, _ = env.reset(seed=0)
        assert observation["frames_remaining"][0] == limit and env.unwrapped.episode_time_limit_frames == limit
        remaining, flags = run_until_truncated(env, limit)
        assert remaining == [5, 4, 3, 2, 1, 0] and flags[-1] == (False, True) and not any(f[1] for f in flags[:-1])
        with pytest.raises(RuntimeError, match="call reset"):  # the env itself ended the episode
            env.unwrapped.step(zero_action())
    finally:
        env.close()


@pytest.mark.godot
def test_config_limit_and_the_reset_option_and_which_wins(trivial_world_dir):
    env = AvalonEnv(renderer="GLES2", world_dir=str(trivial_world_dir), time_limit_frames=4)
    try:
        observation, _ = env.reset(seed=0)
        assert observation["frames_remaining"][0] == 4
        assert run_until_truncated(env, 4)[1][-1] == (False, True)
        observation, _ = env.reset(options={"time_limit_frames": 2})  # the option wins, for one episode
        assert observation["frames_remaining"][0] == 2 and env.episode_time_limit_frames == 2
        assert run_until_truncated(env, 2)[1] == [(False, False), (False, True)]
        observation, _ = env.reset()
        assert observation["frames_remaining"][0] == 4 and env.episode_time_limit_frames == 4
    finally:
        env.close()
