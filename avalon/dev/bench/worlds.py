"""``avalon world benchmark``: generation, export, reset and stepping costs per task and world size.

A row per registered task (each at its own world size) and difficulty, then one per island size.
One simulator runs every measurement, so the steps-per-second figures are comparable: each is
shown next to the trivial test world's, measured in the same run. Each row is the median over
``seeds`` worlds; steps use the same pre-drawn random actions everywhere.

With ``carry`` (``--carry``) each task row with a tool gets a second row measured with the agent
holding and moving an item (:class:`~avalon.dev.bench.moving_items.CarryActor`: a stone or log carried, the
boulder pushed) in a ``mouse_keyboard`` simulator of its own, beside that simulator's trivial
world under random actions; its last column is the share of timed steps that held or pushed the item.

With ``profile`` (``--profile``) a second table says where each row's step goes
(:mod:`avalon.dev.bench.world_profile`).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

import attr

from avalon.app.options import difficulty_list, task_list
from avalon.datagen.export import export_world
from avalon.datagen.terrain import WORLD_SIZES_M
from avalon.dev.bench.figure_files import save_figures
from avalon.dev.bench.moving_items import CarryActor, movable_item
from avalon.dev.bench.world_profile import Drawn, StepClock, StepProfile, format_profiles, profiling_simulators
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.sim.settings import RENDERERS
from avalon.tasks import TASKS, build_world, check_task, smoke_world, task_for
from avalon.tasks.kit.assembly import OutdoorTaskConfig

WARMUP_STEPS = 50
#: The options that add rows or a table, and what each adds.
EXTRA_TABLES = {
    "--carry": "also rows with the agent carrying a stone or log, or pushing a boulder (mouse_keyboard)",
    "--profile": "also say where each row's step goes: both processes' CPU time, draw calls, vertices drawn",
}


def registered_tasks() -> tuple[str, ...]:
    """Every registered task but the trivial test world (the reference row of every run)."""
    smoke = task_for("smoke")
    return tuple(name for name in sorted(TASKS) if name != smoke)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class WorldBenchOptions:
    renderer: str = "GLES2"
    resolution: int = 96
    #: Worlds per row; each figure is the median over them.
    seeds: int = 3
    #: Random steps timed per world (after WARMUP_STEPS).
    steps: int = 1000
    #: A row per task and difficulty: every registered task by default, each at its own world size.
    tasks: tuple[str, ...] = attr.ib(factory=registered_tasks, converter=tuple)
    difficulties: tuple[float, ...] = (0.0, 0.5, 1.0)
    #: A row per island size (eat at d = 0.5 on that island).
    sizes: tuple[str, ...] = tuple(WORLD_SIZES_M)
    #: Rows with the agent carrying or pushing an item too (see the module doc).
    carry: bool = False
    #: A second table: where each row's step goes.
    profile: bool = False


@attr.s(frozen=True, auto_attribs=True)
class Row:
    label: str
    size_m: float
    generate_s: float
    export_s: float
    #: Generation and export together (the median of each world's sum), seconds.
    generate_export_s: float
    folder_mb: float
    reset_s: float
    steps_per_second: float
    #: Share of the timed steps in which the agent held or pushed an item (carry rows; None otherwise).
    moving_fraction: Optional[float] = None
    #: Where a step goes (``profile`` runs; None otherwise): each field the median over the worlds.
    profile: Optional[StepProfile] = None


def _folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def _step_through(env: AvalonEnv, actions: list, seed: int, options: dict) -> float:
    """Seconds spent stepping ``actions``; an episode that ends (a lethal fall, the time limit)
    restarts in the same world, and the reset is not counted, so every action is a timed step."""
    stepping_s = 0.0
    started = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            stepping_s += time.perf_counter() - started
            env.reset(seed=seed, options=options)
            started = time.perf_counter()
    return stepping_s + time.perf_counter() - started


def _carry_through(env: AvalonEnv, world, steps: int, seed: int, options: dict) -> tuple[float, float]:
    """(seconds stepping, share of the timed steps that held or pushed an item): WARMUP_STEPS of the
    actor's actions, then ``steps`` timed ones; the actor's own thinking is not timed."""
    actor = CarryActor(world)
    observation, info = env.reset(seed=seed, options=options)
    actor.reset(observation, info)
    stepping_s, moving = 0.0, 0
    for index in range(WARMUP_STEPS + steps):
        act = actor.act(observation, info)
        started = time.perf_counter()
        observation, _, terminated, truncated, info = env.step(act)
        if index >= WARMUP_STEPS:
            stepping_s += time.perf_counter() - started
            moving += actor.moving_item
        if terminated or truncated:
            observation, info = env.reset(seed=seed, options=options)
            actor.reset(observation, info)
    return stepping_s, moving / max(steps, 1)


def _measure(env: AvalonEnv, build: Callable, label: str, seeds: int, actions: list, work: Path,
             carry: bool = False, log_dir: Optional[Path] = None) -> Row:
    """One row: the medians over ``seeds`` worlds; with ``log_dir`` (the simulator's log folder,
    started with :func:`profiling_simulators`) its step profile too."""
    samples, profiles = [], []
    for seed in range(seeds):
        started = time.perf_counter()
        world = build(seed)
        built = time.perf_counter()
        folder = export_world(world, work / f"{label.replace(' ', '_')}-{seed}")
        exported = time.perf_counter()
        options = {"world_dir": str(folder)}
        env.reset(seed=seed, options=options)
        loaded = time.perf_counter()
        timed = len(actions) - WARMUP_STEPS
        if carry:
            stepping_s, moving = _carry_through(env, world, timed, seed, options)
        else:
            _step_through(env, actions[:WARMUP_STEPS], seed, options)
            clock = StepClock(env.simulator_pid, log_dir) if log_dir is not None else None
            stepping_s, moving = _step_through(env, actions[WARMUP_STEPS:], seed, options), None
            if clock is not None:
                elapsed = clock.elapsed(timed)
                env.reset(seed=seed, options=options)  # frees the world: its terrain logs what it drew
                profiles.append(clock.with_drawn(elapsed))
        samples.append(
            (world.ground.size_m, built - started, exported - built, exported - started, _folder_mb(folder),
             loaded - exported, timed / stepping_s, moving)
        )
        shutil.rmtree(folder, ignore_errors=True)
    columns = list(zip(*samples))
    return Row(label, *(statistics.median(column) for column in columns[:-1]),
               moving_fraction=statistics.median(columns[-1]) if carry else None, profile=_median_profile(profiles))


def _median_profile(profiles: list[StepProfile]) -> Optional[StepProfile]:
    """Each time's median over the worlds, and the median of what was drawn where it was logged."""
    if not profiles:
        return None
    times = [statistics.median(column) for column in zip(*[attr.astuple(p, recurse=False)[:4] for p in profiles])]
    drawn = [p.drawn for p in profiles if p.drawn is not None]
    return StepProfile(*times, drawn=Drawn(*(statistics.median(column) for column in zip(*map(attr.astuple, drawn)))) if drawn else None)


