"""Normalised scores (section 5.4, Appendix M): per task, the random agent's mean raw score is 0
and the reference's is 1.

Both means are over the evaluated worlds of the task, from the per-world score files: a world's
own reference score cannot be the unit, since the reference fails some worlds (its score there is
0, as the random agent's mostly is everywhere). A task whose reference does not beat the random
agent, or whose worlds the reference file holds none of (a task with no reference agent), is left
out of the normalised figures, with the reason.
"""

from __future__ import annotations

import collections
import math
from typing import Mapping, Sequence

import attr

from avalon.evaluation.scoring.score_files import ScoreFile, ScoreFileError
from avalon.training.world_supply import WorldRequest


@attr.s(frozen=True, auto_attribs=True)
class TaskNormaliser:
    """One task's 0 and 1: the random agent's and the reference's mean raw scores over its worlds."""

    task: str
    random_mean: float
    reference_mean: float

    def __call__(self, raw_score: float) -> float:
        return (raw_score - self.random_mean) / (self.reference_mean - self.random_mean)


@attr.s(frozen=True, auto_attribs=True)
class Normalisation:
    """The normalisers of the tasks that have one and the reason for each task that has none."""

    normalisers: Mapping[str, TaskNormaliser]
    not_normalised: Mapping[str, str]
    random_file: ScoreFile
    reference_file: ScoreFile

    def score(self, task: str, raw_score: float) -> float:
        """The normalised score, NaN for a task without a normaliser."""
        normaliser = self.normalisers.get(task)
        return math.nan if normaliser is None else normaliser(raw_score)

    def describe(self) -> dict:
        return {
            "random_baseline": {"path": str(self.random_file.path), "source": self.random_file.source},
            "reference": {"path": str(self.reference_file.path), "source": self.reference_file.source},
            "per_task": {task: attr.asdict(n) for task, n in self.normalisers.items()},
            "not_normalised": dict(self.not_normalised),
        }


def normalisation(requests: Sequence[WorldRequest], random_file: ScoreFile, reference_file: ScoreFile) -> Normalisation:
    """Each task's normaliser over the worlds of ``requests``. The random file must hold every
    world; the reference file every world of each task it holds any of (else
    :class:`ScoreFileError` names the missing worlds)."""
    keys_by_task: dict[str, list[str]] = collections.defaultdict(list)
    for request in requests:
        keys_by_task[request.task].append(request.folder_name)
    return normalisation_by_task(keys_by_task, random_file, reference_file)


def normalisation_by_task(keys_by_task: Mapping[str, Sequence[str]], random_file: ScoreFile, reference_file: ScoreFile) -> Normalisation:
    """:func:`normalisation` of the worlds given by key, task by task."""
    random_file.require([key for keys in keys_by_task.values() for key in keys], "random baseline")
    normalisers, reasons = {}, {}
    for task, keys in keys_by_task.items():
        if not any(key in reference_file.scores for key in keys):
            reasons[task] = f"the reference file holds none of its {len(keys)} worlds (no reference agent for {task})"
            continue
        reference_file.require(keys, "reference")
        random_mean = sum(random_file.scores[key].score for key in keys) / len(keys)
        reference_mean = sum(reference_file.scores[key].score for key in keys) / len(keys)
        if reference_mean <= random_mean:
            reasons[task] = (f"the reference's mean raw score {reference_mean:.4f} is not above the random agent's "
                             f"{random_mean:.4f}")
            continue
        normalisers[task] = TaskNormaliser(task, random_mean, reference_mean)
    return Normalisation(normalisers, reasons, random_file, reference_file)


__all__ = ["Normalisation", "ScoreFileError", "TaskNormaliser", "normalisation", "normalisation_by_task"]
