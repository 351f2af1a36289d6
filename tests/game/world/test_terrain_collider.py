"""The terrain's collider in Godot (Bullet): its tiles, coarse over level ground and at full detail
elsewhere, give the grid's exact surface, the surface the full-grid collider of terrain.bin
format 5 gives, at every cell and across the tiles' seams."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from avalon.datagen.export import collider_tiles, export_world
from avalon.sim.paths import godot_project_dir
from avalon.tasks import build_world
from tests.datagen.tampering import edit_terrain

pytestmark = pytest.mark.godot

# Vertical rays through every point given, in the physics space of a terrain node's ground; the hit
# heights (null: no hit) and the ground body's shape count as JSON.
_PROBE = """extends SceneTree

var frames = 0
var terrain = null

func _initialize():
	terrain = load("res://world/terrain.gd").new()
	get_root().add_child(terrain)
	var error = terrain.load_data(OS.get_environment("WORLD_DIR"))
	if error != "":
		print("PROBE_ERROR " + error)
		quit()
		return
	terrain.get_node("Trees").free()  # the ground alone

func _iteration(_delta):
	frames += 1
	if frames < 2:  # the bodies enter the physics space with the first physics frame
		return false
	var file = File.new()
	file.open(OS.get_environment("PROBE_POINTS"), File.READ)
	var points = parse_json(file.get_as_text())
	file.close()
	var space = get_root().get_world().direct_space_state
	var top = float(OS.get_environment("PROBE_TOP"))
	var bottom = float(OS.get_environment("PROBE_BOTTOM"))
	var heights = []
	for point in points:
		var hit = space.intersect_ray(Vector3(point[0], top, point[1]), Vector3(point[0], bottom, point[1]))
		heights.append(hit.position.y if hit.has("position") else null)
	file.open(OS.get_environment("PROBE_OUT"), File.WRITE)
	file.store_string(to_json({"heights": heights, "shapes": terrain.get_node("Ground").get_child_count()}))
	file.close()
	quit()
	return true
"""


def _probe(folder: Path, points: np.ndarray, heights: np.ndarray, work: Path) -> tuple[np.ndarray, int]:
    """Heights where vertical rays through ``points`` (x, z) hit the collider of ``folder``, and the
    ground body's shape count."""
    server = shutil.which("godot3-server")
    assert server, "godot3-server is missing: run `make setup`"
    script, points_file, out = work / "probe.gd", work / "points.json", work / "heights.json"
    script.write_text(_PROBE)
    points_file.write_text(json.dumps(points.tolist()))
    environment = {"WORLD_DIR": str(folder), "PROBE_POINTS": str(points_file), "PROBE_OUT": str(out),
                   "PROBE_TOP": str(float(heights.max()) + 1.0), "PROBE_BOTTOM": str(float(heights.min()) - 1.0),
                   "PATH": "/usr/bin:/bin", "HOME": str(work)}  # Godot's user folder (its logs) under the test's folder
    result = subprocess.run([server, "--no-window", "--path", str(godot_project_dir()), "-s", str(script)], env=environment,
                            capture_output=True, text=True, timeout=300, cwd=work)
    assert out.is_file(), result.stdout[-2000:] + result.stderr[-2000:]
    answer = json.loads(out.read_text())
    return np.array([np.nan if h is None else h for h in answer["heights"]]), answer["shapes"]


def _surface(heights: np.ndarray, cell: float, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The grid's surface at (x, z) metres from its first point: planar over each cell's two
    triangles, split from (row, col + 1) to (row + 1, col)."""
    rows, cols = heights.shape
    gx, gz = x / cell, z / cell
    c, r = np.minimum(gx.astype(int), cols - 2), np.minimum(gz.astype(int), rows - 2)
    fx, fz = gx - c, gz - r
    h = heights.astype(np.float64)
    lower = h[r, c] + fx * (h[r, c + 1] - h[r, c]) + fz * (h[r + 1, c] - h[r, c])
    upper = h[r + 1, c + 1] + (1 - fx) * (h[r + 1, c] - h[r + 1, c + 1]) + (1 - fz) * (h[r, c + 1] - h[r + 1, c + 1])
    return np.where(fx + fz <= 1.0, lower, upper)


@pytest.mark.slow
def test_the_tiled_collider_is_the_grids_surface_and_the_full_grid_colliders(tmp_path):
    world = build_world("stack", 1.0, 0)  # a 0.25 m grid: a level yard and plateau top, walls, natural ground
    heightmap = world.ground.heightmap
    heights = np.asarray(heightmap.heights, np.float32)
    cell, half = heightmap.cell_size_m, heightmap.size_m / 2
    tiles = collider_tiles.collider_tiles(heights, cell)
    assert {1, collider_tiles.SUBTILE_CELLS, collider_tiles.TILE_CELLS} <= set(tiles[:, 4].tolist())  # every kind of tile
    rows, cols = heights.shape
    # A point inside each cell's two triangles, points on the tiles' seams, and random points.
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(cols - 1), indexing="ij")
    grid = np.concatenate([np.stack([c + 0.25, r + 0.25], -1).reshape(-1, 2), np.stack([c + 0.7, r + 0.6], -1).reshape(-1, 2)])
    along = np.linspace(0.01, 0.99, 50)
    seams = np.concatenate([np.stack([np.full(50, first_col + 1e-3), first_row + along * cell_rows], -1)
                            for first_row, first_col, cell_rows, _, _ in tiles]
                           + [np.stack([first_col + along * cell_cols, np.full(50, first_row + 1e-3)], -1)
                              for first_row, first_col, _, cell_cols, _ in tiles])
    rng = np.random.default_rng(0)
    scattered = rng.uniform(0.0, rows - 1.0, (5000, 2))
    points = np.concatenate([grid, seams, scattered]) * cell  # metres from the first grid point
    tiled_folder = export_world(world, tmp_path / "tiled")
    tiled, shapes = _probe(tiled_folder, points - half, heights, tmp_path)
    assert shapes == len(tiles) > 1
    expected = _surface(heights, cell, points[:, 0], points[:, 1])
    assert not np.isnan(tiled).any()
    np.testing.assert_allclose(tiled, expected, atol=2e-5)  # float32 rounding only

    def as_format_5(value):
        value.pop("collider_tiles")
        value["format_version"] = 5

    full_folder = shutil.copytree(tiled_folder, tmp_path / "full")
    edit_terrain(full_folder, as_format_5)
    full, shapes = _probe(full_folder, points - half, heights, tmp_path)
    assert shapes == 1
    np.testing.assert_allclose(tiled, full, atol=2e-5)
