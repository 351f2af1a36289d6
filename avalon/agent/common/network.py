"""The actor-critic network: a small strided CNN on RGBD, an MLP on proprioception, merged
(:class:`ObservationEncoder`), then a policy head (parameters of every action part) and a value
head (:class:`ActorCritic`).

::

    rgbd uint8 (B, H, W, 4) -> float / 255 -> [conv + ReLU] for each of conv_layers
        -> flatten -> linear image_features + ReLU -------------------------------------+
    proprio (B, P) -> symlog(x / scale) -> [linear proprio_features + ReLU] x layers ---+-> concat
        -> linear hidden_features + ReLU -> policy head (parameter_size) and value head (1)

The original Avalon PPO used an IMPALA ResNet encoder; this one has the same place in the
network but three strided convolutions only, so that acting stays well under a millisecond per
env and learning near one on a CPU (docs/agent.md has the measured costs).
"""

from __future__ import annotations

import math
from typing import Protocol

import torch
from torch import Tensor, nn

from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.distributions import ActionLayout, DictActionDistribution
from avalon.agent.common.observations import ObservationLayout, symlog
from avalon.env.spaces import RGBD_KEY


class ActorCriticSettings(Protocol):
    """What :class:`ActorCritic` reads of an algorithm's config (``PPOConfig`` has it)."""

    #: The network's sizes.
    network: NetworkConfig
    #: Std of the Normal policy at initialisation, in units of each Box part's half-width.
    initial_std: float
    #: Lower bound of that std.
    min_std: float
    #: Upper bound of that std, or None for none (read with ``getattr``: configs may leave it out).
    max_std: float | None


def _init(layer: nn.Module, gain: float) -> nn.Module:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class ImageEncoder(nn.Module):
    """uint8 ``(B, H, W, C)`` images -> ``(B, features)``."""

    def __init__(self, image_shape: tuple[int, int, int], conv_layers: tuple[tuple[int, int, int], ...], features: int) -> None:
        super().__init__()
        height, width, in_channels = image_shape
        layers: list[nn.Module] = []
        for out_channels, kernel, stride in conv_layers:
            padding = (kernel - stride + 1) // 2  # divides the side by the stride, rounded up
            layers += [_init(nn.Conv2d(in_channels, out_channels, kernel, stride, padding), math.sqrt(2)), nn.ReLU()]
            in_channels = out_channels
        self.convolutions = nn.Sequential(*layers)
        try:
            with torch.no_grad():
                flat = self.convolutions(torch.zeros(1, image_shape[2], height, width)).numel()
        except RuntimeError as error:
            raise ValueError(f"conv_layers {conv_layers} do not fit images of {height} x {width}: {error}") from None
        self.projection = _init(nn.Linear(flat, features), math.sqrt(2))

    def forward(self, images: Tensor) -> Tensor:
        x = images.permute(0, 3, 1, 2).float().mul_(1.0 / 255.0)
        x = self.convolutions(x)
        return torch.relu(self.projection(x.flatten(1)))


class ObservationEncoder(nn.Module):
    """The observation part of the network: raw observation tensors (see
    :meth:`ObservationLayout.to_tensors`) -> ``(B, network.hidden_features)`` features.

    :class:`ActorCritic` adds the policy and value heads on top of it; other frameworks (the RLlib
    integration, :mod:`avalon.integrations.rllib`) put their own heads on the same encoder.
    """

    def __init__(self, observation_layout: ObservationLayout, network: NetworkConfig) -> None:
        super().__init__()
        self.observation_layout = observation_layout
        self.features_size = network.hidden_features
        self.image_encoder = ImageEncoder(observation_layout.image_shape, network.conv_layers, network.image_features)
        self.register_buffer("proprio_scales", torch.from_numpy(observation_layout.scales.copy()))
        proprio_layers: list[nn.Module] = []
        width = observation_layout.proprio_size
        for _ in range(network.proprio_layers):
            proprio_layers += [_init(nn.Linear(width, network.proprio_features), math.sqrt(2)), nn.ReLU()]
            width = network.proprio_features
        self.proprio_encoder = nn.Sequential(*proprio_layers)
        self.trunk = nn.Sequential(
            _init(nn.Linear(network.image_features + network.proprio_features, network.hidden_features), math.sqrt(2)), nn.ReLU()
        )

    def encode(self, observations: dict[str, Tensor]) -> Tensor:
        """``{"rgbd": uint8 (B, H, W, C), "proprio": float (B, P)}`` -> features ``(B, hidden_features)``."""
        image = self.image_encoder(observations[RGBD_KEY])
        proprio = self.proprio_encoder(symlog(observations["proprio"] / self.proprio_scales))
        return self.trunk(torch.cat([image, proprio], dim=1))

    def forward(self, observations: dict[str, Tensor]) -> Tensor:
        return self.encode(observations)


class ActorCritic(ObservationEncoder):
    """Maps raw observation tensors (see :meth:`ObservationLayout.to_tensors`) to the policy's
    distribution and the value estimate: an :class:`ObservationEncoder` with two linear heads
    (a subclass rather than a member, so the parameters keep their names in checkpoints)."""

    def __init__(self, observation_layout: ObservationLayout, action_layout: ActionLayout, config: ActorCriticSettings) -> None:
        net = config.network
        super().__init__(observation_layout, net)
        self.action_layout = action_layout
        self.initial_std = config.initial_std
        self.min_std = config.min_std
        self.max_std = getattr(config, "max_std", None)
        # Small policy outputs at first: means near the neutral action (no motion, no jump), stds
        # near initial_std, uniform categoricals.
        self.policy_head = _init(nn.Linear(net.hidden_features, action_layout.parameter_size), 0.01)
        with torch.no_grad():
            self.policy_head.bias[: action_layout.normal_size] = torch.from_numpy(action_layout.neutral_means())
        self.value_head = _init(nn.Linear(net.hidden_features, 1), 1.0)

    def features(self, observations: dict[str, Tensor]) -> Tensor:
        return self.encode(observations)

    def action_distribution(self, hidden: Tensor) -> DictActionDistribution:
        """The policy's distribution at ``hidden`` (rows of :meth:`features`)."""
        return self.action_layout.distribution(self.policy_head(hidden), self.initial_std, self.min_std, self.max_std)

    def forward(self, observations: dict[str, Tensor]) -> tuple[DictActionDistribution, Tensor]:
        """(policy distribution, values ``(B,)``)."""
        hidden = self.features(observations)
        return self.action_distribution(hidden), self.value_head(hidden).squeeze(1)
