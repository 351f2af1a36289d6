"""The per-episode file of an evaluation (JSON Lines): one line per world as soon as its episode
ends, so an interrupted evaluation resumes from it instead of starting over.

The first line is the header: what was evaluated and how (``policy``, ``action_space``,
``resolution``, ``time_limits``, ``set``). Resuming with a different header is refused, naming
the field and both values: the file's episodes would not belong to the evaluation asked for.
Each further line is one finished episode (:class:`~avalon.evaluation.results.EpisodeResult`'s fields and
``key``, the world's ``WorldRequest.folder_name``) or one world given up (``"failed": true``; it
is played again on resume). A last line cut short by a kill is dropped and overwritten.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Mapping

import attr

from avalon.evaluation.eval_file import episode_from_json
from avalon.evaluation.results import EpisodeResult, FailedWorld

#: The header's ``kind``: marks the file as ours.
LOG_KIND = "avalon-eval-episodes"
LOG_VERSION = 1
#: The header fields that must match for a file to be resumed.
HEADER_FIELDS = ("policy", "action_space", "resolution", "time_limits", "set")


class EpisodeLogError(ValueError):
    """A per-episode file that cannot be read or resumed: the message says which line or field."""


class EpisodeLog:
    """Appends outcomes to ``path`` (one line each, flushed to disk) and reads back the finished
    episodes of an earlier run with the same ``header``. Safe to append from several threads."""

    def __init__(self, path: str | Path, header: Mapping[str, Any]) -> None:
        missing = [name for name in HEADER_FIELDS if name not in header]
        if missing:
            raise ValueError(f"episode log header lacks {missing}; expected the fields {list(HEADER_FIELDS)}")
        self.path = Path(path)
        self.header = {"kind": LOG_KIND, "version": LOG_VERSION, **{name: header[name] for name in HEADER_FIELDS}}
        self._lock = threading.Lock()

    def open(self) -> dict[str, EpisodeResult]:
        """Creates the file with its header, or checks an existing one's header and returns its
        finished episodes by key (a cut-short last line is removed from the file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._write_line(self.header, mode="w")
            return {}
        data = self.path.read_bytes()
        complete, _, tail = data.rpartition(b"\n")
        if tail:  # the last line has no newline: written up to a kill
            try:
                json.loads(tail)
            except ValueError:
                with open(self.path, "r+b") as file:  # drop it: its world is played again
                    file.truncate(len(complete) + 1 if complete else 0)
                tail = b""
            else:
                with open(self.path, "ab") as file:
                    file.write(b"\n")
        if not complete and not tail:  # only a cut-short header was written
            self._write_line(self.header, mode="w")
            return {}
        lines = (complete + b"\n" + tail if complete else tail).decode().split("\n")
        episodes: dict[str, EpisodeResult] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                raise EpisodeLogError(f"{self.path}: line {number} is not JSON: {line[:80]!r}") from None
            if number == 1:
                self._check_header(entry)
            elif not entry.get("failed"):
                try:
                    episodes[entry["key"]] = episode_from_json(entry)
                except (KeyError, TypeError) as error:
                    raise EpisodeLogError(f"{self.path}: line {number} is not an episode ({error}): {line[:80]!r}") from None
        return episodes

    def append(self, key: str, outcome: EpisodeResult | FailedWorld) -> None:
        """Writes one world's outcome as a line and flushes it to disk."""
        entry: dict[str, Any] = {"key": key, **attr.asdict(outcome)}
        if isinstance(outcome, FailedWorld):
            entry["failed"] = True
        with self._lock:
            self._write_line(entry, mode="a")

    def _check_header(self, entry: Mapping[str, Any]) -> None:
        if entry.get("kind") != LOG_KIND:
            raise EpisodeLogError(f"{self.path} is not an evaluation's per-episode file (its first line has kind "
                                  f"{entry.get('kind')!r}, expected {LOG_KIND!r})")
        for name in HEADER_FIELDS:
            if entry.get(name) != self.header[name]:
                raise EpisodeLogError(
                    f"{self.path} holds the episodes of another evaluation: its {name} is {entry.get(name)!r}, this "
                    f"evaluation's is {self.header[name]!r}; give another --out or remove the file to start over"
                )

    def _write_line(self, entry: Mapping[str, Any], mode: str) -> None:
        with open(self.path, mode) as file:
            file.write(json.dumps(entry) + "\n")
            file.flush()
            os.fsync(file.fileno())
