"""The actor-critic network on both Avalon action spaces and observation scaling (PPO's config as its settings)."""

import math

import numpy as np
import pytest
import torch

from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import PROPRIO_SCALES, ObservationLayout, symlog
from avalon.agent.ppo.config import PPOConfig
from avalon.env.spaces import action_space, observation_space
from avalon.sim.protocol import OBSERVED_FEATURES


def random_observations(resolution: int, batch: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    observations = {"rgbd": rng.integers(0, 256, (batch, resolution, resolution, 4), dtype=np.uint8)}
    for feature in OBSERVED_FEATURES:
        observations[feature.name] = rng.normal(size=(batch, feature.size)).astype(np.float32)
    return observations


@pytest.mark.parametrize("name, parameters", [("vr", 2 * 18 + 3 * 2), ("mouse_keyboard", 2 * 4 + 5 * 2)])
@pytest.mark.parametrize("resolution", [16, 32, 96])
def test_shapes_on_both_action_spaces(name, parameters, resolution):
    observations = ObservationLayout.from_space(observation_space(resolution))
    actions = ActionLayout.from_space(action_space(name))
    assert actions.parameter_size == parameters
    assert observations.proprio_size == sum(feature.size for feature in OBSERVED_FEATURES) == 51
    config = PPOConfig()
    model = ActorCritic(observations, actions, config)
    distribution, values = model(observations.to_tensors(random_observations(resolution, 3)))
    assert values.shape == (3,)
    assert distribution.mean.shape == (3, actions.normal_size)
    sample = distribution.sample()
    assert sample.shape == (3, actions.action_size)
    assert distribution.log_prob(sample).shape == (3,) and distribution.entropy().shape == (3,)
    # A fresh network starts near the initial std and near-uniform choices.
    assert torch.allclose(distribution.std, torch.full_like(distribution.std, config.initial_std), atol=0.03)


def test_an_untrained_policy_starts_at_the_neutral_action_and_seldom_jumps():
    """Its means start at the env value 0 of every Box value: the centre of a Box(-1, 1), the low end of
    the mouse-and-keyboard jump's Box(0, 1). Centred there instead, the jump's mean would sit on its
    0.5 threshold and an untrained agent would jump in half its steps, spoiling most grasps."""
    observations = ObservationLayout.from_space(observation_space(32))
    torch.manual_seed(0)  # the head's small random weights move the means by up to about 0.05 (0.044 over 30 seeds)
    for name in ("vr", "mouse_keyboard"):
        actions = ActionLayout.from_space(action_space(name))
        model = ActorCritic(observations, actions, PPOConfig())
        with torch.no_grad():
            distribution, _values = model(observations.to_tensors(random_observations(32, 500)))
        env_means = actions.to_env(distribution.mode().numpy())
        for part in actions.parts:
            if part.kind == "normal":
                assert np.abs(env_means[part.name]).max() < 0.05, part.name  # within 0.05 of 0, the neutral value
        if name == "mouse_keyboard":
            sampled = actions.to_env(distribution.sample(torch.Generator().manual_seed(0)).numpy())
            assert (sampled["jump"] >= 0.5).mean() < 0.01  # at the Box's centre: about 0.5
    assert ActionLayout.from_space(action_space("mouse_keyboard")).neutral_means().tolist() == [0.0, 0.0, -1.0, 0.0]


def test_network_is_small():
    model = ActorCritic(
        ObservationLayout.from_space(observation_space(96)), ActionLayout.from_space(action_space("vr")), PPOConfig()
    )
    assert sum(p.numel() for p in model.parameters()) < 1_000_000


def test_proprioception_scaling():
    # symlog(y) = sign(y) log(1 + |y|)
    assert symlog(torch.tensor([-math.e + 1, 0.0, 1.0])).tolist() == pytest.approx([-1.0, 0.0, math.log(2)])
    layout = ObservationLayout.from_space(observation_space(16))
    assert layout.proprio_keys == sorted(layout.proprio_keys)
    scales = dict(zip([k for k, size in layout.proprio for _ in range(size)], layout.scales.tolist()))
    assert scales["frames_remaining"] == PROPRIO_SCALES["frames_remaining"] == 100.0
    assert scales["body_delta_position"] == pytest.approx(0.5)  # 5 m/s walk for 0.1 s
    assert scales["energy"] == 1.0


def test_image_stays_uint8_until_the_network():
    layout = ObservationLayout.from_space(observation_space(16))
    tensors = layout.to_tensors(random_observations(16, 2))
    assert tensors["rgbd"].dtype == torch.uint8 and tensors["proprio"].dtype == torch.float32
    assert tensors["proprio"].shape == (2, 51)


def test_bad_observations_are_named():
    layout = ObservationLayout.from_space(observation_space(16))
    observations = random_observations(16, 2)
    with pytest.raises(ValueError, match="uint8 of shape"):
        layout.to_tensors({**observations, "rgbd": observations["rgbd"].astype(np.float32)})
    with pytest.raises(ValueError, match="'energy'.*shape"):
        layout.to_tensors({**observations, "energy": np.zeros((3, 1), np.float32)})
    del observations["energy"]
    with pytest.raises(ValueError, match="lack.*energy"):
        layout.to_tensors(observations)


def test_conv_layers_that_do_not_fit_the_image_are_named():
    layout = ObservationLayout.from_space(observation_space(16))
    config = PPOConfig(network=NetworkConfig(conv_layers=((8, 9, 1), (8, 9, 1))))
    model = ActorCritic(layout, ActionLayout.from_space(action_space("vr")), config)  # padded: fits
    assert model.image_encoder.projection.in_features == 8 * 16 * 16
    with pytest.raises(ValueError, match=r"do not fit images of 16 x 16"):
        ActorCritic(layout, ActionLayout.from_space(action_space("vr")), PPOConfig(network=NetworkConfig(conv_layers=((8, 40, 40),))))
