"""The project's encoder inside RLlib's default PPO and APPO RLModules (new API stack).

RLlib's catalog has no encoder for a ``Dict`` observation. :class:`AvalonCatalog` (a
``PPOCatalog``) gives it :class:`AvalonEncoderConfig`, whose encoder is the project's own
:class:`~avalon.agent.common.network.ObservationEncoder`: the strided CNN over the uint8 RGBD image
(scaled to [0, 1] inside the network) and the MLP over the proprioceptive vectors, concatenated in
:class:`~avalon.agent.common.observations.ObservationLayout`'s sorted key order and scaled with
symlog, merged by one hidden layer. The observation reaches it as the env gives it: no flattening,
no float cast.

The rest is RLlib's: the default modules (``DefaultPPOTorchRLModule``, and APPO's with its target
networks) put linear policy and value heads on the shared encoder (``head_fcnet_hiddens=[]``, as
:class:`~avalon.agent.common.network.ActorCritic` does), and the action distribution for the
``Dict`` action space is RLlib's ``TorchMultiDistribution``: a diagonal Gaussian per ``Box`` part
(unsquashed from [-1, 1] and clipped to the part's range by RLlib's ``normalize_actions``, on by
default) and a categorical per ``Discrete(2)`` part.

:func:`avalon_module_spec` returns an ``RLModuleSpec`` with only the catalog and the model config
set, so PPO and APPO each fill in their own default module class.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import attr
import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.ppo_catalog import PPOCatalog
from ray.rllib.core.columns import Columns
from ray.rllib.core.models.base import ENCODER_OUT, Encoder
from ray.rllib.core.models.configs import ModelConfig
from ray.rllib.core.models.torch.base import TorchModel
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from torch import Tensor

from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.network import ObservationEncoder
from avalon.agent.common.observations import ObservationLayout
from avalon.env.spaces import RGBD_KEY

#: The model config key holding the network's sizes (``attr.asdict`` of a :class:`NetworkConfig`).
NETWORK_KEY = "avalon_network"


@dataclasses.dataclass
class AvalonEncoderConfig(ModelConfig):
    """Builds :class:`AvalonTorchEncoder` for an Avalon ``Dict`` observation space."""

    #: The env's observation space: ``"rgbd"`` (uint8, height x width x channels) and float vectors.
    observation_space: gym.spaces.Dict | None = None
    #: The sizes of the layers.
    network: NetworkConfig = dataclasses.field(default_factory=NetworkConfig)

    @property
    def output_dims(self) -> tuple[int, ...]:
        return (self.network.hidden_features,)

    def build(self, framework: str = "torch") -> "AvalonTorchEncoder":
        if framework != "torch":
            raise ValueError(f"the Avalon encoder is built for framework 'torch', not {framework!r}")
        return AvalonTorchEncoder(self)


class AvalonTorchEncoder(TorchModel, Encoder):
    """``batch[Columns.OBS]``, the env's observation dict of tensors -> ``{ENCODER_OUT: (B, features)}``."""

    def __init__(self, config: AvalonEncoderConfig) -> None:
        TorchModel.__init__(self, config)
        Encoder.__init__(self, config)
        self.layout = ObservationLayout.from_space(config.observation_space)
        self.net = ObservationEncoder(self.layout, config.network)

    def _forward(self, inputs: dict, **kwargs: Any) -> dict:
        observations = inputs[Columns.OBS]
        if not isinstance(observations, dict):
            raise ValueError(
                f"the Avalon encoder takes the env's Dict observation as it is, got {type(observations).__name__}: "
                "remove observation flattening (e.g. a FlattenObservations connector)"
            )
        image = observations[RGBD_KEY]
        if image.dtype != torch.uint8:
            raise ValueError(f"observation {RGBD_KEY!r} must stay uint8 (the network scales it), got {image.dtype}")
        batch = image.shape[0]
        proprio = [observations[name].reshape(batch, size).float() for name, size in self.layout.proprio]
        features = self.net.encode({RGBD_KEY: image, "proprio": _concatenate(proprio, batch, image.device)})
        return {ENCODER_OUT: features}


def _concatenate(parts: list[Tensor], batch: int, device: torch.device) -> Tensor:
    return torch.cat(parts, dim=1) if parts else torch.zeros(batch, 0, device=device)


class AvalonCatalog(PPOCatalog):
    """``PPOCatalog`` whose encoder is :class:`AvalonEncoderConfig`'s (APPO uses PPO's catalog too)."""

    @classmethod
    def _get_encoder_config(cls, observation_space: gym.Space, model_config_dict: dict, action_space: gym.Space = None) -> ModelConfig:
        if model_config_dict.get("use_lstm"):
            raise ValueError("the Avalon encoder is feed-forward: model_config use_lstm=True is not supported")
        if not (isinstance(observation_space, gym.spaces.Dict) and RGBD_KEY in observation_space.spaces):
            raise ValueError(f"AvalonCatalog needs the Avalon env's Dict observation space (with {RGBD_KEY!r}), got {observation_space}")
        return AvalonEncoderConfig(
            observation_space=observation_space, network=NetworkConfig.from_dict(dict(model_config_dict.get(NETWORK_KEY) or {}))
        )


def avalon_module_spec(network: NetworkConfig | None = None, **model_config: Any) -> RLModuleSpec:
    """The ``RLModuleSpec`` for ``config.rl_module(rl_module_spec=...)`` of RLlib's PPO or APPO:
    :class:`AvalonCatalog` with the layer sizes of ``network`` (default: ``NetworkConfig()``, as
    ``avalon train ppo``). ``model_config`` adds or overrides RLlib model config keys (e.g.
    ``head_fcnet_hiddens=[64]``); by default the policy and value heads are linear on one shared
    encoder."""
    network = network if network is not None else NetworkConfig()
    if not isinstance(network, NetworkConfig):
        raise ValueError(f"network must be a NetworkConfig, got {network!r}")
    config = {NETWORK_KEY: attr.asdict(network), "vf_share_layers": True, "head_fcnet_hiddens": [], **model_config}
    return RLModuleSpec(catalog_class=AvalonCatalog, model_config=config)
