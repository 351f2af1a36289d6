"""Local worker processes for a set's worlds: results as they finish, a dead worker's world made again."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from avalon.evaluation.sets.runner import JobStats, WorkerCrashError, run_jobs


def square(value: int) -> int:
    return value * value


def die_once(folder: str, value: int) -> int:
    """Kills its own worker (SIGKILL, like the OOM killer) the first time it sees ``value`` 2."""
    marker = Path(folder) / f"died-{value}"
    if value == 2 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return value * value


def always_die(value: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return value


def sleep_unless_first(folder: str, value: int) -> int:
    """Returns at once for 0; otherwise records its worker, sleeps 30 s and records that it finished."""
    if value:
        # Written whole, then renamed: a worker ended mid-write must not leave an empty record.
        (Path(folder) / f"pid-{value}").write_text(str(os.getpid()))
        (Path(folder) / f"pid-{value}").rename(Path(folder) / f"worker-{value}")
        time.sleep(30.0)
        (Path(folder) / f"finished-{value}").write_text("")
    return value


def refuse_three(value: int) -> int:
    if value == 3:
        raise ValueError("three is refused")
    return value


def test_every_result_comes_back_with_its_index():
    stats = JobStats()
    results = dict(run_jobs(square, [(v,) for v in range(7)], jobs=2, stats=stats))
    assert results == {v: v * v for v in range(7)}
    assert stats.retries == 0 and stats.backend == "2 local process(es)"


def test_a_world_whose_worker_died_is_made_again_in_a_fresh_worker(tmp_path):
    stats = JobStats()
    results = dict(run_jobs(die_once, [(str(tmp_path), v) for v in range(6)], jobs=2, stats=stats))
    assert results == {v: v * v for v in range(6)}
    assert (tmp_path / "died-2").exists()
    assert stats.retries >= 1  # world 2, and whatever else was unfinished in the broken pool


def test_a_world_that_kills_every_worker_stops_the_run_after_its_attempts():
    with pytest.raises(WorkerCrashError, match=r"job 0 lost its worker on all 2 attempts"):
        list(run_jobs(always_die, [(0,)], jobs=1, max_attempts=2))


def test_an_exception_of_the_function_is_not_a_crash_and_stops_the_run():
    with pytest.raises(ValueError, match="three is refused"):
        list(run_jobs(refuse_three, [(v,) for v in range(5)], jobs=2))


def test_a_run_stopped_by_its_caller_ends_its_workers_without_finishing_their_calls(tmp_path):
    """A stopped ``avalon evalset build`` / ``baseline`` (Ctrl-C, SIGTERM) must not go on with its worlds."""
    results = run_jobs(sleep_unless_first, [(str(tmp_path), v) for v in range(4)], jobs=2)
    assert next(results) == (0, 0)
    while not list(tmp_path.glob("worker-*")):  # the other worker has started a sleeping call
        time.sleep(0.05)
    results.close()
    workers = [int(path.read_text()) for path in tmp_path.glob("worker-*")]
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not list(tmp_path.glob("finished-*"))


@pytest.mark.parametrize("jobs", [0, -1, 1.5])
def test_bad_job_counts_are_refused(jobs):
    with pytest.raises(ValueError, match=f"jobs={jobs!r} must be an int >= 1"):
        list(run_jobs(square, [(1,)], jobs=jobs))
