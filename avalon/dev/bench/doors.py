"""Steps per second of a world with 4 doors of 3 locks each (bolt, bar, button) against the trivial
world (the ``smoke`` role's task's) and the same doorways without their doors, in the same run.

The doors world is that world with four doorways 5 m from the
spawn, at 45, 135, 225 and 315 degrees, each two wall boxes and a lintel with a door in it facing
the spawn: two hinged push doors and two sliding doors, each latched again after every release
and holding all three locks (4 meshes and 4 bodies a door). The agent takes the same pre-drawn
random VR actions in the three worlds; one simulator runs them, alternating, and the medians are
printed, with the median of the repeats' ratios to the smoke world (each repeat runs the worlds
one right after the other) and its distribution-free 95% interval (``avalon.dev.bench.stats``);
the doorways without doors tell the doors' own cost from their walls'.
Usage: ``avalon benchmark doors [--repeats 10] [--steps 1000] [--resolution 96] [--renderer GLES2]``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path

import attr

from avalon.datagen.doors import door_entity
from avalon.datagen.export import export_world
from avalon.datagen.world import Entity, World
from avalon.dev.bench.animals import random_actions
from avalon.dev.bench.stats import median_interval
from avalon.dev.bench.steps import process_cpu_s
from avalon.env.config import EnvConfig
from avalon.sim.simulator import Simulator
from avalon.tasks import smoke_world

WARMUP_STEPS = 50
DOORWAY_DISTANCE_M = 5.0
WIDTH_M, HEIGHT_M, WALL_M, WALL_PIECE_M = 1.4, 2.5, 0.3, 1.5
LOCKS = ("bolt", "bar", "button")


def _box(name: str, centre, size, yaw_rad: float) -> Entity:
    return Entity(kind="box", name=name, position=centre, yaw_rad=yaw_rad, params={"size": size, "color": (0.7, 0.68, 0.62)})


def doorway(index: int, angle_rad: float, mechanism: str) -> list[Entity]:
    """A doorway ``DOORWAY_DISTANCE_M`` from the origin in direction ``angle_rad`` (from -z toward +x),
    its door's front facing the origin."""
    x, z = DOORWAY_DISTANCE_M * math.sin(angle_rad), -DOORWAY_DISTANCE_M * math.cos(angle_rad)
    yaw = math.atan2(-x, -z)
    across = (math.cos(yaw), -math.sin(yaw))  # the door's local +x in the world
    side = WIDTH_M / 2 + WALL_PIECE_M / 2
    entities = [door_entity(f"door_{index}", (x, 0.0, z), yaw, WIDTH_M, HEIGHT_M, mechanism=mechanism,
                            wall_thickness_m=WALL_M, latch="always", locks=LOCKS),
                _box(f"lintel_{index}", (x, HEIGHT_M + 0.5, z), (WIDTH_M, 1.0, WALL_M), yaw)]
    for sign in (-1, 1):
        centre = (x + sign * side * across[0], 1.75, z + sign * side * across[1])
        entities.append(_box(f"wall_{index}_{'left' if sign < 0 else 'right'}", centre, (WALL_PIECE_M, 3.5, WALL_M), yaw))
    return entities


def doors_world(with_doors: bool = True) -> World:
    """The trivial world with four doorways round the spawn, with (``with_doors``) a locked door in each."""
    world = smoke_world(time_limit_frames=10**6)
    added = []
    for index, degrees in enumerate((45, 135, 225, 315)):
        added += doorway(index, math.radians(degrees), "hinged_push" if index % 2 == 0 else "sliding")
    added = [entity for entity in added if with_doors or entity.kind != "door"]
    return attr.evolve(world, entities=world.entities + tuple(added))


def measure(sim: Simulator, world_dir: str, actions: list, steps: int) -> tuple[float, float]:
    """(steps per wall-clock second, steps per CPU-second of Godot and this process)."""
    sim.reset(world_dir, 0, 10**6)
    for action in actions[:WARMUP_STEPS]:
        sim.step(action)
    started, cpu_started = time.perf_counter(), process_cpu_s(sim.pid) + time.process_time()
    for action in actions[WARMUP_STEPS:WARMUP_STEPS + steps]:
        sim.step(action)
    elapsed = time.perf_counter() - started
    return steps / elapsed, steps / (process_cpu_s(sim.pid) + time.process_time() - cpu_started)


def _alternating_runs(dirs: dict[str, str], args: argparse.Namespace) -> dict[str, list[tuple[float, float]]]:
    """Each world's (steps/s, steps/CPU-s) per repeat, the worlds run one after the other on one simulator."""
    actions = random_actions(args.steps + WARMUP_STEPS)
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in dirs}
    sim = Simulator(EnvConfig(renderer=args.renderer, resolution=args.resolution).simulator)
    sim.start()
    try:
        for repeat in range(args.repeats):
            for name, world_dir in dirs.items():
                rates[name].append(measure(sim, world_dir, actions, args.steps))
                print(f"  run {repeat + 1}/{args.repeats} {name:22} {rates[name][-1][0]:7.0f} steps/s  "
                      f"{rates[name][-1][1]:7.0f} steps/CPU-s", flush=True)
    finally:
        sim.close()
    return rates


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--resolution", type=int, default=96)
    parser.add_argument("--renderer", default="GLES2")
    args = parser.parse_args(argv)
    if args.repeats <= 0 or args.steps <= 0:
        parser.error(f"--repeats ({args.repeats}) and --steps ({args.steps}) must be positive")
    names = ("smoke world", "4 doorways, no doors", "4 doors, 3 locks each")
    with tempfile.TemporaryDirectory(prefix="avalon-bench-doors-") as work:
        worlds = (smoke_world(time_limit_frames=10**6), doors_world(with_doors=False), doors_world())
        dirs = {name: str(export_world(world, Path(work) / str(index))) for index, (name, world) in enumerate(zip(names, worlds))}
        rates = _alternating_runs(dirs, args)
    print(f"\n{args.renderer}, {args.resolution}x{args.resolution}, {args.steps} random steps, "
          f"median of {args.repeats} alternating runs")
    for index, unit in ((0, "steps/s"), (1, "steps/CPU-s")):
        base = [rate[index] for rate in rates[names[0]]]
        print(f"{unit}: {names[0]} {statistics.median(base):.0f}")
        for name in names[1:]:
            values = [rate[index] for rate in rates[name]]
            interval = median_interval([value / b for value, b in zip(values, base)])
            spread = "" if interval.low is None else f", 95% interval {interval.low:.1%}-{interval.high:.1%}"
            print(f"  {name:22} {statistics.median(values):7.0f}: {interval.median:.1%} of the smoke world (the repeats' ratios{spread})")


if __name__ == "__main__":
    main()
