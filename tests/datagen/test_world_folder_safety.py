"""World folders are untrusted data: read_world_info refuses every kind of tampering, naming the
file and the reason, and accepts every world the exporter writes. Pure Python (the Godot side:
tests/game/world/test_untrusted_worlds.py)."""

from __future__ import annotations

import json
import os
import re
import struct

import attr
import pytest

from avalon import AvalonEnv
from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.export import ENTITY_SCENES, SKY_DOME_SCENE, content_hash, export_world
from avalon.datagen.export.scene_check import check_scene_text
from avalon.datagen.world import Entity, Lighting
from avalon.datagen.world_folder import MAX_TIME_LIMIT_FRAMES, read_world_info
from avalon.errors import WorldLoadError
from avalon.rules.animals import ANIMAL_KINDS
from avalon.rules.foods import FOOD_KINDS
from avalon.rules.tools import TOOL_KINDS
from avalon.sim import protocol
from avalon.tasks import TASKS, generate_world
from avalon.tasks.trivial import trivial_world
from tests.datagen import tampering
from tests.datagen.tampering import add_after_root, add_before_nodes, edit_info, edit_scene, replace


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    root = tmp_path_factory.mktemp("untouched")
    return {
        "flat": export_world(trivial_world(), root / "flat"),
        "island": generate_world("eat", 0.0, 1, root / "island"),
    }


@pytest.fixture
def flat(worlds, tmp_path):
    return tampering.copy_world(worlds["flat"], tmp_path / "flat")


@pytest.fixture
def island(worlds, tmp_path):
    return tampering.copy_world(worlds["island"], tmp_path / "island")


def refused(folder, reason: str, file: str = "world.tscn") -> str:
    """Asserts that read_world_info refuses ``folder`` for ``reason`` (a regex), naming ``file``."""
    with pytest.raises(WorldLoadError) as error:
        read_world_info(folder)
    message = str(error.value)
    assert str(folder.resolve() / file) in message, message
    assert re.search(reason, message), message
    return message


# ---------------------------------------------------------------------- what the exporter writes


@pytest.mark.parametrize("task", sorted(TASKS))
def test_every_tasks_untouched_worlds_are_accepted(task, tmp_path):
    for difficulty, seed in [(0.0, 0), (1.0, 3)]:
        folder = generate_world(task, difficulty, seed, tmp_path / f"{difficulty}-{seed}")
        info = read_world_info(folder)
        assert (info.task, info.seed, info.files_hash) == (task, seed, content_hash(folder))


def test_a_world_with_every_entity_kind_and_fog_is_accepted(tmp_path):
    entities = [Entity(kind="box", name="box", position=(0.0, 0.5, -3.0),
                       params={"size": (1.0, 1.0, 1.0), "color": (0.5, 0.5, 0.5), "climbable": True})]
    entities += [Entity(kind=kind, name=f"food {kind}", position=(1.0, 0.2, float(i)), params={"radius": 0.1, "mass": 0.2})
                 for i, kind in enumerate(FOOD_KINDS)]
    entities += [Entity(kind=kind, name=f"tool-{kind}", position=(2.0, 0.2, float(i)),
                        params={"safe_scale": 1.0, "base_color": (0.2, 0.3, 0.4)}) for i, kind in enumerate(TOOL_KINDS)]
    entities += [animal_entity(species, f"animal_{species}", (4.0 + i, 0.0, 0.0)) for i, species in enumerate(ANIMAL_KINDS)]
    entities.append(animal_entity("bear", "watchful", (0.0, 0.0, 9.0), activation=("within_radius", "must_see_you")))
    world = attr.evolve(trivial_world(), entities=tuple(entities), lighting=attr.evolve(Lighting(), fog_enabled=True))
    folder = export_world(world, tmp_path / "everything")
    text = (folder / "world.tscn").read_text()
    assert "fog_enabled = true" in text and "PoolStringArray(" in text
    assert check_scene_text(text, "world.tscn").scenes == {ENTITY_SCENES[e.kind] for e in entities} | {SKY_DOME_SCENE}
    assert read_world_info(folder).food_count == world.food_count


