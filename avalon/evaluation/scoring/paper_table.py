"""``avalon eval report``: the paper's results tables from evaluations on one set.

Table 1's layout (a row per task in the paper's order, basic tasks then compositional, then the
rows "all basic", "all compositional" and "all"; a column per run; each cell the mean score with
half its 95 % interval) and Table 8's (the same rows, the optimality gap: the mean shortfall below
the reference, lower is better), in Markdown, JSON and one figure. The intervals are rliable's
stratified bootstrap over worlds and, for the group rows, tasks (:mod:`.aggregates`).

Evaluations are compared only on the same worlds: every run must name the same set (the
``worlds`` field of its ``eval.json``); a mix is refused naming both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from rliable import metrics

from avalon.evaluation.eval_file import EvalFile
from avalon.evaluation.scoring.aggregates import (
    CONFIDENCE,
    DEFAULT_BOOTSTRAP_REPS,
    Interval,
    bootstrap_intervals,
    score_matrix,
)
from avalon.evaluation.scoring.compare import read_runs
from avalon.evaluation.scoring.report import score_kind, task_samples
from avalon.tasks.kit.spec import PAPER_TASK_COUNTS

#: The two tables: their file stem, statistic and what a reader should know.
TABLES = {
    "mean": ("table1", "Mean score", "higher is better"),
    "optimality_gap": ("table8", "Optimality gap", "lower is better"),
}
#: The group rows, in order: label and the groups (``TaskSpec.group``) they pool.
GROUP_ROWS = (("all basic", ("basic",)), ("all compositional", ("compositional",)), ("all", ("basic", "compositional")))


def _statistic(name: str):
    aggregate = metrics.aggregate_mean if name == "mean" else metrics.aggregate_optimality_gap
    return lambda scores: np.array([aggregate(scores)])


def _interval(matrix: np.ndarray, statistic: str, reps: int, seed: int) -> Interval:
    """``statistic`` of a (samples, tasks) matrix with its stratified bootstrap interval."""
    return bootstrap_intervals(matrix, _statistic(statistic), reps, seed)[0]


def task_order(tasks: Sequence[str]) -> list[tuple[str, str | None]]:
    """(task, group) in the paper's Table 1 order; tasks this registry does not know (or a test
    world without a row) come last, without a group: they join no group row."""
    from avalon.tasks import TASKS

    known = sorted((task for task in tasks if task in TASKS and TASKS[task].table_row is not None),
                   key=lambda task: TASKS[task].table_row)
    rest = sorted(task for task in tasks if task not in known)
    return [(task, TASKS[task].group) for task in known] + [(task, None) for task in rest]


def same_worlds(files: Mapping[str, Sequence[EvalFile]]) -> str:
    """The one ``worlds`` label all evaluations share; a ``ValueError`` naming two that differ."""
    labels: dict[str, Path] = {}
    for column in files.values():
        for file in column:
            labels.setdefault(file.worlds, file.path)
    if len(labels) > 1:
        (first, first_path), (second, second_path) = list(labels.items())[:2]
        raise ValueError(f"the evaluations were played on different worlds: {first_path} on {first!r}, {second_path} on "
                         f"{second!r}; a report compares evaluations of one set and set version")
    return next(iter(labels))


def paper_tables(columns: Mapping[str, Sequence[Sequence[Mapping[str, Any]]]], reps: int = DEFAULT_BOOTSTRAP_REPS,
                 seed: int = 0) -> dict[str, Any]:
    """Both tables' cells: ``rows`` (tasks, then group rows), ``groups`` (each task's group),
    ``group_tasks`` (the evaluated tasks each group row pools: those any column has) and per column
    and statistic the cell of each row (an interval, or None).

    A column's group row needs every one of the row's tasks with equal sample counts (a set has as
    many worlds of each task); else its cell is None and ``missing`` says why.
    """
    kind = score_kind(columns)
    samples = {name: task_samples(runs, kind) for name, runs in columns.items()}
    order = task_order(sorted({task for by_task in samples.values() for task in by_task}))
    group_tasks = {label: [task for task, group in order if group in groups] for label, groups in GROUP_ROWS}
    result: dict[str, Any] = {"score_kind": kind, "rows": [task for task, _ in order] + [label for label, _ in GROUP_ROWS],
                              "groups": {task: group for task, group in order}, "group_tasks": group_tasks,
                              "columns": {}, "missing": {}}
    for name, by_task in samples.items():
        cells: dict[str, dict[str, Any]] = {statistic: {} for statistic in TABLES}
        for task, _group in order:
            values = by_task.get(task)
            for statistic in TABLES:
                cells[statistic][task] = None if not values else \
                    _json(_interval(np.asarray(values, np.float64).reshape(-1, 1), statistic, reps, seed))
        for label, members in group_tasks.items():
            absent = [task for task in members if task not in by_task]
            matrix = None if absent or not members else score_matrix({task: by_task[task] for task in members})
            if matrix is None:
                result["missing"].setdefault(name, {})[label] = (
                    "no task of the group was evaluated" if not members else
                    f"not evaluated: {', '.join(absent)}" if absent else "its tasks hold different numbers of worlds")
            for statistic in TABLES:
                cells[statistic][label] = None if matrix is None else _json(_interval(matrix, statistic, reps, seed))
        result["columns"][name] = cells
    return result


def _json(interval: Interval) -> dict[str, float]:
    return {"value": interval.value, "low": interval.low, "high": interval.high, "half_width": interval.half_width}


def markdown(tables: Mapping[str, Any], statistic: str, worlds: str, note: str = "") -> str:
    """One table (``mean``: Table 1, ``optimality_gap``: Table 8) in Markdown."""
    _stem, title, direction = TABLES[statistic]
    names = list(tables["columns"])
    lines = [(f"{title} ({tables['score_kind']} scores, {direction}) on {worlds}: the estimate ± half its stratified "
              f"bootstrap {CONFIDENCE:.0%} interval."), ""]
    if note:
        lines += [note, ""]
    lines += ["| task | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    previous_group = None
    for row in tables["rows"]:
        group = tables["groups"].get(row, "aggregate")
        if previous_group is not None and group != previous_group:
            lines.append("| | " + " | ".join("" for _ in names) + " |")
        previous_group = group
        cells = [tables["columns"][name][statistic][row] for name in names]
        text = ["-" if cell is None else f"{cell['value']:.3f} ± {cell['half_width']:.3f}" for cell in cells]
        lines.append(f"| {_row_label(row, tables)} | " + " | ".join(text) + " |")
    for name, reasons in tables["missing"].items():
        for row, reason in reasons.items():
            lines.append(f"\n{name}, {row}: - ({reason}).")
    return "\n".join(lines) + "\n"


def _row_label(row: str, tables: Mapping[str, Any]) -> str:
    """A group row's label says how many of the paper's tasks it pools when it lacks some."""
    if row not in tables["group_tasks"]:
        return row
    groups = dict(GROUP_ROWS)[row]
    paper = sum(PAPER_TASK_COUNTS[group] for group in groups)
    pooled = len(tables["group_tasks"][row])
    return row if pooled == paper else f"{row} ({pooled} of the paper's {paper} tasks)"


def write_paper_report(
    arguments: Sequence[str], out_dir: str | Path, baseline_file: Path | None = None, reference_file: Path | None = None,
    reps: int = DEFAULT_BOOTSTRAP_REPS,
) -> tuple[str, dict[str, Path]]:
    """Writes ``table1.md``, ``table8.md``, ``report.json`` and ``tables.png`` into ``out_dir``;
    returns Table 1's Markdown and the files by name."""
    from avalon.evaluation.scoring.paper_figure import plot_tables

    files, runs, note = read_runs(arguments, baseline_file, reference_file)
    worlds = same_worlds(files)
    tables = paper_tables(runs, reps=reps)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    texts = {}
    for statistic, (stem, _title, _direction) in TABLES.items():
        texts[statistic] = markdown(tables, statistic, worlds, note)
        written[stem] = out / f"{stem}.md"
        written[stem].write_text(texts[statistic])
    written["report"] = out / "report.json"
    content = dict(tables, worlds=worlds, files={name: [str(file.path) for file in column] for name, column in files.items()})
    written["report"].write_text(json.dumps(content, indent=1))
    written["figure"] = plot_tables(tables, worlds, out / "tables.png")
    return texts["mean"], written
