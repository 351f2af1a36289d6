"""World folders and episode files from others are data: with the real Godot, an exploit world's
code never runs (through AvalonEnv.reset or replay), and a corrupt or crafted terrain file that
gets past the Python checks (Simulator.reset directly) is an error from Godot, never a crash."""

from __future__ import annotations

import re
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest
import zstandard

from avalon import AvalonEnv
from avalon.datagen.export import export_world, marshal, scene_ranges
from avalon.env.config import EnvConfig
from avalon.episodes.recording import RecordEpisodes, replay
from avalon.errors import WorldLoadError
from avalon.sim.paths import godot_project_dir
from avalon.sim.simulator import Simulator
from avalon.tasks import generate_world
from tests.conftest import zero_action
from tests.datagen import tampering
from tests.datagen.tampering import edit_scene, edit_terrain, replace
from tests.episodes.episode_files import repack_world

pytestmark = pytest.mark.godot


# ---------------------------------------------------------------------- code in a world folder


def test_an_exploit_world_is_refused_at_reset_and_its_code_never_runs(trivial_world_dir, tmp_path):
    marker = tmp_path / "marker"
    world = tampering.copy_world(trivial_world_dir, tmp_path / "exploit")
    tampering.add_embedded_script(world, marker)  # re-sealed: the content hash matches
    env = AvalonEnv(renderer="GLES2", resolution=32)
    try:
        with pytest.raises(WorldLoadError, match=r"world.tscn: line \d+: sub_resource of type 'GDScript'"):
            env.reset(options={"world_dir": str(world)})
        assert not marker.exists()
        env.reset(options={"world_dir": str(trivial_world_dir)})  # the next reset works
        env.step(zero_action())
        assert not marker.exists()
    finally:
        env.close()


@pytest.mark.slow
def test_the_exploit_inside_an_episode_file_makes_replay_refuse_it(trivial_world_dir, tmp_path):
    marker = tmp_path / "marker"
    env = RecordEpisodes(AvalonEnv(renderer="GLES2", resolution=32, world_dir=str(trivial_world_dir)), tmp_path / "episodes")
    try:
        env.reset(seed=3)
        for _ in range(5):
            env.step(zero_action(head_position=[0.0, 0.0, -0.5]))
    finally:
        env.close()
    # The repacking itself changes nothing that matters: untouched, the world still replays.
    assert replay(repack_world(env.last_path, tmp_path / "repacked.npz", lambda folder: None)).identical
    tampered = repack_world(env.last_path, tmp_path / "tampered.npz", lambda folder: tampering.add_embedded_script(folder, marker))
    with pytest.raises(WorldLoadError, match=r"world.tscn: line \d+: sub_resource of type 'GDScript'"):
        replay(tampered)
    assert not marker.exists()


# ---------------------------------------------------------------------- numbers beyond what Godot holds


def test_a_huge_coordinate_is_refused_at_reset_naming_the_line_and_godot_keeps_serving(trivial_world_dir, tmp_path):
    # A folder whose only fault is an apple at x = 1e308 (its content hash recomputed), and one at
    # the bounds of every range, which loads and steps.
    huge = tampering.copy_world(trivial_world_dir, tmp_path / "huge")
    edit_scene(huge, replace("0, 0, 0, 1, 0, 0, 0, 1, 0, 0.15, -2.5 )", "0, 0, 0, 1, 0, 0, 0, 1, 1e308, 0.15, -2.5 )"))
    bounds = export_world(tampering.world_at_the_bounds(), tmp_path / "bounds")
    env = AvalonEnv(renderer="GLES2", resolution=32)
    try:
        with pytest.raises(WorldLoadError, match=r"world.tscn: line \d+: property 'transform' = .*its origin's x is 1e\+308"):
            env.reset(options={"world_dir": str(huge)})
        env.reset(options={"world_dir": str(bounds)})
        for _ in range(20):
            env.step(zero_action(head_position=[0.0, 0.0, -1.0]))
        env.reset(options={"world_dir": str(trivial_world_dir)})
        env.step(zero_action())
    finally:
        env.close()


# ---------------------------------------------------------------------- Godot never crashes on a data file


@pytest.fixture(scope="module")
def island(tmp_path_factory) -> Path:
    return generate_world("eat", 0.0, 1, tmp_path_factory.mktemp("island") / "island")


@pytest.fixture(scope="module")
def simulator():
    simulator = Simulator(EnvConfig(renderer="GLES2", resolution=32).simulator)
    simulator.start()
    yield simulator
    simulator.close()


