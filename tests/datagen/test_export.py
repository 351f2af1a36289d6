"""World export and world-folder checks, without Godot."""

import json
import re

import attr
import numpy as np
import pytest

from avalon.datagen.export import ENTITY_SCENES, SKY_DOME_SCENE, TERRAIN_SCENE, content_hash, export_world, world_scene_text
from avalon.datagen.world_folder import read_world_info
from avalon.errors import WorldLoadError
from avalon.sim.paths import godot_project_dir
from avalon.tasks.trivial import trivial_world

# Changed when the flat ground joined group "ground" (food rules, docs/items.md).
TRIVIAL_GOLDEN_HASH = "sha256:a234f66f3669d62cee39a15d5cc5271692079eb9e37320d55aa82f122f5fcc51"


def test_every_entity_kind_maps_to_a_scene_in_the_godot_project():
    for kind, resource in list(ENTITY_SCENES.items()) + [("sky", SKY_DOME_SCENE), ("terrain", TERRAIN_SCENE)]:
        assert resource.startswith("res://")
        assert (godot_project_dir() / resource[len("res://"):]).is_file(), f"{kind}: {resource} missing"


def test_export_is_byte_identical_and_matches_the_golden_hash(tmp_path):
    first = export_world(trivial_world(), tmp_path / "a")
    second = export_world(trivial_world(), tmp_path / "b")
    assert (first / "world.tscn").read_bytes() == (second / "world.tscn").read_bytes()
    assert (first / "world.json").read_bytes() == (second / "world.json").read_bytes()
    assert content_hash(first) == TRIVIAL_GOLDEN_HASH


def test_world_json_describes_the_world(tmp_path):
    info = read_world_info(export_world(trivial_world(time_limit_frames=50), tmp_path / "w"))
    assert (info.task, info.difficulty, info.seed, info.food_count, info.time_limit_frames) == ("trivial", 0.0, 0, 1, 50)
    assert info.content_hash == content_hash(info.path)


def test_scene_places_entities_and_spawn_where_the_world_says():
    text = world_scene_text(trivial_world())
    near = re.search(r'\[node name="near_box".*?\ntransform = Transform\( ([^)]*) \)', text, re.S).group(1)
    assert [float(v) for v in near.split(",")][-3:] == [-1.5, 0.5, -4.0]
    assert '[node name="SpawnPoint" type="Position3D" parent="."]' in text
    assert "-0," not in text and "-0 " not in text  # no negative zeros: stable bytes


def test_export_replaces_a_world_folder_but_refuses_other_folders(tmp_path):
    target = tmp_path / "world"
    export_world(trivial_world(time_limit_frames=10), target)
    export_world(trivial_world(time_limit_frames=20), target)
    assert json.loads((target / "world.json").read_text())["time_limit_frames"] == 20
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="holds something other than a world folder"):
        export_world(trivial_world(), precious)
    assert (precious / "thesis.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precious", "world"]  # no staging leftovers


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "world.json").unlink(), "has no world.json"),
        (lambda d: (d / "world.tscn").unlink(), "has no world.tscn"),
        (lambda d: (d / "world.json").write_text("{not json"), "is not valid JSON"),
        (lambda d: (d / "world.json").write_text("[1, 2]"), "must hold a JSON object"),
        (lambda d: (d / "world.json").write_text('{"task": "x"}'), "lacks the key 'format_version'"),
    ],
)
def test_corrupt_world_folders_are_named_with_what_is_wrong(tmp_path, damage, message):
    folder = export_world(trivial_world(), tmp_path / "w")
    damage(folder)
    with pytest.raises(WorldLoadError, match=message) as error:
        read_world_info(folder)
    assert str(folder) in str(error.value)


def test_missing_world_folder_is_named(tmp_path):
    with pytest.raises(WorldLoadError, match=f"{tmp_path / 'nowhere'} does not exist"):
        read_world_info(tmp_path / "nowhere")


def test_static_geometry_carries_baked_lighting():
    from avalon.datagen.lighting import BOX_FACE_NORMALS, box_face_colors, lit_colors, sun_direction
    from avalon.datagen.world import Lighting

    lighting = Lighting()
    assert sun_direction(lighting)[1] < 0  # the sun shines downwards
    top, bottom = lit_colors(np.full((2, 3), 0.5), np.array([[0, 1, 0], [0, -1, 0]]), lighting)
    assert np.all(top > bottom)  # the lit side is brighter
    np.testing.assert_allclose(bottom, 0.5 * np.array(lighting.ambient_color) * lighting.ambient_energy)
    faces = box_face_colors((0.8, 0.2, 0.2), 0.0, lighting)
    assert np.argmax(faces.sum(axis=1)) == 2  # +y, the top face, faces the sun most
    turned = box_face_colors((0.8, 0.2, 0.2), np.pi / 2, lighting)
    np.testing.assert_allclose(turned[[2, 3]], faces[[2, 3]])  # yaw never changes top and bottom
    assert not np.allclose(turned, faces)
    text = world_scene_text(trivial_world())
    assert text.count("face_colors = PoolColorArray(") == 4 and "flags_unshaded = true" in text
    assert len(BOX_FACE_NORMALS) == 6


def test_exposure_scales_every_light():
    from avalon.datagen.lighting import lit_colors
    from avalon.datagen.world import Lighting

    normal = np.array([0.0, 1.0, 0.0])
    base = lit_colors(np.array([0.4, 0.4, 0.4]), normal, Lighting())
    brighter = lit_colors(np.array([0.4, 0.4, 0.4]), normal, Lighting(exposure=1.2))
    np.testing.assert_allclose(brighter, np.clip(base * 1.2, 0, 1))
    text = world_scene_text(attr.evolve(trivial_world(), lighting=Lighting(exposure=0.5)))
    assert "light_energy = 0.5" in text and "ambient_light_energy = 0.3" in text
