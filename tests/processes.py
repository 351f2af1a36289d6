"""Processes seen through /proc, and Godot wrappers that make simulators fail: for the tests
of crash recovery in training and evaluation."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path


def processes() -> dict[int, tuple[str, str, int]]:
    """Every process now: pid -> (command name, state letter, parent pid), from /proc/PID/stat."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = process_stat(int(entry.name))
            if stat is not None:
                table[int(entry.name)] = stat
    return table


def process_stat(pid: int) -> tuple[str, str, int] | None:
    """(command name, state letter, parent pid) of a process, None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return stat[stat.index("(") + 1 : stat.rindex(")")], fields[0], int(fields[1])


def is_alive(pid: int) -> bool:
    stat = process_stat(pid)
    return stat is not None and stat[1] != "Z"


def descendants(root: int) -> dict[int, str]:
    """Living descendants of process ``root``: pid -> command name."""
    table = {pid: stat for pid, stat in processes().items() if stat[1] != "Z"}
    found, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (name, _, ppid) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = name
                frontier.append(pid)
    return found


def tagged_processes(tag: str) -> dict[int, str]:
    """Living processes (but this one) whose environment carries ``tag``: everything a test's Ray
    started, its workers and what they started (simulators, Xvfb), by pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if tag.encode() in (entry / "environ").read_bytes() and is_alive(int(entry.name)):
                found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
        except OSError:
            continue
    return found


def process_environment(pid: int) -> dict[str, str]:
    """The environment a living process started with (``/proc/PID/environ``)."""
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(pair.decode(errors="replace").split("=", 1) for pair in pairs if b"=" in pair)


def our_godot_pids() -> list[int]:
    """Living Godot processes started by this Python process, oldest first."""
    table = processes()
    return sorted(
        pid for pid, (name, state, parent) in table.items() if parent == os.getpid() and name.startswith("godot") and state != "Z"
    )


def godot_that_fails_after(starts: int, directory: Path, binary: str = "godot3-runner") -> Path:
    """A folder to put first on PATH: its ``binary`` is the real Godot for the first ``starts``
    starts and then a simulator that exits with code 3 at once (a broken installation).

    The starts are counted with ``mkdir`` (atomic), so parallel starts each get their own number.
    """
    real = shutil.which(binary)
    assert real is not None, f"{binary} is not installed"
    directory.mkdir(parents=True, exist_ok=True)
    wrapper = directory / binary
    wrapper.write_text(
        "#!/bin/sh\n"
        f"count='{directory}/starts'\n"
        'mkdir -p "$count"\n'
        "i=1\n"
        'while ! mkdir "$count/$i" 2>/dev/null; do i=$((i + 1)); done\n'
        f'if [ "$i" -le {starts} ]; then exec \'{real}\' "$@"; fi\n'
        'echo "test wrapper: Godot start $i refused" >&2\n'
        "exit 3\n"
    )
    wrapper.chmod(0o755)
    return directory


def kill_one_godot_once_two_run(delay_s: float, timeout_s: float = 120.0) -> tuple[threading.Thread, list[int]]:
    """A started thread that waits until two of our Godot processes run, then ``delay_s`` more,
    and kills the first with SIGKILL; the list receives its pid."""
    killed: list[int] = []

    def kill() -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            pids = our_godot_pids()
            if len(pids) == 2:
                time.sleep(delay_s)
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill, daemon=True)
    killer.start()
    return killer, killed
