"""``avalon benchmark``: steps per second and memory, next to this machine's ceiling and a peer.

In one run it measures, for each renderer: our env on the trivial world with one process and
with several processes stepping at once; ``godot_ceiling.py`` (the fastest any world can step
on this machine's Godot and renderer); and MiniWorld (``peer_sps.sh``). Each figure is the best
of ``repeats`` measurements, taken in turn so that machine noise hits all of them alike.
Besides wall-clock steps per second it reports steps per CPU-second (user + system time of the
Godot and Python processes of each measurement), which other load on a shared machine disturbs
far less. Memory: the Godot process's RSS after 10 and after ``resets`` resets.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import attr

from avalon.datagen.export import export_world
from avalon.dev.bench.figure_files import save_figures
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.sim.display import acquire_display, release_display
from avalon.sim.paths import repository_dir
from avalon.sim.settings import RENDERERS
from avalon.tasks import smoke_world

WARMUP_STEPS = 100
BENCH_TIME_LIMIT_FRAMES = 1_000_000  # the benchmark world never times out mid-measurement
PEER_ENV = "MiniWorld-OneRoom-v0"


def shared_bench_dir() -> Path | None:
    """``$AVALON_SHARED_BENCH``, else ``../shared/bench`` beside the repository, if present."""
    candidates = [os.environ.get("AVALON_SHARED_BENCH"), repository_dir().parent / "shared" / "bench"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "godot_ceiling.py").is_file():
            return Path(candidate)
    return None


def benchmark_world(folder: Path) -> Path:
    return export_world(smoke_world(time_limit_frames=BENCH_TIME_LIMIT_FRAMES), folder)


def _random_actions(env: AvalonEnv, count: int, seed: int) -> list[dict]:
    env.action_space.seed(seed)
    return [env.action_space.sample() for _ in range(count)]


def process_cpu_s(pid: int) -> float:
    """CPU seconds of a process's threads so far: the scheduler's nanosecond count of each thread
    (``/proc/PID/task/*/schedstat``), or, where that is missing, user + system time in clock ticks
    (``/proc/PID/stat``, 10 ms steps)."""
    try:
        return sum(int((task / "schedstat").read_text().split()[0]) for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu_s() -> float:
    """CPU seconds of this process's waited-for descendants (a finished script and its Godot)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@attr.s(frozen=True, auto_attribs=True)
class StepTiming:
    """One timed stepping run: ``steps`` between the monotonic ``started`` and ``ended``, costing
    ``cpu_s`` CPU seconds of its Godot and Python processes."""

    steps: int
    started: float
    ended: float
    cpu_s: float


def measure_steps(world_dir: Path, renderer: str, steps: int, resolution: int, seed: int = 0,
                  start_barrier=None) -> StepTiming:
    """Steps our env ``steps`` times with random actions and times it (wall clock and CPU)."""
    env = AvalonEnv(EnvConfig(renderer=renderer, resolution=resolution, world_dir=str(world_dir)))
    try:
        actions = _random_actions(env, steps + WARMUP_STEPS, seed)
        env.reset(seed=seed)
        for action in actions[:WARMUP_STEPS]:
            env.step(action)
        if start_barrier is not None:
            start_barrier.wait()
        pid = env.simulator_pid
        cpu_started = process_cpu_s(pid) + time.process_time()
        started = time.monotonic()
        for action in actions[WARMUP_STEPS:]:
            env.step(action)
        ended = time.monotonic()
        return StepTiming(steps, started, ended, process_cpu_s(pid) + time.process_time() - cpu_started)
    finally:
        env.close()


def _worker(display: str, world_dir: str, renderer: str, steps: int, resolution: int, seed: int, barrier, results) -> None:
    os.environ["DISPLAY"] = display
    results.put(measure_steps(Path(world_dir), renderer, steps, resolution, seed, barrier))


def measure_processes(world_dir: Path, renderer: str, steps: int, resolution: int, processes: int) -> tuple[float, float]:
    """Aggregate (steps per second, steps per CPU-second) of ``processes`` envs in separate
    Python processes, started together."""
    if processes == 1:
        timing = measure_steps(world_dir, renderer, steps, resolution)
        return timing.steps / (timing.ended - timing.started), timing.steps / timing.cpu_s
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(processes), context.Queue()
    display = acquire_display()
    workers = [
        context.Process(target=_worker, args=(display, str(world_dir), renderer, steps, resolution, index, barrier, results))
        for index in range(processes)
    ]
    try:
        for worker in workers:
            worker.start()
        outcomes = _collect(results, workers, timeout_s=600)
    finally:
        for worker in workers:
            worker.join(timeout=60)
            if worker.is_alive():
                worker.kill()
                worker.join()
        release_display()
    total = sum(timing.steps for timing in outcomes)
    wall = max(timing.ended for timing in outcomes) - min(timing.started for timing in outcomes)
    return total / wall, total / sum(timing.cpu_s for timing in outcomes)


def _collect(results, workers, timeout_s: float) -> list:
    """One result per worker; fails fast when a worker dies instead of waiting out the timeout."""
    outcomes, deadline = [], time.monotonic() + timeout_s
    while len(outcomes) < len(workers):
        try:
            outcomes.append(results.get(timeout=1.0))
        except queue.Empty:
            dead = [w for w in workers if w.exitcode not in (None, 0)]
            if dead or time.monotonic() > deadline:
                codes = [w.exitcode for w in workers]
                raise RuntimeError(f"benchmark worker(s) failed or timed out (exit codes {codes})") from None
    return outcomes


def _run_sps_script(command: list[str], display: str, timeout_s: float) -> float | None:
    env = dict(os.environ, DISPLAY=display)
    try:
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return None
    match = re.search(r"steps_per_second=([0-9.]+)", completed.stdout)
    return float(match.group(1)) if match else None


CEILING_STARTUP_STEPS = 200  # a short extra run of the ceiling: its CPU is start-up plus these steps


def measure_ceiling(bench_dir: Path, renderer: str, resolution: int, steps: int) -> tuple[float | None, float | None]:
    """(steps per second, steps per CPU-second) of ``godot_ceiling.py``.

    Its CPU time (the script and its Godot, as waited-for children) includes start-up, so a
    short run of CEILING_STARTUP_STEPS steps is made as well and subtracted."""
    display = acquire_display()
    try:
        script = bench_dir / "godot_ceiling.py"

        def run(count: int) -> tuple[float | None, float]:
            cpu_before = _children_cpu_s()
            sps = _run_sps_script(["python3", str(script), renderer, str(resolution), str(count)], display, 300)
            return sps, _children_cpu_s() - cpu_before

        sps, cpu_s = run(steps)
        short_sps, short_cpu_s = run(CEILING_STARTUP_STEPS)
        per_cpu_second = None
        if sps is not None and short_sps is not None and cpu_s > short_cpu_s and steps > CEILING_STARTUP_STEPS:
            per_cpu_second = (steps - CEILING_STARTUP_STEPS) / (cpu_s - short_cpu_s)
        return sps, per_cpu_second
    finally:
        release_display()


def measure_peer(bench_dir: Path, resolution: int, seconds: float) -> float | None:
    display = acquire_display()
    try:
        script = bench_dir / "peer_sps.sh"
        return _run_sps_script(["bash", str(script), PEER_ENV, str(resolution), str(int(seconds))], display, 900)
    finally:
        release_display()


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def measure_memory(world_dir: Path, renderer: str, resolution: int, resets: int, progress: Callable[[int], None] | None = None) -> dict:
    """Godot RSS (MB) after 100 steps, after 10 resets and after ``resets`` resets."""
    env = AvalonEnv(EnvConfig(renderer=renderer, resolution=resolution, world_dir=str(world_dir)))
    try:
        actions = _random_actions(env, 100, 0)
        env.reset(seed=0)
        for action in actions:
            env.step(action)
        figures = {"after_100_steps_mb": _rss_mb(env.simulator_pid)}
        for index in range(1, resets + 1):
            env.reset(seed=index)
            env.step(actions[index % len(actions)])
            if index == 10:
                figures["after_10_resets_mb"] = _rss_mb(env.simulator_pid)
            if progress:
                progress(index)
        figures[f"after_{resets}_resets_mb"] = _rss_mb(env.simulator_pid)
        return figures
    finally:
        env.close()


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BenchmarkOptions:
    renderers: tuple[str, ...] = ("GLES2", "GLES3")
    processes: tuple[int, ...] = (1, 2)
    steps: int = 3000
    resolution: int = 96
    repeats: int = 3
    resets: int = 1000
    peer: bool = True


def run_benchmark(options: BenchmarkOptions, say: Callable[[str], None] = print) -> dict:
    """Runs every measurement, prints a table, and returns the figures."""
    bench_dir = shared_bench_dir()
    work = Path(tempfile.mkdtemp(prefix="avalon-bench-"))
    results: dict = {"options": attr.asdict(options), "sps": {}, "sps_cpu": {}, "ceiling": {}, "ceiling_cpu": {}, "memory": {}}
    try:
        world = benchmark_world(work / "world")
        for renderer in options.renderers:
            for repeat in range(options.repeats):
                say(f"[{renderer} round {repeat + 1}/{options.repeats}]")
                for count in options.processes:
                    sps, sps_cpu = measure_processes(world, renderer, options.steps, options.resolution, count)
                    key = f"{renderer}x{count}"
                    results["sps"][key] = max(results["sps"].get(key, 0.0), sps)
                    results["sps_cpu"][key] = max(results["sps_cpu"].get(key, 0.0), sps_cpu)
                    say(f"  ours, {count} process(es): {sps:7.0f} steps/s {sps_cpu:7.0f} steps/CPU-s")
                if bench_dir is not None:
                    ceiling, ceiling_cpu = measure_ceiling(bench_dir, renderer, options.resolution, options.steps)
                    if ceiling is not None:
                        results["ceiling"][renderer] = max(results["ceiling"].get(renderer, 0.0), ceiling)
                    if ceiling_cpu is not None:
                        results["ceiling_cpu"][renderer] = max(results["ceiling_cpu"].get(renderer, 0.0), ceiling_cpu)
                    say(f"  godot_ceiling.py:       {ceiling or float('nan'):7.0f} steps/s "
                        f"{ceiling_cpu or float('nan'):7.0f} steps/CPU-s")
        if options.peer and bench_dir is not None:
            say("[peer: MiniWorld; the first run installs it into a venv]")
            results["peer"] = measure_peer(bench_dir, options.resolution, 10)
        if options.resets > 0:
            renderer = options.renderers[0]
            say(f"[memory: {options.resets} resets, {renderer}]")
            step = max(1, options.resets // 10)
            results["memory"] = measure_memory(
                world, renderer, options.resolution, options.resets,
                progress=lambda i: say(f"  {i} resets") if i % step == 0 else None,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if bench_dir is None:
        say("note: ../shared/bench not found (set AVALON_SHARED_BENCH); ceiling and peer skipped")
    say(format_table(results))
    return results


def format_table(results: dict) -> str:
    """The benchmark results as a text table with our figures as ratios of the ceiling and peer.

    "steps/CPU-s" is steps per CPU-second of the Godot and Python processes (for several
    processes, of all of them together); "ceil CPU" compares it with the ceiling's."""
    options = results["options"]
    peer = results.get("peer")
    lines = [
        f"\ntrivial world, {options['resolution']}x{options['resolution']} RGBD, best of {options['repeats']}",
        (
            f"{'renderer':8} {'procs':>5} {'steps/s':>9} {'vs 1 proc':>9} {'ceiling':>8} {'of ceiling':>10} "
            f"{'steps/CPU-s':>11} {'ceil CPU':>8} {'of ceil CPU':>11} {'MiniWorld':>9} {'of peer':>8}"
        ),
    ]
    for key, sps in results["sps"].items():
        renderer, count = key.split("x")
        single = results["sps"].get(f"{renderer}x1")
        ceiling = results["ceiling"].get(renderer)
        sps_cpu = results.get("sps_cpu", {}).get(key)
        ceiling_cpu = results.get("ceiling_cpu", {}).get(renderer)
        lines.append(
            f"{renderer:8} {count:>5} {sps:9.0f} {_ratio(sps, single):>9} {ceiling or float('nan'):8.0f} "
            f"{_ratio(sps, ceiling):>10} {sps_cpu or float('nan'):11.0f} {ceiling_cpu or float('nan'):8.0f} "
            f"{_ratio(sps_cpu, ceiling_cpu):>11} {peer or float('nan'):9.0f} {_ratio(sps, peer):>8}"
        )
    memory = results.get("memory") or {}
    if memory:
        lines.append("Godot RSS (MB): " + ", ".join(f"{k.replace('_mb', '').replace('_', ' ')} {v:.0f}" for k, v in memory.items()))
        keys = [k for k in memory if k.startswith("after_") and k.endswith("_resets_mb") and k != "after_10_resets_mb"]
        if keys and "after_10_resets_mb" in memory:
            growth = memory[keys[0]] / memory["after_10_resets_mb"] - 1
            lines.append(f"RSS growth from 10 resets to {keys[0].split('_')[1]}: {growth:+.1%}")
    return "\n".join(lines)


def _ratio(value: float | None, reference: float | None) -> str:
    if not value or not reference:
        return "-"
    return f"{value / reference:.2f}x"


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """``avalon benchmark [OPTIONS]`` (``argv``: the options; ``prog``: the name in its usage line)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--renderers", default="GLES2,GLES3")
    parser.add_argument("--processes", default="1,2", help="comma-separated process counts (default 1,2)")
    parser.add_argument("--steps", type=int, default=3000, help="steps per measurement (default 3000)")
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3, help="measurements per figure; the best counts (default 3)")
    parser.add_argument("--resets", type=int, default=1000, help="resets for the memory check (0 skips it)")
    parser.add_argument("--no-peer", action="store_true", help="skip MiniWorld")
    parser.add_argument("--json", help="also save the figures to this file")
    args = parser.parse_args(argv)
    options = BenchmarkOptions(
        renderers=tuple(args.renderers.split(",")),
        processes=tuple(int(p) for p in args.processes.split(",")),
        steps=args.steps,
        resolution=args.resolution,
        repeats=args.repeats,
        resets=args.resets,
        peer=not args.no_peer,
    )
    for renderer in options.renderers:
        if renderer not in RENDERERS:
            raise SystemExit(f"unknown renderer {renderer!r}; choose from {', '.join(RENDERERS)}")
    results = run_benchmark(options)
    if args.json:
        save_figures(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
