"""The world model learns the recorded episodes; imagination sees nothing real after its start;
the online filter starts afresh at episode starts."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from avalon.agent.dreamer.acting import LatentFilter
from avalon.agent.dreamer.behavior import imagine
from avalon.agent.dreamer.learner import DreamerLearner
from avalon.env.spaces import RGBD_KEY
from tests.agent.dreamer.conftest import replay_of, tiny_config

pytestmark = [pytest.mark.godot, pytest.mark.slow]


def test_the_world_models_loss_falls_on_recorded_episodes(recorded):
    observation_layout, action_layout, _rows = recorded
    config = tiny_config(model_learning_rate=1e-3)
    torch.manual_seed(0)
    learner = DreamerLearner(observation_layout, action_layout, config)
    replay = replay_of(recorded, config)
    batches = [replay.sample(config.batch_size, torch.Generator().manual_seed(index)) for index in range(4)]

    def mean_loss() -> dict[str, float]:
        with torch.no_grad():
            stats = [learner.world_model.loss(batch, torch.Generator().manual_seed(0))[2] for batch in batches]
        return {name: float(np.mean([s[name] for s in stats])) for name in ("model_loss", "image_loss", "proprio_loss")}

    before = mean_loss()
    for step in range(40):
        learner.update_world_model(batches[step % len(batches)], torch.Generator().manual_seed(step))
    after = mean_loss()
    # Measured after 40 steps: the total and the image part at about 40% of their start, the proprioception at 60%.
    assert after["model_loss"] < 0.6 * before["model_loss"], (before, after)
    assert after["image_loss"] < 0.6 * before["image_loss"], (before, after)
    assert after["proprio_loss"] < 0.8 * before["proprio_loss"], (before, after)


def test_an_imagined_rollout_has_its_shapes_and_sees_no_observation_after_its_start(recorded):
    observation_layout, action_layout, _rows = recorded
    config = tiny_config()
    torch.manual_seed(1)
    learner = DreamerLearner(observation_layout, action_layout, config)
    batch = replay_of(recorded, config).sample(3, torch.Generator().manual_seed(0))

    def rollout(sequence):
        posteriors, _priors = learner.world_model.observe(sequence, generator=torch.Generator().manual_seed(7))
        start = posteriors.map(lambda part: part[0])
        return imagine(learner.world_model, learner.actor, start, config.horizon, torch.Generator().manual_seed(8))

    imagined = rollout(batch)
    feature_size = config.deter_size + config.stoch_size
    assert imagined.features.shape == (config.horizon + 1, 3, feature_size)
    assert imagined.actions.shape == (config.horizon, 3, action_layout.action_size)
    choices = imagined.actions[..., action_layout.normal_size:]
    assert torch.equal(choices, choices.round()) and choices.min() >= 0 and choices.max() <= 1
    assert imagined.features.isfinite().all()

    # Every observation after the start replaced by noise: the very same rollout.
    changed = {key: value.clone() for key, value in batch.items()}
    noise = torch.Generator().manual_seed(9)
    changed[RGBD_KEY][1:] = torch.randint(0, 256, changed[RGBD_KEY][1:].shape, generator=noise, dtype=torch.uint8)
    changed["proprio"][1:] = torch.randn(changed["proprio"][1:].shape, generator=noise)
    changed["reward"][1:] = 5.0
    again = rollout(changed)
    assert torch.equal(again.features, imagined.features) and torch.equal(again.actions, imagined.actions)
    # The start's own observation does shape it.
    changed[RGBD_KEY][0] = 255 - changed[RGBD_KEY][0]
    assert not torch.allclose(rollout(changed).features[1:], imagined.features[1:])


def test_the_filter_keeps_a_state_per_env_and_starts_afresh_at_an_episode_start(recorded):
    observation_layout, action_layout, rows = recorded
    learner = DreamerLearner(observation_layout, action_layout, tiny_config())
    observations = [
        {RGBD_KEY: torch.from_numpy(image[None]), "proprio": torch.from_numpy(proprio[None])} for image, proprio, *_ in rows[:6]
    ]

    def act(latent_filter, observation, first, row):  # the same latent noise at every call
        return latent_filter.act(observation, np.array([first]), np.array([row]), True, torch.Generator().manual_seed(3))

    first = act(LatentFilter(learner.world_model, learner.actor), observations[5], True, 0)
    used = LatentFilter(learner.world_model, learner.actor)
    for observation in observations[:5]:  # env 1 has a history, env 0 none
        act(used, observation, False, 1)
    assert not torch.allclose(act(used, observations[5], False, 1), first)
    assert torch.allclose(act(used, observations[5], True, 1), first, atol=1e-6)
    assert used.rows == 2 and torch.allclose(act(used, observations[5], True, 0), first, atol=1e-6)
    with pytest.raises(ValueError, match="distinct non-negative"):
        pair = {key: value.repeat(2, *[1] * (value.dim() - 1)) for key, value in observations[0].items()}
        used.act(pair, np.array([True, True]), rows=np.array([0, 0]))
