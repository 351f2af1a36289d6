"""The training loop every algorithm shares: a :class:`TrainingLoop` alternates collecting env
steps and learning from them, and does the rest of a train call itself.

The rest: checking the envs and the arguments, seeding, resuming from the latest checkpoint
(counters, curriculum, RNG states), the episode bookkeeping and log, TensorBoard, the progress
bar, the timers, periodic and final checkpoints, and stopping on SIGINT (Ctrl-C) or SIGTERM at a
safe point with :class:`TrainingInterrupted`. An algorithm brings its network, its optimiser
and an :class:`UpdateCycle` (how to collect one batch and learn from it); see
``avalon.agent.ppo.trainer`` for the whole of PPO's part.

Time per update is split three ways and logged (TensorBoard ``perf/*``): waiting on
``envs.step`` (the simulators), acting (the network choosing actions) and learning. Acting and
learning also report the CPU time of this process, which the other users of a shared machine do
not inflate.
"""

from __future__ import annotations

import abc
import logging
import math
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypedDict

import attr
import gymnasium
import numpy as np
import torch
from tqdm import tqdm

from avalon.agent.common.checkpoint import (
    check_plain,
    checkpoint_path,
    latest_checkpoint,
    load_checkpoint,
    prune_checkpoints,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.episodes import EPISODE_LOG_FILE, EpisodeLog, EpisodeRecord, EpisodeTracker
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.common.reporting import log_update, progress_postfix
from avalon.agent.common.stopping import StopRequest
from avalon.agent.common.timers import PhaseTimers
from avalon.env.spaces import action_space as avalon_action_space
from avalon.errors import check_int
from avalon.sim.protocol import ACTION_SPACES

log = logging.getLogger(__name__)


class CurriculumState(Protocol):
    """What the trainer needs of a curriculum (the env side owns and updates it)."""

    def difficulties(self) -> dict[str, float]: ...

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...


class TrainerConfig(Protocol):
    """What the loop (and ``avalon train``) needs of an algorithm's config."""

    def check_batch(self, num_envs: int) -> None:
        """Raises ``ValueError`` when the config cannot train on ``num_envs`` envs."""

    def to_dict(self) -> dict[str, Any]: ...


@attr.s(frozen=True, auto_attribs=True)
class TrainResult:
    """What a training call did. Times are means over this call's updates."""

    env_steps: int  # total, including steps before a resume
    updates: int  # total, including updates before a resume
    episodes: int  # finished episodes, including those before a resume
    final_checkpoint: Path
    wall_seconds: float  # this call, from the first reset to the final checkpoint
    steps_per_second: float  # env steps per wall second, acting, env and learning included
    env_wait_fraction: float  # share of the update cycles' wall time spent inside envs.step
    act_ms_per_env_step: float  # wall ms of the network choosing one env's action (batched over envs)
    act_cpu_ms_per_env_step: float  # the same in CPU time of this process
    learn_seconds_per_update: float  # wall seconds of one update
    learn_cpu_seconds_per_update: float  # the same in CPU time of this process
    recent_success_rate: float | None  # over the last 100 finished episodes
    last_update_stats: dict[str, float]  # losses etc. of the last update


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped on SIGINT (Ctrl-C) or SIGTERM after writing a checkpoint.

    ``signum`` is the signal; ``result`` the :class:`TrainResult` up to the stop, whose
    ``final_checkpoint`` is that checkpoint (``resume=True`` continues from it). A
    ``KeyboardInterrupt``, so code that does not look for it stops as on Ctrl-C.
    """

    def __init__(self, signum: int, result: TrainResult) -> None:
        self.signum = signum
        self.result = result
        super().__init__(
            f"training stopped by {self.signal_name} at {result.env_steps} env steps ({result.updates} updates); "
            f"checkpoint {result.final_checkpoint}"
        )

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name


class EnvStep(NamedTuple):
    """One step of the vector env (``dones``: terminated or truncated)."""

    observations: dict[str, np.ndarray]
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    dones: np.ndarray
    infos: dict[str, Any]


class UpdateCycle(Protocol):
    """An algorithm's part of the :class:`TrainingLoop`: one batch collected, one update learnt."""

    #: Env steps (over all envs) of one batch.
    batch_size: int

    def collect(self, observations: dict[str, np.ndarray], loop: TrainingLoop) -> dict[str, np.ndarray] | None:
        """Collects one batch from ``observations`` on, with ``loop.step`` (timed, episodes
        tracked) and acting inside ``loop.timers.act``; returns the observations after it.

        Returns None, dropping the batch, when ``loop.stop_requested`` turns true on the way
        (look at it before each env step): the weights stay those of the last update.
        """

    def learn(self, observations: dict[str, np.ndarray]) -> dict[str, float]:
        """One update from the batch just collected (``observations``: those after it);
        returns statistics to log as ``train/<name>``."""

    def state(self) -> dict[str, Any]:
        """The algorithm's own checkpoint keys (weights, optimiser, config as plain values)."""


class ExternalEnvs(abc.ABC):
    """Envs the loop does not step itself: simulators in other processes (IMPALA's Ray actors)
    that hand whole unrolls to the algorithm's :class:`UpdateCycle`.

    The loop reads ``num_envs`` and the single spaces, calls :meth:`reset` once before the first
    collect (its observations are not used) and never ``step``; the cycle gets the steps itself
    and reports the episodes that ended in them with :meth:`TrainingLoop.record_episodes`. The
    caller closes the envs, as a vector env.
    """

    num_envs: int
    single_observation_space: gymnasium.Space
    single_action_space: gymnasium.Space

    @abc.abstractmethod
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        """Starts the envs; ``seed`` seeds them."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stops every simulator and process the envs started."""


def action_space_name(space: gymnasium.Space) -> str | None:
    """"vr" or "mouse_keyboard" when ``space`` is that Avalon action space, else None."""
    for name in ACTION_SPACES:
        if space == avalon_action_space(name):
            return name
    return None


def check_envs(envs: Any) -> None:
    """Raises ``ValueError`` unless ``envs`` is a vector env with same-step autoreset or :class:`ExternalEnvs`."""
    if isinstance(envs, ExternalEnvs):
        return
    if not isinstance(envs, gymnasium.vector.VectorEnv):
        raise ValueError(f"envs must be a gymnasium.vector.VectorEnv or ExternalEnvs, not {type(envs).__name__}")
    mode = envs.metadata.get("autoreset_mode")
    if mode != gymnasium.vector.AutoresetMode.SAME_STEP:
        raise ValueError(
            f"envs.metadata['autoreset_mode'] is {mode!r}; the trainer needs AutoresetMode.SAME_STEP "
            "(the step that ends an episode returns the next episode's first observation)"
        )


def seed_everything(seed: int) -> torch.Generator:
    """Seeds Python's, numpy's and torch's global RNGs; returns the trainer's own sampling generator."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    sampler = torch.Generator()
    sampler.manual_seed(seed)
    return sampler


class LoopOptions(TypedDict, total=False):
    """The keyword arguments a train function hands on to its :class:`TrainingLoop` as they are
    (``avalon.agent.train_ppo`` documents them; the defaults are the loop's)."""

    curriculum: CurriculumState | None
    resume: bool
    seed: int
    progress: bool
    checkpoint_interval_steps: int
    keep_checkpoints: int
    act_threads: int
    learn_threads: int


class TrainingLoop:
    """One train call's shared parts (see the module doc). In order: construct it (checks the
    arguments, reads the layouts, seeds), build the model, :meth:`resume_from_latest`, then
    :meth:`run` an :class:`UpdateCycle`.

    The arguments are those of every train function (``avalon.agent.train_ppo`` documents them),
    plus ``algorithm`` (the name its checkpoints carry) and ``config`` (checked against the
    number of envs).
    """

    def __init__(
        self,
        envs: Any,
        out_dir: str | Path,
        total_steps: int,
        config: TrainerConfig,
        *,
        algorithm: str,
        curriculum: CurriculumState | None = None,
        resume: bool = False,
        seed: int = 0,
        progress: bool = True,
        checkpoint_interval_steps: int = 100_000,
        keep_checkpoints: int = 3,
        act_threads: int = 1,
        learn_threads: int = 1,
    ) -> None:
        check_envs(envs)
        total_steps = check_int(total_steps, "total_steps", low=1, unit="env steps")
        for name, value in (
            ("checkpoint_interval_steps", checkpoint_interval_steps),
            ("keep_checkpoints", keep_checkpoints),
            ("act_threads", act_threads),
            ("learn_threads", learn_threads),
        ):
            check_int(value, name, low=1)
        config.check_batch(envs.num_envs)
        self.envs, self.num_envs = envs, envs.num_envs
        self.out_dir = Path(out_dir)
        self.total_steps = total_steps
        self.algorithm, self.config = algorithm, config
        self.curriculum = curriculum
        self.resume, self.seed, self.progress = resume, seed, progress
        self.checkpoint_interval_steps, self.keep_checkpoints = checkpoint_interval_steps, keep_checkpoints
        self.act_threads, self.learn_threads = act_threads, learn_threads
        self.observation_layout = ObservationLayout.from_space(envs.single_observation_space)
        self.action_layout = ActionLayout.from_space(envs.single_action_space)
        self.action_space = action_space_name(envs.single_action_space)
        self.resolution = self.observation_layout.image_shape[0]
        if curriculum is not None:  # fail now rather than when a resume cannot read the checkpoint
            check_plain(curriculum.state_dict(), "curriculum.state_dict()")
        #: The trainer's own generator for sampling actions and shuffling (saved in checkpoints).
        self.sampler = seed_everything(seed)
        self.env_steps = self.updates = self.episodes_before = 0
        self.timers = PhaseTimers()
        self.tracker = EpisodeTracker(self.num_envs)
        self._stop = StopRequest("finishing the update in progress (or dropping the unroll in progress), then a checkpoint")
        self._ended: list[EpisodeRecord] = []

    @property
    def stop_requested(self) -> bool:
        """True once SIGINT or SIGTERM asked the loop to stop at its next safe point."""
        return self._stop.requested

    def resume_from_latest(self, restore: Callable[[dict[str, Any], Path], None]) -> None:
        """With ``resume``, continues from the latest checkpoint in ``out_dir``: ``restore(state,
        path)`` checks it and loads the algorithm's part (weights, optimiser), then the loop
        restores the counters, the RNG states and the curriculum. Without ``resume``, a folder
        that holds checkpoints is refused."""
        previous = latest_checkpoint(self.out_dir)
        if previous is not None and not self.resume:
            raise ValueError(
                f"{self.out_dir} already holds checkpoints ({previous.name}); pass resume=True (avalon train: --resume) "
                "or use another directory"
            )
        if self.resume and previous is not None:
            state = load_checkpoint(previous, (self.algorithm,))
            restore(state, previous)
            self.env_steps, self.updates = int(state["env_steps"]), int(state["updates"])
            self.episodes_before = int(state["episodes"])
            restore_rng_states(state["rng"], self.sampler)
            if self.curriculum is not None and state.get("curriculum") is not None:
                self.curriculum.load_state_dict(state["curriculum"])
            log.info("resumed from %s at %d env steps", previous, self.env_steps)
        elif self.resume:
            log.warning("resume=True but %s holds no checkpoint: starting afresh", self.out_dir)

    def check_resumable(self, state: dict[str, Any], path: Path, config_key: str, architecture: tuple[str, ...]) -> None:
        """Raises ``ValueError`` when the checkpoint's network (the ``architecture`` fields of its
        config, saved under ``config_key``) or its layouts are not this run's; logs a warning
        naming the other settings that changed (the config given now wins)."""
        saved, now = state[config_key], self.config.to_dict()
        different = {name: (saved[name], now[name]) for name in architecture if saved[name] != now[name]}
        if different:
            raise ValueError(f"{path} was trained with another network (saved, now): {different}")
        self.check_layouts(state, path)
        changed = {name: (value, now.get(name)) for name, value in saved.items() if now.get(name) != value}
        if changed:
            log.warning("resuming %s with changed settings (saved, now): %s", self.algorithm, changed)

    def check_layouts(self, state: dict[str, Any], path: Path) -> None:
        """Raises ``ValueError`` when a checkpoint's observation or action layout is not the envs'."""
        observations, actions = self.observation_layout.to_dict(), self.action_layout.to_dict()
        if state["observation_layout"] != observations:
            raise ValueError(f"{path} expects observations {state['observation_layout']}, the envs give {observations}")
        if state["action_layout"] != actions:
            raise ValueError(f"{path} acts in {state['action_layout']}, the envs take {actions}")

    def step(self, actions: dict[str, np.ndarray]) -> EnvStep:
        """``envs.step(actions)``, timed as ``env``, with the episodes that end tracked and logged."""
        with self.timers.env:
            observations, rewards, terminated, truncated, infos = self.envs.step(actions)
        dones = np.logical_or(terminated, truncated)
        self._ended += self.tracker.step(rewards, dones, infos)
        return EnvStep(observations, rewards, terminated, truncated, dones, infos)

    def record_episodes(self, records: list[EpisodeRecord]) -> None:
        """Counts and logs episodes that ended in envs stepped elsewhere (:class:`ExternalEnvs`)."""
        self.tracker.add(records)
        self._ended += records

    def _checkpoint(self, cycle: UpdateCycle) -> Path:
        """Saves a checkpoint at the current step count and prunes the oldest ones."""
        path = save_checkpoint(
            checkpoint_path(self.out_dir, self.env_steps),
            {
                "env_steps": self.env_steps,
                "updates": self.updates,
                "episodes": self.episodes_before + self.tracker.finished,
                **cycle.state(),
                "observation_layout": self.observation_layout.to_dict(),
                "action_layout": self.action_layout.to_dict(),
                "action_space": self.action_space,
                "resolution": self.resolution,
                "curriculum": self.curriculum.state_dict() if self.curriculum is not None else None,
                "rng": rng_states(self.sampler),
                "seed": self.seed,
            },
            self.algorithm,
        )
        prune_checkpoints(self.out_dir, self.keep_checkpoints)
        return path

    def run(self, cycle: UpdateCycle) -> TrainResult:
        """Alternates ``cycle.collect`` and ``cycle.learn`` until ``total_steps``, then writes the
        final checkpoint; returns the :class:`TrainResult` or raises :class:`TrainingInterrupted`.

        SIGINT or SIGTERM (from the main thread): a learn in progress is finished, a collect in
        progress is dropped; then a checkpoint of the last finished update. Any exception that
        escapes first writes that checkpoint too, unless it came during a learn (the weights then
        match no step count and the last checkpoint stands).
        """
        # Imported here: tensorboard is heavy and only the trainer needs it.
        from torch.utils.tensorboard import SummaryWriter

        # On resume, hide events logged after the checkpoint by the interrupted run (work now redone).
        writer = SummaryWriter(str(self.out_dir / "tensorboard"), purge_step=self.env_steps + 1 if self.env_steps else None)
        episode_log = EpisodeLog(self.out_dir / EPISODE_LOG_FILE, resume_steps=self.env_steps)
        saved_threads = torch.get_num_threads()
        bar = tqdm(
            total=self.total_steps, initial=min(self.env_steps, self.total_steps), unit="step",
            disable=not self.progress, dynamic_ncols=True,
        )
        timers = self.timers
        cycle_wall = 0.0
        start_updates, start_steps = self.updates, self.env_steps
        interval = self.checkpoint_interval_steps
        next_checkpoint = (self.env_steps // interval + 1) * interval
        stats: dict[str, float] = {}
        started = time.perf_counter()
        final_path: Path | None = None
        learning = False
        try:
            with self._stop:
                observations, _infos = self.envs.reset(seed=self.seed + self.env_steps)
                while self.env_steps < self.total_steps and not self._stop.requested:
                    cycle_start = time.perf_counter()
                    before = timers.snapshot()
                    self._ended = []
                    torch.set_num_threads(self.act_threads)
                    collected = cycle.collect(observations, self)
                    if collected is None:  # dropped on a stop request: its time counts in no figure
                        timers.rewind(before)
                        break
                    observations = collected
                    with timers.learn:
                        learning = True  # the model changes from here until the counters say so
                        torch.set_num_threads(self.learn_threads)
                        stats = cycle.learn(observations)
                    batch = cycle.batch_size
                    self.env_steps += batch
                    self.updates += 1
                    learning = False
                    seconds = time.perf_counter() - cycle_start
                    cycle_wall += seconds
                    perf = timers.cycle_figures(batch, seconds, before)
                    log_update(writer, self.env_steps, stats, self._ended, perf, self.curriculum)
                    episode_log.write(self.env_steps, self._ended)
                    bar.update(batch)
                    bar.set_postfix_str(progress_postfix(perf, self.tracker, self.curriculum), refresh=False)
                    if next_checkpoint <= self.env_steps < self.total_steps and not self._stop.requested:
                        self._checkpoint(cycle)
                        next_checkpoint = (self.env_steps // interval + 1) * interval
                final_path = self._checkpoint(cycle)
        except BaseException:  # a second signal, a signal outside the main thread, or an error
            if not learning:  # keep the last finished update; mid-update the weights match no step count
                try:
                    self._checkpoint(cycle)
                except Exception as error:  # the original exception matters more
                    log.error("could not write a checkpoint of the last finished update: %s", error)
            raise
        finally:
            torch.set_num_threads(saved_threads)
            bar.close()
            writer.close()
            episode_log.close()
        result = self._result(final_path, started, cycle_wall, start_steps, start_updates, stats)
        if self._stop.requested:
            raise TrainingInterrupted(self._stop.signum, result)
        return result

    def _result(
        self, final_path: Path, started: float, cycle_wall: float, start_steps: int, start_updates: int, stats: dict[str, float]
    ) -> TrainResult:
        done_updates = max(self.updates - start_updates, 1)
        done_steps = self.env_steps - start_steps
        timers = self.timers
        return TrainResult(
            env_steps=self.env_steps,
            updates=self.updates,
            episodes=self.episodes_before + self.tracker.finished,
            final_checkpoint=final_path,
            wall_seconds=time.perf_counter() - started,
            steps_per_second=done_steps / cycle_wall if cycle_wall else math.nan,
            env_wait_fraction=timers.env.wall / cycle_wall if cycle_wall else math.nan,
            act_ms_per_env_step=1000 * timers.act.wall / done_steps if done_steps else math.nan,
            act_cpu_ms_per_env_step=1000 * timers.act.cpu / done_steps if done_steps else math.nan,
            learn_seconds_per_update=timers.learn.wall / done_updates,
            learn_cpu_seconds_per_update=timers.learn.cpu / done_updates,
            recent_success_rate=self.tracker.recent_success_rate(),
            last_update_stats=stats,
        )
