"""Evaluating a policy on a list of worlds: one episode per world, several simulators at a time.

Every policy goes through here: trained agents, the random baseline and the scripted reference
agents (:mod:`avalon.evaluation.policies` says what the runner asks of each). Each env is a slot,
stepped in a worker thread; the policy acts on the batch of the slots in play. Episodes run in
evaluation mode (``C_move = 0``, Appendix B.1) up to each world's own time limit (Appendix G.3),
unless ``time_limits`` is ``"training"`` or a number of frames; :mod:`avalon.evaluation.worlds`
chooses fresh worlds, and :mod:`avalon.evaluation.results` holds what comes out.

A simulator that crashes or hangs does not end an evaluation: its world's episode is rerun from
the world's start in a fresh simulator (up to ``max_attempts`` runs), and the reruns are counted.
A world that fails every attempt is reported with the error, beside every finished episode
(:class:`~avalon.evaluation.results.EvaluationFailed`); no world is dropped silently.
"""

from __future__ import annotations

import collections
import logging
import queue
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import attr
import numpy as np
from tqdm import tqdm

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig, check_time_limit_frames
from avalon.errors import SimulatorError, check_choice, check_int
from avalon.evaluation.policies import EpisodicPolicy, Policy, episodic, plays
from avalon.evaluation.results import EpisodeResult, EvaluationFailed, EvaluationResult, FailedWorld, episode_success
from avalon.evaluation.video import VIDEO_CHOICES, EpisodeVideo, write_episode_gif
from avalon.training.curriculum import training_time_limit_frames
from avalon.training.world_supply import SuppliedWorld, WorldRequest, WorldSupply

log = logging.getLogger(__name__)

#: ``time_limits`` words: each world's own limit (G.3), or the task's training limit at its
#: difficulty; a positive number of frames is the third choice.
TIME_LIMITS = ("world", "training")
#: Runs of a world's episode (the first and the reruns after simulator crashes) before it is given up.
DEFAULT_MAX_ATTEMPTS = 3

#: What one slot's call returns: each world it finished or gave up, by index in the requests.
_Outcomes = list[tuple[int, "EpisodeResult | FailedWorld"]]


