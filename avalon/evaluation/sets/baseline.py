"""``avalon evalset baseline``: the random agent on every world of a set, its per-world scores
written beside the manifest (``<name>.random.json``: what normalisation subtracts)."""

from __future__ import annotations

import os
from typing import Optional

import attr

from avalon.evaluation.results import EpisodeResult, FailedWorld
from avalon.evaluation.scoring.score_files import RANDOM_SOURCE, score_entries
from avalon.evaluation.sets.manifest import RANDOM_SUFFIX, EvalSet, companion_path, load_set, write_json
from avalon.evaluation.sets.runner import JobStats, run_over_worlds
from avalon.evaluation.sets.worker import RANDOM_ACTION_SPACE, random_run


@attr.s(frozen=True, auto_attribs=True)
class BaselineResult:
    """The random agent's episode on each world of a set (or the world it gave up), in the set's
    order, and what the run cost (``cost``)."""

    evalset: EvalSet
    runs: tuple[EpisodeResult | FailedWorld, ...]
    cost: JobStats

    @property
    def scores(self) -> dict[str, dict]:
        """The score file's entries, ``{SetWorld.key: {"score", "success", "source"}}``, of every played world."""
        played = {world.key: run for world, run in zip(self.evalset.worlds, self.runs) if isinstance(run, EpisodeResult)}
        return score_entries(played, RANDOM_SOURCE)

    @property
    def failed(self) -> tuple[str, ...]:
        """The keys of the worlds whose simulator failed every attempt (not in :attr:`scores`)."""
        return tuple(world.key for world, run in zip(self.evalset.worlds, self.runs) if isinstance(run, FailedWorld))

    def summary(self) -> str:
        """What ``avalon evalset baseline`` prints: per task the worlds played, successes and mean score."""
        scores = self.scores
        lines = ["| task | worlds | random successes | mean score |", "|---|---|---|---|"]
        for task in self.evalset.tasks():
            entries = [scores[w.key] for w in self.evalset.worlds if w.task == task and w.key in scores]
            mean = sum(e["score"] for e in entries) / len(entries) if entries else float("nan")
            lines.append(f"| {task} | {len(entries)} | {sum(e['success'] for e in entries)} | {mean:.3f} |")
        lines.append(f"random agent ({RANDOM_ACTION_SPACE} actions) on {len(scores)} worlds in {self.cost.wall_s:.0f} s on "
                     f"{self.cost.backend}; {self.cost.retries} world(s) rerun after a worker died")
        lines += [f"FAILED (simulator): {key}" for key in self.failed]
        return "\n".join(lines)


def random_baseline(name: str, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
                    ray_address: Optional[str] = None, progress: bool = True) -> BaselineResult:
    """Plays the random agent on every world of the set ``name`` and writes ``<name>.random.json``
    (:attr:`BaselineResult.scores`: what normalisation subtracts). Worlds whose simulator failed
    every attempt are left out of the file and listed."""
    evalset = load_set(name, directory)
    runs, cost = run_over_worlds(random_run, [(world,) for world in evalset.worlds], description=f"random agent on {name}",
                                 jobs=jobs, ray_address=ray_address, progress=progress)
    result = BaselineResult(evalset, tuple(runs), cost)
    write_json(companion_path(name, RANDOM_SUFFIX, directory), result.scores)
    return result
