"""Replaying every episode file under a folder, in parallel: ``avalon replay FOLDER --jobs N``.

Each worker process keeps one simulator per recorded configuration (:class:`Replayer`) and
replays the files it is given one after another; results come back as they finish (a progress bar
counts them) and are listed in file order. A file that cannot be replayed (unreadable, an unsafe
world inside, a simulator that fails) is a row with its error, not the end of the run.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Sequence

import attr
from tqdm import tqdm

from avalon.episodes.recording import Replayer

#: The episode files of a folder: every ``*.npz`` below it.
EPISODE_GLOB = "*.npz"


@attr.s(frozen=True, auto_attribs=True)
class FileReplay:
    """One file's replay: ``identical``, or where it first differed (``first_difference``), or the
    ``error`` that stopped it; the replayed episode's frames, score (Appendix M) and success."""

    path: Path
    identical: bool
    frames: int = 0
    first_difference: str | None = None
    error: str | None = None
    score: float | None = None
    success: bool | None = None

    @property
    def outcome(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        return "identical" if self.identical else f"DIFFERENT: {self.first_difference}"


def episode_files(folder: str | os.PathLike) -> list[Path]:
    """Every episode file below ``folder``, sorted; ``ValueError`` if it is not a folder or has none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    files = sorted(path for path in folder.rglob(EPISODE_GLOB) if path.is_file())
    if not files:
        raise ValueError(f"{folder} holds no episode files ({EPISODE_GLOB})")
    return files


_replayer: Replayer | None = None


def _start_worker() -> None:
    global _replayer
    _replayer = Replayer()
    atexit.register(_replayer.close)


def _replay_one(path: Path) -> FileReplay:
    assert _replayer is not None
    try:
        result = _replayer.replay(path)
    except Exception as error:  # every failure is this file's row; the run goes on
        return FileReplay(path, identical=False, error=f"{type(error).__name__}: {error}")
    first = None
    if not result.identical:
        first = result.describe().splitlines()[0].removeprefix("DIFFERENT: ")
        if result.differing_keys:
            first += f" ({', '.join(result.differing_keys)})"
    return FileReplay(path, result.identical, result.frames, first, None, result.score, result.success)


def replay_files(files: Sequence[Path], jobs: int = 2, progress: bool = True) -> list[FileReplay]:
    """Replays ``files`` in ``jobs`` worker processes; the results in the order of ``files``."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ValueError(f"jobs {jobs!r} must be a positive whole number of worker processes")
    results: dict[Path, FileReplay] = {}
    context = multiprocessing.get_context("spawn")  # no simulator sockets or threads inherited
    with ProcessPoolExecutor(max_workers=min(jobs, len(files)), mp_context=context, initializer=_start_worker) as pool:
        futures = {pool.submit(_replay_one, path): path for path in files}
        with tqdm(total=len(files), desc="replaying", unit="episode", disable=not progress) as bar:
            for future in as_completed(futures):
                path = futures[future]
                try:
                    results[path] = future.result()
                except Exception as error:  # the worker itself died
                    results[path] = FileReplay(path, identical=False, error=f"worker failed: {error}")
                bar.update()
    return [results[path] for path in files]


def replay_table(results: Sequence[FileReplay], root: str | os.PathLike) -> str:
    """A Markdown table of the results, files relative to ``root``, and a count."""
    lines = ["| episode file | steps | replay | score | success |", "|---|---|---|---|---|"]
    for result in results:
        score = "" if result.score is None else f"{result.score:.3f}"
        success = "" if result.success is None else ("yes" if result.success else "no")
        lines.append(f"| {result.path.relative_to(root)} | {result.frames} | {result.outcome} | {score} | {success} |")
    same = sum(result.identical for result in results)
    lines.append("")
    lines.append(f"{same} of {len(results)} episode files replay identically.")
    return "\n".join(lines)
