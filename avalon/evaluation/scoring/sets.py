"""The one way scoring reaches the evaluation sets (``avalon.evaluation.sets``), imported only when a set
is asked for, so scoring works on any list of ``WorldRequest`` without it."""

from __future__ import annotations

import os
from pathlib import Path

from avalon.training.world_supply import WorldRequest


def set_requests(name: str) -> list[WorldRequest]:
    """The worlds of evaluation set ``name``, in the set's order. ``ValueError`` for an unknown set
    (listing the sets)."""
    from avalon.evaluation import sets as evalsets

    try:
        return list(evalsets.load_set(name).requests())
    except ValueError as error:
        raise ValueError(f"--set {name!r}: {error}") from None


def set_score_file(name: str, kind: str, directory: str | os.PathLike | None = None) -> Path | None:
    """The set's shipped per-world score file of ``kind`` ("random": what normalisation subtracts;
    "reference": the scripted reference agents'), or None when the set has none. A set's scores
    may be re-issued (stronger reference agents) as ``<name>.reference.<n>.json``, n = 2, 3, ...:
    the highest ``n`` is the one used; the earlier files stay beside it as they were."""
    from avalon.evaluation.sets import SCORE_FILES
    from avalon.evaluation.sets.manifest import companion_path, reissued_paths

    reissued = reissued_paths(name, SCORE_FILES[kind], directory)
    path = reissued[-1] if reissued else companion_path(name, SCORE_FILES[kind], directory)
    return path if path.is_file() else None
