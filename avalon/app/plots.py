"""Pictures of a training run: the learning curve drawn from its episode log.

Matplotlib draws them (the Agg backend: no display needed); it is imported only here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from avalon.errors import check_int

#: Points along the curve: the run's env steps are cut into this many equal bins.
CURVE_BINS = 24


def success_curve(rows: Sequence[Mapping[str, Any]], bins: int = CURVE_BINS) -> dict[str, np.ndarray]:
    """Success rate, mean difficulty and episode count per bin of env steps.

    ``rows`` are an episode log's (:func:`avalon.agent.common.episodes.read_episode_log`). Returns
    arrays ``steps`` (each bin's end), ``success_rate``, ``difficulty`` and ``episodes``, for the
    bins that hold at least one episode.
    """
    if not rows:
        raise ValueError("no finished episodes to draw a learning curve from")
    bins = check_int(bins, "bins", low=1)
    steps = np.array([row["env_steps"] for row in rows], np.float64)
    success = np.array([row["success"] for row in rows], np.float64)
    difficulty = np.array([row["difficulty"] for row in rows], np.float64)
    edges = np.linspace(0.0, steps.max(), bins + 1)
    which = np.clip(np.searchsorted(edges, steps, side="left") - 1, 0, bins - 1)
    counts = np.bincount(which, minlength=bins)
    held = counts > 0
    return {
        "steps": edges[1:][held],
        "success_rate": (np.bincount(which, success, bins)[held] / counts[held]),
        "difficulty": (np.bincount(which, difficulty, bins)[held] / counts[held]),
        "episodes": counts[held],
    }


def plot_learning_curve(
    rows: Sequence[Mapping[str, Any]],
    path: str | Path,
    title: str = "",
    references: Mapping[str, float] | None = None,
    bins: int = CURVE_BINS,
) -> Path:
    """Writes a PNG of the success rate of training episodes against env steps, with their mean
    difficulty (the curriculum) on a second axis; ``references`` draws labelled horizontal lines
    (for example the final evaluation's success rate of the trained and of the random policy)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    curve = success_curve(rows, bins)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure, axis = plt.subplots(figsize=(7.0, 4.2), dpi=110)
    try:
        axis.plot(curve["steps"], curve["success_rate"], marker="o", color="tab:blue", label="training episodes: success rate")
        styles = ["--", ":", "-."]
        for index, (label, value) in enumerate((references or {}).items()):
            axis.axhline(value, linestyle=styles[index % len(styles)], color=f"C{index + 2}", label=f"{label}: {value:.0%}")
        axis.set_xlabel("env steps")
        axis.set_ylabel("success rate")
        axis.set_ylim(-0.02, 1.02)
        axis.grid(alpha=0.3)
        difficulty_axis = axis.twinx()
        difficulty_axis.plot(curve["steps"], curve["difficulty"], color="tab:gray", alpha=0.6, label="mean difficulty (curriculum)")
        difficulty_axis.set_ylabel("difficulty", color="tab:gray")
        difficulty_axis.set_ylim(-0.02, max(0.25, float(curve["difficulty"].max()) * 1.2))
        lines, labels = axis.get_legend_handles_labels()
        more_lines, more_labels = difficulty_axis.get_legend_handles_labels()
        axis.legend(lines + more_lines, labels + more_labels, loc="upper left", fontsize=8)
        if title:
            axis.set_title(title, fontsize=10)
        figure.tight_layout()
        figure.savefig(path)
    finally:
        plt.close(figure)
    return path
