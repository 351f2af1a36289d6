"""``avalon evalset baseline``: the random agent on every world of a set, its per-world scores
written beside the manifest (``<name>.random.json``: what normalisation subtracts)."""

from __future__ import annotations

import os
from typing import Optional

import attr

from avalon.evaluation.results import EpisodeResult
from avalon.evaluation.scoring.score_files import RANDOM_SOURCE, score_entries
from avalon.evaluation.sets.manifest import RANDOM_SUFFIX, EvalSet, companion_path, load_set, write_json
from avalon.evaluation.sets.runner import JobStats, run_over_worlds
from avalon.evaluation.sets.worker import RANDOM_ACTION_SPACE, random_run


@attr.s(frozen=True, auto_attribs=True)
class BaselineResult:
    """The random agent's results on a set, in the set's order, and what it cost."""

    evalset: EvalSet
    scores: dict[str, dict]
    failed: tuple[str, ...]
    cost: JobStats

    def summary(self) -> str:
        lines = ["| task | worlds | random successes | mean score |", "|---|---|---|---|"]
        for task in self.evalset.tasks():
            entries = [self.scores[w.key] for w in self.evalset.worlds if w.task == task and w.key in self.scores]
            mean = sum(e["score"] for e in entries) / len(entries) if entries else float("nan")
            lines.append(f"| {task} | {len(entries)} | {sum(e['success'] for e in entries)} | {mean:.3f} |")
        lines.append(f"random agent ({RANDOM_ACTION_SPACE} actions) on {len(self.scores)} worlds in {self.cost.wall_s:.0f} s on "
                     f"{self.cost.backend}; {self.cost.retries} world(s) rerun after a worker died")
        lines += [f"FAILED (simulator): {key}" for key in self.failed]
        return "\n".join(lines)


def random_baseline(name: str, directory: str | os.PathLike | None = None, *, jobs: Optional[int] = None,
                    ray_address: Optional[str] = None, progress: bool = True) -> BaselineResult:
    """Plays the random agent on every world of the set ``name`` and writes ``<name>.random.json``
    (``{SetWorld.key: {"score", "success", "source"}}``: what normalisation subtracts). Worlds whose simulator
    failed every attempt are left out of the file and listed."""
    evalset = load_set(name, directory)
    runs, cost = run_over_worlds(random_run, [(world,) for world in evalset.worlds], description=f"random agent on {name}",
                                 jobs=jobs, ray_address=ray_address, progress=progress)
    ordered = [(world.key, run) for world, run in zip(evalset.worlds, runs)]
    scores = score_entries({key: run for key, run in ordered if isinstance(run, EpisodeResult)}, RANDOM_SOURCE)
    write_json(companion_path(name, RANDOM_SUFFIX, directory), scores)
    failed = tuple(key for key, run in ordered if not isinstance(run, EpisodeResult))
    return BaselineResult(evalset, scores, failed, cost)
