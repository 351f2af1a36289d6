"""A set built and verified on a local Ray that the test starts: a worker killed in the middle of a
world's reference episode costs only a rerun of that world, and no process is left behind."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest
import ray

from avalon.evaluation.results import EpisodeResult
from avalon.evaluation.sets.build import build_set
from avalon.evaluation.sets.recipe import SetRecipe
from avalon.evaluation.sets.verify import verify_set
from tests.processes import descendants, is_alive, tagged_processes

# One local Ray at a time: the Ray tests share a pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("ray")

#: Climb worlds: the reference agent's episode (a climb) lasts long enough to be interrupted.
RECIPE = SetRecipe(name="onray", version=1, worlds_per_task=4, hardest_share=0.0, force_every_value=False, only_tasks=("climb",))


def _kill_the_first_worker_in_an_episode(scratch: Path, killed: list, stop: threading.Event) -> None:
    """SIGKILLs the first worker seen holding a world's folder (``avalon-worlds-<pid>-...``, there
    while it makes a world) with a simulator running: its reference agent is playing the world."""
    while not stop.is_set():
        for folder in scratch.glob("avalon-worlds-*"):
            pid = int(folder.name.split("-")[2])
            if pid != os.getpid() and folder.exists() and any(name.startswith("godot") for name in descendants(pid).values()):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
        time.sleep(0.05)


@pytest.mark.godot
@pytest.mark.slow
def test_a_set_on_a_local_ray_survives_a_killed_worker_and_leaves_no_process(tmp_path, monkeypatch, request):
    tag = f"avalon-ray-test-{uuid.uuid4().hex}"
    # Short: Ray puts its session (and Unix sockets, at most 107 bytes) in the temporary folder.
    scratch = Path(tempfile.mkdtemp(prefix="avr-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    assert not ray.is_initialized()
    local = build_set(RECIPE, tmp_path / "local", jobs=1, run_reference=False, progress=False)
    # Inherited by Ray's processes, its workers and their simulators: how the test finds them
    # (set after the local build, whose process pool's resource tracker lives as long as pytest).
    monkeypatch.setenv("AVALON_RAY_TEST_TAG", tag)
    monkeypatch.setenv("TMPDIR", str(scratch))

    killed: list[int] = []
    stop = threading.Event()
    killer = threading.Thread(target=_kill_the_first_worker_in_an_episode, args=(scratch, killed, stop), daemon=True)
    killer.start()
    try:
        on_ray = build_set(RECIPE, tmp_path / "ray", jobs=2, ray_address="local", run_reference=True, progress=False)
    finally:
        stop.set()
        killer.join()
    assert killed, "no worker was seen at work"
    assert on_ray.cost.retries >= 1 and on_ray.cost.backend == "Ray at local (2 CPUs)"
    assert on_ray.evalset.worlds == local.evalset.worlds  # the same worlds, whichever worker made them
    assert all(isinstance(built.reference, EpisodeResult) for built in on_ray.built)
    assert not ray.is_initialized()

    verified = verify_set("onray", tmp_path / "ray", jobs=2, ray_address="local", progress=False)
    assert verified.ok and verified.cost.backend == "Ray at local (2 CPUs)"
    assert not ray.is_initialized()

    deadline = time.monotonic() + 60.0
    while tagged_processes(tag) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert tagged_processes(tag) == {}
    assert not is_alive(killed[0])
