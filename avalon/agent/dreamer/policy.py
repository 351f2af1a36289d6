"""A DreamerV2 checkpoint as a recurrent policy (the registry's policy loader).

The policy keeps a latent state per env. :func:`avalon.evaluation.runner.evaluate` sees its
``recurrent`` attribute and passes, with each batch, which env each row is (``envs``) and
whether its observation is the first of an episode (``is_first``): the state of such a row
starts afresh. Called with observations alone, the rows are envs ``0 .. B - 1``, the first call
starts every episode, and :meth:`DreamerPolicy.reset` starts them again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.common.policy import CheckpointPolicy
from avalon.agent.dreamer.acting import LatentFilter
from avalon.agent.dreamer.behavior import Actor
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.world_model import WorldModel


class DreamerPolicy(CheckpointPolicy):
    """The world model and the actor of a Dreamer checkpoint, acting in batched envs on the CPU.

    The attributes an evaluator reads are :class:`~avalon.agent.common.policy.CheckpointPolicy`'s,
    plus ``recurrent = True``.
    """

    recurrent = True

    def __init__(self, world_model: WorldModel, actor: Actor, config: DreamerConfig, metadata: dict[str, Any],
                 seed: int | None = None) -> None:
        super().__init__(world_model, config, metadata, seed)
        self.world_model, self.actor = world_model.eval(), actor.eval()
        self.reset()

    def reset(self) -> None:
        """Forgets every env's state: the next call starts every row's episode."""
        self._filter = LatentFilter(self.world_model, self.actor)
        self._seen: set[int] = set()

    def act(self, observations: Mapping[str, np.ndarray], deterministic: bool = False, *,
            envs: Sequence[int] | None = None, is_first: Sequence[bool] | None = None) -> dict[str, np.ndarray]:
        """Batched env actions for batched observations (the arrays of a vector env), as
        :meth:`avalon.agent.common.policy.ActorCriticPolicy.act`; ``envs`` names each row's env (default
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