# ---------------------------------------------------------------------- the scene


def test_an_embedded_gdscript_set_as_the_roots_script_is_refused(flat, tmp_path):
    tampering.add_embedded_script(flat, tmp_path / "marker")
    refused(flat, r"line \d+: sub_resource of type 'GDScript'")


@pytest.mark.parametrize(
    "edit, reason",
    [
        # A script on a node, by any route.
        (add_after_root("script = ExtResource( 1 )\n"), "a 'script' property: a world may not attach code"),
        (replace("radius = 0.15\n", "radius = 0.15\nscript = ExtResource( 2 )\n"), "a 'script' property"),
        (add_before_nodes('[sub_resource type="GDScript" id=9]\nscript/source = "extends Node"\n'), "sub_resource of type 'GDScript'"),
        # ext_resources: only the exporter's own scenes, as PackedScene.
        (replace('[ext_resource path="res://entities/box.tscn" type="PackedScene" id=2]',
                 '[ext_resource path="res://entities/food.gd" type="Script" id=2]'),
         r"ext_resource 'res://entities/food.gd': a world may use only the project's own scenes"),
        (replace('path="res://entities/box.tscn"', 'path="res://main.tscn"'), "ext_resource 'res://main.tscn'"),
        (replace('path="res://entities/box.tscn"', 'path="/tmp/elsewhere/box.tscn"'), "ext_resource '/tmp/elsewhere/box.tscn'"),
        (replace('path="res://entities/box.tscn"', 'path="user://box.tscn"'), "ext_resource 'user://box.tscn'"),
        (replace('path="res://entities/box.tscn" type="PackedScene"', 'path="res://entities/box.tscn" type="Script"'),
         "of type 'Script': exported scenes use PackedScene only"),
        # Sections and node types the exporter never writes.
        (lambda text: text + '\n[connection signal="ready" from="." to="." method="queue_free"]\n', r"a \[connection\] section"),
        (lambda text: text + '\n[editable path="Entities/apple"]\n', r"a \[editable\] section"),
        (lambda text: text + '\n[node name="Fetch" type="HTTPRequest" parent="."]\n', "is 'HTTPRequest': the exporter writes only"),
        (replace('[node name="Sun" type="DirectionalLight"', '[node name="Sun" type="Spatial"'), "is 'Spatial': the exporter writes only"),
        (replace('[node name="Entities" type="Spatial" parent="."]', '[node name="Entities" type="Spatial" parent="." groups=[ "food" ]]'),
         r"joins group\(s\) \['food'\]"),
        # Values: plain data only.
        (replace("radius = 0.15\n", "radius = 0.15\nextra = Object(Node,\"script\":null)\n"), "an instanced node takes plain values only"),
        (replace("radius = 0.15\n", 'radius = 0.15\nshape = Resource( "res://x.tres" )\n'), "an instanced node takes plain values only"),
        (replace("radius = 0.15\n", 'radius = 0.15\ntarget = NodePath("..")\n'), "an instanced node takes plain values only"),
        (replace("radius = 0.15\n", "radius = ExtResource( 1 )\n"), "an instanced node takes plain values only"),
        (replace("cast_shadow = 0", "cast_shadow = 0\nlayers = 3"), r"property 'layers': the exporter writes only"),
        (replace("size = Vector2( 100, 100 )", "size = Vector2( 100, 100 )\nresource_path = \"res://entities/food.gd\""),
         r"property 'resource_path': the exporter writes only \['size'\] here"),
        (replace("environment = SubResource( 1 )", "environment = SubResource( 2 )"), "expected a Environment sub_resource"),
    ],
)
def test_scene_tampering_is_refused_with_the_line_and_reason(flat, edit, reason):
    edit_scene(flat, edit)
    refused(flat, r"line \d+: .*" + reason)


APPLE = "transform = Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0.15, -2.5 )"
SPAWN = "transform = Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 )\n"
SUN = "transform = Transform( 0.866025, -0.383022, 0.321394, 0, 0.642788, 0.766044, -0.5, -0.663414, 0.55667, 0, 0, 0 )"


