"""Running one function over many worlds in parallel: local processes, or Ray tasks.

Building and verifying a set are embarrassingly parallel over its worlds. :func:`run_jobs` calls a
module-level function once per argument tuple and yields ``(index, result)`` as each call finishes:

- locally, in ``jobs`` worker processes (``spawn``: fresh interpreters, nothing inherited from the
  caller's threads or torch);
- with ``ray_address``, as Ray tasks (one CPU each): ``"local"`` starts a Ray on this machine with
  ``jobs`` CPUs and shuts it down at the end; any other value is an existing cluster's address
  (``ray.init(address=...)``; its nodes need this package installed).

A worker that dies in the middle of a call (killed, out of memory, a crash in native code) costs
only that call's world: the call is made again, up to ``max_attempts`` times in all, and
``JobStats.retries`` counts the reruns. Locally a dead worker breaks the whole pool, so every
unfinished call is made again in a new pool (each counts an attempt). An exception the function
raises is not a crash: it stops the run. A stopped run (that exception, Ctrl-C, SIGTERM, or a caller
that stops reading the results) ends its local workers at once, calls in progress included.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterator, Optional, Sequence

import attr
from tqdm import tqdm

from avalon.errors import AvalonError, check_int
from avalon.training.ray_cluster import LOCAL_RAY, import_ray, start_ray

#: Calls of a function on one world (the first and the reruns after its worker died).
DEFAULT_MAX_ATTEMPTS = 3


class WorkerCrashError(AvalonError):
    """A world's call lost its worker on every attempt."""


@attr.s(auto_attribs=True)
class JobStats:
    """What a run did: calls made again after their worker died, where it ran, and (from
    :func:`run_over_worlds`) its wall time in seconds."""

    retries: int = 0
    backend: str = ""
    wall_s: float = 0.0


def default_jobs() -> int:
    return os.cpu_count() or 1


def run_jobs(function: Callable[..., Any], arguments: Sequence[tuple], *, jobs: Optional[int] = None,
             ray_address: Optional[str] = None, max_attempts: int = DEFAULT_MAX_ATTEMPTS,
             stats: Optional[JobStats] = None) -> Iterator[tuple[int, Any]]:
    """``(index, function(*arguments[index]))`` for every index, in the order they finish (see the
    module's docstring). ``stats`` (optional) is filled in as the run goes."""
    jobs = check_int(default_jobs() if jobs is None else jobs, "jobs", low=1, unit="worker processes")
    max_attempts = check_int(max_attempts, "max_attempts", low=1)
    stats = stats if stats is not None else JobStats()
    if ray_address is None:
        return _run_local(function, arguments, jobs, max_attempts, stats)
    return _run_ray(function, arguments, jobs, ray_address, max_attempts, stats)


def run_over_worlds(function: Callable[..., Any], arguments: Sequence[tuple], *, description: str, jobs: Optional[int] = None,
                    ray_address: Optional[str] = None, progress: bool = True) -> tuple[list[Any], JobStats]:
    """Every call's result in the order of ``arguments`` (:func:`run_jobs`), a progress bar on
    stderr named ``description`` meanwhile, and what the run did."""
    start = time.perf_counter()
    stats = JobStats()
    results: list[Any] = [None] * len(arguments)
    finished = run_jobs(function, arguments, jobs=jobs, ray_address=ray_address, stats=stats)
    for index, result in tqdm(finished, total=len(arguments), desc=description, disable=not progress, file=sys.stderr):
        results[index] = result
    stats.wall_s = time.perf_counter() - start
    return results, stats


def _give_up(index: int, attempts: int, why: str) -> WorkerCrashError:
    return WorkerCrashError(f"job {index} lost its worker on all {attempts} attempts (last: {why})")


def _run_local(function, arguments, jobs: int, max_attempts: int, stats: JobStats) -> Iterator[tuple[int, Any]]:
    stats.backend = f"{jobs} local process(es)"
    attempts = dict.fromkeys(range(len(arguments)), 0)
    todo = list(range(len(arguments)))
    context = multiprocessing.get_context("spawn")
    while todo:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=context) as pool:
            futures = {pool.submit(function, *arguments[index]): index for index in todo}
            for index in todo:
                attempts[index] += 1
            broken = None
            try:
                while futures and broken is None:
                    done, _ = wait(futures, return_when=FIRST_COMPLETED)
                    for future in done:
                        index = futures.pop(future)
                        try:
                            result = future.result()
                        except BrokenProcessPool as error:
                            broken = error
                            futures[future] = index  # unfinished: made again below
                            continue
                        todo.remove(index)
                        yield index, result
            except BaseException:  # the function's error, Ctrl-C, SIGTERM, or the caller stopped reading
                _stop_workers(pool)
                raise
            if broken is not None:
                unfinished = sorted(futures.values())
                for index in unfinished:
                    if attempts[index] >= max_attempts:
                        raise _give_up(index, attempts[index], f"{type(broken).__name__}: {broken}")
                stats.retries += len(unfinished)
                todo = unfinished


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """Drops the calls not yet started and ends the workers in the middle of theirs: the pool's own
    exit would first run every queued call (a stopped ``baseline`` of a 750-world set went on for
    its remaining hours). A worker's simulator quits when its connection closes."""
    workers = list((pool._processes or {}).values())  # the executor has no public way to end a running call
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=10)


def _run_ray(function, arguments, jobs: int, address: str, max_attempts: int, stats: JobStats) -> Iterator[tuple[int, Any]]:
    ray = import_ray("--ray")
    from ray.exceptions import LocalRayletDiedError, NodeDiedError, WorkerCrashedError

    started = start_ray(ray, address, jobs)
    stats.backend = f"Ray at {address}" + (f" ({jobs} CPUs)" if address == LOCAL_RAY else "")
    try:
        # Ray does not retry by itself: a rerun is counted, and limited to max_attempts.
        remote = ray.remote(num_cpus=1, max_retries=0)(function)
        attempts = dict.fromkeys(range(len(arguments)), 1)
        pending = {remote.remote(*arguments[index]): index for index in range(len(arguments))}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(done[0])
            try:
                result = ray.get(done[0])
            except (WorkerCrashedError, NodeDiedError, LocalRayletDiedError) as error:
                if attempts[index] >= max_attempts:
                    raise _give_up(index, attempts[index], f"{type(error).__name__}: {error}") from None
                attempts[index] += 1
                stats.retries += 1
                pending[remote.remote(*arguments[index])] = index
                continue
            yield index, result
    finally:
        if started:
            ray.shutdown()
