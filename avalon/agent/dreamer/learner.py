"""DreamerV2's models and optimisers together, and one update from a replayed batch."""

from __future__ import annotations

import copy
import time
from typing import Any

import torch
from torch import Tensor, nn

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.dreamer.behavior import Actor, Critic, behavior_losses, imagine
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.world_model import State, WorldModel


def _adam(module: nn.Module, learning_rate: float, config: DreamerConfig) -> torch.optim.AdamW:
    # Table 7: Adam with eps 1e-5 and weight decay 1e-6 (decoupled, as DreamerV2's optimiser).
    return torch.optim.AdamW(module.parameters(), lr=learning_rate, eps=config.adam_epsilon, weight_decay=config.weight_decay)


class DreamerLearner:
    """The world model, the actor, the critic and its slow copy, their three optimisers, and
    :meth:`update`. Everything lives on ``device``."""

    def __init__(self, observation_layout: ObservationLayout, action_layout: ActionLayout, config: DreamerConfig,
                 device: torch.device | str = "cpu") -> None:
        self.config, self.device = config, torch.device(device)
        self.world_model = WorldModel(observation_layout, action_layout, config).to(self.device)
        feature_size = self.world_model.feature_size
        self.actor = Actor(feature_size, action_layout, config).to(self.device)
        self.critic = Critic(feature_size, config).to(self.device)
        self.slow_critic = copy.deepcopy(self.critic).requires_grad_(False)
        self.optimizers = {
            "model": _adam(self.world_model, config.model_learning_rate, config),
            "actor": _adam(self.actor, config.actor_learning_rate, config),
            "critic": _adam(self.critic, config.critic_learning_rate, config),
        }
        #: Updates made so far (the slow critic is refreshed every ``slow_critic_interval``).
        self.updates = 0

    def _step(self, name: str, module: nn.Module, loss: Tensor) -> float:
        optimizer = self.optimizers[name]
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(module.parameters(), self.config.max_grad_norm)
        optimizer.step()
        return float(norm)

    def update_world_model(self, batch: dict[str, Tensor], generator: torch.Generator | None = None) -> tuple[State, dict[str, float]]:
        """One world-model step on ``batch`` (on this learner's device); (its posterior states, statistics)."""
        model_loss, posteriors, stats = self.world_model.loss(batch, generator)
        stats["model_grad_norm"] = self._step("model", self.world_model, model_loss)
        return posteriors, stats

    def update(self, batch: dict[str, Tensor], generator: torch.Generator | None = None) -> dict[str, float]:
        """One world-model step on ``batch`` (time-major sequences from the replay), then one
        actor and one critic step on trajectories imagined from each of its posterior states."""
        started = time.perf_counter()
        batch = {key: value.to(self.device, non_blocking=True) for key, value in batch.items()}
        posteriors, stats = self.update_world_model(batch, generator)
        start = posteriors.map(lambda part: part.detach().flatten(0, 1))
        start_continues = (~batch["is_terminal"]).flatten().float()
        imagined = imagine(self.world_model, self.actor, start, self.config.horizon, generator)
        actor_loss, critic_loss, behavior = behavior_losses(
            self.world_model, self.actor, self.critic, self.slow_critic, imagined, start_continues, self.config
        )
        stats.update(behavior)
        stats["actor_grad_norm"] = self._step("actor", self.actor, actor_loss)
        stats["critic_grad_norm"] = self._step("critic", self.critic, critic_loss)
        self.updates += 1
        if self.updates % self.config.slow_critic_interval == 0:
            self.slow_critic.load_state_dict(self.critic.state_dict())
        stats["update_seconds"] = time.perf_counter() - started
        return stats

    def state_dict(self) -> dict[str, Any]:
        return {
            "world_model": self.world_model.state_dict(),
            "actor": self.actor.state_dict(),
            "critic": self.critic.state_dict(),
            "slow_critic": self.slow_critic.state_dict(),
            "optimizers": {name: optimizer.state_dict() for name, optimizer in self.optimizers.items()},
            "learner_updates": self.updates,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Loads :meth:`state_dict`'s keys; the learning rates, eps and weight decay of the config
        given now win over the saved ones."""
        self.world_model.load_state_dict(state["world_model"])
        self.actor.load_state_dict(state["actor"])
        self.critic.load_state_dict(state["critic"])
        self.slow_critic.load_state_dict(state["slow_critic"])
        rates = {"model": self.config.model_learning_rate, "actor": self.config.actor_learning_rate,
                 "critic": self.config.critic_learning_rate}
        for name, optimizer in self.optimizers.items():
            optimizer.load_state_dict(state["optimizers"][name])
            for group in optimizer.param_groups:
                group.update(lr=rates[name], eps=self.config.adam_epsilon, weight_decay=self.config.weight_decay)
        self.updates = int(state["learner_updates"])