def _apple_param(line: str):
    """An edit giving the apple (an instanced entity) one more property line."""
    return replace("radius = 0.15\n", f"radius = 0.15\n{line}\n")


@pytest.mark.parametrize(
    "edit, reason",
    [
        # The folder: a huge coordinate in a node's transform (Godot: signal 11 or a hang).
        (replace(APPLE, APPLE.replace("0, 0.15, -2.5", "1e308, 0.15, -2.5")),
         r"property 'transform' = Transform\( .*1e308.* \): its origin's x is 1e\+308, expected a coordinate within ±1000000 m"),
        (replace(SPAWN, SPAWN.replace("0, 0, 0 )", "0, -1e20, 0 )")),
         r"its origin's y is -1e\+20, expected a coordinate within"),
        (replace(APPLE, APPLE.replace("0, 0.15, -2.5", "99999999999999999999999, 0.15, -2.5")), r"its origin's x is 1e\+23"),
        # Bases that are not rotations: degenerate (a zero basis crashed Godot), scaled, huge.
        (replace(SUN, "transform = Transform( 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 )"),
         r"its basis \(0, 0, 0, 0, 0, 0, 0, 0, 0\) is not a rotation"),
        (replace(APPLE, APPLE.replace("( 1, 0, 0,", "( 3, 0, 0,")), r"its basis \(3, 0, 0, 0, 1, 0, 0, 0, 1\) is not a rotation"),
        (replace("Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0 )", "Transform( 1e308, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0 )"),
         r"its basis \(1e\+308, .*\) is not a rotation"),
        # Vectors: sizes, extents, a velocity; lengths by name.
        (replace("size = Vector3( 1, 1, 1 )", "size = Vector3( 1e308, 1, 1 )"),
         r"property 'size' = Vector3\( 1e308, 1, 1 \): component 0 is 1e\+308, expected a coordinate or length within ±1000000 m"),
        (replace("size = Vector2( 100, 100 )", "size = Vector2( 100, 1e308 )"),
         r"property 'size' = Vector2\( 100, 1e308 \): component 1 is 1e\+308"),
        (replace("extents = Vector3( 50, 1, 50 )", "extents = Vector3( 5e6, 1, 50 )"), r"property 'extents' = .*: component 0 is 5000000"),
        (_apple_param("linear_velocity = Vector3( 0, 0, -3e38 )"), r"property 'linear_velocity' = .*: component 2 is -3e\+38"),
        (replace("radius = 0.15", "radius = 1e308"),
         r"property 'radius' = 1e308: 1e\+308, expected a length or coordinate within ±1000000 m"),
        (_apple_param("stalk_length_m = -2e6"), r"property 'stalk_length_m' = -2e6: -2000000, expected a length"),
        (replace("ambient_light_energy = 0.6", "ambient_light_energy = 0.6\nfog_depth_end = 1e308"),
         r"property 'fog_depth_end' = 1e308: 1e\+308, expected a length"),
        # Colours: components in [0, 1].
        (replace("color = Color( 0.85, 0.1, 0.1, 1 )", "color = Color( 0.85, 2, 0.1, 1 )"),
         r"property 'color' = Color\( 0.85, 2, 0.1, 1 \): colour component 1 is 2, expected a number in \[0, 1\]"),
        (replace("light_color = Color( 1, 0.97, 0.9, 1 )", "light_color = Color( 1, 0.97, -0.5, 1 )"), r"colour component 2 is -0.5"),
        (replace("face_colors = PoolColorArray( 0.521115,", "face_colors = PoolColorArray( 1e308,"),
         r"property 'face_colors' = PoolColorArray\( 1e308, .*: colour component 0 is 1e\+308"),
        # Other numbers, scales and integers with ranges of their own.
        (replace("light_energy = 1\n", "light_energy = 1e308\n"),
         r"property 'light_energy' = 1e308: 1e\+308, expected a number within ±1e\+09"),
        (_apple_param("mass = -3e30"), r"property 'mass' = -3e30: -3e\+30, expected a number within ±1e\+09"),
        (_apple_param("safe_scale = 1e308"), r"property 'safe_scale' = 1e308: 1e\+308, expected a scale from 0.001 to 1000"),
        (_apple_param("safe_scale = 0"), r"property 'safe_scale' = 0: 0, expected a scale from 0.001 to 1000"),
        (_apple_param("rng_seed = 1e308"), r"property 'rng_seed' = 1e308: 1e\+308, expected an integer from 0 to 2147483647"),
        (_apple_param("rng_seed = 1.5"), r"property 'rng_seed' = 1.5: 1.5, expected an integer"),
        (_apple_param("mesh_sides = 1000000000"), r"property 'mesh_sides' = 1000000000: 1e\+09, expected an integer from 3 to 64"),
        (replace("background_mode = 1", "background_mode = 7"), r"property 'background_mode' = 7: 7, expected an integer from 0 to 5"),
        (replace("cast_shadow = 0", "cast_shadow = 99"), r"property 'cast_shadow' = 99: 99, expected an integer from 0 to 3"),
        # A node is placed by its transform only.
        (_apple_param("translation = Vector3( 0, 0, 1 )"), "a 'translation' property: a node is placed by its transform only"),
        (_apple_param("scale = Vector3( 0, 0, 0 )"), "a 'scale' property: a node is placed by its transform only"),
    ],
)
def test_numbers_beyond_what_the_simulator_holds_are_refused_naming_the_line_and_the_value(flat, edit, reason):
    edit_scene(flat, edit)
    message = refused(flat, r"line \d+: .*" + reason)
    assert "docs/security.md" in message


