"""``avalon world benchmark``'s rows for carry, one base task at a time (forced worlds).

``avalon world benchmark --tasks carry`` takes the median of seeds whose worlds mix carry's base
tasks (a stack world's 0.25 m grid against a bridge world's 1 m one); this prints the same
columns per base task: generation and export, folder, reset, random steps per second beside the
trivial world's, and (``--carry``) the rows with the ``mouse_keyboard`` agent holding and moving
the item. Usage:

    avalon benchmark carry-worlds [--base-tasks bridge,stack] [--difficulties 0,0.5,1] [--seeds 3] [--steps 1000] [--carry]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from avalon.dev.bench.worlds import WARMUP_STEPS, WorldBenchOptions, _measure, format_rows, smoke_row
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.tasks import build_world, carry, check_difficulty


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--base-tasks", default=",".join(carry.base_task_names()))
    parser.add_argument("--difficulties", default="0,0.5,1")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--renderer", default="GLES2")
    parser.add_argument("--carry", action="store_true", help="also rows with the agent holding and moving the item")
    args = parser.parse_args(argv)
    try:
        bases = [carry.base_task_named(part.strip()).name for part in args.base_tasks.split(",") if part.strip()]
        difficulties = [check_difficulty(float(part)) for part in args.difficulties.split(",") if part.strip()]
    except ValueError as error:
        parser.error(str(error))
    options = WorldBenchOptions(renderer=args.renderer, seeds=args.seeds, steps=args.steps, tasks=("carry",), sizes=(),
                                difficulties=tuple(difficulties), carry=args.carry)
    plan = [smoke_row()]
    for base in bases:
        for difficulty in difficulties:
            plan.append((f"carry-{base} {difficulty:g}",
                         lambda seed, b=base, d=difficulty: build_world("carry", d, seed, forced={"base_task": b})))
    work = Path(tempfile.mkdtemp(prefix="carry-bench-"))
    rows = []
    try:
        spaces = ("vr",) + (("mouse_keyboard",) if args.carry else ())
        for space in spaces:
            env = AvalonEnv(EnvConfig(renderer=args.renderer, resolution=options.resolution, action_space=space))
            try:
                env.action_space.seed(0)
                actions = [env.action_space.sample() for _ in range(args.steps + WARMUP_STEPS)]
                env.reset(seed=0)
                moving = space == "mouse_keyboard"
                for index, (label, build) in enumerate(plan):
                    name = f"{label} (mk)" if moving and index == 0 else (f"{label} carry" if moving else label)
                    rows.append(_measure(env, build, name, args.seeds, actions, work, carry=moving and index > 0))
                    print(f"  measured {name}", flush=True)
            finally:
                env.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(format_rows(rows, options))


if __name__ == "__main__":
    main()
