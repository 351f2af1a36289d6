"""An evaluation's results: each world's episode or failure, per-task figures, the success rule
and the tables printed; :mod:`avalon.evaluation.eval_file` writes them to ``eval.json``."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any, Mapping

import attr
import numpy as np

from avalon.errors import AvalonError
from avalon.rules.mechanics import INITIAL_ENERGY
from avalon.tasks import check_task
from avalon.training.world_supply import WorldRequest


def episode_success(task: str, info: Mapping[str, Any]) -> bool:
    """Whether an episode succeeded, from its last ``info`` (Appendix M): every food eaten; for a
    task whose spec says ``succeeds_on_energy_gain`` (the tasks of several foods) also at least one
    food eaten and more energy at the end than at the start."""
    if bool(info["success"]):
        return True
    if not check_task(task).succeeds_on_energy_gain:
        return False
    return int(info["food_eaten"]) >= 1 and float(info["energy"]) > INITIAL_ENERGY


@attr.s(frozen=True, auto_attribs=True)
class EpisodeResult:
    task: str
    difficulty: float
    seed: int
    success: bool
    score: float  # Appendix M
    episode_return: float
    episode_length: int
    achievements: tuple[str, ...]
    #: Runs of this world's episode: 1, plus one per simulator crash that cut it short (each
    #: rerun starts from the world's start in a fresh simulator; only the last run counts).
    attempts: int = 1
    #: What the policy said of the episode (the scripted agents: where and why they stopped; "" for most).
    note: str = ""

    @property
    def key(self) -> str:
        """The world's key in every per-world file (``WorldRequest.folder_name``)."""
        return WorldRequest(self.task, self.difficulty, self.seed).folder_name


@attr.s(frozen=True, auto_attribs=True)
class FailedWorld:
    """A world whose episode could not be played: its simulator failed on every attempt (or the
    world could not be generated, ``attempts=0``); ``error`` is the last error."""

    task: str
    difficulty: float
    seed: int
    attempts: int
    error: str


@attr.s(frozen=True, auto_attribs=True)
class EvaluationResult:
    """Every finished episode (in the order of the requested worlds), the worlds that failed, and
    ``restarts``: simulators that crashed, hung or were found dead during the evaluation (each
    replaced by a fresh one)."""

    episodes: tuple[EpisodeResult, ...]
    video_path: Path | None = None
    failed_worlds: tuple[FailedWorld, ...] = ()
    restarts: int = 0
    #: The episode the video shows: (index of its world in the requests, whether it succeeded).
    video_episode: tuple[int, bool] | None = None
    #: The requested worlds of tasks the policy does not play (the scripted agents play only some).
    skipped: tuple[WorldRequest, ...] = ()

    def per_task(self) -> dict[str, dict[str, float]]:
        """Per task: finished episodes, success rate, mean score, mean return, mean length."""
        groups: dict[str, list[EpisodeResult]] = collections.defaultdict(list)
        for episode in self.episodes:
            groups[episode.task].append(episode)
        return {
            task: {
                "episodes": len(group),
                "success_rate": float(np.mean([e.success for e in group])),
                "mean_score": float(np.mean([e.score for e in group])),
                "mean_return": float(np.mean([e.episode_return for e in group])),
                "mean_length": float(np.mean([e.episode_length for e in group])),
            }
            for task, group in groups.items()
        }

    def failure_message(self) -> str | None:
        """Which worlds failed and why (each error's first line), or None when none did."""
        if not self.failed_worlds:
            return None
        total = len(self.episodes) + len(self.failed_worlds)
        worlds = "; ".join(
            f"{world.task} difficulty {world.difficulty:g} seed {world.seed} after {world.attempts} attempt(s): "
            f"{world.error.splitlines()[0] if world.error else '?'}"
            for world in self.failed_worlds
        )
        return f"{len(self.failed_worlds)} of {total} evaluation worlds failed: {worlds}"

    def table(self) -> str:
        lines = ["task      episodes  success  mean score  mean length", "-" * 52]
        for task, row in self.per_task().items():
            lines.append(
                f"{task:<9} {row['episodes']:>8}  {row['success_rate']:>6.1%}  {row['mean_score']:>10.3f}  {row['mean_length']:>11.1f}"
            )
        reruns = sum(episode.attempts - 1 for episode in self.episodes)
        lines.append(f"simulator restarts: {self.restarts} ({reruns} episode(s) rerun from their world's start)")
        for world in self.failed_worlds:
            lines.append(f"FAILED: {world.task} difficulty {world.difficulty:g} seed {world.seed} ({world.attempts} attempts)")
        return "\n".join(lines)


class EvaluationFailed(AvalonError):
    """Some worlds of an evaluation failed on every attempt. ``result`` holds every finished
    episode and the failed worlds with their errors; the message names the failed worlds."""

    def __init__(self, result: EvaluationResult) -> None:
        super().__init__(result.failure_message())
        self.result = result


def comparison_table(results: dict[str, EvaluationResult]) -> str:
    """Per task, the success rates and mean scores of several policies on the same worlds, side by side."""
    names = list(results)
    per_task = {name: result.per_task() for name, result in results.items()}
    header = " / ".join(names)
    lines = [f"task      episodes  success ({header})  mean score ({header})", "-" * (44 + 2 * len(header))]
    for task in per_task[names[0]]:
        rows = [per_task[name].get(task) for name in names]
        success = " / ".join("-" if row is None else f"{row['success_rate']:.1%}" for row in rows)
        score = " / ".join("-" if row is None else f"{row['mean_score']:.3f}" for row in rows)
        lines.append(f"{task:<9} {rows[0]['episodes']:>8}  {success:>{11 + len(header)}}  {score:>{14 + len(header)}}")
    for name, result in results.items():
        if result.restarts or result.failed_worlds:
            lines.append(f"{name}: simulator restarts {result.restarts}, failed worlds {len(result.failed_worlds)}")
    return "\n".join(lines)
