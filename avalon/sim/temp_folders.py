"""Our temporary folders: named after their owner process, removed once that owner is dead.

A library user killed by SIGTERM or SIGKILL runs no clean-up, so the folders it made (a
simulator's ``avalon-sim-*``, generated worlds' ``avalon-worlds-*``, a replay's
``avalon-replay-*``) would stay in the temporary root for ever. Each is therefore named
``avalon-<kind>-<pid>-<start>-<random>``: the owner's process id and its start time (clock ticks
after boot, field 22 of ``/proc/<pid>/stat``). The first :func:`make_temp_folder` of a process
removes the folders of ours whose owner is gone: no process with that pid, a zombie, or a process
with a different start time (the pid was reused). Folders of live owners are never touched, nor
anything that is not a directory of our user with a name of this pattern (symbolic links
included: they are never followed). Folders in the older naming without a pid are left alone: no
owner can be told for them. Processes sharing one temporary root must see each other's pids (one
pid namespace): a container's /tmp shared with the host would make the host's owners look dead.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path

#: The kinds of temporary folder we make; each is ``avalon-<kind>-...`` in the temporary root.
KINDS = ("sim", "worlds", "replay")
_NAME = re.compile(r"^avalon-(?:%s)-(\d+)-(\d+)-[A-Za-z0-9_]+$" % "|".join(KINDS))
_UNKNOWN_START = 0  # where /proc is missing: the owner is then alive for as long as its pid is

_sweep_lock = threading.Lock()
_swept_in_pid: int | None = None  # the process that has swept (a forked child sweeps again)


def process_start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot), or None if it is not running.

    A zombie counts as not running: it has exited and only waits to be reaped. Without
    ``/proc`` the start is unknown: ``_UNKNOWN_START`` for any pid that exists.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return _UNKNOWN_START
    except (OSError, IndexError):
        return None
    # After the closing parenthesis of the command name: state is field 3, starttime field 22.
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def make_temp_folder(kind: str) -> Path:
    """A new folder ``avalon-<kind>-<pid>-<start>-<random>`` in the temporary root.

    The first call of a process first removes the stale folders of dead owners
    (:func:`remove_stale_folders`).
    """
    if kind not in KINDS:
        raise ValueError(f"temporary folder kind {kind!r} is not one of {', '.join(map(repr, KINDS))}")
    remove_stale_folders_once()
    pid = os.getpid()
    start = process_start_ticks(pid)
    prefix = f"avalon-{kind}-{pid}-{_UNKNOWN_START if start is None else start}-"
    return Path(tempfile.mkdtemp(prefix=prefix))


def remove_stale_folders_once() -> None:
    """:func:`remove_stale_folders` on the first call in this process; nothing afterwards."""
    global _swept_in_pid
    with _sweep_lock:
        if _swept_in_pid == os.getpid():
            return
        _swept_in_pid = os.getpid()
        remove_stale_folders()


def remove_stale_folders(root: str | os.PathLike | None = None) -> list[Path]:
    """Removes our temporary folders in ``root`` (default: the temporary root) whose owner is
    dead; returns the paths it removed."""
    root = Path(tempfile.gettempdir() if root is None else root)
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    uid = os.getuid() if hasattr(os, "getuid") else None
    removed = []
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or (uid is not None and info.st_uid != uid):
            continue  # a symbolic link, a file or another user's: not ours to judge
        if _owner_alive(int(match.group(1)), int(match.group(2))):
            continue
        path = root / entry.name
        # rmtree does not follow symbolic links inside the folder (fd-based on Linux).
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _owner_alive(pid: int, start: int) -> bool:
    running_since = process_start_ticks(pid)
    if running_since is None:
        return False
    return start == _UNKNOWN_START or running_since == _UNKNOWN_START or running_since == start