def _load(simulator: Simulator, folder: Path) -> str:
    """What Godot answers RESET with, bypassing the Python checks: "loaded" or the error's text."""
    try:
        simulator.reset(str(folder), 1, 100)
        return "loaded"
    except WorldLoadError as error:
        return str(error)
    finally:
        assert simulator.is_running, f"Godot crashed loading {folder}: {simulator.log_tail()}"


def _with_terrain(island: Path, folder: Path, data: bytes) -> Path:
    tampering.copy_world(island, folder)
    (folder / "terrain.bin").write_bytes(data)
    return folder


def test_godot_reports_a_scene_it_cannot_use_and_keeps_serving(simulator, trivial_world_dir, tmp_path):
    # What the Python checks refuse first (see tests/sim/test_lifecycle.py), Godot refuses too.
    broken = tampering.copy_world(trivial_world_dir, tmp_path / "broken")
    (broken / "world.tscn").write_text("[gd_scene load_steps=2 format=2]\n[node name=broken")
    assert re.search(f"{broken}.*could not be parsed", _load(simulator, broken))
    no_spawn = tampering.copy_world(trivial_world_dir, tmp_path / "no_spawn")
    edit_scene(no_spawn, replace('[node name="SpawnPoint"', '[node name="Elsewhere"'), seal=False)
    assert re.search(f"{no_spawn}.*has no SpawnPoint", _load(simulator, no_spawn))
    assert _load(simulator, trivial_world_dir) == "loaded"


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.0, 0.001, 0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99, 0.999, -1])
def test_a_truncated_terrain_file_is_an_error_not_a_crash(simulator, island, tmp_path, fraction):
    data = (island / "terrain.bin").read_bytes()
    size = len(data) - 1 if fraction == -1 else int(len(data) * fraction)
    answer = _load(simulator, _with_terrain(island, tmp_path / "w", data[:size]))
    assert "could not be loaded" in answer and "terrain.bin" in answer
    assert re.search(r"truncated or altered|not a terrain data file", answer), answer
    assert _load(simulator, island) == "loaded"  # and a good world still loads in the same process


