"""The report's pictures (matplotlib, Agg backend: no display needed): per-task bars with their
intervals, the performance profiles, and score against difficulty per task."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np


def pyplot():
    """matplotlib.pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: Legend labels are cut to this many characters (a checkpoint's label holds its path).
LABEL_CHARS = 40


def short_label(name: str) -> str:
    """A legend label cut to LABEL_CHARS characters, keeping its end."""
    return name if len(name) <= LABEL_CHARS else "…" + name[-(LABEL_CHARS - 1):]


def plot_report(report: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Writes ``tasks.png``, ``profile.png`` (when a column has profiles) and ``difficulty.png``
    into ``out_dir``; returns them by name."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {"tasks": _task_bars(report, out_dir / "tasks.png")}
    if report["performance_profiles"]:
        written["profile"] = _profiles(report, out_dir / "profile.png")
    written["difficulty"] = _difficulty(report, out_dir / "difficulty.png")
    return written


def _task_bars(report: Mapping[str, Any], path: Path) -> Path:
    plt = pyplot()
    names = list(report["columns"])
    tasks = sorted({task for column in report["columns"].values() for task in column["per_task"]})
    width = 0.8 / len(names)
    figure, axes = plt.subplots(figsize=(max(6.0, 1.2 * len(tasks) * max(1, len(names)) ** 0.5), 4.0))
    for offset, name in enumerate(names):
        cells = [report["columns"][name]["per_task"].get(task) for task in tasks]
        values = np.array([np.nan if c is None else c["value"] for c in cells])
        errors = np.array([[0.0, 0.0] if c is None else [c["value"] - c["low"], c["high"] - c["value"]] for c in cells]).T
        positions = np.arange(len(tasks)) + (offset - (len(names) - 1) / 2) * width
        axes.bar(positions, values, width, yerr=errors, capsize=3, label=short_label(name))
    axes.set_xticks(np.arange(len(tasks)), tasks, rotation=30 if len(tasks) > 6 else 0)
    axes.set_ylabel(f"mean {report['score_kind']} score (95% interval)")
    if report["score_kind"] == "normalised":
        axes.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    axes.legend(fontsize="small")
    return _saved(figure, path)


def _profiles(report: Mapping[str, Any], path: Path) -> Path:
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(6.0, 4.0))
    for name, profile in report["performance_profiles"].items():
        line = axes.plot(profile["tau"], profile["fraction"], label=short_label(name))[0]
        axes.fill_between(profile["tau"], profile["low"], profile["high"], color=line.get_color(), alpha=0.2)
    axes.set_xlabel(f"{report['score_kind']} score τ")
    axes.set_ylabel("fraction of (run, world) scores > τ")
    axes.set_ylim(0.0, 1.02)
    axes.legend(fontsize="small")
    return _saved(figure, path)


def _difficulty(report: Mapping[str, Any], path: Path) -> Path:
    plt = pyplot()
    tasks = sorted({task for column in report["columns"].values() for task in column["difficulty"]})
    count = max(1, len(tasks))
    columns = min(4, count)
    rows = -(-count // columns)
    figure, grid = plt.subplots(rows, columns, figsize=(max(5.0, 3.2 * columns), 2.6 * rows + 0.6), squeeze=False)
    key = "normalised_mean" if report["score_kind"] == "normalised" else "raw_mean"
    for axes, task in zip(grid.flat, tasks):
        for name, column in report["columns"].items():
            view = column["difficulty"].get(task)
            if view is None:
                continue
            points = [row for row in view["bins"] if row[key] is not None]
            if points:
                axes.plot([(p["low"] + p["high"]) / 2 for p in points], [p[key] for p in points], marker="o", label=short_label(name))
        axes.set_title(task)
        axes.set_xlim(0.0, 1.0)
        axes.set_xlabel("difficulty")
    grid.flat[0].set_ylabel(f"mean {report['score_kind']} score")
    for axes in list(grid.flat)[len(tasks):]:
        axes.set_visible(False)
    handles, labels = grid.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=min(3, max(1, len(labels))), fontsize="small")
    return _saved(figure, path, rect=(0.0, 0.6 / (2.6 * rows + 0.6), 1.0, 1.0))


def _saved(figure, path: Path, rect: tuple[float, float, float, float] | None = None) -> Path:
    """``figure`` laid out (within ``rect``, a fraction of the figure), written as a PNG and closed."""
    figure.tight_layout(**({} if rect is None else {"rect": rect}))
    figure.savefig(path, dpi=100)
    pyplot().close(figure)
    return path