def smoke_row() -> tuple[str, Callable]:
    """The reference row of every world benchmark: the smoke world, with a time limit no run reaches."""
    return task_for("smoke"), lambda seed: smoke_world(seed=seed, time_limit_frames=10**6)


def run_world_benchmark(options: WorldBenchOptions, say: Callable[[str], None] = print) -> list[Row]:
    """Measures every row, prints the table, and returns the rows."""
    work = Path(tempfile.mkdtemp(prefix="avalon-world-bench-"))
    log_dir = work / "logs" if options.profile else None
    env = AvalonEnv(EnvConfig(renderer=options.renderer, resolution=options.resolution,
                              log_dir=str(log_dir) if log_dir is not None else None))
    rows: list[Row] = []
    try:
        env.action_space.seed(0)
        actions = [env.action_space.sample() for _ in range(options.steps + WARMUP_STEPS)]
        with profiling_simulators() if options.profile else contextlib.nullcontext():
            env.reset(seed=0)  # start the simulator first: its start-up is not a reset cost
        plan = [smoke_row()]
        for task in options.tasks:
            for difficulty in options.difficulties:
                plan.append((f"{task} {difficulty:g}", lambda seed, t=task, d=difficulty: build_world(t, d, seed)))
        island_task = task_for("first")
        for size in options.sizes:
            config = OutdoorTaskConfig(world_size=size)
            plan.append((f"island {size}", lambda seed, c=config: build_world(island_task, 0.5, seed, c)))
        for label, build in plan:
            rows.append(_measure(env, build, label, options.seeds, actions, work, log_dir=log_dir))
            say(f"  measured {label}")
        if options.carry:
            rows.extend(_carry_rows(options, plan, work, say))
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
    say(format_rows(rows, options))
    if options.profile:
        say(format_profiles([(row.label, row.profile) for row in rows if row.profile is not None]))
    return rows


