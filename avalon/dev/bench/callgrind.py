"""Instructions per step executed by the Godot process (valgrind's callgrind), for one world.

Wall-clock and even CPU time per step move with whatever else runs on a shared machine; the
instruction count does not, so it shows the effect of a change of a few per cent. Godot runs
under ``valgrind --tool=callgrind --instr-atstart=no`` (start-up and warm-up are not counted);
after the warm-up steps ``callgrind_control -i on`` starts counting, and ``callgrind_control -d``
dumps the counts after the measured steps. Same world, seed and random actions every run, so
two runs of the same code give the same figure to within ~0.1%. Needs valgrind
(``apt-get install valgrind``); about 0.1 s per step.

    .venv/bin/avalon benchmark callgrind [--world-dir DIR] [--steps 300] [--renderer GLES2]

Without ``--world-dir`` it measures the trivial world of ``avalon benchmark``. Prints the
instructions per step and the shares of the largest libraries (``???``: code that llvmpipe
compiled at run time, i.e. the shaders).

Instructions are not time: llvmpipe's vectorised shaders retire several per cycle, while the
GDScript interpreter stalls on cache misses and mispredicted (indirect) branches. With
``--cost-model`` callgrind also simulates the caches and branch predictors (about twice as slow)
and the script prints KCachegrind's cycle estimate per step, Ir + 10 (L1 misses + mispredicted
branches) + 100 (last-level misses), which weighs those stalls in.
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from avalon.dev.bench.steps import _random_actions, benchmark_world
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig


def _require(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        sys.exit(f"{tool} is not on PATH: apt-get install valgrind")
    return path


def _totals(dump: Path) -> dict[str, int]:
    """The dump's total of each event (Ir, and with the cost model D1mr, Bcm, ...)."""
    names: list[str] = []
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith(("summary:", "totals:")):
            return dict(zip(names, (int(value) for value in line.split()[1:])))
    raise RuntimeError(f"no totals in {dump}")


def cycle_estimate(events: dict[str, int]) -> int:
    """KCachegrind's estimate of CPU cycles from callgrind's simulated events."""
    l1_misses = sum(events.get(name, 0) for name in ("I1mr", "D1mr", "D1mw"))
    ll_misses = sum(events.get(name, 0) for name in ("ILmr", "DLmr", "DLmw"))
    mispredicted = events.get("Bcm", 0) + events.get("Bim", 0)
    return events["Ir"] + 10 * (l1_misses + mispredicted) + 100 * ll_misses


def _by_library(dump: Path) -> list[tuple[str, int]]:
    """Instructions per library (shared object), from callgrind_annotate's per-function table."""
    text = subprocess.run([_require("callgrind_annotate"), "--inclusive=no", str(dump)],
                          capture_output=True, text=True, check=True).stdout
    counts: collections.Counter = collections.Counter()
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(.*?\)\s+.*\[(.*)\]\s*$", line)
        if match:
            counts[Path(match.group(2)).name] += int(match.group(1).replace(",", ""))
    return counts.most_common(6)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--world-dir", help="a world folder (default: the trivial benchmark world)")
    parser.add_argument("--steps", type=int, default=300, help="measured steps (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="steps before counting starts (default 30)")
    parser.add_argument("--renderer", default="GLES2")
    parser.add_argument("--action-space", default="vr")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-dump", metavar="FILE", help="copy callgrind's dump of the measured steps here (for callgrind_annotate)")
    parser.add_argument("--cost-model", action="store_true",
                        help="simulate caches and branch prediction too, and print a cycle estimate per step")
    args = parser.parse_args(argv)
    if args.steps <= 0 or args.warmup < 0:
        parser.error(f"--steps ({args.steps}) must be positive and --warmup ({args.warmup}) not negative")
    valgrind, control = _require("valgrind"), _require("callgrind_control")
    godot = shutil.which("godot3-runner") or sys.exit("godot3-runner is not on PATH: run `make setup`")
    with tempfile.TemporaryDirectory(prefix="avalon-callgrind-") as scratch:
        scratch_dir = Path(scratch)
        wrapper = scratch_dir / "godot-under-callgrind"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"exec {valgrind} --tool=callgrind --instr-atstart=no {'--cache-sim=yes --branch-sim=yes ' if args.cost_model else ''}"
            f"--callgrind-out-file={scratch_dir}/callgrind.%p.out {godot} \"$@\"\n"
        )
        wrapper.chmod(0o755)
        world_dir = args.world_dir or str(benchmark_world(scratch_dir / "world"))
        env = AvalonEnv(EnvConfig(renderer=args.renderer, action_space=args.action_space, world_dir=world_dir,
                                  godot_binary=str(wrapper), startup_timeout_s=300, reset_timeout_s=300,
                                  step_timeout_s=60))
        try:
            actions = _random_actions(env, args.warmup + args.steps, args.seed)
            env.reset(seed=args.seed)
            for action in actions[:args.warmup]:
                env.step(action)
            pid = str(env.simulator_pid)  # the wrapper execs valgrind: same process
            subprocess.run([control, "-i", "on", pid], check=True, capture_output=True)
            for action in actions[args.warmup:]:
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    env.reset(seed=args.seed)
            subprocess.run([control, "-d", "measured", pid], check=True, capture_output=True)
        finally:
            env.close()
        dumps = sorted(scratch_dir.glob(f"callgrind.{pid}.out.*"))
        if not dumps:
            sys.exit("callgrind wrote no dump for the measured steps")
        dump = dumps[0]
        if args.keep_dump:
            shutil.copyfile(dump, args.keep_dump)
        print(f"{args.renderer}, {args.action_space} actions, {args.steps} steps after {args.warmup}, world {world_dir}")
        events = _totals(dump)
        print(f"Godot instructions per step: {events['Ir'] / args.steps:,.0f}")
        if args.cost_model:
            print("  per step: " + ", ".join(f"{name} {value / args.steps:,.0f}" for name, value in events.items() if name != "Ir"))
            print(f"Estimated cycles per step (Ir + 10 L1 misses and mispredictions + 100 LL misses): "
                  f"{cycle_estimate(events) / args.steps:,.0f}")
        for library, count in _by_library(dump):
            print(f"  {count / args.steps:12,.0f}  {library}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
