"""Our temporary folders: named after their owner, removed once it is dead. Real processes, no Godot."""

import os
import re
import signal
import subprocess
import sys
import tempfile

import pytest

from avalon.sim import temp_folders
from avalon.sim.temp_folders import make_temp_folder, process_start_ticks, remove_stale_folders


def _start_of_a_finished_process() -> tuple[int, int]:
    """(pid, start ticks) of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    start = process_start_ticks(child.pid)
    child.kill()
    child.wait()
    assert start is not None and process_start_ticks(child.pid) is None
    return child.pid, start


def test_folders_carry_the_owner_pid_and_start_time(monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for kind in temp_folders.KINDS:
        folder = make_temp_folder(kind)
        assert folder.parent == tmp_path and folder.is_dir()
        match = re.fullmatch(rf"avalon-{kind}-(\d+)-(\d+)-\w+", folder.name)
        assert match, folder.name
        assert int(match.group(1)) == os.getpid()
        assert int(match.group(2)) == process_start_ticks(os.getpid())
    with pytest.raises(ValueError, match="kind 'bench' is not one of 'sim', 'worlds', 'replay'"):
        make_temp_folder("bench")


def test_only_folders_of_ours_whose_owner_is_dead_are_removed(tmp_path):
    root = tmp_path / "tmp"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "precious").write_text("not ours")
    me, my_start = os.getpid(), process_start_ticks(os.getpid())
    dead, dead_start = _start_of_a_finished_process()
    zombie_process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    zombie_start = process_start_ticks(zombie_process.pid)
    live_process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    live_start = process_start_ticks(live_process.pid)
    try:
        os.kill(zombie_process.pid, signal.SIGKILL)
        os.waitid(os.P_PID, zombie_process.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
        stale = {
            f"avalon-sim-{dead}-{dead_start}-abc123": "owner exited",
            f"avalon-worlds-{me}-{my_start + 1}-abc123": "pid reused: a process started at another time has it",
            f"avalon-replay-{zombie_process.pid}-{zombie_start}-abc123": "owner is a zombie",
        }
        kept = {
            f"avalon-sim-{me}-{my_start}-abc123": "this process",
            f"avalon-worlds-{live_process.pid}-{live_start}-abc123": "another live process",
            "avalon-sim-k2j3h4_x": "old naming, no owner",
            f"avalon-bench-{dead}-{dead_start}-abc123": "not one of our kinds",
            f"avalon-sim-{dead}-{dead_start}": "not our pattern",
        }
        for name in [*stale, *kept]:
            (root / name).mkdir()
            (root / name / "data").write_text(name)
        # A stale folder holding a link out of the root: removed, the link's target untouched.
        (root / f"avalon-sim-{dead}-{dead_start}-abc123" / "link").symlink_to(outside)
        # Names of ours that are not folders, or a link to one: never touched.
        link = root / f"avalon-sim-{dead}-{dead_start}-link01"
        link.symlink_to(outside, target_is_directory=True)
        not_a_folder = root / f"avalon-sim-{dead}-{dead_start}-file01"
        not_a_folder.write_text("a file")
        others = root / f"avalon-sim-{dead}-{dead_start}-other1"
        others.mkdir()
        if os.getuid() == 0:
            os.chown(others, 65534, 65534)  # another user's: not ours to judge

        removed = remove_stale_folders(root)

        assert sorted(path.name for path in removed) == sorted(stale)
        for name, why in kept.items():
            assert (root / name / "data").read_text() == name, why
        assert link.is_symlink() and not_a_folder.is_file()
        assert (outside / "precious").read_text() == "not ours"
        assert others.is_dir() == (os.getuid() == 0)
    finally:
        for process in (zombie_process, live_process):
            process.kill()
            process.wait()


def test_a_process_removes_stale_folders_with_its_first_folder_only(tmp_path):
    dead, dead_start = _start_of_a_finished_process()
    stale = tmp_path / f"avalon-sim-{dead}-{dead_start}-abc123"
    script = (
        "import os, sys; from pathlib import Path; from avalon.sim.temp_folders import make_temp_folder\n"
        "make_temp_folder('worlds')\n"
        "assert not Path(sys.argv[1]).exists()\n"
        "os.mkdir(sys.argv[1])\n"
        "make_temp_folder('sim')\n"  # the second folder of the process sweeps no more
        "assert Path(sys.argv[1]).exists()\n"
    )
    stale.mkdir()
    subprocess.run([sys.executable, "-c", script, str(stale)], check=True, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert stale.exists()  # the child made it again after its sweep
    assert len(list(tmp_path.glob("avalon-worlds-*"))) == 1 and len(list(tmp_path.glob("avalon-sim-*"))) == 2
