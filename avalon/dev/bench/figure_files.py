"""The ``--json`` file of a benchmark's figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def save_figures(figures: Any, path: str | Path) -> None:
    """Writes ``figures`` (plain values; numpy scalars become floats) to ``path`` as indented JSON,
    making its folder, and says where."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2, default=float) + "\n")
    print(f"figures saved to {path}")
