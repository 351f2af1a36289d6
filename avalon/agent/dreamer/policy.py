"""A DreamerV2 checkpoint as a recurrent policy (the registry's policy loader).

The policy keeps a latent state per env. :func:`avalon.evaluation.evaluate` sees its
``recurrent`` attribute and passes, with each batch, which env each row is (``envs``) and
whether its observation is the first of an episode (``is_first``): the state of such a row
starts afresh. Called with observations alone, the rows are envs ``0 .. B - 1``, the first call
starts every episode, and :meth:`DreamerPolicy.reset` starts them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.dreamer.acting import LatentFilter
from avalon.agent.dreamer.behavior import Actor
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.world_model import WorldModel


class DreamerPolicy:
    """The world model and the actor of a Dreamer checkpoint, acting in batched envs on the CPU.

    The attributes an evaluator reads are :class:`avalon.agent.common.policy.Policy`'s
    (``action_space``, ``resolution``, :meth:`env_config_overrides`, ``algorithm``,
    ``env_steps``, ``config``), plus ``recurrent = True``.
    """

    recurrent = True

    def __init__(self, world_model: WorldModel, actor: Actor, config: DreamerConfig, metadata: dict[str, Any],
                 seed: int | None = None) -> None:
        self.world_model, self.actor, self.config = world_model.eval(), actor.eval(), config
        self.algorithm: str | None = metadata.get("algorithm")
        self.action_space: str | None = metadata.get("action_space")
        self.resolution: int = int(metadata["resolution"])
        self.env_steps: int = int(metadata.get("env_steps", 0))
        self._generator = torch.Generator()
        if seed is None:
            self._generator.seed()
        else:
            self._generator.manual_seed(seed)
        self.reset()

    @property
    def observation_layout(self) -> ObservationLayout:
        return self.world_model.observation_layout

    @property
    def action_layout(self) -> ActionLayout:
        return self.world_model.action_layout

    def env_config_overrides(self) -> dict[str, Any]:
        """``EnvConfig`` fields the env must have for this policy (``resolution``, ``action_space``)."""
        overrides: dict[str, Any] = {"resolution": self.resolution}
        if self.action_space is not None:
            overrides["action_space"] = self.action_space
        return overrides

    def reset(self) -> None:
        """Forgets every env's state: the next call starts every row's episode."""
        self._filter = LatentFilter(self.world_model, self.actor)
        self._seen: set[int] = set()

    def act(self, observations: Mapping[str, np.ndarray], deterministic: bool = False, *,
            envs: Sequence[int] | None = None, is_first: Sequence[bool] | None = None) -> dict[str, np.ndarray]:
        """Batched env actions for batched observations (the arrays of a vector env), as
        :meth:`avalon.agent.common.policy.Policy.act`; ``envs`` names each row's env (default
        ``0 .. B - 1``) and ``is_first`` marks the rows whose episode starts with this observation
        (default: the envs not seen since the last :meth:`reset`)."""
        tensors = self.observation_layout.to_tensors(observations)
        batch = tensors["proprio"].shape[0]
        rows = np.arange(batch) if envs is None else np.asarray(envs, np.int64)
        if is_first is None:
            is_first = np.array([int(row) not in self._seen for row in rows])
        self._seen.update(int(row) for row in rows)
        actions = self._filter.act(tensors, np.asarray(is_first, bool), rows, deterministic, self._generator)
        return self.action_layout.to_env(actions.numpy())


def policy_from_checkpoint(state: dict[str, Any], seed: int | None = None) -> DreamerPolicy:
    """The policy of a loaded Dreamer checkpoint, rebuilt from its config and layouts alone (no
    env needed); ``seed`` seeds its sampling (None: from OS entropy)."""
    config = DreamerConfig.from_dict(state["dreamer_config"])
    observation_layout = ObservationLayout.from_dict(state["observation_layout"])
    action_layout = ActionLayout.from_dict(state["action_layout"])
    world_model = WorldModel(observation_layout, action_layout, config)
    world_model.load_state_dict(state["world_model"])
    actor = Actor(world_model.feature_size, action_layout, config)
    actor.load_state_dict(state["actor"])
    return DreamerPolicy(world_model, actor, config, state, seed)
