"""Time solvability certificates (``avalon/tasks/kit/certificate.py: certify``) on generated islands.

For each world size, a few islands (terrain and biomes as the tasks make them), a spawn and a
food on dry gentle ground far apart, and three certificates: walking only (what eat and move are
certified with), every skill with the food reachable, and every skill with the food out of reach
(floating 30 m up: the searches run to the end, the worst case). Prints the median wall-clock
time of each, with the load average (the machine may be shared).
Usage: ``avalon benchmark certificates [--seeds 3] [--repeats 3] [--sizes small:1 medium:2 large:1 huge:1]``
(``size:points_per_m``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from avalon.datagen.biomes import assign_biomes
from avalon.datagen.world import Terrain, World
from avalon.tasks.kit.assembly import build_island
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.route import SKILLS
from avalon.tasks.kit.skills import CLIMB, JUMP

CASES = {
    "walk": (frozenset(), frozenset({"walk"}), 0.1),
    "all skills, reached": (frozenset({JUMP}), frozenset(SKILLS), 0.1),
    "all skills, out of reach": (frozenset({JUMP, CLIMB}), frozenset(SKILLS), 30.0),
}


def island_world(size: str, points_per_m: float, seed: int):
    """An island world with a spawn, and the food's ground point, on dry gentle ground far apart."""
    heightmap = build_island(np.random.default_rng(seed), size, points_per_m)
    biome_map = assign_biomes(np.random.default_rng(seed + 1), heightmap)
    heightmap = biome_map.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    fine = np.flatnonzero((heightmap.heights > heightmap.water_height_m + 0.5) & (heightmap.slope_deg() < 20.0))
    spawn_index, food_index = np.random.default_rng(seed).choice(fine, 2, replace=False)
    sx, sz = float(x.ravel()[spawn_index]), float(z.ravel()[spawn_index])
    fx, fz = float(x.ravel()[food_index]), float(z.ravel()[food_index])
    world = World(task="bench", difficulty=0.0, seed=seed, ground=Terrain(biome_map=biome_map), entities=(),
                  spawn_position=(sx, ground_height(heightmap, sx, sz), sz), time_limit_frames=10)
    return world, (fx, ground_height(heightmap, fx, fz), fz)


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", nargs="+", default=["small:1", "medium:2", "large:1", "huge:1"])
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    figures = {}
    for entry in args.sizes:
        size, points_per_m = entry.split(":")
        times: dict[str, list[float]] = {name: [] for name in CASES}
        grid = None
        for seed in range(args.seeds):
            world, (fx, fy, fz) = island_world(size, float(points_per_m), seed)
            grid = world.ground.heightmap.shape
            for name, (required, allowed, above) in CASES.items():
                for _ in range(args.repeats):
                    start = time.perf_counter()
                    certify(world, (fx, fy + above, fz), required, allowed)
                    times[name].append(time.perf_counter() - start)
        medians = {name: statistics.median(values) * 1000.0 for name, values in times.items()}
        figures[entry] = {"grid": list(grid), "median_ms": medians}
        print(f"{size:>6} at {points_per_m} point/m, grid {grid[0]}x{grid[1]}: "
              + ", ".join(f"{name} {value:.0f} ms" for name, value in medians.items()))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
