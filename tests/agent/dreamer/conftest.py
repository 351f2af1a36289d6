"""Episodes recorded once per test session from the real simulator (32 px, random actions), and
a replay buffer holding them, for the world-model and imagination tests."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from avalon import AvalonEnv, EnvConfig
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.replay import ReplayBuffer
from avalon.datagen.export import export_world
from avalon.env.spaces import RGBD_KEY
from avalon.tasks.trivial import trivial_world

RESOLUTION = 32
EPISODE_FRAMES = 30
EPISODES = 3

#: Networks small enough to learn in a second on this CPU.
TINY = dict(
    batch_size=6, unroll=10, horizon=5, deter_size=32, stoch_size=8, rssm_hidden=32, cnn_depth=8, cnn_layers=3, mlp_units=32,
    mlp_layers=1, prefill_steps=0, replay_gb=0.01,
)


def tiny_config(**changes) -> DreamerConfig:
    return DreamerConfig(**{**TINY, **changes})


@pytest.fixture(autouse=True)
def one_torch_thread():
    """One torch thread, as the trainer learns (two are ten times slower on this shared 2-core machine)."""
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(saved)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory):
    """``(observation layout, action layout, rows)``: each row is one step of the recorded episodes,
    as the trainer adds them to its replay (image, proprioception, flat action, reward, flags)."""
    world = export_world(trivial_world(time_limit_frames=EPISODE_FRAMES), tmp_path_factory.mktemp("worlds") / "dreamer")
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=RESOLUTION, world_dir=str(world)))
    observation_layout = ObservationLayout.from_space(env.observation_space)
    action_layout = ActionLayout.from_space(env.action_space)
    generator = torch.Generator().manual_seed(0)
    rows = []

    def row(observation, action, reward, first, terminal):
        tensors = observation_layout.to_tensors({key: np.asarray(value)[None] for key, value in observation.items()})
        rows.append((tensors[RGBD_KEY][0].numpy(), tensors["proprio"][0].numpy(), action, reward, first, terminal))

    try:
        for episode in range(EPISODES):
            observation, _ = env.reset(seed=episode)
            row(observation, np.zeros(action_layout.action_size, np.float32), 0.0, True, False)
            done = False
            while not done:
                # Random actions as the trainer's prefill draws them: continuous values in [-1, 1], uniform choices.
                flat = torch.rand(1, action_layout.action_size, generator=generator) * 2 - 1
                flat[:, action_layout.normal_size:] = (flat[:, action_layout.normal_size:] > 0).float()
                flat = flat.numpy()
                action = {key: value[0] for key, value in action_layout.to_env(flat).items()}
                observation, reward, terminated, truncated, _ = env.step(action)
                row(observation, flat[0], float(reward), False, bool(terminated))
                done = terminated or truncated
    finally:
        env.close()
    return observation_layout, action_layout, rows


def replay_of(recorded, config: DreamerConfig) -> ReplayBuffer:
    """The recorded episodes, one after the other, in a one-env replay."""
    observation_layout, action_layout, rows = recorded
    replay = ReplayBuffer(observation_layout, action_layout.action_size, 1, config.replay_gb, config.unroll)
    for image, proprio, action, reward, first, terminal in rows:
        replay.add(0, image, proprio, action, reward, first, terminal)
    return replay
