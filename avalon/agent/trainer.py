"""``train_ppo``: PPO on a same-step autoreset Gymnasium vector env, with checkpoints and logs.

Time per update is split three ways and logged (TensorBoard ``perf/*``): waiting on
``envs.step`` (the simulators), acting (the network choosing actions) and learning. Acting and
learning also report the CPU time of this process, which the other users of a shared machine do
not inflate.
"""

from __future__ import annotations

import logging
import math
import random
import signal
import time
from pathlib import Path
from typing import Any, Protocol

import attr
import gymnasium
import numpy as np
import torch
from tqdm import tqdm

from avalon.agent.checkpoint import (
    check_plain,
    checkpoint_path,
    latest_checkpoint,
    load_checkpoint,
    prune_checkpoints,
    restore_rng_states,
    rng_states,
    save_checkpoint,
)
from avalon.agent.config import PPOConfig
from avalon.agent.distributions import ActionLayout
from avalon.agent.episodes import EpisodeLog, EpisodeTracker, summarize
from avalon.agent.learner import make_optimizer, ppo_update
from avalon.agent.network import ActorCritic
from avalon.agent.observations import ObservationLayout
from avalon.agent.rollout import RolloutStorage
from avalon.agent.stopping import StopRequest
from avalon.sim.protocol import ACTION_SPACES
from avalon.env.spaces import action_space as avalon_action_space

log = logging.getLogger(__name__)

#: Every finished training episode, one CSV row each (see avalon.agent.episodes.EpisodeLog).
EPISODE_LOG_FILE = "episodes.csv"


class CurriculumState(Protocol):
    """What the trainer needs of a curriculum (the env side owns and updates it)."""

    def difficulties(self) -> dict[str, float]: ...

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: dict) -> None: ...


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
    learn_seconds_per_update: float  # wall seconds of one ppo_update
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


def action_space_name(space: gymnasium.Space) -> str | None:
    """"vr" or "mouse_keyboard" when ``space`` is that Avalon action space, else None."""
    for name in ACTION_SPACES:
        if space == avalon_action_space(name):
            return name
    return None


def _check_envs(envs: Any) -> None:
    if not isinstance(envs, gymnasium.vector.VectorEnv):
        raise ValueError(f"envs must be a gymnasium.vector.VectorEnv, not {type(envs).__name__}")
    mode = envs.metadata.get("autoreset_mode")
    if mode != gymnasium.vector.AutoresetMode.SAME_STEP:
        raise ValueError(
            f"envs.metadata['autoreset_mode'] is {mode!r}; the trainer needs AutoresetMode.SAME_STEP "
            "(the step that ends an episode returns the next episode's first observation)"
        )


def _set_seeds(seed: int) -> torch.Generator:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    sampler = torch.Generator()
    sampler.manual_seed(seed)
    return sampler


