"""World folders generated ahead of time by a background process, off the critical path.

A :class:`WorldSupply` owns one generator process (``python -m avalon.training.world_supply DIR``: a
fresh interpreter that shares nothing with the trainer's threads or torch, speaking JSON lines on
its standard input and output) and a FIFO of requests: :meth:`WorldSupply.submit` queues a
``(task, difficulty, seed)`` and returns at once; :meth:`WorldSupply.take` returns the oldest
request's folder, waiting only if it is not ready yet. Keeping a couple of requests in flight per
environment means a reset never waits on generation in steady state, while the difficulties of
the worlds still follow the curriculum closely (each is drawn when its request is made).

The generator process exits when its pipe closes: on :meth:`close`, at interpreter exit, or when
the Python process dies outright. Folders are written under the supply's own temporary directory,
which :meth:`close` removes (and the generator as it exits, should the trainer have died
outright; should both have died, the next process to start: :mod:`avalon.sim.temp_folders`);
callers delete each folder once its episode is over (:meth:`discard`).
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TextIO

import attr

from avalon.errors import AvalonError, check_number
from avalon.sim.temp_folders import make_temp_folder
from avalon.tasks import check_difficulty, check_seed, check_task, world_key
from avalon.tasks.kit.forcing import ForcedOptions, check_forced

#: Niceness of the generator process: generation runs ahead, so the simulators come first.
GENERATOR_NICENESS = 5
#: The generator process's stderr, in the supply's directory.
GENERATOR_LOG = "generator.log"


class WorldSupplyError(AvalonError):
    """The generator process failed or did not answer in time."""


@attr.s(frozen=True, auto_attribs=True)
class WorldRequest:
    """Which world to generate: the task, its difficulty in [0, 1], the world seed and the
    generator options it forces (:mod:`avalon.tasks.kit.forcing`; empty for most worlds)."""

    task: str
    difficulty: float
    seed: int
    forced: ForcedOptions = attr.ib(factory=ForcedOptions, converter=ForcedOptions.of)

    def __attrs_post_init__(self) -> None:
        spec = check_task(self.task)
        check_difficulty(self.difficulty)
        check_seed(self.seed)
        check_forced(self.task, spec.forcing, self.forced)

    @property
    def folder_name(self) -> str:
        return world_key(self.task, self.difficulty, self.seed)

    def to_json(self) -> dict:
        """The request as JSON values; ``WorldRequest(**request.to_json())`` is the same request."""
        return {"task": self.task, "difficulty": self.difficulty, "seed": self.seed, "forced": dict(self.forced)}


@attr.s(frozen=True, auto_attribs=True)
class SuppliedWorld:
    """A generated world folder, or the error its generation raised."""

    request: WorldRequest
    path: Path | None
    #: Seconds the generator spent on it, and seconds :meth:`WorldSupply.take` waited for it.
    generation_s: float
    wait_s: float
    error: str | None = None


def _serve(requests: TextIO, replies: TextIO, directory: Path, remove_at_end: bool = False) -> None:
    """The generator process: answers each request line, in order, until its input closes.

    With ``remove_at_end`` (the supply's own temporary directory) it then deletes ``directory``:
    when the trainer was killed outright (SIGKILL runs no clean-up) the generator is the last
    one left who knows the folder.
    """
    try:
        _answer(requests, replies, directory)
    finally:
        if remove_at_end:
            shutil.rmtree(directory, ignore_errors=True)


def _answer(requests: TextIO, replies: TextIO, directory: Path) -> None:
    try:
        os.nice(GENERATOR_NICENESS)
    except OSError:
        pass
    from avalon.tasks import generate_world  # imported here: only the generator process needs it

    for line in requests:
        request = WorldRequest(**json.loads(line))
        start = time.perf_counter()
        try:
            path = generate_world(request.task, request.difficulty, request.seed, directory / request.folder_name,
                                  forced=request.forced)
            reply = {"path": str(path), "generation_s": time.perf_counter() - start, "error": None}
        except Exception as error:  # reported to the caller, which decides what to do
            reply = {
                "path": None,
                "generation_s": time.perf_counter() - start,
                "error": f"{type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}",
            }
        try:
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
        except (BrokenPipeError, OSError):
            return


#: Tells the generator process that the directory is the supply's own, to delete when it ends.
REMOVE_AT_END_FLAG = "--remove-at-end"


class WorldSupply:
    """Generates requested worlds in a background process, in request order."""

    def __init__(self, directory: str | os.PathLike | None = None, timeout_s: float = 300.0) -> None:
        timeout_s = check_number(timeout_s, "timeout_s", above=0, unit="seconds")
        self._owns_directory = directory is None
        self.directory = make_temp_folder("worlds") if directory is None else Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.timeout_s = timeout_s
        self._pending: collections.deque[WorldRequest] = collections.deque()
        self._lock = threading.Lock()
        self._log_path = self.directory / GENERATOR_LOG
        with open(self._log_path, "wb") as log:
            # A module run by path, not multiprocessing: the caller's script is never re-imported.
            # Its own session: a terminal's Ctrl-C goes to the trainer alone, which then stops
            # cleanly (it may still need a world); the generator ends when its input closes.
            self._process: subprocess.Popen | None = subprocess.Popen(
                [sys.executable, "-m", "avalon.training.world_supply", str(self.directory)]
                + ([REMOVE_AT_END_FLAG] if self._owns_directory else []),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, bufsize=0, start_new_session=True,
            )
        self._received = b""  # reply bytes read but not yet consumed (replies are JSON lines)
        _live_supplies.add(self)

    @property
    def pending(self) -> int:
        """Requests submitted and not yet taken."""
        return len(self._pending)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def submit(self, request: WorldRequest) -> None:
        """Queues ``request``; returns immediately."""
        with self._lock:
            self._check_open()
            try:
                self._process.stdin.write((json.dumps(request.to_json()) + "\n").encode())
            except (BrokenPipeError, OSError) as error:
                raise self._died(request) from error
            self._pending.append(request)

    def take(self) -> SuppliedWorld:
        """The oldest request's world (waits for it). A failed generation comes back with ``error`` set."""
        with self._lock:
            self._check_open()
            if not self._pending:
                raise WorldSupplyError("take() with no request pending: submit() one first")
            request = self._pending.popleft()
            start = time.perf_counter()
            line = self._read_line(request, start + self.timeout_s)
        reply = json.loads(line)
        path = Path(reply["path"]) if reply["path"] else None
        return SuppliedWorld(request, path, reply["generation_s"], time.perf_counter() - start, reply["error"])

    def discard(self, world: SuppliedWorld | Path | None) -> None:
        """Deletes a world folder this supply made (its episode is over)."""
        path = world.path if isinstance(world, SuppliedWorld) else world
        if path is not None and Path(path).parent == self.directory:
            shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Stops the generator process and removes every folder this supply made."""
        with self._lock:
            self._stop(kill=False)
        if self._owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)
        else:
            for request in list(self._pending):
                shutil.rmtree(self.directory / request.folder_name, ignore_errors=True)
            self._log_path.unlink(missing_ok=True)
        self._pending.clear()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _check_open(self) -> None:
        if self._process is None:
            raise WorldSupplyError("this world supply is closed")

    def _read_line(self, request: WorldRequest, deadline: float) -> bytes:
        """The next reply line; raw reads, so nothing waits unseen in a buffer while select() sleeps."""
        descriptor = self._process.stdout.fileno()
        while b"\n" not in self._received:
            ready, _, _ = select.select([descriptor], [], [], max(0.0, deadline - time.perf_counter()))
            if not ready:
                self._stop(kill=True)
                raise WorldSupplyError(
                    f"the world generator did not deliver {request} within {self.timeout_s:.0f} s; it was stopped"
                )
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise self._died(request)
            self._received += chunk
        line, self._received = self._received.split(b"\n", 1)
        return line

    def _died(self, request: WorldRequest) -> WorldSupplyError:
        code = self._process.poll() if self._process is not None else None
        try:
            tail = "\n".join(self._log_path.read_text(errors="replace").splitlines()[-15:])
        except OSError:
            tail = "(no log)"
        self._stop(kill=True)
        return WorldSupplyError(f"the world generator died (exit code {code}) while making {request}; its log ends:\n{tail}")

    def _stop(self, kill: bool) -> None:
        process, self._process = self._process, None
        _live_supplies.discard(self)
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()  # the generator sees the end of its input and exits
            except OSError:
                pass
        try:
            process.wait(timeout=0.5 if kill else 10.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


_live_supplies: "set[WorldSupply]" = set()


@atexit.register
def _close_all_at_exit() -> None:
    for supply in list(_live_supplies):
        supply.close()


if __name__ == "__main__":
    _serve(sys.stdin, sys.stdout, Path(sys.argv[1]), remove_at_end=REMOVE_AT_END_FLAG in sys.argv[2:])
