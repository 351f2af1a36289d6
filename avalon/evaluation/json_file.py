"""Reading the evaluation's JSON files with one clear error for a file that is missing or not JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: str | Path, error: type[ValueError], expected: str) -> Any:
    """The JSON value in ``path``; ``error`` naming the file and ``expected`` (what should be there)
    when it is missing or does not hold JSON."""
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise error(f"{path} does not exist: expected {expected}") from None
    except (OSError, ValueError) as failure:
        raise error(f"{path} is not readable JSON ({failure}): expected {expected}") from None