class _Timer:
    """Wall and CPU (this process) seconds, accumulated."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __enter__(self) -> "_Timer":
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_exc) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


def train_ppo(
    envs: gymnasium.vector.VectorEnv,
    out_dir: str | Path,
    total_steps: int,
    config: PPOConfig | None = None,
    *,
    curriculum: CurriculumState | None = None,
    resume: bool = False,
    seed: int = 0,
    progress: bool = True,
    checkpoint_interval_steps: int = 100_000,
    keep_checkpoints: int = 3,
    act_threads: int = 1,
    learn_threads: int = 1,
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

    Returns a :class:`TrainResult`.

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
    _check_envs(envs)
    if isinstance(total_steps, bool) or not isinstance(total_steps, int) or total_steps < 1:
        raise ValueError(f"total_steps={total_steps!r} must be an int >= 1 (env steps)")
    for name, value in (
        ("checkpoint_interval_steps", checkpoint_interval_steps),
        ("keep_checkpoints", keep_checkpoints),
        ("act_threads", act_threads),
        ("learn_threads", learn_threads),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name}={value!r} must be an int >= 1")
    num_envs = envs.num_envs
    config.check_batch(num_envs)
    out_dir = Path(out_dir)
    observation_layout = ObservationLayout.from_space(envs.single_observation_space)
    action_layout = ActionLayout.from_space(envs.single_action_space)
    space_name = action_space_name(envs.single_action_space)
    resolution = observation_layout.image_shape[0]

    if curriculum is not None:  # fail now rather than when a resume cannot read the checkpoint
        check_plain(curriculum.state_dict(), "curriculum.state_dict()")
    sampler = _set_seeds(seed)
    model = ActorCritic(observation_layout, action_layout, config)
    model.eval()
    optimizer = make_optimizer(model, config)
    env_steps = updates = episodes_before = 0

    previous = latest_checkpoint(out_dir)
    if previous is not None and not resume:
        raise ValueError(f"{out_dir} already holds checkpoints ({previous.name}); pass resume=True (avalon train: --resume) or use another directory")
    if resume and previous is not None:
        state = load_checkpoint(previous)
        _check_compatible(state, previous, config, observation_layout, action_layout)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        for group in optimizer.param_groups:  # the config given now wins over the saved one
            group["lr"], group["eps"] = config.learning_rate, config.adam_epsilon
        env_steps, updates = int(state["env_steps"]), int(state["updates"])
        episodes_before = int(state["episodes"])
        restore_rng_states(state["rng"], sampler)
        if curriculum is not None and state.get("curriculum") is not None:
            curriculum.load_state_dict(state["curriculum"])
        log.info("resumed from %s at %d env steps", previous, env_steps)
    elif resume:
        log.warning("resume=True but %s holds no checkpoint: starting afresh", out_dir)

    def checkpoint() -> Path:
        path = save_checkpoint(
            checkpoint_path(out_dir, env_steps),
            {
                "env_steps": env_steps,
                "updates": updates,
                "episodes": episodes_before + tracker.finished,
                "ppo_config": config.to_dict(),
                "observation_layout": observation_layout.to_dict(),
                "action_layout": action_layout.to_dict(),
                "action_space": space_name,
                "resolution": resolution,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "curriculum": curriculum.state_dict() if curriculum is not None else None,
                "rng": rng_states(sampler),
                "seed": seed,
            },
        )
        prune_checkpoints(out_dir, keep_checkpoints)
        return path

    # Imported here: tensorboard is heavy and only the trainer needs it.
    from torch.utils.tensorboard import SummaryWriter

    # On resume, hide events logged after the checkpoint by the interrupted run (work now redone).
    writer = SummaryWriter(str(out_dir / "tensorboard"), purge_step=env_steps + 1 if env_steps else None)
    storage = RolloutStorage(observation_layout, num_envs, config.unroll_steps, action_layout.action_size)
    tracker = EpisodeTracker(num_envs)
    episode_log = EpisodeLog(out_dir / EPISODE_LOG_FILE, resume_steps=env_steps)
    saved_threads = torch.get_num_threads()
    bar = tqdm(total=total_steps, initial=min(env_steps, total_steps), unit="step", disable=not progress, dynamic_ncols=True)
    env_timer, act_timer, learn_timer = _Timer(), _Timer(), _Timer()
    timers = {"env": env_timer, "act": act_timer, "learn": learn_timer}
    cycle_wall = 0.0
    start_updates, start_steps = updates, env_steps
    next_checkpoint = (env_steps // checkpoint_interval_steps + 1) * checkpoint_interval_steps
    stats: dict[str, float] = {}
    started = time.perf_counter()
    final_path: Path | None = None
    learning = False
    stop = StopRequest("finishing the update in progress (or dropping the unroll in progress), then a checkpoint")
    try:
        with stop:
            observations, _infos = envs.reset(seed=seed + env_steps)
            while env_steps < total_steps and not stop.requested:
                cycle_start = time.perf_counter()
                before = {name: (timer.wall, timer.cpu) for name, timer in timers.items()}
                ended = []
                torch.set_num_threads(act_threads)
                for t in range(config.unroll_steps):
                    if stop.requested:  # the partial unroll is dropped: the weights are those of the last update
                        _rewind(timers, before)  # and its time counts in no figure
                        break
                    with act_timer, torch.inference_mode():
                        tensors = observation_layout.to_tensors(observations)
                        storage.set_observation(t, tensors)
                        distribution, values = model(tensors)
                        actions = distribution.sample(sampler)
                        log_probs = distribution.log_prob(actions)
                        env_actions = action_layout.to_env(actions.numpy())
                    with env_timer:
                        observations, rewards, terminated, truncated, infos = envs.step(env_actions)
                    dones = np.logical_or(terminated, truncated)
                    ended += tracker.step(rewards, dones, infos)
                    storage.set_step(
                        t, actions, log_probs, values, torch.as_tensor(rewards, dtype=torch.float32), torch.as_tensor(dones, dtype=torch.float32)
                    )
                else:  # a whole unroll: learn from it
                    with learn_timer:
                        learning = True  # the model changes from here until the counters say so
                        torch.set_num_threads(learn_threads)
                        with torch.inference_mode():
                            tensors = observation_layout.to_tensors(observations)
                            storage.set_observation(config.unroll_steps, tensors)
                            last_values = model(tensors)[1]
                        stats = ppo_update(model, optimizer, storage, last_values.clone(), config, sampler)
                    batch = config.batch_size(num_envs)
                    env_steps += batch
                    updates += 1
                    learning = False
                    cycle = time.perf_counter() - cycle_start
                    cycle_wall += cycle
                    perf = _perf(batch, cycle, timers, before)
                    _log(writer, env_steps, stats, ended, perf, curriculum)
                    episode_log.write(env_steps, ended)
                    bar.update(batch)
                    bar.set_postfix_str(_postfix(perf, tracker, curriculum), refresh=False)
                    if next_checkpoint <= env_steps < total_steps and not stop.requested:
                        checkpoint()
                        next_checkpoint = (env_steps // checkpoint_interval_steps + 1) * checkpoint_interval_steps
            final_path = checkpoint()
    except BaseException:  # a second signal, a signal outside the main thread, or an error
        if not learning:  # keep the last finished update; mid-update the weights match no step count
            try:
                checkpoint()
            except Exception as error:  # the original exception matters more
                log.error("could not write a checkpoint of the last finished update: %s", error)
        raise
    finally:
        torch.set_num_threads(saved_threads)
        bar.close()
        writer.close()
        episode_log.close()
    done_updates = max(updates - start_updates, 1)
    done_steps = env_steps - start_steps
    result = TrainResult(
        env_steps=env_steps,
        updates=updates,
        episodes=episodes_before + tracker.finished,
        final_checkpoint=final_path,
        wall_seconds=time.perf_counter() - started,
        steps_per_second=done_steps / cycle_wall if cycle_wall else math.nan,
        env_wait_fraction=env_timer.wall / cycle_wall if cycle_wall else math.nan,
        act_ms_per_env_step=1000 * act_timer.wall / done_steps if done_steps else math.nan,
        act_cpu_ms_per_env_step=1000 * act_timer.cpu / done_steps if done_steps else math.nan,
        learn_seconds_per_update=learn_timer.wall / done_updates,
        learn_cpu_seconds_per_update=learn_timer.cpu / done_updates,
        recent_success_rate=tracker.recent_success_rate(),
        last_update_stats=stats,
    )
    if stop.requested:
        raise TrainingInterrupted(stop.signum, result)
    return result


def _check_compatible(state: dict, path: Path, config: PPOConfig, observations: ObservationLayout, actions: ActionLayout) -> None:
    saved = PPOConfig.from_dict(state["ppo_config"])
    if saved.network != config.network:
        raise ValueError(f"{path} was trained with network {saved.network}, not {config.network}")
    if state["observation_layout"] != observations.to_dict():
        raise ValueError(f"{path} expects observations {state['observation_layout']}, the envs give {observations.to_dict()}")
    if state["action_layout"] != actions.to_dict():
        raise ValueError(f"{path} acts in {state['action_layout']}, the envs take {actions.to_dict()}")
    changed = {k: (v, config.to_dict()[k]) for k, v in state["ppo_config"].items() if config.to_dict()[k] != v}
    if changed:
        log.warning("resuming with changed PPO settings (saved, now): %s", changed)


def _rewind(timers: dict[str, _Timer], before: dict[str, tuple[float, float]]) -> None:
    """Sets the timers back to ``before`` (a cycle whose work was dropped)."""
    for name, timer in timers.items():
        timer.wall, timer.cpu = before[name]


def _perf(batch: int, cycle_seconds: float, timers: dict[str, _Timer], before: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Throughput and where the time of one update cycle went (wall and this process's CPU)."""
    wall = {name: timer.wall - before[name][0] for name, timer in timers.items()}
    cpu = {name: timer.cpu - before[name][1] for name, timer in timers.items()}
    return {
        "perf/steps_per_second": batch / cycle_seconds,
        "perf/env_wait_fraction": wall["env"] / cycle_seconds,
        "perf/env_ms_per_env_step": 1000 * wall["env"] / batch,
        "perf/act_ms_per_env_step": 1000 * wall["act"] / batch,
        "perf/act_cpu_ms_per_env_step": 1000 * cpu["act"] / batch,
        "perf/learn_seconds": wall["learn"],
        "perf/learn_cpu_seconds": cpu["learn"],
    }


def _log(writer, env_steps: int, stats: dict[str, float], ended: list, perf: dict[str, float], curriculum) -> None:
    for name, value in stats.items():
        writer.add_scalar(f"train/{name}", value, env_steps)
    for name, value in summarize(ended).items():
        writer.add_scalar(name, value, env_steps)
    for name, value in perf.items():
        writer.add_scalar(name, value, env_steps)
    if curriculum is not None:
        for task, difficulty in sorted(curriculum.difficulties().items()):
            writer.add_scalar(f"curriculum/{task}", difficulty, env_steps)


def _postfix(perf: dict[str, float], tracker: EpisodeTracker, curriculum) -> str:
    success = tracker.recent_success_rate()
    parts = [f"sps={perf['perf/steps_per_second']:.0f}", f"success={'-' if success is None else f'{success:.2f}'}"]
    if curriculum is not None:
        difficulties = curriculum.difficulties()
        parts.append("d=" + ",".join(f"{task}:{value:.2f}" for task, value in sorted(difficulties.items())))
    return " ".join(parts)
