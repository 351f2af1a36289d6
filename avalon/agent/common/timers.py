"""Where the time of a training loop goes: waiting on the envs, acting, learning.

Each phase keeps wall seconds and CPU seconds of this process: the CPU figures are the ones
other users of a shared machine do not inflate.
"""

from __future__ import annotations

import time

#: A snapshot of every phase's (wall, cpu) seconds.
Snapshot = dict[str, tuple[float, float]]


class Timer:
    """Wall and CPU (this process) seconds, accumulated over its ``with`` blocks."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __enter__(self) -> "Timer":
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_exc) -> None:
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


class PhaseTimers:
    """One :class:`Timer` per phase of an update cycle: ``env`` (inside ``envs.step``), ``act``
    (the network choosing actions) and ``learn`` (the update)."""

    def __init__(self) -> None:
        self.env, self.act, self.learn = Timer(), Timer(), Timer()

    def _timers(self) -> dict[str, Timer]:
        return {"env": self.env, "act": self.act, "learn": self.learn}

    def snapshot(self) -> Snapshot:
        return {name: (timer.wall, timer.cpu) for name, timer in self._timers().items()}

    def rewind(self, before: Snapshot) -> None:
        """Sets the timers back to ``before`` (a cycle whose work was dropped)."""
        for name, timer in self._timers().items():
            timer.wall, timer.cpu = before[name]

    def cycle_figures(self, batch: int, cycle_seconds: float, before: Snapshot) -> dict[str, float]:
        """Throughput and where the time of one update cycle of ``batch`` env steps went since
        ``before`` (wall and this process's CPU), as TensorBoard ``perf/*`` scalars."""
        wall = {name: timer.wall - before[name][0] for name, timer in self._timers().items()}
        cpu = {name: timer.cpu - before[name][1] for name, timer in self._timers().items()}
        return {
            "perf/steps_per_second": batch / cycle_seconds,
            "perf/env_wait_fraction": wall["env"] / cycle_seconds,
            "perf/env_ms_per_env_step": 1000 * wall["env"] / batch,
            "perf/act_ms_per_env_step": 1000 * wall["act"] / batch,
            "perf/act_cpu_ms_per_env_step": 1000 * cpu["act"] / batch,
            "perf/learn_seconds": wall["learn"],
            "perf/learn_cpu_seconds": cpu["learn"],
        }
