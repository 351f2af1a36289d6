"""``avalon benchmark buildings``: generating and exporting worlds with buildings, their folders,
and steps per second with the agent inside a building, each beside the trivial world's in the
same run (the world benchmark's measurement, :func:`avalon.dev.bench.worlds._measure`).

Rows: the trivial world; a Small island with one two-story building, the agent spawned inside on
its ground floor; a Small island with three buildings (one or two stories), the agent outside as
the island's task placed it. Random actions, as in ``avalon world benchmark``; walls keep the
agent inside. ``--generation-only`` times generation and export alone (no simulator).
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
from avalon.dev.bench.worlds import WARMUP_STEPS, WorldBenchOptions, _measure, format_rows, smoke_row
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.errors import BuildingFitError
from avalon.sim.settings import RENDERERS
from avalon.tasks import build_world, task_for
from avalon.tasks.kit.assembly import OutdoorTaskConfig

TWO_STORIES = BuildingConfig(width_tiles=14, length_tiles=12, story_count=2, max_rooms=4)
SMALL = (BuildingConfig(width_tiles=10, length_tiles=10, story_count=1, max_rooms=3),
         BuildingConfig(width_tiles=12, length_tiles=10, story_count=2, max_rooms=3))


def _island(seed: int) -> World:
    return build_world(task_for("first"), 0.5, seed, OutdoorTaskConfig(world_size="small"))


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

    building = generate_building(TWO_STORIES, seed, origin=(-7.0, 0.0, -6.0))
    x, y, z = free_floor_positions(building, 0, building.entrance.rooms[0])[0]
    return World(task="buildings", difficulty=0.0, seed=seed, ground=FlatGround(size_m=28.0), entities=(),
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
        print(f"median of {args.seeds} worlds: {'world':14} {'gen+exp s':>9} {'buildings.bin s':>15} {'folder MB':>9}")
        for label, total, buildings_s, size in figures:
            print(f"{'':>22}{label:14} {total:9.3f} {buildings_s:15.3f} {size:9.2f}")
        records = [dict(label=label, generate_export_s=total, buildings_export_s=b, folder_mb=size)
                   for label, total, b, size in figures]
        if not args.generation_only:
            options = WorldBenchOptions(renderer=args.renderer, seeds=args.seeds, steps=args.steps)
            env = AvalonEnv(EnvConfig(renderer=args.renderer, resolution=options.resolution))
            try:
                env.action_space.seed(0)
                actions = [env.action_space.sample() for _ in range(args.steps + WARMUP_STEPS)]
                env.reset(seed=0)
                rows = [_measure(env, build, label, args.seeds, actions, work) for label, build in [smoke_row(), *PLAN]]
            finally:
                env.close()
            print(format_rows(rows, options))
            records += [attr.asdict(row) for row in rows]
        if args.json:
            save_figures(records, args.json)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