def check_time_limits(value: Any) -> str | int:
    """``value`` if it is one of :data:`TIME_LIMITS` or a number of frames (an int, or a string of
    digits: the command line's); ``ValueError`` naming the choices otherwise."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if value in TIME_LIMITS or (isinstance(value, int) and not isinstance(value, bool)):
        return value if isinstance(value, str) else check_time_limit_frames(value, "time_limits")
    raise ValueError(f"time limits {value!r}: expected 'world' (each world's own), 'training' or a positive number of frames")


def episode_time_limit(time_limits: str | int, request: WorldRequest) -> int | None:
    """The frames an episode in ``request``'s world may last under ``time_limits`` (None: the world's own)."""
    if time_limits == "world":
        return None
    if time_limits == "training":
        return training_time_limit_frames(request.task, request.difficulty)
    return int(time_limits)


class _GivenFolders:
    """A world source of folders already written (their owner removes them), as a world supply."""

    def __init__(self, folders: Mapping[WorldRequest, Path]) -> None:
        self.folders = folders
        self.pending: collections.deque[WorldRequest] = collections.deque()

    def submit(self, request: WorldRequest) -> None:
        if request not in self.folders:
            raise ValueError(f"no world folder was given for {request}")
        self.pending.append(request)

    def take(self) -> SuppliedWorld:
        request = self.pending.popleft()
        return SuppliedWorld(request, Path(self.folders[request]), 0.0, 0.0)

    def discard(self, world: SuppliedWorld) -> None:
        pass

    def close(self) -> None:
        pass


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class _Settings:
    """What every slot of one evaluation shares."""

    policy: EpisodicPolicy
    todo: queue.SimpleQueue
    time_limits: str | int
    max_attempts: int
    video: EpisodeVideo | None
    folders: Mapping[WorldRequest, Path] | None


class _Slot:
    """One environment of the evaluation: its world source, the world in play and its episode.

    Its methods run in the evaluation's worker threads, one slot per thread at a time.
    """

    def __init__(self, number: int, env: AvalonEnv, owns_env: bool, settings: _Settings) -> None:
        self.number = number  # the env's number in the policy's calls
        self.env, self.owns_env = env, owns_env
        self.settings = settings
        self.supply = WorldSupply() if settings.folders is None else _GivenFolders(settings.folders)
        self.queued: collections.deque[int] = collections.deque()  # indices of the worlds submitted to the supply
        self.started = False
        self.index: int | None = None  # the world in play, None when this slot has none left
        self.world: SuppliedWorld | None = None
        self.options: dict[str, Any] = {}
        self.attempts = 0
        self.last_error = ""
        self.observation: dict[str, np.ndarray] | None = None
        self.info: Mapping[str, Any] = {}
        self.episode_return = 0.0
        self.length = 0
        self.frames: list[np.ndarray] | None = None  # of the current run, while it may become the video
        self.restarts = 0
        self._pid: int | None = None  # the simulator that served the last reset or step

    def next_episode(self) -> _Outcomes:
        """Starts the next world's episode; returns the worlds given up on the way. ``index``
        is None afterwards when no world is left."""
        if not self.started:  # keep one world generating ahead of the one in play
            self.started = True
            self._submit_next()
            self._submit_next()
        outcomes: _Outcomes = []
        while True:
            if self.world is not None:
                self.supply.discard(self.world)
                self.world = None
            if not self.queued:
                self.index = None
                return outcomes
            self.world, self.index = self.supply.take(), self.queued.popleft()
            self._submit_next()
            self.attempts = 0
            if self.world.error is not None:
                self.last_error = f"world generation failed: {self.world.error}"
                outcomes.append((self.index, self._failed()))
                continue
            request = self.world.request
            self.options = {"world_dir": str(self.world.path), "episode_seed": request.seed,
                            "time_limit_frames": episode_time_limit(self.settings.time_limits, request)}
            if self._begin():
                return outcomes
            outcomes.append((self.index, self._failed()))

    def step(self, action: dict[str, np.ndarray]) -> _Outcomes:
        """One step of the episode in play; when it ends (or its world is given up), the next
        world's episode starts. Returns the worlds finished or given up."""
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except SimulatorError as error:
            self._crashed(error)
            if self._begin():  # the same world again, from its start
                return []
            return [(self.index, self._failed())] + self.next_episode()
        self.observation, self.info = observation, info
        self.episode_return += float(reward)
        self.length += 1
        if self.frames is not None:
            self.frames.append(self.env.render_rgbd())
        if not (terminated or truncated):
            return []
        request = self.world.request
        result = EpisodeResult(
            task=request.task, difficulty=request.difficulty, seed=request.seed, success=episode_success(request.task, info),
            score=float(info["score"]), episode_return=self.episode_return, episode_length=self.length,
            achievements=tuple(sorted(info["achievements"])), attempts=self.attempts,
            note=self.settings.policy.end_episode(self.number, observation, info),
        )
        if self.frames is not None:
            self.settings.video.offer(self.index, result.success, self.frames)
            self.frames = None
        return [(self.index, result)] + self.next_episode()

    def close(self) -> None:
        if self.owns_env:
            self.env.close()
        self.supply.close()

    def _begin(self) -> bool:
        """Resets into the world in play, from its start, and starts the policy's episode; False
        once it has had ``max_attempts`` runs, or when the policy cannot play the world."""
        while self.attempts < self.settings.max_attempts:
            self.attempts += 1
            try:
                self.observation, self.info = self.env.reset(options=self.options)
            except SimulatorError as error:
                self._crashed(error)
                continue
            pid = self.env.simulator_pid
            if self._pid is not None and pid != self._pid:  # it died between episodes; the reset replaced it
                self.restarts += 1
                log.warning("simulator %s was found dead at a reset and replaced by %s", self._pid, pid)
            self._pid = pid
            try:
                self.settings.policy.start_episode(self.number, self.world.request, self.observation, self.info)
            except Exception as error:  # e.g. a scripted agent finds no route: no rerun would change that
                self.last_error = f"the policy cannot play this world: {type(error).__name__}: {error}"
                return False
            self.episode_return, self.length = 0.0, 0
            video = self.settings.video
            self.frames = [self.env.render_rgbd()] if video is not None and video.wants(self.index) else None
            return True
        return False

    def _crashed(self, error: SimulatorError) -> None:
        """The simulator crashed or hung; the env has killed it and its next reset starts a fresh one."""
        self.restarts += 1
        self._pid = None
        self.last_error = str(error)
        request = self.world.request
        log.warning(
            "simulator failed in evaluation world %s difficulty %g seed %d (attempt %d of %d): %s",
            request.task, request.difficulty, request.seed, self.attempts, self.settings.max_attempts, error,
        )

    def _failed(self) -> FailedWorld:
        request = self.world.request
        self.frames = None
        return FailedWorld(request.task, request.difficulty, request.seed, self.attempts, self.last_error)

    def _submit_next(self) -> None:
        try:
            index, request = self.settings.todo.get_nowait()
        except queue.Empty:
            return
        self.supply.submit(request)
        self.queued.append(index)


def _check_action_space(policy: Policy, config: EnvConfig) -> None:
    """A policy that names its action space is played only in envs of that space."""
    own = getattr(policy, "action_space", None)
    if isinstance(own, str) and own != config.action_space:
        raise ValueError(f"the policy acts in the {own!r} action space; the evaluation's configuration has {config.action_space!r}")


