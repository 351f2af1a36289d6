"""``avalon benchmark buildings``: generating and exporting worlds with buildings, their folders,
and steps per second with the agent inside a building, each beside the trivial world's in the
same run.

Rows: an indoor task's world (flat ground twice the building's extent, a two-story building, the
agent on its ground floor); a Small island with that building and the agent inside; a Small
island with three buildings (one or two stories), the agent outside where the island's task put
it; the bare Small island. Steps are random actions (:func:`avalon.dev.bench.steps.measure_steps`,
a simulator per world; walls keep the agent inside), timed by the wall clock and by the CPU
seconds of the Godot and Python processes (steadier on a shared machine); each figure is the
median over ``--seeds`` worlds, beside the trivial world's. ``--generation-only`` times generation
and export alone.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import attr
import numpy as np

from avalon.datagen.buildings import (
    BuildingConfig,
    add_building,
    free_floor_positions,
    generate_building,
    site_height,
)
from avalon.datagen.export import export_world
from avalon.datagen.world import World
from avalon.dev.bench.figure_files import save_figures
from avalon.dev.bench.steps import measure_steps
from avalon.dev.bench.worlds import smoke_row
from avalon.errors import BuildingFitError
from avalon.sim.settings import RENDERERS
from avalon.tasks import build_world, task_for
from avalon.tasks.kit.assembly import OutdoorTaskConfig

TWO_STORIES = BuildingConfig(width_tiles=16, length_tiles=12, story_count=2, max_rooms=4)
SMALL = (BuildingConfig(width_tiles=10, length_tiles=10, story_count=1, max_rooms=3),
         BuildingConfig(width_tiles=12, length_tiles=10, story_count=2, max_rooms=3))


def _island(seed: int) -> World:
    world = build_world(task_for("first"), 0.5, seed, OutdoorTaskConfig(world_size="small"))
    return attr.evolve(world, time_limit_frames=10**6)


def with_buildings(world: World, configs, seed: int) -> World:
    """``world`` with a building of each config, on the first dry sites of a shuffled 4 m grid
    where it fits beside the others (a site is levelled at its median ground height)."""
    rng = np.random.default_rng(seed)
    half = world.ground.size_m / 2.0
    sites = [(x, z) for x in np.arange(-half, half, 4.0) for z in np.arange(-half, half, 4.0)]
    rng.shuffle(sites)
    for index, config in enumerate(configs):
        width, length = config.width_tiles, config.length_tiles
        building = generate_building(config, int(rng.integers(2**31)), name=f"building{index}")
        for x, z in sites:
            try:
                y = site_height(world.ground, x, z, width, length)
                world = add_building(world, building.moved_to((x - width / 2.0, y, z - length / 2.0)))
                break
            except BuildingFitError:
                continue
        else:
            raise BuildingFitError(f"no site of the island holds building {index} ({width} x {length} tiles)")
    return world


def inside_world(seed: int) -> World:
    """A Small island with one two-story building, the agent on its ground floor's entrance room."""
    world = with_buildings(_island(seed), [TWO_STORIES], seed)
    building = world.buildings[0]
    x, y, z = free_floor_positions(building, 0, building.entrance.rooms[0])[0]
    return attr.evolve(world, spawn_position=(x, y, z))


def inside_flat_world(seed: int) -> World:
    """An indoor task's world: flat ground twice the building's extent, the agent inside it."""
    from avalon.datagen.world import FlatGround

    building = generate_building(TWO_STORIES, seed, origin=(-8.0, 0.0, -6.0))
    x, y, z = free_floor_positions(building, 0, building.entrance.rooms[0])[0]
    return World(task="buildings", difficulty=0.0, seed=seed, ground=FlatGround(size_m=32.0), entities=(),
                 spawn_position=(x, y, z), time_limit_frames=10**6, buildings=(building,))


def three_buildings_world(seed: int) -> World:
    return with_buildings(_island(seed), [SMALL[0], SMALL[1], SMALL[0]], seed)


PLAN: list[tuple[str, Callable[[int], World]]] = [
    ("inside flat", inside_flat_world), ("inside island", inside_world), ("island 3 bldg", three_buildings_world),
    ("island small", _island),
]


def generation_figures(seeds: int, work: Path) -> list[tuple[str, float, float, float]]:
    """(label, median generate + export s, of which the buildings' export, median folder MB)."""
    from avalon.datagen.export.building_data import buildings_data

    rows = []
    for label, build in PLAN:
        totals, buildings_s, sizes = [], [], []
        for seed in range(seeds):
            started = time.perf_counter()
            world = build(seed)
            folder = export_world(world, work / f"{seed}")
            totals.append(time.perf_counter() - started)
            started = time.perf_counter()
            buildings_data(world.buildings, world.lighting)
            buildings_s.append(time.perf_counter() - started)
            sizes.append(sum(p.stat().st_size for p in folder.iterdir()) / 1e6)
            shutil.rmtree(folder)
        rows.append((label, statistics.median(totals), statistics.median(buildings_s), statistics.median(sizes)))
    return rows


def stepping_figures(seeds: int, steps: int, renderer: str, work: Path) -> list[dict]:
    """Per row (the trivial world first): median steps per wall second and per CPU second."""
    rows = []
    for label, build in [smoke_row(), *PLAN]:
        wall, cpu = [], []
        for seed in range(seeds):
            folder = export_world(build(seed), work / f"{label.replace(' ', '_')}-{seed}")
            timing = measure_steps(folder, renderer, steps, resolution=96, seed=seed)
            wall.append(timing.steps / (timing.ended - timing.started))
            cpu.append(timing.steps / timing.cpu_s)
            shutil.rmtree(folder)
        rows.append(dict(label=label, steps_per_second=statistics.median(wall), steps_per_cpu_second=statistics.median(cpu)))
    return rows


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--renderer", choices=RENDERERS, default="GLES2")
    parser.add_argument("--seeds", type=int, default=5, help="worlds per row (the median counts)")
    parser.add_argument("--steps", type=int, default=1000, help="random steps per world")
    parser.add_argument("--generation-only", action="store_true", help="only generation, export and folder sizes")
    parser.add_argument("--json", help="also save the figures to this file")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="avalon-buildings-bench-"))
    try:
        figures = generation_figures(args.seeds, work)
        print(f"median of {args.seeds} worlds\n{'world':14} {'gen+exp s':>9} {'buildings.bin s':>15} {'folder MB':>9}")
        for label, total, buildings_s, size in figures:
            print(f"{label:14} {total:9.3f} {buildings_s:15.3f} {size:9.2f}")
        records = [dict(label=label, generate_export_s=total, buildings_export_s=b, folder_mb=size)
                   for label, total, b, size in figures]
        if not args.generation_only:
            rows = stepping_figures(args.seeds, args.steps, args.renderer, work)
            trivial = rows[0]
            print(f"\n{args.renderer}, 96x96, {args.steps} random steps per world")
            print(f"{'world':14} {'steps/s':>8} {'vs trivial':>10} {'steps/CPU-s':>11} {'vs trivial':>10}")
            for row in rows:
                print(f"{row['label']:14} {row['steps_per_second']:8.0f} {row['steps_per_second'] / trivial['steps_per_second']:10.0%} "
                      f"{row['steps_per_cpu_second']:11.0f} {row['steps_per_cpu_second'] / trivial['steps_per_cpu_second']:10.0%}")
            records += rows
        if args.json:
            save_figures(records, args.json)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
