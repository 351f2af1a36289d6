"""Worlds generated ahead in a background process: order, bytes, failures, clean-up. No Godot."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from avalon.datagen.world_folder import read_world_info
from avalon.tasks import generate_world
from avalon.training.world_supply import WorldRequest, WorldSupply, WorldSupplyError
from tests.sim.test_lifecycle import alive, wait_gone as gone_after


def wait_gone(pid: int, timeout_s: float = 15.0) -> bool:
    return not gone_after([pid], timeout_s)


def test_worlds_come_back_in_request_order_with_the_same_bytes_as_direct_generation(tmp_path):
    requests = [WorldRequest("eat", 0.0, 3), WorldRequest("move", 0.25, 4), WorldRequest("trivial", 0.0, 5)]
    supply = WorldSupply()
    try:
        for request in requests:
            supply.submit(request)
        assert supply.pending == 3
        worlds = [supply.take() for _ in requests]
    finally:
        supply.close()
    for request, world in zip(requests, worlds):
        assert world.request == request and world.error is None
        assert world.generation_s > 0 and world.wait_s >= 0
    # The folders are gone with the supply; generate the same worlds directly and compare hashes.
    assert not supply.directory.exists()
    supply = WorldSupply(tmp_path / "again")
    try:
        for request in requests:
            supply.submit(request)
        for request in requests:
            world = supply.take()
            direct = generate_world(request.task, request.difficulty, request.seed, tmp_path / f"direct-{request.seed}")
            assert read_world_info(world.path).content_hash == read_world_info(direct).content_hash
            info = read_world_info(world.path)
            assert (info.task, info.difficulty, info.seed) == (request.task, request.difficulty, request.seed)
    finally:
        supply.close()
    assert (tmp_path / "again").is_dir()  # a folder the caller gave is the caller's: emptied of ours, kept


def test_a_world_requested_ahead_is_ready_when_taken():
    supply = WorldSupply()
    try:
        supply.submit(WorldRequest("eat", 0.0, 1))
        supply.take()  # the first one pays for the generator's start-up
        supply.submit(WorldRequest("eat", 0.0, 2))
        time.sleep(3.0)  # far longer than a Small world takes
        world = supply.take()
        assert world.wait_s < 0.05, world
    finally:
        supply.close()


def test_a_failed_generation_is_reported_and_the_next_request_still_works():
    supply = WorldSupply()
    try:
        blocked = WorldRequest("eat", 0.0, 7)
        (supply.directory / blocked.folder_name).write_text("a file where the world folder should go")
        supply.submit(blocked)
        supply.submit(WorldRequest("eat", 0.0, 8))
        failed = supply.take()
        assert failed.path is None and failed.error
        good = supply.take()
        assert good.error is None and good.path.is_dir()
    finally:
        supply.close()


def test_discard_deletes_a_finished_world_and_close_stops_the_generator():
    supply = WorldSupply()
    supply.submit(WorldRequest("trivial", 0.0, 1))
    supply.submit(WorldRequest("trivial", 0.0, 2))  # still pending at close
    world = supply.take()
    assert world.path.is_dir()
    supply.discard(world)
    assert not world.path.exists()
    pid = supply.pid
    supply.close()
    assert wait_gone(pid)
    assert not supply.directory.exists()
    with pytest.raises(WorldSupplyError, match="closed"):
        supply.submit(WorldRequest("trivial", 0.0, 3))


def test_take_without_a_request_is_an_error():
    supply = WorldSupply()
    try:
        with pytest.raises(WorldSupplyError, match="no request pending"):
            supply.take()
    finally:
        supply.close()


@pytest.mark.parametrize(
    "args, message",
    [(("swim", 0.0, 1), "unknown task 'swim'"), (("eat", 1.5, 1), "difficulty 1.5"), (("eat", 0.0, -1), "seed -1")],
)
def test_bad_requests_are_refused_before_anything_is_sent(args, message):
    with pytest.raises(ValueError, match=message):
        WorldRequest(*args)


def test_the_generator_exits_when_its_python_process_is_killed(tmp_path):
    """No generator outlives a trainer that was killed outright (SIGKILL runs no clean-up)."""
    script = textwrap.dedent(
        """
        import sys, time
        from avalon.training.world_supply import WorldSupply, WorldRequest
        supply = WorldSupply()
        supply.submit(WorldRequest("eat", 0.0, 1))
        supply.take()
        print(supply.pid, flush=True)
        time.sleep(600)
        """
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(scratch)})
    try:
        generator = int(process.stdout.readline())
        assert alive(generator)
        assert [path.name for path in scratch.iterdir() if path.name.startswith("avalon-worlds-")]
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    assert wait_gone(generator)
    # ... and takes the supply's temporary folder with it.
    assert [path.name for path in scratch.iterdir() if path.name.startswith("avalon-worlds-")] == []


def test_a_terminals_ctrl_c_reaches_the_trainer_but_not_its_generator(tmp_path):
    """Ctrl-C in a terminal signals the whole foreground process group; a trainer stopping cleanly
    may still take a world, so the generator must not die with it."""
    script = textwrap.dedent(
        """
        import signal, sys
        from avalon.training.world_supply import WorldSupply, WorldRequest
        signal.signal(signal.SIGINT, lambda *_: None)  # the trainer's stop handler, in short (SIG_IGN would be inherited)
        supply = WorldSupply()
        print(supply.pid, flush=True)
        sys.stdin.readline()  # the Ctrl-C has been sent
        supply.submit(WorldRequest("eat", 0.0, 1))
        world = supply.take()
        print("taken" if world.error is None else world.error, flush=True)
        supply.close()
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, start_new_session=True)  # a process group of its own, as a shell's job
    try:
        generator = int(process.stdout.readline())
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.5)
        assert alive(generator)
        process.stdin.write("\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "taken"
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    assert wait_gone(generator)
