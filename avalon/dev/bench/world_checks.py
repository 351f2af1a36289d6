"""Time the checks an untrusted world folder goes through (docs/security.md), per world size.

Python, before every reset (``read_world_info``): listing, world.json, the content hash over every
file, and the world.tscn check. Godot, at every reset (``godot/world/terrain_file.gd``): reading
terrain.bin with its length checked, the native layout check, decoding, and the value checks,
against decoding alone (``File.get_var()``, what terrain.gd did before the checks). Prints the
median over ``--repeats`` runs. Usage: ``avalon benchmark world-checks [--sizes small large] [--repeats 15]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from avalon.datagen.export import export_world
from avalon.datagen.export.scene_check import check_scene_text
from avalon.datagen.terrain import WORLD_SIZES_M
from avalon.datagen.world_folder import read_world_info
from avalon.sim.paths import find_native_library, godot_project_dir
from avalon.tasks import build_world, task_for
from avalon.tasks.kit.assembly import OutdoorTaskConfig

GODOT_SERVER = "godot3-server"  # headless: no rendering needed to time the file checks
GODOT_BENCH = """extends SceneTree
const TerrainFile = preload("res://world/terrain_file.gd")

func _init():
	var repeats = int(OS.get_environment("AVALON_BENCH_REPEATS"))
	for world_dir in OS.get_environment("AVALON_BENCH_DIRS").split(":"):
		var decode = []
		var checked = []
		for i in range(repeats):
			var start = OS.get_ticks_usec()
			var file = File.new()
			file.open(world_dir.plus_file("terrain.bin"), File.READ)
			var data = file.get_var()
			file.close()
			decode.append(OS.get_ticks_usec() - start)
			start = OS.get_ticks_usec()
			var read = TerrainFile.read(world_dir, "terrain.bin")
			checked.append(OS.get_ticks_usec() - start)
			if read.error != "":
				printerr("BENCH-ERROR ", read.error)
		decode.sort()
		checked.sort()
		print("BENCH %s %d %d" % [world_dir, decode[repeats / 2], checked[repeats / 2]])
	quit()
"""


def _median_ms(function, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000.0


def _godot_ms(folders: list[Path], repeats: int) -> dict[str, tuple[float, float]]:
    find_native_library()
    with tempfile.TemporaryDirectory(prefix="avalon-bench-checks-") as work:
        script = Path(work) / "bench.gd"
        script.write_text(GODOT_BENCH)
        environment = dict(os.environ, AVALON_BENCH_DIRS=":".join(str(f) for f in folders), AVALON_BENCH_REPEATS=str(repeats))
        result = subprocess.run(
            [GODOT_SERVER, "--path", str(godot_project_dir()), "--no-window", "-s", str(script)],
            env=environment, capture_output=True, text=True, timeout=1800,
        )
    figures = {}
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            _, folder, decode_us, checked_us = line.split()
            figures[folder] = (int(decode_us) / 1000.0, int(checked_us) / 1000.0)
    if len(figures) != len(folders) or "BENCH-ERROR" in result.stderr:
        raise RuntimeError(f"the Godot benchmark failed:\n{result.stdout}\n{result.stderr}")
    return figures


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["small", "large"], choices=sorted(WORLD_SIZES_M))
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="avalon-bench-checks-") as work:
        folders = []
        for size in args.sizes:
            world = build_world(task_for("first"), 0.5, 0, OutdoorTaskConfig(world_size=size))
            folders.append(export_world(world, Path(work) / size))
        godot = _godot_ms(folders, args.repeats)
        print(f"median of {args.repeats}, ms")
        print(f"{'size':<7}{'folder MB':>10}{'python all':>11}{'sha256':>8}{'scene':>7}{'godot decode':>13}"
              f"{'godot checked':>14}{'checks':>8}")
        for size, folder in zip(args.sizes, folders):
            read_world_info(folder)  # warm the page cache
            megabytes = sum(p.stat().st_size for p in folder.iterdir()) / 1e6
            everything = _median_ms(lambda folder=folder: read_world_info(folder), args.repeats)
            data = b"".join((folder / name).read_bytes() for name in ("terrain.bin", "world.tscn"))
            sha = _median_ms(lambda data=data: hashlib.sha256(data).digest(), args.repeats)
            text = (folder / "world.tscn").read_text()
            scene = _median_ms(lambda text=text: check_scene_text(text, "world.tscn"), args.repeats)
            decode, checked = godot[str(folder)]
            print(f"{size:<7}{megabytes:>10.2f}{everything:>11.2f}{sha:>8.2f}{scene:>7.2f}{decode:>13.1f}{checked:>14.1f}"
                  f"{checked - decode:>8.1f}")


if __name__ == "__main__":
    main()
