"""The replay buffer: uint8 frames, its size limit in GB, sequences that cross an episode end only at an is_first."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from avalon.agent.common.observations import ObservationLayout
from avalon.agent.dreamer.replay import ReplayBuffer, bytes_per_step
from avalon.env.spaces import RGBD_KEY, observation_space

LAYOUT = ObservationLayout((8, 8, 4), [("episode", 1), ("step", 1)])  # the proprioception names each row
ACTIONS = 3


def fill(replay: ReplayBuffer, env: int, lengths: list[int], first_episode: int = 0) -> None:
    """Episodes of the given lengths one after the other; each row's proprioception is (episode, step)."""
    for episode, length in enumerate(lengths, start=first_episode):
        for step in range(length):
            image = np.full(LAYOUT.image_shape, (episode * 7 + step) % 256, np.uint8)
            terminal = step == length - 1 and episode % 2 == 0  # even episodes end by termination, odd ones by a time limit
            replay.add(env, image, np.array([episode, step], np.float32), np.full(ACTIONS, step, np.float32), float(step),
                       step == 0, terminal)


def test_frames_are_uint8_and_the_memory_stays_within_the_limit():
    replay = ReplayBuffer(LAYOUT, ACTIONS, num_envs=2, capacity_gb=1e-5, sequence_length=4)  # 10 kB
    assert replay.step_bytes == 8 * 8 * 4 + 4 * (2 + ACTIONS) + 6
    assert replay.capacity == 10_000 // replay.step_bytes // 2 == 17
    assert replay.images.dtype == np.uint8 and replay.nbytes == 2 * replay.capacity * replay.step_bytes <= 10_000
    fill(replay, 0, [30])
    fill(replay, 1, [5], first_episode=1)
    assert len(replay) == replay.capacity + 5
    # Env 0's stream keeps its newest 17 rows (steps 13-29); a sample brings back the very rows.
    batch = replay.sample(200, torch.Generator().manual_seed(0))
    assert batch[RGBD_KEY].dtype == torch.uint8 and batch[RGBD_KEY].shape == (4, 200, 8, 8, 4)
    steps = batch["proprio"][..., 1]
    from_env_0 = batch["proprio"][0, :, 0] == 0
    assert steps[:, from_env_0].min() == 13 and steps[:, from_env_0].max() == 29
    assert torch.equal(batch[RGBD_KEY][..., 0, 0, 0].float(), (batch["proprio"][..., 0] * 7 + steps) % 256)
    assert torch.equal(batch["reward"], steps) and torch.equal(batch["action"][..., 0], steps)


def test_a_sequence_crosses_an_episode_end_only_into_an_is_first_row():
    replay = ReplayBuffer(LAYOUT, ACTIONS, num_envs=3, capacity_gb=1e-4, sequence_length=10)  # 118 rows per env: the streams wrap
    rng = np.random.default_rng(0)
    for env in range(3):
        fill(replay, env, rng.integers(1, 15, size=20).tolist(), first_episode=100 * env)
    assert replay.capacity == 118 and (replay.counts > replay.capacity).all()
    batch = replay.sample(500, torch.Generator().manual_seed(1))
    episode, step = batch["proprio"][..., 0], batch["proprio"][..., 1]
    new_episode = episode[1:] != episode[:-1]
    assert new_episode.any()
    assert torch.equal(batch["is_first"][1:], new_episode) and torch.all(step[1:][new_episode] == 0)
    assert torch.all(step[1:][~new_episode] == step[:-1][~new_episode] + 1)  # consecutive rows of one episode
    # An episode's last row is terminal when it ended by termination (even episodes), not by a time limit.
    last = batch["is_first"][1:]
    assert torch.equal(batch["is_terminal"][:-1][last], episode[:-1][last] % 2 == 0)
    assert set(episode[0].div(100, rounding_mode="floor").long().tolist()) == {0, 1, 2}  # every env's stream is drawn


def test_memory_per_million_frames_of_the_avalon_observation():
    # 96 px: 36,864 bytes of RGBD + 4 x (51 proprioceptive values + 21 action values) + 6 = 37,158 bytes a step.
    for resolution, expected_gb in ((96, 37.158), (64, 16.678)):
        layout = ObservationLayout.from_space(observation_space(resolution))
        assert bytes_per_step(layout, 21) * 1e6 / 1e9 == pytest.approx(expected_gb)


def test_bad_replay_input_is_refused():
    with pytest.raises(ValueError, match="fewer than one sequence of 30: raise the replay's size"):
        ReplayBuffer(LAYOUT, ACTIONS, 1, 1e-6, 30)
    with pytest.raises(ValueError, match="capacity_gb=0 must be a number of gigabytes > 0"):
        ReplayBuffer(LAYOUT, ACTIONS, 1, 0, 30)
    replay = ReplayBuffer(LAYOUT, ACTIONS, 1, 1e-4, 5)
    with pytest.raises(ValueError, match=r"image must be uint8 of shape \(8, 8, 4\), got float32"):
        replay.add(0, np.zeros((8, 8, 4), np.float32), np.zeros(2, np.float32), np.zeros(ACTIONS, np.float32), 0.0, True, False)
    fill(replay, 0, [4])
    with pytest.raises(ValueError, match="holds no sequence of 5 steps yet"):
        replay.sample(1, torch.Generator())