def test_numbers_at_the_bounds_are_accepted(tmp_path):
    world = tampering.world_at_the_bounds()
    assert read_world_info(export_world(world, tmp_path / "bounds")).food_count == world.food_count


@pytest.mark.parametrize(
    "data_file", ["../other/terrain.bin", "../../../../etc/passwd", "/etc/passwd", "sub/terrain.bin", "world.json", ""]
)
def test_a_data_file_that_is_not_a_bare_allowed_name_is_refused(island, data_file):
    edit_scene(island, replace('data_file = "terrain.bin"', f'data_file = "{data_file}"'))
    refused(island, r"data_file = .*: must be the bare name of a data file in the world folder, one of \['terrain.bin'\]")


def test_a_terrain_without_its_data_file_property_is_refused(island):
    edit_scene(island, replace('data_file = "terrain.bin"\n', ""))
    refused(island, "res://world/terrain.tscn node without data_file")


def test_a_missing_data_file_is_named(island):
    (island / "terrain.bin").unlink()
    tampering.reseal(island)
    refused(island, "is missing: world.tscn reads it", file="terrain.bin")


# ---------------------------------------------------------------------- the files


def test_a_symlinked_data_file_is_refused_and_never_read(island, tmp_path):
    outside = tmp_path / "outside.bin"
    (island / "terrain.bin").rename(outside)
    (island / "terrain.bin").symlink_to(outside)
    refused(island, "is a symbolic link: a world folder holds regular files only", file="terrain.bin")
    with pytest.raises(WorldLoadError, match="symbolic link"):
        content_hash(island)  # the exporter's hash does not follow it either


@pytest.mark.parametrize("extra", ["notes.txt", ".hidden", "world.tscn.orig"])
def test_an_extra_file_is_refused(flat, extra):
    (flat / extra).write_text("anything")
    refused(flat, "a world folder holds only buildings.bin, terrain.bin, world.json, world.tscn; refusing anything else", file=extra)


def test_a_subfolder_and_a_fifo_are_refused(flat):
    (flat / "terrain.bin").mkdir()
    refused(flat, "is not a regular file", file="terrain.bin")
    (flat / "terrain.bin").rmdir()
    os.mkfifo(flat / "terrain.bin")
    refused(flat, "is not a regular file", file="terrain.bin")


def test_a_data_file_the_scene_does_not_use_is_refused(flat):
    (flat / "terrain.bin").write_bytes(b"\0" * 8)
    tampering.reseal(flat)
    refused(flat, "world.tscn does not use it", file="terrain.bin")


