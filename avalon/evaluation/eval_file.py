"""``eval.json``: an evaluation's file, as ``avalon eval`` and ``avalon train``'s final evaluation
both write it, and its one reader.

:func:`eval_content` lays it out (docs/evaluation.md, "eval.json", describes every field),
:func:`write_eval_file` writes it and :func:`read_eval_file` reads it back for ``avalon eval
compare``. The reader also takes the two kinds of file written before the layout had a name
(``avalon eval``'s with a ``scoring`` section, ``avalon train``'s with episodes only: raw scores),
and refuses anything else, naming the command that writes one.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import attr
import numpy as np

from avalon.evaluation.json_file import read_json
from avalon.evaluation.results import EpisodeResult, EvaluationResult
from avalon.evaluation.success_rates import by_difficulty, trends

#: The file's ``format`` and ``version``: what marks it as an evaluation's file, and its layout.
EVAL_FORMAT = "avalon-eval"
EVAL_VERSION = 2
#: What writes one, as the reader's errors say.
HOW_TO_WRITE = "`avalon eval --checkpoint PATH --out DIR` (or --policy random|reference) writes one"


class EvalFileError(ValueError):
    """A file that is not an evaluation's ``eval.json``: the message names it and what to run."""


def scored_episodes(episodes: Sequence[EpisodeResult], normalised: Sequence[float | None]) -> list[dict[str, Any]]:
    """Each episode's entry in ``eval.json``: its world key, its fields and its normalised score
    (None without normalisation, or for a task without a normaliser)."""
    return [{"key": episode.key, **attr.asdict(episode), "achievements": list(episode.achievements), "normalised": value}
            for episode, value in zip(episodes, normalised)]


def eval_content(
    *, policy: str, worlds: str, settings: Mapping[str, Any], result: EvaluationResult, episodes: Sequence[Mapping[str, Any]],
    run: Mapping[str, Any], normalisation: Mapping[str, Any] | None = None, report: Mapping[str, Any] | None = None,
    plots: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The content of ``eval.json`` (``episodes`` from :func:`scored_episodes`)."""
    table = by_difficulty(result.episodes)
    return {
        "format": EVAL_FORMAT,
        "version": EVAL_VERSION,
        "policy": policy,
        "worlds": worlds,
        "settings": dict(settings),
        "per_task": result.per_task(),
        "by_difficulty": table,
        "falls_with_difficulty": trends(table),
        "episodes": list(episodes),
        "failed_worlds": [attr.asdict(world) for world in result.failed_worlds],
        "skipped": [request.folder_name for request in result.skipped],
        "restarts": result.restarts,
        "error": result.failure_message(),
        "video": None if result.video_path is None else str(result.video_path),
        "video_episode": None if result.video_episode is None else
        {"world": result.video_episode[0], "success": result.video_episode[1]},
        "run": dict(run),
        "normalisation": None if normalisation is None else dict(normalisation),
        "report": None if report is None else dict(report),
        "plots": dict(plots or {}),
    }


def write_eval_file(path: str | Path, content: Mapping[str, Any]) -> Path:
    """Writes :func:`eval_content`'s result as indented JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=2, default=_json_default))
    return path


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EvalFile:
    """What :func:`read_eval_file` read: who played on which worlds, and each episode's entry
    (``key``, ``task``, ``difficulty``, ``score``, ``normalised``, ``success``, ``achievements``,
    ``episode_length``, ...)."""

    path: Path
    policy: str
    worlds: str
    episodes: tuple[Mapping[str, Any], ...]
    #: :data:`EVAL_VERSION`, or 1 for a file written before the layout had a name.
    version: int
    content: Mapping[str, Any] = attr.ib(repr=False)


def read_eval_file(path: str | Path) -> EvalFile:
    """Reads an ``eval.json`` of either command (see the module's doc); :class:`EvalFileError`
    naming the file and what to run for anything else."""
    path = Path(path)
    saved = read_json(path, EvalFileError, f"an evaluation's eval.json; {HOW_TO_WRITE}")
    if not isinstance(saved, dict):
        raise EvalFileError(f"{path} holds {type(saved).__name__}, not an evaluation's eval.json; {HOW_TO_WRITE}")
    if saved.get("format") == EVAL_FORMAT:
        if saved.get("version") != EVAL_VERSION:
            raise EvalFileError(f"{path} is an eval.json of version {saved.get('version')!r}; this avalon reads version "
                                f"{EVAL_VERSION}: evaluate again with it ({HOW_TO_WRITE})")
        return EvalFile(path=path, policy=saved["policy"], worlds=saved["worlds"], episodes=tuple(saved["episodes"]),
                        version=EVAL_VERSION, content=saved)
    if "format" in saved or not isinstance(saved.get("episodes"), list):
        raise EvalFileError(f"{path} is not an evaluation's eval.json (it has no format {EVAL_FORMAT!r} and no episodes); "
                            f"{HOW_TO_WRITE}")
    return _unnamed_layout(path, saved)


def _unnamed_layout(path: Path, saved: dict[str, Any]) -> EvalFile:
    """A file of ``avalon eval`` (its ``scoring`` holds the scored worlds) or of ``avalon train``
    (episodes only: raw scores) written before the layout had a name."""
    scoring = saved.get("scoring") or {}
    try:
        if "worlds" in scoring:
            episodes = [dict(world, episode_length=world["length"]) for world in scoring["worlds"]]
        else:
            episodes = [dict(episode, key=episode_from_json(episode).key, normalised=None) for episode in saved["episodes"]]
    except (KeyError, TypeError, ValueError) as error:
        raise EvalFileError(f"{path}: an episode lacks a field of an eval.json ({type(error).__name__}: {error}); "
                            f"{HOW_TO_WRITE}") from None
    policy = saved.get("policy") or (f"checkpoint {saved['checkpoint']}" if "checkpoint" in saved else "not named in the file")
    return EvalFile(path=path, policy=policy, worlds=saved.get("worlds", "not named in the file"), episodes=tuple(episodes),
                    version=1, content=saved)


def _fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    names = {field.name for field in attr.fields(EpisodeResult)}
    values = {name: entry[name] for name in names if name in entry}
    values["achievements"] = tuple(values.get("achievements", ()))
    return values


def episode_from_json(entry: Mapping[str, Any]) -> EpisodeResult:
    """An :class:`EpisodeResult` from an episode's entry (extra keys such as ``key`` ignored)."""
    return EpisodeResult(**_fields(entry))


def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")
