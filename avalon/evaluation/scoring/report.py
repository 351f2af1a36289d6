"""The scoring report: per-world scores, per-task and aggregate intervals, performance profiles,
Crafter's score over achievements and score against difficulty (MCU's view of a task's
difficulty levels), as JSON and as a Markdown table in the layout of the paper's Table 1.

Every figure is of one kind of score: normalised (random 0, reference 1) when the evaluation
had both score files, else raw (Appendix M), and the report says which. A report holds one or
more columns (algorithms or checkpoints), each with one or more runs (evaluation files).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from avalon.episodes.achievements import crafter_score, success_rates
from avalon.errors import check_int
from avalon.evaluation.scoring.aggregates import (
    AGGREGATES,
    DEFAULT_BOOTSTRAP_REPS,
    aggregate_intervals,
    per_task_intervals,
    performance_profiles,
)
from avalon.evaluation.scoring.normalise import Normalisation

#: Difficulty bins of the score-against-difficulty view: [0, 0.2), ..., [0.8, 1.0].
DIFFICULTY_BINS = 5
#: Row labels of the aggregates in the Markdown table.
AGGREGATE_LABELS = {"mean": "all (mean)", "iqm": "all (IQM)", "optimality_gap": "all (optimality gap, lower is better)"}

#: One column's runs: each run a list of its scored episodes (``eval.json``'s ``episodes``:
#: :func:`avalon.evaluation.eval_file.scored_episodes`).
Runs = Sequence[Sequence[Mapping[str, Any]]]


def score_kind(columns: Mapping[str, Runs]) -> str:
    """``normalised`` when every run has normalised scores for some task (the figures are then of
    those tasks only), else ``raw`` (a run without them could not be compared)."""
    runs = [run for column in columns.values() for run in column]
    return "normalised" if runs and all(any(world["normalised"] is not None for world in run) for run in runs) else "raw"


def task_samples(runs: Runs, kind: str) -> dict[str, list[float]]:
    """Per task, one value per (run, world): ``normalised`` scores (the tasks that have them) or ``raw``."""
    by_task: dict[str, list[float]] = {}
    for run in runs:
        for world in run:
            value = world["normalised"] if kind == "normalised" else world["score"]
            if value is not None:
                by_task.setdefault(world["task"], []).append(float(value))
    return by_task


def difficulty_view(worlds: Sequence[Mapping[str, Any]], bins: int = DIFFICULTY_BINS) -> dict[str, Any]:
    """Per task and difficulty bin: episodes, success rate, mean raw and normalised score; and per
    task the drop of the mean score from its easiest bin to its hardest (MCU's intra-task view)."""
    bins = check_int(bins, "bins", low=1)
    edges = np.linspace(0.0, 1.0, bins + 1)
    view: dict[str, Any] = {}
    for task in sorted({world["task"] for world in worlds}):
        rows = []
        for low, high in zip(edges[:-1], edges[1:]):
            inside = [w for w in worlds if w["task"] == task and low <= w["difficulty"] and (w["difficulty"] < high or high == 1.0)]
            if not inside:
                continue
            normalised = [w["normalised"] for w in inside if w["normalised"] is not None]
            rows.append({
                "low": float(low), "high": float(high), "episodes": len(inside),
                "success_rate": float(np.mean([w["success"] for w in inside])),
                "raw_mean": float(np.mean([w["score"] for w in inside])),
                "normalised_mean": float(np.mean(normalised)) if normalised else None,
            })
        normalised_drop = None if rows[0]["normalised_mean"] is None or rows[-1]["normalised_mean"] is None else \
            rows[0]["normalised_mean"] - rows[-1]["normalised_mean"]
        view[task] = {"bins": rows, "raw_drop": rows[0]["raw_mean"] - rows[-1]["raw_mean"], "normalised_drop": normalised_drop}
    return view


def crafter_view(worlds: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Crafter's score (geometric mean of the achievements' success rates, percent) over the episodes."""
    rates = success_rates(world["achievements"] for world in worlds)
    return {"score": crafter_score(rates), "success_rates": rates}


def build_report(columns: Mapping[str, Runs], reps: int = DEFAULT_BOOTSTRAP_REPS, seed: int = 0) -> dict[str, Any]:
    """The report of several columns (name -> runs): intervals per task and over tasks, profiles,
    Crafter's score and the difficulty view of each column."""
    reps = check_int(reps, "reps", low=1, unit="bootstrap resamples")
    if not columns or any(not runs or not any(runs) for runs in columns.values()):
        raise ValueError("a report needs at least one column with at least one finished episode")
    kind = score_kind(columns)
    samples = {name: task_samples(runs, kind) for name, runs in columns.items()}
    per_task = per_task_intervals(samples, reps=reps, seed=seed)
    aggregates = aggregate_intervals(samples, reps=reps, seed=seed)
    report: dict[str, Any] = {
        "score_kind": kind,
        "confidence": "stratified bootstrap 95% intervals over worlds and runs (rliable)",
        "bootstrap_reps": reps,
        "columns": {},
    }
    for name, runs in columns.items():
        worlds = [world for run in runs for world in run]
        report["columns"][name] = {
            "runs": len(runs),
            "worlds": len(worlds),
            "per_task": {
                task: _interval_json(interval) | {"samples": len(samples[name][task])} for task, interval in per_task[name].items()
            },
            "aggregates": None if aggregates[name] is None else {a: _interval_json(aggregates[name][a]) for a in AGGREGATES},
            "aggregate_tasks": sorted(samples[name]),
            "success_rate": {task: float(np.mean([w["success"] for w in worlds if w["task"] == task]))
                             for task in sorted({w["task"] for w in worlds})},
            "crafter": crafter_view(worlds),
            "difficulty": difficulty_view(worlds),
        }
    report["performance_profiles"] = performance_profiles(samples, reps=reps, seed=seed)
    return report


def _interval_json(interval) -> dict[str, float]:
    return {"value": interval.value, "low": interval.low, "high": interval.high, "half_width": interval.half_width}


def markdown_table(report: Mapping[str, Any], note: str = "") -> str:
    """Tasks as rows, columns as columns, each cell ``mean ± half the 95 % interval`` (Table 1's
    layout), then the aggregates over tasks and Crafter's score."""
    names = list(report["columns"])
    tasks = sorted({task for column in report["columns"].values() for task in column["per_task"]})
    lines = [
        f"Mean {report['score_kind']} score per task ± half the {report['confidence']}.",
    ]
    if note:
        lines.append(note)
    lines += ["", "| task | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for task in tasks:
        cells = []
        for name in names:
            cell = report["columns"][name]["per_task"].get(task)
            cells.append("-" if cell is None else f"{cell['value']:.3f} ± {cell['half_width']:.3f}")
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    for aggregate, label in AGGREGATE_LABELS.items():
        cells = []
        for name in names:
            values = report["columns"][name]["aggregates"]
            cells.append("-" if values is None else f"{values[aggregate]['value']:.3f} ± {values[aggregate]['half_width']:.3f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| Crafter score over achievements (%) | " + " | ".join(
        f"{report['columns'][name]['crafter']['score']:.2f}" for name in names) + " |")
    return "\n".join(lines) + "\n"


def normalisation_note(normalised_by: Normalisation | None) -> str:
    """The table's note: which files gave 0 and 1 (and the reference's source), the tasks not normalised."""
    if normalised_by is None:
        return "Raw scores (Appendix M): no --baseline and --reference were given to normalise them."
    described = normalised_by.describe()
    lines = [(f"Random agent = 0: {described['random_baseline']['path']}; reference = 1: "
              f"{described['reference']['source']} ({described['reference']['path']}).")]
    lines += [f"{task}: not normalised, {reason}." for task, reason in normalised_by.not_normalised.items()]
    return "\n".join(lines)
