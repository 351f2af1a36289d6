"""An IMPALA checkpoint as a :class:`~avalon.agent.common.policy.ActorCriticPolicy` (the registry's policy loader)."""

from __future__ import annotations

from typing import Any

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.common.policy import ActorCriticPolicy
from avalon.agent.impala.config import IMPALAConfig


def policy_from_checkpoint(state: dict[str, Any], seed: int | None = None) -> ActorCriticPolicy:
    """The policy of a loaded IMPALA checkpoint: the network rebuilt from its config and layouts
    alone (no env, no Ray); ``seed`` seeds the policy's sampling (None: from OS entropy)."""
    config = IMPALAConfig.from_dict(state["impala_config"])
    model = ActorCritic(
        ObservationLayout.from_dict(state["observation_layout"]), ActionLayout.from_dict(state["action_layout"]), config
    )
    model.load_state_dict(state["model"])
    return ActorCriticPolicy(model, config, state, seed)
