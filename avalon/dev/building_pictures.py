"""The buildings' pictures in docs/worldgen.md, drawn by the simulator (its ``RENDER`` picture):
a Small island with a two-story building seen from outside, beside its top-down map; the ground
floor from inside, from just within the entrance; and the building's plan, story by story.
Writes ``<out-dir>/building-outside.png``, ``building-inside.png`` and ``building-plan.png``.
Usage:

    python -m avalon.dev.building_pictures [--seed 0] [--out-dir docs/images] [--pixels 384]
"""

from __future__ import annotations

import argparse
import math
import shutil
import tempfile
from pathlib import Path

import attr
import numpy as np
from PIL import Image, ImageDraw

from avalon.app.world import top_down
from avalon.datagen.export import export_world
from avalon.datagen.preview import building_plan
from avalon.datagen.world import World
from avalon.dev.bench.buildings import inside_world
from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig


def rendered(world: World, pixels: int, renderer: str) -> Image.Image:
    """The simulator's picture of ``world`` from its spawn point, ``pixels`` square."""
    work = Path(tempfile.mkdtemp(prefix="avalon-building-pictures-"))
    env = AvalonEnv(EnvConfig(renderer=renderer, resolution=64, render_resolution=pixels), render_mode="rgb_array")
    try:
        env.reset(seed=0, options={"world_dir": str(export_world(world, work / "world"))})
        return Image.fromarray(env.render())
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)


def _facing(world: World, position, towards) -> World:
    dx, dz = towards[0] - position[0], towards[1] - position[1]
    return attr.evolve(world, spawn_position=position, spawn_yaw_rad=math.atan2(-dx, -dz))


def outside_view(world: World) -> World:
    """The spawn on dry land 8 m out from the building's grid, as near the side of its entrance
    as the island allows, looking at the building's centre."""
    building = world.buildings[0]
    heightmap = world.ground.heightmap
    entrance = building.entrance
    facing_out = math.atan2(-math.sin(entrance.yaw_rad), -math.cos(entrance.yaw_rad))
    centre = np.array(building.centre)
    reach = max(building.size_m) / 2.0 + 8.0
    limit = world.ground.size_m / 2.0 - 2.0
    for turn in sorted(np.radians(np.arange(0.0, 360.0, 15.0)), key=lambda a: abs(math.remainder(a - facing_out, 2 * math.pi))):
        x, z = centre + reach * np.array([math.cos(turn), math.sin(turn)])
        if abs(x) <= limit and abs(z) <= limit and heightmap.height_at(x, z) > heightmap.water_height_m + 0.5:
            return _facing(world, (float(x), float(heightmap.height_at(x, z)), float(z)), building.centre)
    raise ValueError("no dry ground 8 m from the building to look at it from")


def inside_view(world: World) -> World:
    """The spawn on the ground floor, a tile inside the entrance, looking across its room."""
    building = world.buildings[0]
    entrance = building.entrance
    inward = np.array([math.sin(entrance.yaw_rad), math.cos(entrance.yaw_rad)])
    x, _, z = entrance.position
    start = np.array([x, z]) + 1.0 * inward
    return _facing(world, (float(start[0]), building.floor_top_m(0), float(start[1])), tuple(start + inward + np.array([0.3, 0.3])))


def write_pictures(seed: int, out_dir: Path, pixels: int, renderer: str) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    world = inside_world(seed)
    outside = outside_view(world)
    panels = Image.new("RGB", (2 * pixels, pixels + 24), (20, 20, 20))
    panels.paste(top_down(outside, pixels), (0, 24))
    panels.paste(rendered(outside, pixels, renderer), (pixels, 24))
    ImageDraw.Draw(panels).text((8, 6), "a Small island with a two-story building: from above (north up) and from outside",
                                fill=(230, 230, 230))
    paths = [out_dir / "building-outside.png", out_dir / "building-inside.png", out_dir / "building-plan.png"]
    panels.save(paths[0])
    rendered(inside_view(world), pixels, renderer).save(paths[1])
    building_plan(world.buildings[0], tile_pixels=12).save(paths[2])
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", default="docs/images")
    parser.add_argument("--pixels", type=int, default=384)
    parser.add_argument("--renderer", default="GLES3")
    args = parser.parse_args(argv)
    for path in write_pictures(args.seed, Path(args.out_dir), args.pixels, args.renderer):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
