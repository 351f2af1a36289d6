"""The figure of ``avalon eval report``: Table 1 and Table 8 side by side as horizontal bars (a
row per task and group row, a bar per run with its 95 % interval), drawn with matplotlib's Agg
backend so no display is needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import numpy as np

from avalon.evaluation.scoring.paper_table import TABLES
from avalon.evaluation.scoring.plots import pyplot, short_label


def plot_tables(tables: Mapping[str, Any], worlds: str, path: Path) -> Path:
    """Writes the figure to ``path`` and returns it."""
    plt = pyplot()
    rows = list(tables["rows"])
    names = list(tables["columns"])
    height = 0.8 / len(names)
    figure, axes = plt.subplots(1, len(TABLES), figsize=(11.0, 1.0 + 0.32 * len(rows) * max(1, len(names)) ** 0.5),
                                sharey=True)
    positions = np.arange(len(rows))[::-1].astype(np.float64)
    for axis, (statistic, (_stem, title, direction)) in zip(axes, TABLES.items()):
        for offset, name in enumerate(names):
            cells = [tables["columns"][name][statistic][row] for row in rows]
            values = np.array([np.nan if cell is None else cell["value"] for cell in cells])
            errors = np.array([[0.0, 0.0] if cell is None else [cell["value"] - cell["low"], cell["high"] - cell["value"]]
                               for cell in cells]).T
            axis.barh(positions + 0.4 - (offset + 0.5) * height, values, height, xerr=errors, capsize=2, label=short_label(name))
        axis.axvline(1.0 if statistic == "mean" else 0.0, color="0.5", linewidth=0.8, linestyle="--")
        axis.set_title(f"{title} ({direction})")
        axis.set_xlabel(f"{tables['score_kind']} score" if statistic == "mean" else "optimality gap")
    axes[0].set_yticks(positions)
    axes[0].set_yticklabels(rows)
    axes[0].legend(loc="lower right", fontsize="small")
    figure.suptitle(f"{worlds}: estimates with 95% intervals")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
