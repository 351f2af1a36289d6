"""The simulator of ``avalon play``, in a thread of its own.

Stepping and rendering the window's picture take tens of milliseconds; in the window's thread they
would freeze the picture for that long ten times a second. :class:`Stepper` owns the env in a
worker thread: the window hands it an action and goes on drawing; the result arrives when it is
ready. Every episode is recorded (:class:`~avalon.episodes.recording.RecordEpisodes`) into ``folder``.
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Any

import attr
import gymnasium as gym
import numpy as np

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.episodes.episode_file import godot_version
from avalon.episodes.recording import RecordEpisodes


@attr.s(frozen=True, auto_attribs=True)
class StepResult:
    """The outcome of a reset (``action`` None) or a step: the observation, the window's picture
    (RGB at the render resolution), the info, whether the episode ended, the seconds the
    simulator took (step and picture; not the recording's writing of the episode file) and the
    episode's time limit."""

    observation: dict[str, np.ndarray]
    picture: np.ndarray
    info: dict[str, Any]
    reward: float
    terminated: bool
    truncated: bool
    seconds: float
    time_limit_frames: int


class Stepper:
    """Runs ``reset``/``step`` requests one at a time in a worker thread; :meth:`result` returns the
    next finished one (or None). An exception in the worker is raised by :meth:`result`."""

    def __init__(self, config: EnvConfig, folder: Path, reset_seed: int | None, reset_options: dict[str, Any]) -> None:
        self._config, self._folder = config, folder
        self._reset = (reset_seed, reset_options)
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        self._results: queue.SimpleQueue = queue.SimpleQueue()
        self.busy = False
        self.world = None
        self._thread = threading.Thread(target=self._work, name="avalon-play-simulator", daemon=True)
        self._thread.start()

    def reset(self) -> None:
        self._submit(None)

    def step(self, action: dict[str, Any]) -> None:
        self._submit(action)

    def _submit(self, action: dict[str, Any] | None) -> None:
        if self.busy:
            raise RuntimeError("the simulator is still working on the previous request")
        self.busy = True
        self._requests.put(("reset",) if action is None else ("step", action))

    def result(self, wait: bool = False) -> StepResult | None:
        try:
            outcome = self._results.get(block=wait)
        except queue.Empty:
            return None
        self.busy = False
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def close(self) -> None:
        """Ends the episode (recorded as cut short if it was running) and stops the simulator."""
        self._requests.put(("close",))
        self._thread.join()

    def _work(self) -> None:
        env = None
        try:
            timed = _TimedSteps(AvalonEnv(self._config, render_mode="rgb_array"))
            env = RecordEpisodes(timed, self._folder)
            godot_version(self._config.godot_binary)  # asked now, not inside the step that ends the episode
            while True:
                request = self._requests.get()
                if request[0] == "close":
                    return
                try:
                    if request[0] == "reset":
                        seed, options = self._reset
                        started = time.perf_counter()
                        observation, info = env.reset(seed=seed, options=dict(options))
                        seconds = time.perf_counter() - started
                        self.world = env.unwrapped.world
                        reward, terminated, truncated = 0.0, False, False
                    else:
                        observation, reward, terminated, truncated, info = env.step(request[1])
                        seconds = timed.last_step_seconds
                    started = time.perf_counter()
                    picture = env.render()
                    seconds += time.perf_counter() - started
                    self._results.put(StepResult(observation, picture, info, float(reward), terminated, truncated,
                                                 seconds, env.unwrapped.episode_time_limit_frames))
                except BaseException as error:  # handed to the window's thread, which decides
                    self._results.put(error)
        except BaseException as error:
            self._results.put(error)
        finally:
            if env is not None:
                env.close()


class _TimedSteps(gym.Wrapper):
    """Keeps how long the simulator's last step took (without the recording's work around it:
    writing the episode file when it ends takes a second of its own)."""

    last_step_seconds = 0.0

    def step(self, action: Any):
        started = time.perf_counter()
        outcome = self.env.step(action)
        self.last_step_seconds = time.perf_counter() - started
        return outcome
