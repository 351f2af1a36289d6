"""Episode bookkeeping for a same-step autoreset vector env.

The tracker sums rewards and counts steps per env itself (so it works with or without wrappers
that add ``episode_return``/``episode_length``), and takes the outcome of an ending episode
(``success``, ``score``, ``task``, ``difficulty``) from ``infos["final_info"]``, the info of the
ending step that Gymnasium's ``SAME_STEP`` autoreset keeps (the step's own ``infos`` already
describe the next episode).
"""

from __future__ import annotations

import csv
import math
from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attr
import numpy as np

UNKNOWN_TASK = "unknown"

#: A run's episode log, in its ``out_dir`` (see :class:`EpisodeLog`).
EPISODE_LOG_FILE = "episodes.csv"


@attr.s(frozen=True, auto_attribs=True)
class EpisodeRecord:
    task: str
    difficulty: float  # nan when the env did not say
    success: bool
    score: float  # nan when the env did not say
    episode_return: float  # sum of rewards, computed here
    length: int  # steps, computed here


def _final_info(infos: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The ending step's info of env ``index`` from a SAME_STEP vector env's ``infos``."""
    final = infos.get("final_info")
    mask = infos.get("_final_info")
    if not isinstance(final, Mapping) or mask is None or not bool(np.asarray(mask)[index]):
        return {}
    result = {}
    for key, values in final.items():
        if key.startswith("_"):
            continue
        present = final.get(f"_{key}")
        if present is not None and not bool(np.asarray(present)[index]):
            continue
        result[key] = values[index]
    return result


class EpisodeTracker:
    """Follows the running episode of each env; keeps the last ``window`` finished episodes."""

    def __init__(self, num_envs: int, window: int = 100) -> None:
        self.returns = np.zeros(num_envs, np.float64)
        self.lengths = np.zeros(num_envs, np.int64)
        self.recent: deque[EpisodeRecord] = deque(maxlen=window)
        self.finished = 0

    def step(self, rewards: np.ndarray, dones: np.ndarray, infos: Mapping[str, Any]) -> list[EpisodeRecord]:
        """Counts one vector step; returns the episodes that ended at it."""
        self.returns += np.asarray(rewards, np.float64)
        self.lengths += 1
        ended = []
        for index in np.flatnonzero(dones):
            info = _final_info(infos, int(index))
            ended.append(
                EpisodeRecord(
                    task=str(info.get("task", UNKNOWN_TASK)),
                    difficulty=float(info.get("difficulty", math.nan)),
                    success=bool(info.get("success", False)),
                    score=float(info.get("score", math.nan)),
                    episode_return=float(self.returns[index]),
                    length=int(self.lengths[index]),
                )
            )
            self.returns[index] = 0.0
            self.lengths[index] = 0
        self.add(ended)
        return ended

    def add(self, records: Iterable[EpisodeRecord]) -> None:
        """Counts episodes tracked elsewhere (by the tracker of an actor stepping its own envs)."""
        records = list(records)
        self.recent.extend(records)
        self.finished += len(records)

    def recent_success_rate(self) -> float | None:
        if not self.recent:
            return None
        return sum(record.success for record in self.recent) / len(self.recent)


def summarize(records: Iterable[EpisodeRecord]) -> dict[str, float]:
    """TensorBoard scalars for some finished episodes: overall and per task (tag -> mean)."""
    records = list(records)
    if not records:
        return {}
    scalars = _means("episode", records)
    for task in sorted({record.task for record in records}):
        scalars.update(_means(f"task/{task}", [record for record in records if record.task == task]))
    return scalars


def _means(prefix: str, records: list[EpisodeRecord]) -> dict[str, float]:
    scalars = {
        f"{prefix}/success_rate": float(np.mean([record.success for record in records])),
        f"{prefix}/return": float(np.mean([record.episode_return for record in records])),
        f"{prefix}/length": float(np.mean([record.length for record in records])),
        f"{prefix}/count": float(len(records)),
    }
    for name in ("score", "difficulty"):
        values = [getattr(record, name) for record in records if not math.isnan(getattr(record, name))]
        if values:
            scalars[f"{prefix}/{name}"] = float(np.mean(values))
    return scalars


#: The columns of a run's episode log, ``episodes.csv``: one row per finished episode.
EPISODE_LOG_COLUMNS = ("env_steps", "task", "difficulty", "success", "score", "episode_return", "length")


class EpisodeLog:
    """``out_dir/episodes.csv``: every finished training episode, with the env step count of the
    update it ended in (what a learning curve is drawn from; :func:`read_episode_log`).

    On resume from ``resume_steps`` env steps, rows of later steps (written by the interrupted
    run, whose work is now redone) are dropped first, as TensorBoard's events are.
    """

    def __init__(self, path: str | Path, resume_steps: int = 0) -> None:
        self.path = Path(path)
        kept = [row for row in read_episode_log(self.path) if row["env_steps"] <= resume_steps] if resume_steps else []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w", newline="")
        self._writer = csv.writer(self._file)
        self._writer.writerow(EPISODE_LOG_COLUMNS)
        self._writer.writerows(_log_row(row) for row in kept)
        self._file.flush()

    def write(self, env_steps: int, records: Iterable[EpisodeRecord]) -> None:
        for record in records:
            self._writer.writerow(_log_row(dict(attr.asdict(record), env_steps=env_steps)))
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def _log_row(row: Mapping[str, Any]) -> list[Any]:
    return [int(row[column]) if column == "success" else row[column] for column in EPISODE_LOG_COLUMNS]


def read_episode_log(path: str | Path) -> list[dict[str, Any]]:
    """The rows of an episode log (empty if there is none), typed: ints, floats, a bool success."""
    path = Path(path)
    if not path.is_file():
        return []
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    return [
        {
            "env_steps": int(row["env_steps"]),
            "task": row["task"],
            "difficulty": float(row["difficulty"]),
            "success": row["success"] == "1",
            "score": float(row["score"]),
            "episode_return": float(row["episode_return"]),
            "length": int(row["length"]),
        }
        for row in rows
    ]
