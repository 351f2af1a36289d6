"""``train_dreamer``: DreamerV2 on a same-step autoreset Gymnasium vector env, on the common training loop.

Dreamer's part is :class:`DreamerCycle`: collect steps every env ``collect_steps`` times with the
actor (each env's latent state filtered online by the world model) into the
:class:`~avalon.agent.dreamer.replay.ReplayBuffer`; learn makes ``updates_per_collect`` updates
of :class:`~avalon.agent.dreamer.learner.DreamerLearner` on sequences sampled from it.
Everything else (resume, checkpoints, logs, timers, signals, curriculum) is
:class:`~avalon.agent.common.loop.TrainingLoop`'s.

The first collect of a run goes on until the replay holds ``prefill_steps`` rows (and a whole
sequence), with the actor: a fresh one is the untrained policy every trainer starts from (its
means at the neutral action, std ``initial_std``, uniform choices), a resumed one the restored
actor. Uniformly random actions instead turn the head at full speed and jump in half the steps:
on eat they left the replay almost without a success to learn the reward from (docs/agent.md).
Checkpoints hold the models, the optimisers and the counters, not the replay buffer
(gigabytes): a resumed run refills it to ``prefill_steps`` rows before learning again.
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from tqdm import tqdm

from avalon.agent.common.device import resolve_device
from avalon.agent.common.loop import LoopOptions, TrainingLoop, TrainResult
from avalon.agent.dreamer import NAME
from avalon.agent.dreamer.acting import LatentFilter
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.learner import DreamerLearner
from avalon.agent.dreamer.replay import ReplayBuffer
from avalon.env.spaces import RGBD_KEY

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11

log = logging.getLogger(__name__)

#: The config fields that shape the networks: a checkpoint loads only into the same ones.
ARCHITECTURE_FIELDS = ("deter_size", "stoch_size", "rssm_hidden", "cnn_depth", "cnn_layers", "mlp_units", "mlp_layers")


def train_dreamer(
    envs: gymnasium.vector.VectorEnv,
    out_dir: str | Path,
    total_steps: int,
    config: DreamerConfig | None = None,
    *,
    device: str = "cpu",
    **options: Unpack[LoopOptions],
) -> TrainResult:
    """Trains a DreamerV2 agent on ``envs`` until ``total_steps`` env steps (over all envs) are done.

    The arguments are :func:`avalon.agent.train_ppo`'s (same meanings, same behaviour on
    SIGINT/SIGTERM and resume) with ``config`` a :class:`DreamerConfig` (default: Table 7), plus
    ``device``: where the models and the batches live ("cpu", or "cuda" where torch sees a GPU;
    acting and the replay stay on the CPU side for the envs). On resume the checkpoint's network
    sizes must match the config's; other values may change. The replay buffer is not saved:
    a resumed run refills ``prefill_steps`` rows with its actor before learning.
    ``last_update_stats`` of the result carries ``updates_per_second`` (gradient updates per
    second of learning) beside the losses; the updates and env steps per second of the call are
    logged, and printed with ``progress``.
    """
    config = config or DreamerConfig()
    torch_device = resolve_device(device)
    loop = TrainingLoop(envs, out_dir, total_steps, config, algorithm=NAME, **options)
    learner = DreamerLearner(loop.observation_layout, loop.action_layout, config, torch_device)
    replay = ReplayBuffer(loop.observation_layout, loop.action_layout.action_size, loop.num_envs, config.replay_gb, config.unroll)

    def restore(state: dict[str, Any], path: Path) -> None:
        loop.check_resumable(state, path, "dreamer_config", ARCHITECTURE_FIELDS)
        learner.load_state_dict(state)

    loop.resume_from_latest(restore)
    result = loop.run(DreamerCycle(loop, learner, replay, config))
    _report_speed(result, config, loop.progress)
    return result


def _report_speed(result: TrainResult, config: DreamerConfig, progress: bool) -> None:
    """Logs (and with ``progress``, prints under the bar) this call's updates and env steps per second."""
    learn = result.learn_seconds_per_update  # per cycle of updates_per_collect updates
    rate = config.updates_per_collect / learn if learn > 0 else math.nan
    line = f"dreamer: {rate:.3f} updates/s while learning, {result.steps_per_second:.1f} env steps/s including learning"
    log.info(line)
    if progress:
        tqdm.write(line)


