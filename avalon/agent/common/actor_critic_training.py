"""The actor-critic network and its optimiser of a PPO or IMPALA train call, restored from the
latest checkpoint when the :class:`~avalon.agent.common.loop.TrainingLoop` resumes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from avalon.agent.common.config import ActorCriticConfigBase
from avalon.agent.common.loop import TrainingLoop
from avalon.agent.common.network import ActorCritic


def resumed_actor_critic(
    loop: TrainingLoop,
    config: ActorCriticConfigBase,
    device: torch.device,
    make_optimizer: Callable[[ActorCritic, Any], torch.optim.Optimizer],
    config_key: str,
    optimizer_settings: dict[str, float],
) -> tuple[ActorCritic, torch.optim.Optimizer]:
    """A fresh :class:`ActorCritic` on ``device`` (in eval mode) and its optimiser, or with the
    loop's ``resume`` the latest checkpoint's: its config (saved under ``config_key``) must have
    the same network, and ``optimizer_settings`` (learning rate, ...: the config given now wins
    over the saved one) are set on every parameter group of the restored optimiser."""
    model = ActorCritic(loop.observation_layout, loop.action_layout, config).to(device)
    model.eval()
    optimizer = make_optimizer(model, config)

    def restore(state: dict[str, Any], path: Path) -> None:
        loop.check_resumable(state, path, config_key, ("network",))
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        for group in optimizer.param_groups:
            group.update(optimizer_settings)

    loop.resume_from_latest(restore)
    return model, optimizer


def scheduled_learning_rate(loop: TrainingLoop, config: ActorCriticConfigBase, optimizer: torch.optim.Optimizer) -> float:
    """Sets every parameter group of ``optimizer`` to the config's learning rate at the loop's env
    steps (:meth:`~avalon.agent.common.config.ActorCriticConfigBase.learning_rate_at`) and returns it."""
    learning_rate = config.learning_rate_at(loop.env_steps, loop.total_steps)
    for group in optimizer.param_groups:
        group["lr"] = learning_rate
    return learning_rate
