"""Time pure-Python world generation (no export, no Godot) per task and difficulty.

Prints the median and maximum wall-clock time of ``build_world`` over a few seeds, the world size
and grid, and how many attempts ``build_world`` needed (derived seeds after an impossible world).
Usage: ``avalon benchmark task-generation [--seeds 5] [--tasks eat move] [--difficulties 0 0.5 1] [--preview-dir DIR]``;
with ``--preview-dir`` it also writes a top-down picture of each (task, difficulty) for seed 0,
cropped to the spawn and the food.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from PIL import Image

from avalon.datagen.preview import top_down_preview
from avalon.datagen.world import Terrain, World
from avalon.tasks import TASKS, attempt_rng, build_world, check_task, task_for
from avalon.tasks.kit import ImpossibleWorldError


def attempts_needed(task: str, difficulty: float, seed: int) -> int:
    generator = check_task(task).generate
    for attempt in range(100):
        try:
            generator(attempt_rng(seed, attempt), difficulty, None)
            return attempt + 1
        except ImpossibleWorldError:
            continue
    return 100


def preview(world: World, pixels: int = 384) -> Image.Image:
    """Top-down picture of the part of the island around the spawn and the food."""
    terrain = world.ground
    x, _, z = world.spawn_position
    full = top_down_preview(
        terrain.heightmap, terrain.biome_map, scenery=world.scenery, food=[f.position for f in world.food],
        spawn=(x, z, world.spawn_yaw_rad), rings=terrain.ring_outlines, pixels=1024,
    )
    xs = [x] + [f.position[0] for f in world.food]
    zs = [z] + [f.position[2] for f in world.food]
    for ring in terrain.ring_outlines:  # show whole obstacle rings
        xs += list(ring.centre_x_m + ring.outer_radius_m * np.cos(ring.angles_rad))
        zs += list(ring.centre_z_m + ring.outer_radius_m * np.sin(ring.angles_rad))
    half = max(max(xs) - min(xs), max(zs) - min(zs)) / 2.0 + 5.0
    cx, cz = (max(xs) + min(xs)) / 2.0, (max(zs) + min(zs)) / 2.0
    scale = 1024 / terrain.size_m
    to_px = lambda v: int(round((v + terrain.size_m / 2.0) * scale))  # noqa: E731
    box = (to_px(cx - half), to_px(cz - half), to_px(cx + half), to_px(cz + half))
    return full.crop(box).resize((pixels, pixels), Image.BILINEAR)


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="worlds per (task, difficulty)")
    parser.add_argument("--tasks", nargs="+", default=[t for t in TASKS if t != task_for("smoke")])
    parser.add_argument("--difficulties", nargs="+", type=float, default=[0.0, 0.5, 1.0])
    parser.add_argument("--preview-dir", type=Path, default=None, help="write a cropped top-down PNG per row here")
    args = parser.parse_args(argv)

    print(f"{'task':<8}{'difficulty':>11}{'median s':>10}{'max s':>8}{'size m':>8}{'grid':>10}{'attempts':>10}{'plants':>8}")
    for task in args.tasks:
        for difficulty in args.difficulties:
            times, attempts, plants = [], [], []
            for seed in range(args.seeds):
                start = time.perf_counter()
                world = build_world(task, difficulty, seed)
                times.append(time.perf_counter() - start)
                attempts.append(attempts_needed(task, difficulty, seed))
                plants.append(len(world.scenery))
            if args.preview_dir is not None:
                args.preview_dir.mkdir(parents=True, exist_ok=True)
                preview(build_world(task, difficulty, 0)).save(args.preview_dir / f"{task}_{difficulty:g}.png")
            size, grid = "-", "-"
            if isinstance(world.ground, Terrain):
                size = f"{world.ground.size_m:.0f}"
                grid = "x".join(str(n) for n in world.ground.heightmap.shape)
            print(
                f"{task:<8}{difficulty:>11.2f}{statistics.median(times):>10.3f}{max(times):>8.3f}{size:>8}{grid:>10}"
                f"{statistics.mean(attempts):>10.2f}{int(statistics.median(plants)):>8}"
            )


if __name__ == "__main__":
    main()
