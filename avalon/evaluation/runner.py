"""Evaluating a policy on a list of worlds: one episode per world, several simulators at a time.

Episodes run in evaluation mode (``C_move = 0``, Appendix B.1) up to each world's own time limit
(Appendix G.3), unless ``time_limits="training"``; :mod:`avalon.evaluation.worlds` chooses fresh
worlds, and :mod:`avalon.evaluation.results` holds what comes out.

A simulator that crashes or hangs does not end an evaluation: its world's episode is rerun from
the world's start in a fresh simulator (up to ``max_attempts`` runs), and the reruns are counted.
A world that fails every attempt is reported with the error, beside every finished episode
(:class:`~avalon.evaluation.results.EvaluationFailed`); no world is dropped silently.
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

import attr
import numpy as np
from PIL import Image
from tqdm import tqdm

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.errors import SimulatorError, check_choice, check_int
from avalon.evaluation.policies import Policy
from avalon.evaluation.results import EpisodeResult, EvaluationFailed, EvaluationResult, FailedWorld, episode_success, save_results
from avalon.training.curriculum import training_time_limit_frames
from avalon.training.world_supply import WorldRequest, WorldSupply

log = logging.getLogger(__name__)

TIME_LIMITS = ("world", "training")
#: Which episode the video shows: the first world's; the first episode to succeed; or the
#: successful episode of the latest world in the requests (evaluation worlds come in order of
#: difficulty, so the hardest success). The last two fall back on the first world's.
VIDEO_CHOICES = ("first", "first_success", "hardest_success")
#: Runs of a world's episode (the first and the reruns after simulator crashes) before it is given up.
DEFAULT_MAX_ATTEMPTS = 3


#: What one slot's call returns: each world it finished or gave up, by index in the requests.
_Outcomes = list[tuple[int, "EpisodeResult | FailedWorld"]]


class _Slot:
    """One environment of the evaluation: its world supply, the world in play and its episode.

    Its methods run in the evaluation's worker threads, one slot per thread at a time.
    """

    def __init__(self, config: EnvConfig, todo: queue.SimpleQueue, time_limits: str, max_attempts: int, video: "_Video | None") -> None:
        self.env = AvalonEnv(config)
        self.supply = WorldSupply()
        self.todo = todo
        self.time_limits = time_limits
        self.max_attempts = max_attempts
        self.video = video
        self.queued: collections.deque[int] = collections.deque()  # indices of the worlds submitted to the supply
        self.started = False
        self.index: int | None = None  # the world in play, None when this slot has none left
        self.world = None
        self.options: dict[str, Any] = {}
        self.attempts = 0
        self.last_error = ""
        self.observation: dict[str, np.ndarray] | None = None
        self.first = True  # ``observation`` is the first of an episode (a recurrent policy resets there)
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
            self.options = {"world_dir": str(self.world.path), "episode_seed": request.seed}
            if self.time_limits == "training":
                self.options["time_limit_frames"] = training_time_limit_frames(request.task, request.difficulty)
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
        self.observation = observation
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
        )
        if self.frames is not None:
            self.video.offer(self.index, result.success, self.frames)
            self.frames = None
        return [(self.index, result)] + self.next_episode()

    def close(self) -> None:
        self.env.close()
        self.supply.close()

    def _begin(self) -> bool:
        """Resets into the world in play, from its start; False once it has had ``max_attempts`` runs."""
        while self.attempts < self.max_attempts:
            self.attempts += 1
            try:
                self.observation, _ = self.env.reset(options=self.options)
            except SimulatorError as error:
                self._crashed(error)
                continue
            pid = self.env.simulator_pid
            if self._pid is not None and pid != self._pid:  # it died between episodes; the reset replaced it
                self.restarts += 1
                log.warning("simulator %s was found dead at a reset and replaced by %s", self._pid, pid)
            self._pid = pid
            self.first = True
            self.episode_return, self.length = 0.0, 0
            self.frames = [self.env.render_rgbd()] if self.video is not None and self.video.wants(self.index) else None
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
            request.task, request.difficulty, request.seed, self.attempts, self.max_attempts, error,
        )

    def _failed(self) -> FailedWorld:
        request = self.world.request
        self.frames = None
        return FailedWorld(request.task, request.difficulty, request.seed, self.attempts, self.last_error)

    def _submit_next(self) -> None:
        try:
            index, request = self.todo.get_nowait()
        except queue.Empty:
            return
        self.supply.submit(request)
        self.queued.append(index)


def evaluate(
    policy: Policy,
    env_config: EnvConfig,
    requests: Sequence[WorldRequest],
    num_envs: int = 2,
    deterministic: bool = False,
    time_limits: str = "world",
    video_path: str | Path | None = None,
    progress: bool = True,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    video: str = "first",
    on_outcome: Callable[[int, "EpisodeResult | FailedWorld"], None] | None = None,
) -> EvaluationResult:
    """Runs one episode in each requested world, ``num_envs`` at a time, and collects the results.

    One episode is recorded (RGB beside depth, at ``env_config.render_resolution`` when set) as an
    animated GIF at ``video_path``: the first world's (``video="first"``), the first episode to
    succeed (``"first_success"``) or the success in the latest requested world
    (``"hardest_success"``); the last two fall back on the first world's. When a simulator crashes
    or hangs, that world's episode is rerun from its start in a fresh simulator (the partial run is
    dropped), up to ``max_attempts`` runs per
    world; ``EpisodeResult.attempts`` and ``EvaluationResult.restarts`` count them. A world that
    fails every attempt does not stop the others: at the end :class:`EvaluationFailed` is
    raised, carrying the whole result (finished episodes and failed worlds). ``on_outcome(index,
    outcome)`` is called with each world's result as soon as it is known (``index`` in ``requests``),
    in the calling thread: e.g. to write it to a file that an interrupted evaluation resumes from.
    """
    check_choice(time_limits, "time_limits", TIME_LIMITS)
    num_envs = check_int(num_envs, "num_envs", low=1)
    max_attempts = check_int(max_attempts, "max_attempts", low=1)
    if not requests:
        raise ValueError("no worlds to evaluate on")
    check_choice(video, "video", VIDEO_CHOICES)
    config = attr.evolve(env_config, is_training=False)
    todo: queue.SimpleQueue[tuple[int, WorldRequest]] = queue.SimpleQueue()
    for index, request in enumerate(requests):
        todo.put((index, request))
    recorder = _Video(video) if video_path is not None else None
    slots: list[_Slot] = []
    outcomes: dict[int, EpisodeResult | FailedWorld] = {}
    bar = tqdm(total=len(requests), desc="evaluating", unit="episode", disable=not progress)

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
        for _ in range(min(num_envs, len(requests))):
            slots.append(_Slot(config, todo, time_limits, max_attempts, recorder))
        with ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="avalon-eval") as pool:
            for finished in pool.map(_Slot.next_episode, slots):
                record(finished)
            while active := [slot for slot in slots if slot.index is not None]:
                batch = {key: np.stack([slot.observation[key] for slot in active]) for key in active[0].observation}
                if getattr(policy, "recurrent", False):  # it keeps a state per env: say which env and when episodes start
                    envs = [slots.index(slot) for slot in active]
                    is_first = [slot.first for slot in active]
                    actions = policy.act(batch, deterministic=deterministic, envs=envs, is_first=is_first)
                else:
                    actions = policy.act(batch, deterministic=deterministic)
                for slot in active:
                    slot.first = False
                single = [{key: value[i] for key, value in actions.items()} for i in range(len(active))]
                for finished in pool.map(_Slot.step, active, single):
                    record(finished)
    finally:
        bar.close()
        for slot in slots:
            slot.close()
    chosen = recorder.chosen() if recorder is not None else None
    written = write_episode_gif(chosen[0], Path(video_path)) if chosen else None
    ordered = [outcomes[index] for index in sorted(outcomes)]
    result = EvaluationResult(
        episodes=tuple(outcome for outcome in ordered if isinstance(outcome, EpisodeResult)),
        video_path=written,
        failed_worlds=tuple(outcome for outcome in ordered if isinstance(outcome, FailedWorld)),
        restarts=sum(slot.restarts for slot in slots),
        video_episode=chosen[1] if chosen else None,
    )
    if result.failed_worlds:
        raise EvaluationFailed(result)
    return result


class _Video:
    """Chooses the recorded episode (see ``VIDEO_CHOICES``). Slots ask it whether to record an
    episode and offer it the frames of those they finish."""

    def __init__(self, choice: str) -> None:
        self.choice = choice
        self._lock = threading.Lock()
        self._first_world: list[np.ndarray] | None = None
        self._first_world_success = False
        self._success: tuple[int, list[np.ndarray]] | None = None

    def wants(self, index: int) -> bool:
        """Whether the episode of world ``index`` starting now may become the video."""
        with self._lock:
            if self.choice == "first_success":
                return index == 0 or self._success is None
            if self.choice == "hardest_success":
                return index == 0 or self._success is None or index > self._success[0]
            return index == 0

    def offer(self, index: int, success: bool, frames: list[np.ndarray]) -> None:
        with self._lock:
            if index == 0:
                self._first_world, self._first_world_success = frames, success
            if not success or self.choice == "first":
                return
            if self._success is None or (self.choice == "hardest_success" and index > self._success[0]):
                self._success = (index, frames)

    def chosen(self) -> tuple[list[np.ndarray], tuple[int, bool]] | None:
        """The frames of the chosen episode and (its world's index, whether it succeeded)."""
        if self._success is not None:
            return self._success[1], (self._success[0], True)
        if self._first_world is not None:
            return self._first_world, (0, self._first_world_success)
        return None


#: GIF frames are enlarged (nearest neighbour) by a whole factor until they are this tall.
GIF_MIN_HEIGHT_PX = 192


def write_episode_gif(frames: Sequence[np.ndarray], path: Path, scale: int | None = None, fps: int = 10) -> Path:
    """An animated GIF of RGBD frames: RGB on the left, depth (near = bright) on the right.

    ``scale`` enlarges each pixel to a square of that side; None picks the smallest factor that
    makes the frames at least ``GIF_MIN_HEIGHT_PX`` tall.
    """
    if not frames:
        raise ValueError("no frames to write")
    if scale is None:
        scale = max(1, -(-GIF_MIN_HEIGHT_PX // frames[0].shape[0]))
    path.parent.mkdir(parents=True, exist_ok=True)
    images = []
    for frame in frames:
        rgb = frame[..., :3]
        depth = np.repeat(frame[..., 3:4], 3, axis=2)  # the encoding is already near = bright
        both = np.concatenate([rgb, depth], axis=1)
        image = Image.fromarray(both)
        if scale != 1:
            image = image.resize((image.width * scale, image.height * scale), Image.NEAREST)
        images.append(image.convert("P", palette=Image.ADAPTIVE, colors=255))
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path


def evaluate_and_save(
    policy: Policy, env_config: EnvConfig, requests: Sequence[WorldRequest], path: str | Path,
    extra: dict[str, Any] | None = None, **options: Any,
) -> tuple[EvaluationResult, Path]:
    """:func:`evaluate`, then :func:`save_results`; worlds that failed every attempt are saved
    with the finished episodes (``result.failed_worlds``) instead of raising."""
    try:
        result = evaluate(policy, env_config, requests, **options)
    except EvaluationFailed as failure:
        result = failure.result
    return result, save_results(result, path, extra)
