"""Aggregates of normalised scores with the ``rliable`` library (Agarwal et al., 2021, the paper's
reference [1]): mean, interquartile mean (IQM) and optimality gap, each with a stratified bootstrap
95 % interval, and performance profiles.

The samples of one algorithm are its normalised scores, one per (run, world): a task's column
holds every world of the task in every run, and the stratified bootstrap resamples within each
task's column, so the intervals are over worlds and runs. Across tasks, ``rliable`` needs as many
samples in every task (a set has 50 worlds per task); where the counts differ, only per-task
figures are given.
"""

from __future__ import annotations

import contextlib
from typing import Callable, Mapping, Sequence

import attr
import numpy as np
from rliable import library as rly, metrics

#: Bootstrap resamples per interval: rliable's default for profiles; enough for two decimals.
DEFAULT_BOOTSTRAP_REPS = 2000
CONFIDENCE = 0.95
#: The aggregates over tasks, in the order of the report.
AGGREGATES = ("mean", "iqm", "optimality_gap")
#: Normalised-score thresholds of the performance profiles: 0 to 2 (the reference is 1).
PROFILE_TAUS = np.linspace(0.0, 2.0, 81)

#: Samples by algorithm, then by task: normalised scores, one per (run, world).
Samples = Mapping[str, Mapping[str, Sequence[float]]]


@attr.s(frozen=True, auto_attribs=True)
class Interval:
    """A point estimate and its stratified bootstrap 95 % interval."""

    value: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def text(self) -> str:
        """As the paper's Table 1: the estimate ± half the interval's width."""
        return f"{self.value:.3f} ± {self.half_width:.3f}"


def _aggregate_all(scores: np.ndarray) -> np.ndarray:
    return np.array([metrics.aggregate_mean(scores), metrics.aggregate_iqm(scores), metrics.aggregate_optimality_gap(scores)])


def _mean(scores: np.ndarray) -> np.ndarray:
    return np.array([metrics.aggregate_mean(scores)])


@contextlib.contextmanager
def _seeded(seed: int):
    """rliable's bootstraps (through ``arch``) draw from NumPy's global generator: seeded here, so
    the same scores give the same intervals, then restored."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def bootstrap_intervals(matrix: np.ndarray, statistics: Callable[[np.ndarray], np.ndarray], reps: int = DEFAULT_BOOTSTRAP_REPS,
                        seed: int = 0) -> list[Interval]:
    """Each of ``statistics``' values over a (samples, tasks) matrix, with its stratified bootstrap
    95 % interval (resampled within each task's column; seeded, so the same scores give the same
    intervals)."""
    with _seeded(seed):
        point, interval = rly.get_interval_estimates({"run": matrix}, statistics, reps=reps, confidence_interval_size=CONFIDENCE)
    return [Interval(float(point["run"][i]), float(interval["run"][0, i]), float(interval["run"][1, i]))
            for i in range(len(point["run"]))]


def score_matrix(by_task: Mapping[str, Sequence[float]]) -> np.ndarray | None:
    """The (samples, tasks) matrix rliable takes, tasks in sorted order; None when the tasks hold
    different numbers of samples."""
    counts = {len(values) for values in by_task.values()}
    if len(counts) != 1:
        return None
    return np.array([list(by_task[task]) for task in sorted(by_task)], np.float64).T


def per_task_intervals(samples: Samples, reps: int = DEFAULT_BOOTSTRAP_REPS, seed: int = 0) -> dict[str, dict[str, Interval]]:
    """Per algorithm and task: the mean normalised score with its bootstrap interval."""
    result: dict[str, dict[str, Interval]] = {}
    for name, by_task in samples.items():
        result[name] = {}
        for task in sorted(by_task):
            column = np.asarray(by_task[task], np.float64).reshape(-1, 1)
            result[name][task] = bootstrap_intervals(column, _mean, reps, seed)[0]
    return result


def aggregate_intervals(samples: Samples, reps: int = DEFAULT_BOOTSTRAP_REPS, seed: int = 0) -> dict[str, dict[str, Interval] | None]:
    """Per algorithm: mean, IQM and optimality gap over its tasks with intervals (None when its
    tasks hold different numbers of samples)."""
    result: dict[str, dict[str, Interval] | None] = {}
    for name, by_task in samples.items():
        matrix = score_matrix(by_task)
        if matrix is None or matrix.size == 0:
            result[name] = None
            continue
        result[name] = dict(zip(AGGREGATES, bootstrap_intervals(matrix, _aggregate_all, reps, seed)))
    return result


def performance_profiles(
    samples: Samples, taus: np.ndarray = PROFILE_TAUS, reps: int = DEFAULT_BOOTSTRAP_REPS, seed: int = 0
) -> dict[str, dict[str, list[float]]]:
    """Per algorithm (those whose tasks hold equal sample counts): the fraction of (run, world)
    scores above each ``tau`` (the score distribution), with its interval's bounds."""
    matrices = {name: matrix for name, by_task in samples.items() if (matrix := score_matrix(by_task)) is not None and matrix.size}
    if not matrices:
        return {}
    with _seeded(seed):
        profiles, intervals = rly.create_performance_profile(matrices, taus, reps=reps, confidence_interval_size=CONFIDENCE)
    return {
        name: {
            "tau": [float(t) for t in taus],
            "fraction": [float(v) for v in profiles[name]],
            "low": [float(v) for v in intervals[name][0]],
            "high": [float(v) for v in intervals[name][1]],
        }
        for name in matrices
    }
