"""Steps per second of a Small island with 10 active animals against the same island without them.

The island is the ``eat`` task's (difficulty 0.5, Small world). The animals (7 predators, 3 prey,
see ``avalon.dev.bench.animal_worlds``) stand 5-10 m around the spawn and are kept active for the whole run: their
attacks do no damage (so the episode goes on) and only a knock-out would deactivate them, so
every step each one chases or flees, checks its attack and sight conditions and moves. The agent
takes the same pre-drawn random actions in both worlds. One simulator runs both worlds, in
alternation, and the medians are printed, with the median of each repeat's ratio (the two worlds
run one right after the other). The machine is shared, so besides wall-clock steps per second
the script reports steps per CPU-second (the CPU time of the Godot process's threads plus this
Python process, from the scheduler's counts and ``time.process_time``); other load disturbs both.
Single repeats differ by 20-40% here, so the ratio is printed with a distribution-free 95%
interval for its median (``avalon.dev.bench.stats``) and whether that interval meets the target
(``--target``, default 0.85): met, missed, or undecided by this many repeats. On a shared machine
a decision may take ~150 repeats (about 12 minutes; docs/animals.md, "Sixth round").
Usage: ``avalon benchmark animals [--repeats 20] [--steps 1000] [--resolution 96] [--renderer GLES2]``;
``--save-worlds DIR`` only writes the two worlds (``DIR/plain``, ``DIR/animals``) and exits, e.g.
for ``avalon benchmark callgrind --world-dir``.

``--against REV`` measures this checkout and git revision REV (checked out into a temporary
worktree; its own exporter writes its worlds) with one simulator each, interleaved: each repeat
runs both worlds on both, alternating which goes first. Load on a shared machine drifts over
minutes and moves a lone figure by ±10%; the interleaved ratios and the animals' time per step
(with less without) compare the two codes fairly.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from avalon.datagen.export import export_world
from avalon.dev.bench.animal_worlds import ANIMALS, animal_bench_worlds
from avalon.dev.bench.stats import fewest_values_for_interval, median_interval
from avalon.dev.bench.steps import process_cpu_s
from avalon.env.config import EnvConfig
from avalon.env.spaces import ActionCodec, action_space
from avalon.rules.animals import ANIMAL_STATE_FIELD_COUNT, MAX_REPORTED_ANIMALS, STATE_ACTIVE
from avalon.sim import protocol
from avalon.sim.simulator import Simulator

WARMUP_STEPS = 50
TARGET_RATIO = 0.85  # issue 5: 10 active animals step at >= 85% of the same world without them


def random_actions(count: int) -> list:
    """The same pre-drawn random VR actions for every world and revision."""
    space = action_space("vr")
    space.seed(0)
    codec = ActionCodec("vr")
    return [codec.encode(space.sample()) for _ in range(count)]


def _ratio_summary(ratios: list[float], target: float) -> str:
    """The median ratio with its 95% interval, and whether that interval meets ``target``."""
    interval = median_interval(ratios)
    if interval.low is None:
        spread = f"too few repeats for a 95% interval (need {fewest_values_for_interval()})"
    else:
        spread = f"95% interval {interval.low:.1%}-{interval.high:.1%}"
    return f"{interval.median:6.1%} of without, {spread}: target {target:.0%} {interval.verdict(target)}"


def measure(sim: Simulator, world_dir: str, actions: list, steps: int) -> tuple[float, float, float]:
    """(steps per wall-clock second, steps per CPU-second, mean number of active animals per step)."""
    sim.reset(world_dir, 0, 10**6)
    for action in actions[:WARMUP_STEPS]:
        sim.step(action)
    offset = protocol.feature_offsets()["animals"]
    active = 0
    started, cpu_started = time.perf_counter(), process_cpu_s(sim.pid) + time.process_time()
    for action in actions[WARMUP_STEPS:WARMUP_STEPS + steps]:
        features = sim.step(action).features
        states = features[offset + 3:offset + 3 + MAX_REPORTED_ANIMALS * ANIMAL_STATE_FIELD_COUNT:ANIMAL_STATE_FIELD_COUNT]
        active += int(np.count_nonzero(states == STATE_ACTIVE))
    elapsed = time.perf_counter() - started
    cpu = process_cpu_s(sim.pid) + time.process_time() - cpu_started
    return steps / elapsed, steps / cpu, active / steps


#: This module in a checkout, and where revisions older than the developer layer keep it: each
#: checkout's own copy writes that checkout's worlds.
BENCH_SCRIPT = Path("avalon/dev/bench/animals.py")
OLD_BENCH_SCRIPT = Path("bin", "bench_animals.py")


def compare_with(revision: str, args: argparse.Namespace) -> None:
    """This checkout against git ``revision``, interleaved (see the module docstring)."""
    repository = Path(__file__).resolve().parents[3]
    work = Path(tempfile.mkdtemp(prefix="avalon-bench-animals-"))
    other = work / "other"
    added = subprocess.run(["git", "-C", str(repository), "worktree", "add", "--detach", str(other), revision],
                           capture_output=True, text=True)
    if added.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        sys.exit(f"--against {revision!r}: not a revision git can check out here: {added.stderr.strip()}")
    sims: dict[str, Simulator] = {}
    try:
        world_dirs = {}
        builder = other / "bin" / "build_native.sh"  # (a revision from before native/ has none)
        if builder.exists():
            built = subprocess.run([str(builder), str(other)], capture_output=True, text=True)
            if built.returncode != 0:
                sys.exit(f"{revision}: bin/build_native.sh failed (exit {built.returncode}):\n{built.stderr[-2000:]}")
        for label, root in (("this checkout", repository), (revision, other)):
            script = next(path for path in (root / BENCH_SCRIPT, root / OLD_BENCH_SCRIPT) if path.exists())
            saved = subprocess.run([sys.executable, str(script), "--save-worlds", str(work / label),
                                    "--seed", str(args.seed)], env=dict(os.environ, PYTHONPATH=str(root)), capture_output=True, text=True)
            if saved.returncode != 0:
                sys.exit(f"{label}: {script.relative_to(root)} --save-worlds failed (exit {saved.returncode}):\n{saved.stderr[-2000:]}")
            world_dirs[label] = {kind: str(work / label / kind) for kind in ("plain", "animals")}
            os.environ["AVALON_GODOT_PROJECT"] = str(root / "godot")  # read when the simulator starts
            sims[label] = Simulator(EnvConfig(renderer=args.renderer, resolution=args.resolution).simulator)
            sims[label].start()
        os.environ.pop("AVALON_GODOT_PROJECT")
        actions = random_actions(args.steps + WARMUP_STEPS)
        rates = {(label, kind): [] for label in sims for kind in ("plain", "animals")}
        for repeat in range(args.repeats):
            for label in (list(sims) if repeat % 2 == 0 else list(sims)[::-1]):
                for kind in ("plain", "animals"):
                    rates[(label, kind)].append(measure(sims[label], world_dirs[label][kind], actions, args.steps)[:2])
            print(f"  repeat {repeat + 1}/{args.repeats}: " + ", ".join(
                f"{label} {rates[(label, 'animals')][-1][0] / rates[(label, 'plain')][-1][0]:.1%}" for label in sims), flush=True)
    finally:
        for sim in sims.values():
            sim.close()
        subprocess.run(["git", "-C", str(repository), "worktree", "remove", "--force", str(other)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{args.renderer}, {args.resolution}x{args.resolution}, Small 'eat' island (seed {args.seed}), "
          f"{args.steps} random steps, {args.repeats} interleaved repeats (medians)")
    for label in sims:
        for index, unit in ((0, "wall-clock"), (1, "per CPU-second")):
            plain = [rate[index] for rate in rates[(label, "plain")]]
            animals = [rate[index] for rate in rates[(label, "animals")]]
            ratios = [a / p for a, p in zip(animals, plain)]
            cost_us = statistics.median(1e6 / a - 1e6 / p for a, p in zip(animals, plain))
            print(f"{label:14} {unit:15} {_ratio_summary(ratios, args.target)}; the animals cost {cost_us:4.0f} us per step")


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20,
                        help="alternating repeats (default 20; single repeats differ by 20-40%% on a shared machine)")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--renderer", default="GLES2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save-worlds", metavar="DIR", help="write the two worlds into DIR/plain and DIR/animals, and exit")
    parser.add_argument("--target", type=float, default=TARGET_RATIO,
                        help=f"the ratio the 95%% interval is checked against (default {TARGET_RATIO})")
    parser.add_argument("--against", metavar="REV", help="measure this checkout and git revision REV, interleaved")
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.steps <= 0:
        parser.error(f"--repeats ({args.repeats}) and --steps ({args.steps}) must be positive")
    if not 0.0 < args.target:
        parser.error(f"--target ({args.target}) must be a positive ratio, e.g. 0.85")
    if args.against:
        compare_with(args.against, args)
        return
    if args.save_worlds:
        plain, with_animals = animal_bench_worlds(args.seed)
        print(export_world(plain, Path(args.save_worlds) / "plain"))
        print(export_world(with_animals, Path(args.save_worlds) / "animals"))
        return
    work = Path(tempfile.mkdtemp(prefix="avalon-bench-animals-"))
    sim = Simulator(EnvConfig(renderer=args.renderer, resolution=args.resolution).simulator)
    try:
        plain, with_animals = animal_bench_worlds(args.seed)
        dirs = {"without animals": str(export_world(plain, work / "plain")),
                "10 active animals": str(export_world(with_animals, work / "animals"))}
        actions = random_actions(args.steps + WARMUP_STEPS)
        sim.start()
        wall: dict[str, list[float]] = {name: [] for name in dirs}
        cpu: dict[str, list[float]] = {name: [] for name in dirs}
        active: list[float] = []
        for repeat in range(args.repeats):
            for name, world_dir in dirs.items():
                rate, cpu_rate, mean_active = measure(sim, world_dir, actions, args.steps)
                wall[name].append(rate)
                cpu[name].append(cpu_rate)
                if name != "without animals":
                    active.append(mean_active)
                print(f"  run {repeat + 1}/{args.repeats} {name:18} {rate:7.0f} steps/s  {cpu_rate:7.0f} steps/CPU-s", flush=True)
    finally:
        sim.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{args.renderer}, {args.resolution}x{args.resolution}, Small 'eat' island (seed {args.seed}), "
          f"{args.steps} random steps, median of {args.repeats} alternating runs")
    for label, samples in (("steps/s", wall), ("steps/CPU-s", cpu)):
        base = statistics.median(samples["without animals"])
        for name, values in samples.items():
            rate = statistics.median(values)
            print(f"{name:18} {rate:7.0f} {label:12} {rate / base:6.1%} of without  (runs: {', '.join(f'{v:.0f}' for v in values)})")
        # Each repeat runs the two worlds one right after the other: their ratio within a repeat is
        # less disturbed by other load on the machine, which drifts over minutes.
        paired = [a / b for a, b in zip(samples["10 active animals"], samples["without animals"])]
        print(f"{'':18} {'':7} {label:12} {_ratio_summary(paired, args.target)} (the repeats' ratios)")
    print(f"animals active per step (mean): {statistics.mean(active):.2f} of {len(ANIMALS)}")


if __name__ == "__main__":
    main()
