"""Versioned evaluation sets: fixed worlds, pinned by content hashes (paper, Appendix G).

A set is a manifest checked in beside this module (``<name>.json``): every world's task,
difficulty, seed, forced generator options and the content hash of its world folder, and the
generator version that built it. ``avalon evalset build NAME`` makes one from its recipe
(:mod:`avalon.evaluation.sets.recipe`: G.1's difficulties, seeds from the set's name and version, forced
worlds), checks every world against its task's certificate (replacing rejected ones by the next
seed, G.2) and lets the scripted reference agent play it (``<name>.reference.json``);
``avalon evalset verify NAME`` regenerates every world and compares the hashes. Scoring reads a set
with :func:`load_set` and plays ``EvalSet.requests()``; per-world score files are keyed by
``SetWorld.key`` (:func:`load_scores`). See docs/evaluation.md, "Evaluation sets".
"""

from __future__ import annotations

import json
import os

from avalon.evaluation.sets.manifest import (
    RANDOM_SUFFIX,
    REFERENCE_SUFFIX,
    EvalSet,
    SetWorld,
    companion_path,
    load_set,
    set_names,
)
from avalon.evaluation.sets.recipe import DEFAULT_SET, RECIPES, SetRecipe

#: Per-world score files beside a set's manifest: ``reference`` (the scripted reference agent's,
#: until human recordings exist) and ``random`` (the random agent's: what normalisation subtracts).
SCORE_FILES = {"reference": REFERENCE_SUFFIX, "random": RANDOM_SUFFIX}


def load_scores(name: str, kind: str, directory: str | os.PathLike | None = None) -> dict[str, dict]:
    """``{SetWorld.key: {"score": float, "success": bool}}`` from the set's ``kind`` file
    (``reference`` or ``random``: ``<name>.reference.json``, ``<name>.random.json``); ``ValueError``
    naming the file when it does not exist."""
    if kind not in SCORE_FILES:
        raise ValueError(f"score file kind {kind!r} is not one of {', '.join(SCORE_FILES)}")
    load_set(name, directory)  # an unknown set name lists the sets
    path = companion_path(name, SCORE_FILES[kind], directory)
    if not path.is_file():
        raise ValueError(f"set {name!r} has no {kind} scores: {path} does not exist")
    return json.loads(path.read_text())


__all__ = ["DEFAULT_SET", "RECIPES", "SCORE_FILES", "EvalSet", "SetRecipe", "SetWorld", "load_scores", "load_set", "set_names"]
