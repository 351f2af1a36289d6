"""Door entities: placed from a doorway, exported into world.tscn as their mechanism's scene, and a
world.tscn whose door row was altered is refused, naming the row."""

import math

import pytest

from avalon.datagen.doors import door_entity
from avalon.datagen.export import export_world, world_scene_text
from avalon.datagen.export.scene_check import check_scene_text
from avalon.datagen.world import FlatGround, World
from avalon.errors import WorldLoadError
from avalon.sim.paths import godot_project_dir
from tests.datagen.tampering import edit_scene


def _world(*doors):
    return World(task="doors", difficulty=0.0, seed=0, ground=FlatGround(), entities=doors, spawn_position=(0, 0, 0),
                 time_limit_frames=100)


def _door(**changes):
    arguments = dict(mechanism="hinged_push", wall_thickness_m=0.3, latch="once", locks=("bolt", "bar", "button"))
    arguments.update(changes)
    return door_entity("front_door", (1.0, 0.0, -2.0), math.pi / 2, 1.4, 2.5, **arguments)


def test_a_door_is_exported_as_its_mechanisms_scene_with_its_params():
    back = door_entity("back_door", (0.0, 0.0, 5.0), 0.0, 1.2, 2.2, mechanism="sliding")
    text = world_scene_text(_world(_door(), back))
    assert '[ext_resource path="res://entities/doors/hinged_push.tscn" type="PackedScene"' in text
    assert '[ext_resource path="res://entities/doors/sliding.tscn" type="PackedScene"' in text
    assert 'locks = PoolStringArray( "bolt", "bar", "button" )' in text
    assert "mechanism" not in text.split('[node name="front_door"')[1]  # the scene is the mechanism
    check_scene_text(text, "world.tscn")
    for mechanism in ("hinged_both", "hinged_push", "hinged_pull", "sliding", "bolt", "bar", "button"):
        assert (godot_project_dir() / "entities" / "doors" / f"{mechanism}.tscn").is_file()


@pytest.mark.parametrize("changes, message", [
    (dict(mechanism="revolving"), "unknown door mechanism 'revolving'"),
    (dict(mechanism="hinged_pull"), "cannot hold a bolt"),
    (dict(locks=("bolt", "bolt")), "twice"),
    (dict(latch="sometimes"), "latch 'sometimes'"),
    (dict(hinge_side="top"), "hinge_side 'top'"),
    (dict(wall_thickness_m=math.nan), "wall_thickness_m nan"),
])
def test_a_door_entity_with_bad_params_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        _door(**changes)


def test_a_door_entity_outside_the_tables_sizes_is_refused():
    with pytest.raises(ValueError, match=r"width_m 0.5 must be a number in \[0.9, 3\]"):
        door_entity("door", (0, 0, 0), 0.0, 0.5, 2.5, mechanism="sliding")


@pytest.mark.parametrize("old, new, message", [
    ('"bolt", "bar"', '"bolt", "chain"', "unknown lock kind 'chain'"),
    ('PoolStringArray( "bolt", "bar", "button" )', 'PoolStringArray( "bolt", "bar", "button", "bar" )', "twice"),
    ("width_m = 1.4", "width_m = 40", r"width_m = 40: expected a number in \[0.9, 3\]"),
    ("width_m = 1.4", "width_m = nan", "'width_m' = nan: an instanced node takes plain values only"),
    ('latch = "once"', 'latch = "never"', "latch = \"never\": expected one of"),
    ("wall_thickness_m = 0.3\n", "", "a door lacks \\['wall_thickness_m'\\]"),
    ("width_m = 1.4", "width_m = 1.4\nscale_m = 2", "a door has no propert"),
])
def test_an_altered_door_row_is_refused_naming_the_row(tmp_path, old, new, message):
    folder = export_world(_world(_door()), tmp_path / "world")
    edit_scene(folder, lambda text: text.replace(old, new, 1))
    from avalon.datagen.world_folder import read_world_info

    with pytest.raises(WorldLoadError, match=message) as error:
        read_world_info(folder)
    assert "door node 'Entities/front_door'" in str(error.value)


def test_a_pull_door_holding_a_bolt_is_refused_in_the_folder(tmp_path):
    folder = export_world(_world(_door(mechanism="hinged_pull", locks=("bar",))), tmp_path / "world")
    edit_scene(folder, lambda text: text.replace('PoolStringArray( "bar" )', 'PoolStringArray( "bolt" )'))
    from avalon.datagen.world_folder import read_world_info

    with pytest.raises(WorldLoadError, match="door node 'Entities/front_door': .*a hinged_pull door cannot hold a bolt"):
        read_world_info(folder)
