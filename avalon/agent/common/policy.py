"""A trained actor-critic as a policy for evaluation: ``policy.act(observations)``.

:func:`avalon.agent.load_policy` returns one from a checkpoint of any algorithm whose network is
an :class:`~avalon.agent.common.network.ActorCritic` (PPO's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout


class CheckpointPolicy:
    """What every policy loaded from a checkpoint has, whatever its networks.

    Attributes an evaluator needs to build matching envs: ``action_space`` ("vr",
    "mouse_keyboard", or None for another Dict space), ``resolution`` (pixels), and
    :meth:`env_config_overrides`. Also ``algorithm`` (that trained it), ``env_steps`` (training
    steps behind it) and ``config`` (the algorithm's). ``observation_layout`` and
    ``action_layout`` are those of ``network`` (the module that reads the observations). A
    subclass gives ``act``; ``_generator`` is its sampling generator (seeded by ``seed``, None:
    from OS entropy).
    """

    def __init__(self, network: Any, config: Any, metadata: dict[str, Any], seed: int | None = None) -> None:
        self._network = network
        self.config = config
        self.algorithm: str | None = metadata.get("algorithm")
        self.action_space: str | None = metadata.get("action_space")
        self.resolution: int = int(metadata["resolution"])
        self.env_steps: int = int(metadata.get("env_steps", 0))
        self._generator = torch.Generator()
        if seed is None:
            self._generator.seed()
        else:
            self._generator.manual_seed(seed)

    @property
    def observation_layout(self) -> ObservationLayout:
        return self._network.observation_layout

    @property
    def action_layout(self) -> ActionLayout:
        return self._network.action_layout

    def env_config_overrides(self) -> dict[str, Any]:
        """``EnvConfig`` fields the env must have for this policy (``resolution``, ``action_space``)."""
        overrides: dict[str, Any] = {"resolution": self.resolution}
        if self.action_space is not None:
            overrides["action_space"] = self.action_space
        return overrides


class ActorCriticPolicy(CheckpointPolicy):
    """A trained actor-critic that maps batched observations to batched env actions (the
    attributes are :class:`CheckpointPolicy`'s)."""

    def __init__(self, model: ActorCritic, config: Any, metadata: dict[str, Any], seed: int | None = None) -> None:
        super().__init__(model, config, metadata, seed)
        self.model = model.eval()

    def act(self, observations: Mapping[str, np.ndarray], deterministic: bool = False) -> dict[str, np.ndarray]:
        """Batched actions for batched observations (the arrays a vector env returns).

        Box parts come back as float32 ``(batch, size)`` clipped to their bounds, Discrete parts
        as int64 ``(batch,)``. ``deterministic`` takes the Normal means and the most likely
        choices instead of sampling.
        """
        with torch.inference_mode():
            distribution, _values = self.model(self.observation_layout.to_tensors(observations))
            actions = distribution.mode() if deterministic else distribution.sample(self._generator)
        return self.action_layout.to_env(actions.numpy())

    def value(self, observations: Mapping[str, np.ndarray]) -> np.ndarray:
        """The value estimate of each observation, float32 ``(batch,)``."""
        with torch.inference_mode():
            _distribution, values = self.model(self.observation_layout.to_tensors(observations))
        return values.numpy().copy()