@pytest.mark.slow
def test_inverted_and_random_bytes_are_an_error_or_load_but_never_crash(simulator, island, tmp_path):
    data = (island / "terrain.bin").read_bytes()
    answers = []
    for start in [0, 4, 64, len(data) // 3, len(data) // 2, len(data) - 64]:
        inverted = bytearray(data)
        inverted[start : start + 64] = bytes(b ^ 0xFF for b in inverted[start : start + 64])
        answers.append(_load(simulator, _with_terrain(island, tmp_path / f"inverted-{start}", bytes(inverted))))
    rng = np.random.default_rng(0)
    for trial in range(16):
        corrupted = np.frombuffer(data, np.uint8).copy()
        where = rng.integers(0, len(data), size=int(rng.integers(1, 65)))
        corrupted[where] = rng.integers(0, 256, size=len(where), dtype=np.uint8)
        answers.append(_load(simulator, _with_terrain(island, tmp_path / f"random-{trial}", corrupted.tobytes())))
    assert all(answer == "loaded" or "could not be loaded" in answer for answer in answers)
    assert "could not be loaded" in answers[0] and "could not be loaded" in answers[1]  # the length prefix, the first header
    assert _load(simulator, island) == "loaded"


def _compressed(encoding: bytes, stated_length: int | None = None) -> bytes:
    """A compressed terrain file holding ``encoding``, saying it decompresses to ``stated_length``."""
    stated = len(encoding) if stated_length is None else stated_length
    return marshal.COMPRESSED_MAGIC + struct.pack("<I", stated) + zstandard.ZstdCompressor().compress(encoding)


@pytest.mark.parametrize(
    "craft, reason",
    [
        (lambda encoding: _compressed(encoding, 0), "says it decompresses to 0 bytes, expected 1 to 268435456"),
        (lambda encoding: _compressed(encoding, 2**32 - 1), "says it decompresses to 4294967295 bytes"),
        (lambda encoding: _compressed(encoding, len(encoding) - 1), "does not decompress to the .* bytes it says: truncated or altered"),
        (lambda encoding: _compressed(encoding, len(encoding) + 4), "does not decompress to the .* bytes it says: truncated or altered"),
        (lambda encoding: marshal.COMPRESSED_MAGIC + struct.pack("<I", len(encoding)) + b"\x28\xb5\x2f\xfd" + b"\xff" * 64,
         "does not decompress"),
        (lambda encoding: marshal.COMPRESSED_MAGIC + struct.pack("<I", 16), "does not decompress"),
        (lambda encoding: _compressed(struct.pack("<II", 19, 1) * 200_000 + struct.pack("<II", 2, 7)),
         "its encoding is malformed at byte .* of its decompressed encoding"),
        (lambda encoding: _compressed(encoding[:-8] + b"\xff" * 8), "not a terrain data file|malformed|is not|out of range|lacks"),
    ],
)
def test_a_crafted_compressed_terrain_file_is_an_error_naming_the_problem(simulator, island, tmp_path, craft, reason):
    answer = _load(simulator, _with_terrain(island, tmp_path / "w", craft(tampering.terrain_encoding(island))))
    assert "could not be loaded" in answer and "terrain.bin" in answer
    assert re.search(reason, answer), answer
    assert _load(simulator, island) == "loaded"


def _trees(bases, scales, radius_m=0.3, height_m=2.0):
    return lambda v: v.update(tree_colliders=[{"radius_m": radius_m, "height_m": height_m,
                                               "bases": marshal.vector3_array(bases), "scales": marshal.real_array(scales)}])


def _set_colour(mesh, value):
    mesh["colors"].values[0, 1] = value


def _set_index(value, index):
    value["chunks"][0]["levels"][0]["indices"].values[7] = index


def _drop_a_sea_index(value):
    value["sea"]["indices"] = marshal.int_array(value["sea"]["indices"].values[:-1])


def _deep_nesting(folder):
    payload = struct.pack("<II", 19, 1) * 200_000 + struct.pack("<II", 2, 7)  # arrays in arrays: Godot's decoder recursed
    (folder / "terrain.bin").write_bytes(struct.pack("<I", len(payload)) + payload)


def _an_object(folder):
    payload = struct.pack("<II", 17, 0)
    (folder / "terrain.bin").write_bytes(struct.pack("<I", len(payload)) + payload)


def _terrain(edit):
    return lambda folder: edit_terrain(folder, edit)


def _vertices_count(value):
    return len(value["chunks"][0]["levels"][0]["vertices"].values)


@pytest.mark.slow
@pytest.mark.parametrize(
    "tamper, reason",
    [
        (_terrain(lambda v: _set_index(v, _vertices_count(v))), "a mesh's indices reach outside its"),
        (_terrain(lambda v: _set_index(v, -1)), "a mesh's indices reach outside its"),
        (_terrain(lambda v: _set_index(v, 2**31 - 1)), "a mesh's indices reach outside its"),
        (_terrain(_drop_a_sea_index), "the sea: a mesh has 23 indices, not whole triangles"),
        (_terrain(lambda v: v["heights"].values.__setitem__(5, np.nan)), "a height is not finite"),
        (_terrain(lambda v: v["chunks"][1]["levels"][2]["vertices"].values.__setitem__((0, 1), np.inf)),
         r"chunk 1: a mesh's vertex is not finite \(item 0: inf\)"),
        (_terrain(lambda v: v.update(rows=v["rows"] + 1)), "grids do not match"),
        (_terrain(lambda v: v.update(rows=2**40, cols=2**40)), "is not at least 2 x 2 and at most its"),
        (_terrain(lambda v: v["chunks"][0].update(levels=[])), "chunk 0 has no levels of detail"),
        (_terrain(lambda v: v["chunks"][2].pop("centre")), "chunk 2 has no finite centre"),
        (_terrain(lambda v: v["chunks"].append(7)), "chunk 16 has no finite centre"),
        (_terrain(lambda v: v.update(cell_size_m=0.0)), "cell_size_m is 0(.0)?, expected a finite number above 0"),
        (_terrain(lambda v: v.update(heights=v["climbable"])), "heights or climbable is missing"),
        (_terrain(lambda v: v.update(format_version=99)), "format_version 99, this simulator reads"),
        (_terrain(lambda v: v.update(tree_colliders=[{"radius_m": -1.0, "height_m": 2.0}])), "a tree collider's radius_m is -1"),
        (_deep_nesting, "its encoding is malformed at byte 68"),
        (_an_object, "its encoding is malformed at byte 4"),
        (lambda folder: edit_scene(folder, replace('data_file = "terrain.bin"', "data_file = 5")),
         "the terrain's data_file 5 is not the plain name"),
        (lambda folder: edit_scene(folder, replace('data_file = "terrain.bin"', 'data_file = ""')),
         'the terrain\'s data_file "" is not the plain name'),
        # Finite numbers beyond what the simulator holds (scene_ranges.py's bounds, terrain_file.gd).
        (_terrain(lambda v: v["heights"].values.__setitem__(5, 1e30)),
         r"a height is out of range \(item 5: 1e\+30\), expected a coordinate within \+-1000000 m"),
        (_terrain(lambda v: v["chunks"][1]["levels"][0]["vertices"].values.__setitem__((3, 0), -2e6)),
         r"chunk 1: a mesh's vertex is out of range \(item 3: -2e\+06\), expected a coordinate within"),
        (_terrain(lambda v: _set_colour(v["chunks"][0]["levels"][1], 2.0)),
         r"chunk 0: a mesh's colour is out of range \(item 0: 2(\.0)?\), expected components in \[0, 1\]"),
        (_terrain(lambda v: _set_colour(v["sea"], np.nan)), r"the sea: a mesh's colour is not finite \(item 0: nan\)"),
        (_terrain(lambda v: v["chunks"][2].update(centre=marshal.vector3(0.0, 3e38, 0.0))),
         r"chunk 2's centre is Vector3\( 0, 3e\+38, 0 \), expected each a coordinate within"),
        (_terrain(lambda v: v.update(water_height_m=1e20)), r"water_height_m is 1e\+20, expected a coordinate within \+-1000000 m"),
        (_terrain(lambda v: v.update(size_m=3e38)), r"size_m is 3e\+38, expected a finite number above 0, at most 1000000 m"),
        (_terrain(lambda v: v.update(max_slope=-1.0)), r"max_slope is -1(\.0)?, expected a finite slope from 0 to 1e9"),
        (_terrain(lambda v: v.update(lod_distances_m=[12.0, 1e30])), r"lod_distances_m holds 1e\+30, expected a finite number from 0"),
        (_terrain(_trees([(1.0, 2.0, 3.0), (1e7, 0.0, 0.0)], [1.0, 1.0])),
         r"a tree collider's base is out of range \(item 1: 1e\+07\), expected a coordinate within"),
        (_terrain(_trees([(1.0, 2.0, 3.0)], [0.0])),
         r"a tree collider's scale is out of range \(item 0: 0(\.0)?\), expected a scale from 0.001 to 1000"),
        (_terrain(_trees([(1.0, 2.0, 3.0)], [1e9])), r"a tree collider's scale is out of range \(item 0: 1e\+09\)"),
        (_terrain(_trees([(1.0, 2.0, 3.0)], [1.0], radius_m=1e30)),
         r"a tree collider's radius_m is 1e\+30, expected a finite number above 0"),
    ],
)
def test_crafted_terrain_data_is_an_error_naming_the_problem(simulator, island, tmp_path, tamper, reason):
    folder = tampering.copy_world(island, tmp_path / "w")
    tamper(folder)
    answer = _load(simulator, folder)
    assert re.search(reason, answer), answer
    assert _load(simulator, island) == "loaded"


def test_terrain_numbers_at_the_bounds_load(simulator, island, tmp_path):
    folder = tampering.copy_world(island, tmp_path / "w")

    def at_bounds(value):
        value["heights"].values[5] = -1e6
        value["chunks"][1]["levels"][0]["vertices"].values[3, 0] = 1e6
        value["chunks"][0]["levels"][1]["colors"].values[0, :3] = (0.0, 1.0, 0.0)
        _trees([(1.0, 2.0, 3.0), (-1e6, 0.0, 1e6)], [0.001, 1000.0])(value)

    edit_terrain(folder, at_bounds)
    assert _load(simulator, folder) == "loaded"


def test_terrain_files_bounds_are_the_scene_checks():
    text = (godot_project_dir() / "world" / "terrain_file.gd").read_text()
    constants = dict(re.findall(r"^const (MAX_COORDINATE_M|MAX_MAGNITUDE|MIN_SCALE|MAX_SCALE) = (\S+)", text, re.M))
    assert {name: float(value) for name, value in constants.items()} == {
        "MAX_COORDINATE_M": scene_ranges.MAX_COORDINATE_M, "MAX_MAGNITUDE": scene_ranges.MAX_MAGNITUDE,
        "MIN_SCALE": scene_ranges.MIN_SCALE, "MAX_SCALE": scene_ranges.MAX_SCALE}
    assert f"+-{scene_ranges.MAX_COORDINATE_M:.0f} m" in text


@pytest.mark.slow
@pytest.mark.parametrize("outside", ["../outside/terrain.bin", "ABSOLUTE"])
def test_a_data_file_outside_the_folder_gives_the_same_error_whether_or_not_it_exists(simulator, island, tmp_path, outside):
    target = tmp_path / "outside" / "terrain.bin"
    target.parent.mkdir()
    name = str(target) if outside == "ABSOLUTE" else outside
    folder = tampering.copy_world(island, tmp_path / "w")
    edit_scene(folder, replace('data_file = "terrain.bin"', f'data_file = "{name}"'))
    shutil.copy(island / "terrain.bin", target)  # a real terrain: followed, it would load
    present = _load(simulator, folder)
    target.unlink()
    absent = _load(simulator, folder)
    assert present == absent
    assert f"the terrain's data_file \"{name}\" is not the plain name of a file inside the world folder" in present
    assert _load(simulator, island) == "loaded"