def _carry_rows(options: WorldBenchOptions, plan: list, work: Path, say: Callable[[str], None]) -> list[Row]:
    """The carry rows: the trivial world under random ``mouse_keyboard`` actions (their reference),
    then each task row whose first world holds a tool, in a simulator of their own."""
    env = AvalonEnv(EnvConfig(renderer=options.renderer, resolution=options.resolution, action_space="mouse_keyboard"))
    rows: list[Row] = []
    try:
        env.action_space.seed(0)
        actions = [env.action_space.sample() for _ in range(options.steps + WARMUP_STEPS)]
        env.reset(seed=0)
        label, build = plan[0]
        rows.append(_measure(env, build, f"{label} (mk)", options.seeds, actions, work))
        for label, build in plan[1:]:
            if label.startswith("island") or movable_item(build(0)) is None:
                continue
            rows.append(_measure(env, build, f"{label} carry", options.seeds, actions, work, carry=True))
            say(f"  measured {label} carry")
    finally:
        env.close()
    return rows


def format_rows(rows: list[Row], options: WorldBenchOptions) -> str:
    trivial = rows[0].steps_per_second
    lines = [
        (
            f"\n{options.renderer}, {options.resolution}x{options.resolution}, median of {options.seeds} worlds, "
            f"{options.steps} random steps each"
        ),
        (
            f"{'world':14} {'size m':>7} {'generate s':>10} {'export s':>9} {'gen+exp s':>9} {'folder MB':>9} "
            f"{'reset s':>8} {'steps/s':>8} {'vs trivial':>10}"
        ),
    ]
    for row in rows:
        if row.label.endswith("(mk)"):  # the carry rows' reference: the trivial world, random mouse_keyboard actions
            trivial = row.steps_per_second
            lines.append("carry rows (mouse_keyboard), each beside the trivial world in their own simulator; "
                         "'moving': share of timed steps holding or pushing the item")
        moving = f" {row.moving_fraction:7.0%}" if row.moving_fraction is not None else ""
        lines.append(
            f"{row.label:14} {row.size_m:7.0f} {row.generate_s:10.3f} {row.export_s:9.3f} {row.generate_export_s:9.3f} "
            f"{row.folder_mb:9.2f} {row.reset_s:8.3f} {row.steps_per_second:8.0f} {row.steps_per_second / trivial:9.0%}{moving}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """``avalon world benchmark [OPTIONS]`` (``argv``: the options; ``prog``: the name in its usage line).
    Bad tasks, sizes or difficulties are a ``ValueError`` naming them."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    parser.add_argument("--seeds", type=int, default=3, help="worlds per row (the median counts)")
    parser.add_argument("--steps", type=int, default=1000, help="random steps per world")
    parser.add_argument("--tasks", help="comma-separated tasks (default: every registered task)")
    parser.add_argument("--difficulties", help="comma-separated difficulties of each task's rows (default 0,0.5,1)")
    parser.add_argument("--sizes", help="comma-separated island sizes of eat d = 0.5 rows (default: every size; '' for none)")
    for flag, says in EXTRA_TABLES.items():
        parser.add_argument(flag, action="store_true", help=says)
    parser.add_argument("--json", help="also save the figures to this file")
    args = parser.parse_args(argv)
    defaults = WorldBenchOptions()
    tasks = task_list(args.tasks) if args.tasks else defaults.tasks
    for task in tasks:
        check_task(task)
    sizes = tuple(size.strip() for size in args.sizes.split(",") if size.strip()) if args.sizes is not None else defaults.sizes
    unknown = [size for size in sizes if size not in WORLD_SIZES_M]
    if unknown:
        raise ValueError(f"--sizes: unknown world size(s) {unknown}; the sizes are {', '.join(WORLD_SIZES_M)}")
    options = WorldBenchOptions(
        renderer=args.renderer, seeds=args.seeds, steps=args.steps, tasks=tasks, sizes=sizes,
        difficulties=difficulty_list(args.difficulties) if args.difficulties else defaults.difficulties, carry=args.carry,
        profile=args.profile,
    )
    rows = run_world_benchmark(options)
    if args.json:
        save_figures([attr.asdict(row) for row in rows], args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
