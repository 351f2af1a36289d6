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

from avalon import AvalonEnv
from avalon.data.recording import RecordEpisodes, replay
from avalon.datagen.export import marshal
from avalon.env.config import EnvConfig
from avalon.errors import WorldLoadError
from avalon.sim.simulator import Simulator
from avalon.tasks import generate_world
from tests.conftest import zero_action
from tests.data.episode_files import repack_world
from tests.datagen import tampering
from tests.datagen.tampering import edit_scene, edit_terrain, replace

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
         "chunk 1: a mesh has a vertex that is not finite"),
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
    ],
)
def test_crafted_terrain_data_is_an_error_naming_the_problem(simulator, island, tmp_path, tamper, reason):
    folder = tampering.copy_world(island, tmp_path / "w")
    tamper(folder)
    answer = _load(simulator, folder)
    assert re.search(reason, answer), answer
    assert _load(simulator, island) == "loaded"


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

