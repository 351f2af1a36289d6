"""Time outdoor world generation (height map, biomes, scenery) for each named world size.

Prints the median wall-clock time per stage over a few seeds; optionally writes a top-down
preview per size. Usage: ``avalon benchmark worldgen [--seeds 3] [--preview-dir DIR]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from avalon.datagen.biomes import assign_biomes
from avalon.datagen.preview import top_down_preview
from avalon.datagen.scenery import place_scenery
from avalon.datagen.terrain import WORLD_SIZES_M, WorldConfig, build_heightmap


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="worlds per size (median is reported)")
    parser.add_argument("--preview-dir", type=Path, default=None, help="write one preview PNG per size here")
    args = parser.parse_args(argv)

    print(f"{'size':<8}{'side m':>8}{'grid':>10}{'heightmap s':>13}{'biomes s':>10}{'scenery s':>11}{'total s':>9}{'plants':>8}")
    for name, side in WORLD_SIZES_M.items():
        stages: dict[str, list[float]] = {"heightmap": [], "biomes": [], "scenery": [], "total": []}
        plants = []
        for seed in range(args.seeds):
            rng = np.random.default_rng(seed)
            start = time.perf_counter()
            heightmap = build_heightmap(rng, WorldConfig.for_size(name))
            after_terrain = time.perf_counter()
            biome_map = assign_biomes(rng, heightmap)
            after_biomes = time.perf_counter()
            scenery = place_scenery(rng, biome_map.heightmap, biome_map)
            end = time.perf_counter()
            stages["heightmap"].append(after_terrain - start)
            stages["biomes"].append(after_biomes - after_terrain)
            stages["scenery"].append(end - after_biomes)
            stages["total"].append(end - start)
            plants.append(len(scenery))
            if args.preview_dir is not None and seed == 0:
                args.preview_dir.mkdir(parents=True, exist_ok=True)
                top_down_preview(biome_map.heightmap, biome_map, scenery=scenery, pixels=512).save(
                    args.preview_dir / f"{name}.png"
                )
        grid = f"{heightmap.shape[0]}x{heightmap.shape[1]}"
        med = {k: statistics.median(v) for k, v in stages.items()}
        print(
            f"{name:<8}{side:>8.0f}{grid:>10}{med['heightmap']:>13.3f}{med['biomes']:>10.3f}"
            f"{med['scenery']:>11.3f}{med['total']:>9.3f}{int(statistics.median(plants)):>8}"
        )


if __name__ == "__main__":
    main()
