"""Per-world score files: ``{WorldRequest.folder_name: {"score": float, "success": bool}}`` as JSON.

Normalisation reads two of them (section 5.4): the random agent's scores (its 0) and a
reference's (its 1: human recordings when they exist, until then the scripted reference agents).
Entries also carry ``"source"`` (who played: :data:`RANDOM_SOURCE`, :data:`SCRIPTED_SOURCE`,
human recordings), which the report names; files
without it are reported as of an unnamed source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

import attr

from avalon.errors import check_bool, check_number
from avalon.evaluation.json_file import read_json
from avalon.evaluation.results import EpisodeResult

#: Who played, as per-world score files name it: the random baseline, the scripted agents.
RANDOM_SOURCE = "random agent"
SCRIPTED_SOURCE = "scripted reference agents"
UNNAMED_SOURCE = "not named in the file"


class ScoreFileError(ValueError):
    """A score file that is missing, malformed, or lacks worlds (the message names them)."""


class WorldScore(NamedTuple):
    score: float
    success: bool


@attr.s(frozen=True, auto_attribs=True)
class ScoreFile:
    """One per-world score file: its path, scores by world key, and who played (``source``)."""

    path: Path
    scores: Mapping[str, WorldScore]
    source: str

    def require(self, keys: Iterable[str], role: str) -> None:
        """Raises :class:`ScoreFileError` naming every key of ``keys`` this file lacks."""
        missing = [key for key in keys if key not in self.scores]
        if missing:
            shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
            raise ScoreFileError(f"the {role} file {self.path} has no score for {len(missing)} evaluated world(s): {shown}")


def score_entries(episodes: Mapping[str, EpisodeResult], source: str) -> dict[str, dict]:
    """A score file's entries: the raw score and success of each episode by world key, and who played."""
    return {key: {"score": float(e.score), "success": bool(e.success), "source": source} for key, e in episodes.items()}


def write_score_file(path: str | Path, episodes: Mapping[str, EpisodeResult], source: str) -> Path:
    """Writes :func:`score_entries`, by world key in sorted order."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(score_entries(dict(sorted(episodes.items())), source), indent=1) + "\n")
    return path


def read_score_file(path: str | Path) -> ScoreFile:
    """Reads and checks a per-world score file (every entry a finite score and a success flag)."""
    path = Path(path)
    payload = read_json(path, ScoreFileError, "a per-world score file (JSON: world key -> {score, success})")
    if not isinstance(payload, dict) or not payload:
        raise ScoreFileError(f"score file {path}: expected a non-empty JSON object of world key -> {{score, success}}")
    scores, sources = {}, set()
    for key, entry in payload.items():
        try:
            if not isinstance(entry, dict):
                raise ValueError(f"expected an object, got {entry!r}")
            score = check_number(entry.get("score"), "score")
            success = check_bool(entry.get("success"), "success")
        except ValueError as error:
            raise ScoreFileError(f"score file {path}: world {key!r} has {entry!r} ({error}); expected {{\"score\": a finite "
                                 f"number, \"success\": true or false}}") from None
        scores[key] = WorldScore(float(score), success)
        sources.add(entry.get("source", UNNAMED_SOURCE))
    return ScoreFile(path, scores, " and ".join(sorted(sources)))
