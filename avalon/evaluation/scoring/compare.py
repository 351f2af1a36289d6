"""``avalon eval compare``: several evaluations (``eval.json`` files of ``avalon eval`` or ``avalon
train``, read by :func:`avalon.evaluation.eval_file.read_eval_file`) side by side, one column per
algorithm or checkpoint, with the intervals, profiles and plots computed over all of them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

from avalon.evaluation.eval_file import EvalFile, read_eval_file
from avalon.evaluation.scoring.normalise import Normalisation, normalisation_by_task
from avalon.evaluation.scoring.plots import plot_report
from avalon.evaluation.scoring.report import build_report, markdown_table, normalisation_note
from avalon.evaluation.scoring.score_files import read_score_file


def parse_run_arguments(arguments: Sequence[str]) -> dict[str, list[Path]]:
    """Columns from ``PATH`` (named after its folder) or ``NAME=PATH[,PATH...]`` (several runs)."""
    columns: dict[str, list[Path]] = {}
    for argument in arguments:
        name, separator, paths = argument.partition("=")
        if separator:
            files = [Path(path) for path in paths.split(",") if path]
            if not name or not files:
                raise ValueError(f"{argument!r}: expected NAME=A.json[,B.json...] or a path to an eval.json")
        else:
            files = [Path(argument)]
            name = files[0].resolve().parent.name
        unique, count = name, 2
        while unique in columns:
            unique, count = f"{name} ({count})", count + 1
        columns[unique] = files
    return columns


def renormalised(runs: dict[str, list[list[dict[str, Any]]]], baseline_file: Path, reference_file: Path) -> tuple[dict, Normalisation]:
    """Every run's worlds normalised anew with one pair of score files (over the worlds of all runs)."""
    keys_by_task: dict[str, list[str]] = {}
    for column in runs.values():
        for run in column:
            for world in run:
                keys = keys_by_task.setdefault(world["task"], [])
                if world["key"] not in keys:
                    keys.append(world["key"])
    normalised_by = normalisation_by_task(keys_by_task, read_score_file(baseline_file), read_score_file(reference_file))

    def rescored(world: dict[str, Any]) -> dict[str, Any]:
        value = normalised_by.score(world["task"], world["score"])
        return dict(world, normalised=None if math.isnan(value) else value)

    return {name: [[rescored(world) for world in run] for run in column] for name, column in runs.items()}, normalised_by


def read_runs(arguments: Sequence[str], baseline_file: Path | None, reference_file: Path | None
              ) -> tuple[dict[str, list[EvalFile]], dict[str, list[list[dict[str, Any]]]], str]:
    """The evaluations the ``RUN`` arguments name, by column: their files, their episodes (normalised
    anew when both score files are given) and the note saying how they were normalised. Refuses a
    lone score file and an evaluation without finished episodes."""
    if (baseline_file is None) != (reference_file is None):
        raise ValueError("give both --baseline FILE and --reference FILE to normalise the runs anew, or neither")
    files = {name: [read_eval_file(path) for path in paths] for name, paths in parse_run_arguments(arguments).items()}
    empty = [str(file.path) for column in files.values() for file in column if not file.episodes]
    if empty:
        raise ValueError(f"no finished episodes in {', '.join(empty)}")
    runs = {name: [list(file.episodes) for file in column] for name, column in files.items()}
    note = ""
    if baseline_file is not None:
        runs, normalised_by = renormalised(runs, baseline_file, reference_file)
        note = normalisation_note(normalised_by)
    return files, runs, note


def compare_runs(
    arguments: Sequence[str], out_dir: str | Path, baseline_file: Path | None = None, reference_file: Path | None = None,
    reps: int = 2000,
) -> tuple[str, dict[str, Path]]:
    """Writes ``compare.json``, ``compare.md`` and the plots into ``out_dir``; returns the table and
    the files. With both score files, every run is normalised anew with them; else each run's own
    normalised scores count when every run has some, raw scores otherwise."""
    files, runs, note = read_runs(arguments, baseline_file, reference_file)
    report = build_report(runs, reps=reps)
    some_normalised = any(world["normalised"] is not None for column in runs.values() for run in column for world in run)
    if baseline_file is None and report["score_kind"] == "raw" and some_normalised:
        note = "Raw scores: some runs have no normalised scores (give --baseline and --reference to normalise all anew)."
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table = markdown_table(report, note)
    written = {"table": out_dir / "compare.md", "report": out_dir / "compare.json"}
    written["table"].write_text(table)
    report_with_files = dict(report, files={name: [str(file.path) for file in column] for name, column in files.items()})
    written["report"].write_text(json.dumps(report_with_files, indent=1))
    written.update(plot_report(report, out_dir))
    return table, written
