"""``train_ppo``: PPO on a same-step autoreset Gymnasium vector env, on the common training loop.

PPO's part is the network and Adam, what a resume checks and loads, and :class:`PPOCycle`: an
unroll of ``unroll_steps`` steps of every env sampled from the policy, then one
:func:`~avalon.agent.ppo.learner.ppo_update`. Everything else (resume, checkpoints, logs,
timers, stopping on signals) is :class:`~avalon.agent.common.loop.TrainingLoop`'s.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
import torch

from avalon.agent.common.actor_critic_training import resumed_actor_critic, scheduled_learning_rate
from avalon.agent.common.device import resolve_device
from avalon.agent.common.loop import LoopOptions, TrainingLoop, TrainResult
from avalon.agent.common.network import ActorCritic
from avalon.agent.ppo import NAME
from avalon.agent.ppo.config import PPOConfig
from avalon.agent.ppo.learner import make_optimizer, ppo_update
from avalon.agent.ppo.rollout import RolloutStorage

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11

log = logging.getLogger(__name__)


def train_ppo(
    envs: gymnasium.vector.VectorEnv,
    out_dir: str | Path,
    total_steps: int,
    config: PPOConfig | None = None,
    *,
    device: str = "cpu",
    **options: Unpack[LoopOptions],
) -> TrainResult:
    """Trains a PPO agent on ``envs`` until ``total_steps`` env steps (summed over envs) are done.

    Args:
        envs: a ``gymnasium.vector.VectorEnv`` with ``AutoresetMode.SAME_STEP``; its single
            observation space is a Dict with a uint8 ``"rgbd"`` image and float vectors, its
            single action space a Dict of Box and Discrete parts. The caller owns it (and closes it).
        out_dir: checkpoints go to ``out_dir/checkpoints/step-<steps>.pt``, TensorBoard events
            to ``out_dir/tensorboard``.
        total_steps: env steps to reach, counted over all envs and including steps done before a
            resume; training stops at the first whole update at or past it.
        config: PPO hyper-parameters (default ``PPOConfig()``, Table 7). On resume the
            checkpoint's network sizes must match; other values may change.
        curriculum: optional; its ``difficulties()`` are logged (``curriculum/<task>``) and shown
            on the progress bar, its ``state_dict()`` saved in every checkpoint and restored on resume.
        resume: continue from the latest checkpoint in ``out_dir`` (model, optimiser, counters,
            curriculum, RNG states); starts afresh when there is none. Without ``resume``,
            ``out_dir`` must hold no checkpoint.
        seed: seeds torch, numpy, Python and the envs (``envs.reset(seed=seed + env_steps)``).
        progress: show a tqdm progress bar.
        checkpoint_interval_steps: env steps between periodic checkpoints; a final one is always written.
        keep_checkpoints: how many of the newest checkpoints to keep (older ones are deleted).
        act_threads: torch threads while acting (the simulators run meanwhile in an async env).
        learn_threads: torch threads while learning. Both default to 1: on the shared 2-core
            machine two threads raised the CPU time of an update 1.6-4.5x (OpenMP threads spin
            while they wait for a core) without shortening it (docs/agent.md).
        device: the learner's torch device ("cpu", "cuda", "cuda:N"; ``ValueError`` when this
            machine has no such GPU). Off the CPU, actions are chosen by a CPU copy of the
            network refreshed after each update (a few observations at a time are faster there)
            and each learning chunk moves to the device.

    The keyword arguments but ``device`` are :class:`~avalon.agent.common.loop.LoopOptions`, handed
    on to the :class:`TrainingLoop` (and so are every trainer's). Returns a :class:`TrainResult`.

    SIGINT (Ctrl-C) or SIGTERM (when called from the main thread): during an update, the update
    is finished; while collecting, the unroll in progress is dropped after the env step under
    way. Either way a checkpoint is written at the step count of the last finished update, the
    previous signal handlers are restored and :class:`TrainingInterrupted` is raised (a
    ``KeyboardInterrupt`` carrying the ``TrainResult``). A second signal goes to the handlers
    from before at once (Ctrl-C: ``KeyboardInterrupt``). Any exception that escapes (a second
    signal, an error) first writes a checkpoint of the last finished update, unless it came in
    the middle of an update: then the weights match no step count and the last checkpoint stands.
    """
    config = config or PPOConfig()
    device = resolve_device(device)
    loop = TrainingLoop(envs, out_dir, total_steps, config, algorithm=NAME, **options)
    settings = {"lr": config.learning_rate, "eps": config.adam_epsilon}
    model, optimizer = resumed_actor_critic(loop, config, device, make_optimizer, "ppo_config", settings)
    return loop.run(PPOCycle(loop, model, optimizer, config))


class PPOCycle:
    """One PPO update cycle for the :class:`TrainingLoop`: an unroll sampled from the policy into
    :class:`RolloutStorage`, then :func:`ppo_update` bootstrapped from the last observation."""

    def __init__(self, loop: TrainingLoop, model: ActorCritic, optimizer: torch.optim.Optimizer, config: PPOConfig) -> None:
        self.model, self.optimizer, self.config, self.loop = model, optimizer, config, loop
        on_cpu = next(model.parameters()).device.type == "cpu"
        #: The network that chooses actions: the model itself on the CPU, else a CPU copy.
        self.actor = model if on_cpu else copy.deepcopy(model).cpu()
        self.layout = loop.observation_layout
        self.sampler = loop.sampler
        self.batch_size = config.batch_size(loop.num_envs)
        self.storage = RolloutStorage(self.layout, loop.num_envs, config.unroll_steps, loop.action_layout.action_size)

    def collect(self, observations: dict[str, np.ndarray], loop: TrainingLoop) -> dict[str, np.ndarray] | None:
        model, storage, action_layout = self.actor, self.storage, loop.action_layout
        for t in range(self.config.unroll_steps):
            if loop.stop_requested:  # the partial unroll is dropped: the weights are those of the last update
                return None
            with loop.timers.act, torch.inference_mode():
                tensors = self.layout.to_tensors(observations)
                storage.set_observation(t, tensors)
                distribution, values = model(tensors)
                actions = distribution.sample(self.sampler)
                log_probs = distribution.log_prob(actions)
                env_actions = action_layout.to_env(actions.numpy())
            step = loop.step(env_actions)
            observations = step.observations
            storage.set_step(
                t, actions, log_probs, values,
                torch.as_tensor(step.rewards, dtype=torch.float32), torch.as_tensor(step.dones, dtype=torch.float32),
            )
        return observations

    def learn(self, observations: dict[str, np.ndarray]) -> dict[str, float]:
        learning_rate = scheduled_learning_rate(self.loop, self.config, self.optimizer)
        with torch.inference_mode():
            tensors = self.layout.to_tensors(observations)
            self.storage.set_observation(self.config.unroll_steps, tensors)
            last_values = self.actor(tensors)[1]
        stats = ppo_update(self.model, self.optimizer, self.storage, last_values.clone(), self.config, self.sampler)
        if self.actor is not self.model:
            self.actor.load_state_dict(self.model.state_dict())
        stats["learning_rate"] = learning_rate
        return stats

    def state(self) -> dict[str, Any]:
        return {"ppo_config": self.config.to_dict(), "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}
