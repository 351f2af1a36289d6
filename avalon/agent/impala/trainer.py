"""``train_impala``: IMPALA with Ray actors, on the common training loop.

IMPALA's part is the network and RMSProp, what a resume checks and loads, and
:class:`IMPALACycle`: collecting a batch is taking the next ``batch_unrolls`` unrolls the actors
finish, each actor asked for its next unroll (with the newest weights and the curriculum's
difficulties) as soon as it hands one in, so the actors keep acting while the learner learns;
learning is one V-trace update (:func:`~avalon.agent.impala.learner.impala_update`), whose weights
go to the object store for the next requests. Everything else (resume, checkpoints, logs,
timers, stopping on signals) is :class:`~avalon.agent.common.loop.TrainingLoop`'s.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from avalon.agent.common.actor_critic_training import resumed_actor_critic, scheduled_learning_rate
from avalon.agent.common.device import resolve_device
from avalon.agent.common.loop import LoopOptions, TrainingLoop, TrainResult
from avalon.agent.common.network import ActorCritic
from avalon.agent.impala import NAME
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.learner import impala_update, make_optimizer, stack_unrolls
from avalon.agent.impala.pool import ActorPool

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11

log = logging.getLogger(__name__)

#: Seconds between looks at a stop request while waiting for the actors.
_WAIT_SLICE_S = 0.5


def train_impala(
    envs: ActorPool,
    out_dir: str | Path,
    total_steps: int,
    config: IMPALAConfig | None = None,
    *,
    device: str = "cpu",
    **options: Unpack[LoopOptions],
) -> TrainResult:
    """Trains an IMPALA agent on the actors of ``envs`` until ``total_steps`` env steps.

    Args as :func:`avalon.agent.train_ppo`'s, except: ``envs`` is an :class:`ActorPool`
    (:func:`~avalon.agent.impala.pool.make_actor_pool`; the caller closes it, which also stops a
    Ray it started), ``config`` an :class:`IMPALAConfig` (default: Table 7, with one unroll per
    simulator per batch), ``curriculum`` is the truth the actors follow (the episodes they finish
    update it here), and ``device`` the learner's torch device ("cpu", "cuda"; the actors always
    act on their CPU).

    Stopping on SIGINT or SIGTERM is as PPO's: the update in progress is finished, the unrolls
    gathered for the next one are dropped, a checkpoint is written and
    :class:`~avalon.agent.common.loop.TrainingInterrupted` raised.
    """
    config = config or IMPALAConfig()
    device = resolve_device(device)
    if not isinstance(envs, ActorPool):
        raise ValueError(f"train_impala steps its simulators in Ray actors: envs must be an ActorPool, not {type(envs).__name__}")
    if envs.config.unroll_steps != config.unroll_steps or envs.envs_per_actor != config.actor_size(envs.num_envs):
        raise ValueError(
            f"the actor pool was built for unrolls of {envs.config.unroll_steps} steps and {envs.envs_per_actor} simulator(s) per "
            f"actor, the config asks for {config.unroll_steps} and {config.actor_size(envs.num_envs)}"
        )
    if "act_threads" in options:
        raise ValueError("train_impala takes no act_threads: its actors act in their own processes, one torch thread each")
    loop = TrainingLoop(envs, out_dir, total_steps, config, algorithm=NAME, **options)
    settings = {"lr": config.learning_rate, "alpha": config.rmsprop_alpha, "eps": config.rmsprop_epsilon}
    model, optimizer = resumed_actor_critic(loop, config, device, make_optimizer, "impala_config", settings)
    return loop.run(IMPALACycle(loop, envs, model, optimizer, config, device))


class IMPALACycle:
    """One IMPALA update cycle for the :class:`TrainingLoop` (see the module doc)."""

    def __init__(
        self, loop: TrainingLoop, pool: ActorPool, model: ActorCritic, optimizer: torch.optim.Optimizer, config: IMPALAConfig,
        device: torch.device,
    ) -> None:
        self.loop, self.pool, self.model, self.optimizer, self.config, self.device = loop, pool, model, optimizer, config, device
        self.curriculum = loop.curriculum
        self.unrolls_per_batch = config.unrolls(loop.num_envs) // pool.envs_per_actor  # actor results per batch
        self.batch_size = config.batch_size(loop.num_envs)
        self.version = loop.updates
        self.weights: Any = None
        self.batch: list[dict[str, Any]] = []
        self.lags: list[int] = []

    def _difficulties(self) -> dict[str, float]:
        return self.curriculum.difficulties() if self.curriculum is not None else {}

    def _request(self, index: int) -> None:
        self.pool.submit(index, self.weights, self.version, self._difficulties())

    def collect(self, observations: Any, loop: TrainingLoop) -> dict[str, np.ndarray] | None:
        if self.weights is None:  # the first collect: every idle actor gets a request
            self.weights = self.pool.put_weights(self.model.state_dict())
            for index in self.pool.idle_actors():
                self._request(index)
        self.batch, self.lags = [], []
        while len(self.batch) < self.unrolls_per_batch:
            if loop.stop_requested:  # the unrolls gathered are dropped: the weights are those of the last update
                return None
            with loop.timers.env:
                finished = self.pool.next_result(_WAIT_SLICE_S)
            if finished is None:
                continue
            index, unroll = finished
            self._request(index)  # at once: the actor acts while we wait for the others and learn
            if unroll is None:  # the actor died: its unroll is lost, its replacement has a request
                continue
            loop.record_episodes(unroll["episodes"])
            if self.curriculum is not None:
                for task, success in unroll["outcomes"]:
                    self.curriculum.update(task, success)
            self.batch.append(unroll)
            self.lags.append(self.version - unroll["version"])
        return {}

    def learn(self, observations: Any) -> dict[str, float]:
        learning_rate = scheduled_learning_rate(self.loop, self.config, self.optimizer)
        batch = stack_unrolls(self.batch, self.device)
        stats = impala_update(self.model, self.optimizer, batch, self.config)
        stats["learning_rate"] = learning_rate
        self.version += 1
        self.weights = self.pool.put_weights(self.model.state_dict())
        stats["policy_lag"] = float(np.mean(self.lags))  # updates between the acting weights and these
        stats["actor_restarts"] = float(self.pool.restarts)
        self.batch = []
        return stats

    def state(self) -> dict[str, Any]:
        return {"impala_config": self.config.to_dict(), "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}