class DreamerCycle:
    """One DreamerV2 cycle for the :class:`TrainingLoop`: ``collect_steps`` steps of every env
    into the replay (more during the prefill), then ``updates_per_collect`` updates.
    ``batch_size`` is the env steps of the last collect (larger than ``collect_steps * num_envs``
    while prefilling)."""

    def __init__(self, loop: TrainingLoop, learner: DreamerLearner, replay: ReplayBuffer, config: DreamerConfig) -> None:
        self.learner, self.replay, self.config = learner, replay, config
        self.layout, self.action_layout = loop.observation_layout, loop.action_layout
        self.num_envs = loop.num_envs
        self.sampler = loop.sampler  # sequences to replay (saved in checkpoints)
        #: Noise of latents and actions: the trainer's generator on the CPU; CUDA's own on a GPU.
        self.noise = loop.sampler if learner.device.type == "cpu" else None
        self.batch_size = config.collect_batch(self.num_envs)
        self.filter = LatentFilter(learner.world_model, learner.actor, self.num_envs)
        self.is_first = np.ones(self.num_envs, bool)
        self.started = False
        #: Rows the replay needs before learning (no more than it can hold).
        self.prefill = min(config.prefill_steps, replay.capacity * self.num_envs)

    def _ready(self) -> bool:
        return len(self.replay) >= self.prefill and self.replay.can_sample()

    def _add(self, env: int, observation: dict[str, np.ndarray], action: np.ndarray, reward: float, first: bool, terminal: bool) -> None:
        tensors = self.layout.to_tensors({key: np.asarray(value)[None] for key, value in observation.items()})
        self.replay.add(env, tensors[RGBD_KEY][0].numpy(), tensors["proprio"][0].numpy(), action, reward, first, terminal)

    def _add_batch(self, observations: dict[str, np.ndarray], env: int, action: np.ndarray, reward: float, first: bool) -> None:
        self._add(env, {key: value[env] for key, value in observations.items()}, action, reward, first, False)

    def collect(self, observations: dict[str, np.ndarray], loop: TrainingLoop) -> dict[str, np.ndarray] | None:
        zero_action = np.zeros(self.action_layout.action_size, np.float32)
        if not self.started:  # the first observations of this run (its envs were just reset)
            for env in range(self.num_envs):
                self._add_batch(observations, env, zero_action, 0.0, True)
            self.started = True
        steps = 0
        while steps < self.config.collect_steps or not self._ready():
            if loop.stop_requested:
                return None
            with loop.timers.act:
                tensors = self.layout.to_tensors(observations)
                actions = self.filter.act(tensors, self.is_first, generator=self.noise)
                flat = actions.numpy()
                env_actions = self.action_layout.to_env(flat)
            step = loop.step(env_actions)
            final = step.infos.get("final_obs")
            for env in range(self.num_envs):
                reward = float(step.rewards[env])
                if step.dones[env]:
                    self._add(env, final[env], flat[env], reward, False, bool(step.terminated[env]))
                    self._add_batch(step.observations, env, zero_action, 0.0, True)
                else:
                    self._add_batch(step.observations, env, flat[env], reward, False)
            self.is_first = np.asarray(step.dones, bool).copy()
            observations = step.observations
            steps += 1
        self.batch_size = steps * self.num_envs
        return observations

    def learn(self, observations: dict[str, np.ndarray]) -> dict[str, float]:
        started = time.perf_counter()
        totals: dict[str, float] = {}
        for _ in range(self.config.updates_per_collect):
            batch = self.replay.sample(self.config.batch_size, self.sampler)
            for name, value in self.learner.update(batch, self.noise).items():
                totals[name] = totals.get(name, 0.0) + value
        count = self.config.updates_per_collect
        stats = {name: value / count for name, value in totals.items()}
        stats["updates_per_second"] = count / (time.perf_counter() - started)
        stats["replay_steps"] = float(len(self.replay))
        return stats

    def state(self) -> dict[str, Any]:
        return {"dreamer_config": self.config.to_dict(), **self.learner.state_dict()}