@pytest.mark.parametrize("where", ["terrain.bin", "world.tscn"])
def test_a_changed_byte_fails_the_content_hash(island, where):
    path = island / where
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    refused(island, "files_hash is sha256:.* but the folder's files hash to sha256:.*: a file was changed", file="world.json")


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.999])
def test_a_truncated_data_file_fails_the_content_hash(island, fraction):
    path = island / "terrain.bin"
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * fraction)])
    refused(island, "a file was changed, truncated", file="world.json")


# ---------------------------------------------------------------------- world.json


@pytest.mark.parametrize(
    "values, reason",
    [
        ({"time_limit_frames": 2**33},
         r"time_limit_frames is 8589934592, expected a positive number of frames up to 4294967295 \(RESET carries it as u32\)"),
        ({"time_limit_frames": 0}, "time_limit_frames is 0, expected a positive number"),
        ({"time_limit_frames": 1.5}, "'time_limit_frames' is 1.5, expected int"),
        ({"difficulty": 1.5}, r"difficulty is 1.5, expected a number in \[0, 1\]"),
        ({"difficulty": -0.1}, r"difficulty is -0.1, expected a number in \[0, 1\]"),
        ({"seed": -1}, "seed is -1, expected an integer from 0 to"),
        ({"seed": 2**64}, "seed is 18446744073709551616, expected an integer from 0 to"),
        ({"food_count": -2}, "food_count is -2"),
        ({"task": "../../x"}, "task is '../../x', expected a task name"),
        ({"content_hash": "md5:00"}, "content_hash is 'md5:00', expected 'sha256:' and 64"),
        ({"files_hash": "sha256:0"}, "files_hash is 'sha256:0', expected 'sha256:' and 64"),
        ({"format_version": 1},
         r"format_version 1, this version reads 2; regenerate the world \(format 1 folders load with avalon world-format-1\)"),
        ({"format_version": 7}, r"format_version 7, this version reads 2; regenerate the world$"),
        ({"generator_version": "x" * 100}, "generator_version is"),
        ({"format_version": True}, "'format_version' is True, expected int"),
        ({"surprise": 1}, r"unknown key\(s\) \['surprise'\]"),
    ],
)
def test_world_json_values_outside_what_the_simulator_accepts_are_refused(flat, values, reason):
    edit_info(flat, **values)
    refused(flat, reason, file="world.json")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_difficulty_is_refused(flat, literal):
    text = (flat / "world.json").read_text()
    (flat / "world.json").write_text(re.sub(r'"difficulty": [^,}]+', f'"difficulty": {literal}', text))
    refused(flat, f"is not valid JSON: {literal} is not a JSON number", file="world.json")


def test_a_repeated_key_is_refused(flat):
    text = (flat / "world.json").read_text()
    (flat / "world.json").write_text(text.replace("{", '{"seed": 5, ', 1))
    refused(flat, r"key\(s\) \['seed'\] appear more than once", file="world.json")


def test_a_time_limit_beyond_u32_is_a_world_load_error_at_reset_not_a_struct_error(flat):
    edit_info(flat, time_limit_frames=2**33)
    env = AvalonEnv(world_dir=str(flat))
    try:
        with pytest.raises(WorldLoadError, match=f"{flat.resolve() / 'world.json'}: time_limit_frames is 8589934592"):
            env.reset(seed=0)
        assert env.simulator_pid is None  # refused before any simulator started
    finally:
        env.close()


def test_the_time_limit_bound_is_what_the_reset_message_carries():
    protocol.encode_reset(0, MAX_TIME_LIMIT_FRAMES, "/w")
    with pytest.raises(struct.error):
        protocol.encode_reset(0, MAX_TIME_LIMIT_FRAMES + 1, "/w")


def test_after_a_refusal_the_next_read_works(flat, worlds):
    edit_info(flat, time_limit_frames=2**33)
    with pytest.raises(WorldLoadError):
        read_world_info(flat)
    assert read_world_info(worlds["flat"]).time_limit_frames == trivial_world().time_limit_frames
    assert json.loads((flat / "world.json").read_text())["time_limit_frames"] == 2**33  # nothing was changed