def evaluate(
    policy: Policy,
    env_config: EnvConfig,
    requests: Sequence[WorldRequest],
    num_envs: int = 2,
    deterministic: bool = False,
    time_limits: str | int = "world",
    video_path: str | Path | None = None,
    progress: bool = True,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    video: str = "first",
    on_outcome: Callable[[int, "EpisodeResult | FailedWorld"], None] | None = None,
    world_folders: Mapping[WorldRequest, Path] | None = None,
    envs: Sequence[AvalonEnv] | None = None,
) -> EvaluationResult:
    """Runs one episode in each requested world, ``num_envs`` at a time, and collects the results.

    Worlds of tasks the policy does not play (``policy.plays``) are skipped (``result.skipped``).
    One episode is recorded (RGB beside depth, at ``env_config.render_resolution`` when set) as an
    animated GIF at ``video_path``: the first world's (``video="first"``), the first episode to
    succeed (``"first_success"``) or the success in the latest requested world
    (``"hardest_success"``); the last two fall back on the first world's. When a simulator crashes
    or hangs, that world's episode is rerun from its start in a fresh simulator (the partial run is
    dropped), up to ``max_attempts`` runs per world; ``EpisodeResult.attempts`` and
    ``EvaluationResult.restarts`` count them. A world that fails every attempt does not stop the
    others: at the end :class:`EvaluationFailed` is raised, carrying the whole result (finished
    episodes and failed worlds). ``on_outcome(index, outcome)`` is called with each world's result
    as soon as it is known (``index`` in ``requests``), in the calling thread: e.g. to write it to
    a file that an interrupted evaluation resumes from.

    ``world_folders`` gives the worlds already written (the runner then generates none and
    removes none); ``envs`` gives the envs to play in (in evaluation mode; kept open), instead of
    ``num_envs`` new ones.
    """
    time_limits = check_time_limits(time_limits)
    num_envs = check_int(num_envs, "num_envs", low=1) if envs is None else len(envs)
    max_attempts = check_int(max_attempts, "max_attempts", low=1)
    check_choice(video, "video", VIDEO_CHOICES)
    if not requests:
        raise ValueError("no worlds to evaluate on")
    config = attr.evolve(env_config, is_training=False)
    _check_action_space(policy, config)
    for env in envs or ():
        if env.config.is_training or env.config.action_space != config.action_space:
            raise ValueError(f"an env given to evaluate must be in evaluation mode in the {config.action_space!r} action "
                             f"space; it has is_training={env.config.is_training}, {env.config.action_space!r}")
    todo: queue.SimpleQueue[tuple[int, WorldRequest]] = queue.SimpleQueue()
    played = [(index, request) for index, request in enumerate(requests) if plays(policy, request.task)]
    for entry in played:
        todo.put(entry)
    settings = _Settings(policy=episodic(policy), todo=todo, time_limits=time_limits, max_attempts=max_attempts,
                         video=EpisodeVideo(video) if video_path is not None else None, folders=world_folders)
    slots: list[_Slot] = []
    outcomes: dict[int, EpisodeResult | FailedWorld] = {}
    bar = tqdm(total=len(played), desc="evaluating", unit="episode", disable=not progress)

    def record(finished: _Outcomes) -> None:
        outcomes.update(finished)
        if on_outcome is not None:
            for index, outcome in finished:
                on_outcome(index, outcome)
        bar.update(len(finished))
        episodes = [outcome for outcome in outcomes.values() if isinstance(outcome, EpisodeResult)]
        if finished and episodes:
            restarts = sum(slot.restarts for slot in slots)
            bar.set_postfix(success=f"{np.mean([e.success for e in episodes]):.0%}", restarts=restarts)

    try:
        for number in range(min(num_envs, len(played))):
            env = AvalonEnv(config) if envs is None else envs[number]
            slots.append(_Slot(number, env, envs is None, settings))
        if slots:
            _play(slots, settings.policy, deterministic, record)
    finally:
        bar.close()
        for slot in slots:
            slot.close()
    chosen = settings.video.chosen() if settings.video is not None else None
    written = write_episode_gif(chosen[0], Path(video_path)) if chosen else None
    ordered = [outcomes[index] for index in sorted(outcomes)]
    result = EvaluationResult(
        episodes=tuple(outcome for outcome in ordered if isinstance(outcome, EpisodeResult)),
        video_path=written,
        failed_worlds=tuple(outcome for outcome in ordered if isinstance(outcome, FailedWorld)),
        restarts=sum(slot.restarts for slot in slots),
        video_episode=chosen[1] if chosen else None,
        skipped=tuple(request for request in requests if not plays(policy, request.task)),
    )
    if result.failed_worlds:
        raise EvaluationFailed(result)
    return result


def _play(slots: list[_Slot], policy: EpisodicPolicy, deterministic: bool, record: Callable[[_Outcomes], None]) -> None:
    """Steps the slots in lock step until none has a world left: the policy acts on the batch of
    the slots in play, each slot steps in its own thread."""
    with ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="avalon-eval") as pool:
        for finished in pool.map(_Slot.next_episode, slots):
            record(finished)
        while active := [slot for slot in slots if slot.index is not None]:
            batch = {key: np.stack([slot.observation[key] for slot in active]) for key in active[0].observation}
            actions = policy.act(batch, deterministic, envs=[slot.number for slot in active], infos=[slot.info for slot in active])
            single = [{key: value[i] for key, value in actions.items()} for i in range(len(active))]
            for finished in pool.map(_Slot.step, active, single):
                record(finished)
