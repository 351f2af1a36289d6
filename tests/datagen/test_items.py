"""Food and tool kinds: their scenes, sizes, masses and how their params are exported (pure Python)."""

import re

import pytest

from avalon.datagen.export import ENTITY_SCENES, world_scene_text
from avalon.datagen.world import Entity, FlatGround, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_KINDS, FOODS
from avalon.rules.tools import TOOL_KINDS, TOOL_MASS_KG, TOOL_SIZE_M
from avalon.sim.paths import godot_project_dir
from avalon.tasks.eat import FOOD_LADDER, GROUND_KINDS


def _scene_file(kind):
    return (godot_project_dir() / ENTITY_SCENES[kind][len("res://"):]).read_text()


def _scene_value(text, key):
    match = re.search(rf"^{key} = (.*)$", text, re.M)
    assert match, f"{key} missing"
    return match.group(1)


def _world(*entities):
    return World(task="trivial", difficulty=0.0, seed=0, ground=FlatGround(), entities=entities,
                 spawn_position=(0, 0, 0), time_limit_frames=10)


def test_every_food_and_tool_kind_has_its_own_scene_naming_its_kind():
    assert set(TOOL_KINDS) == {"rock", "stick", "stone", "boulder", "log"}
    assert not set(TOOL_KINDS) & set(FOOD_KINDS)
    for kind in FOOD_KINDS:
        assert ENTITY_SCENES[kind] == f"res://entities/food/{kind}.tscn"
        text = _scene_file(kind)
        assert _scene_value(text, "kind") == f'"{kind}"'
        assert 'path="res://entities/food.gd"' in text
    for kind in TOOL_KINDS:
        assert ENTITY_SCENES[kind] == f"res://entities/tools/{kind}.tscn"
        text = _scene_file(kind)
        assert _scene_value(text, "kind") == f'"{kind}"'
        assert 'path="res://entities/tools/tool.gd"' in text


def test_tool_scenes_carry_the_sizes_and_masses_of_world_py():
    for kind in TOOL_KINDS:
        text = _scene_file(kind)
        assert float(_scene_value(text, "mass")) == pytest.approx(TOOL_MASS_KG[kind])
        size = [float(v) for v in _scene_value(text, "size")[len("Vector3("):-1].split(",")]
        assert size == pytest.approx(list(TOOL_SIZE_M[kind]))


def test_only_the_boulder_is_too_heavy_to_lift_and_sizes_fit_the_paper():
    liftable = {kind for kind in TOOL_KINDS if TOOL_MASS_KG[kind] <= mechanics.MAX_LIFT_MASS_KG}
    assert liftable == {"rock", "stick", "stone", "log"}
    assert 0.5 <= TOOL_MASS_KG["rock"] <= 1.0 and max(TOOL_SIZE_M["rock"]) <= 0.25  # fist-sized
    assert 0.8 <= TOOL_SIZE_M["stick"][2] <= 1.2  # about a metre
    assert 0.3 <= max(TOOL_SIZE_M["stone"]) <= 0.5
    assert max(TOOL_SIZE_M["boulder"]) >= 1.0
    assert TOOL_SIZE_M["log"][2] >= 2.5


def test_banana_gives_half_the_energy_and_the_others_one():
    for kind in FOOD_KINDS:
        energy = float(_scene_value(_scene_file(kind), "energy"))
        assert energy == (0.5 if kind == "banana" else 1.0), kind


def test_tool_params_export_as_node_properties_with_colours_as_colours():
    rock = tool_entity("rock", "r", (1.0, 2.0, 3.0), safe_scale=1.5, base_color=(0.2, 0.3, 0.4), mass=0.9)
    assert rock.position == pytest.approx((1.0, 2.0 + 1.5 * TOOL_SIZE_M["rock"][1] / 2, 3.0))
    text = world_scene_text(_world(rock))
    node = text[text.index('[node name="r"'):]
    assert "safe_scale = 1.5\n" in node
    assert "base_color = Color( 0.2, 0.3, 0.4, 1 )\n" in node
    assert "mass = 0.9\n" in node
    assert f'path="{ENTITY_SCENES["rock"]}"' in text
    # Defaults come from the scene: a plain stone writes no params.
    stone = tool_entity("stone", "s", (0.0, 0.0, 0.0))
    assert stone.params == ()
    with pytest.raises(ValueError):
        tool_entity("pebble", "p", (0, 0, 0))
    with pytest.raises(ValueError):
        tool_entity("rock", "p", (0, 0, 0), safe_scale=0.0)


def test_flat_ground_is_in_the_ground_group_that_dirties_honeycombs():
    text = world_scene_text(_world(Entity(kind="honeycomb", name="h", position=(0, 1, 0))))
    assert '[node name="Ground" type="StaticBody" parent="." groups=[ "ground" ]]' in text


def test_eat_places_carrots_without_trees_and_every_food_kind_on_the_ladder():
    assert GROUND_KINDS == {"carrot"}
    assert sorted(FOOD_LADDER) == sorted(FOOD_KINDS)


def test_food_thresholds_are_ordered_as_documented():
    # A fig splatters from a lower drop than opens a coconut; an avocado needs the highest drop.
    # (The thresholds are the rows' of avalon/rules/foods.py, no longer mechanics constants.)
    FIG_SPLATTER_SPEED_M_PER_S = FOODS["fig"].splatter_speed_m_per_s
    COCONUT_OPEN_SPEED_M_PER_S = FOODS["coconut"].open_speed_m_per_s
    AVOCADO_OPEN_SPEED_M_PER_S = FOODS["avocado"].open_speed_m_per_s
    ORANGE_OPEN_ROCK_SPEED_M_PER_S = FOODS["orange"].open_speed_m_per_s
    CARROT_BURIED_FRACTION = FOODS["carrot"].buried_fraction
    assert FIG_SPLATTER_SPEED_M_PER_S < COCONUT_OPEN_SPEED_M_PER_S < AVOCADO_OPEN_SPEED_M_PER_S
    assert ORANGE_OPEN_ROCK_SPEED_M_PER_S == mechanics.HIT_MIN_SPEED_M_PER_S
    assert 0.5 < CARROT_BURIED_FRACTION < 1.0


def test_hanging_food_is_exported_with_its_stalk_up_to_the_branch():
    from avalon.datagen.world import hanging_food_entity
    from avalon.rules.foods import FOOD_RADIUS_M, HANGING_FOOD_CLEARANCE_M

    food = hanging_food_entity("coconut", "nut", (1.0, 0.5, -2.0), branch_height_m=5.0, yaw_rad=0.3)
    radius = FOOD_RADIUS_M["coconut"]
    assert food.position == pytest.approx((1.0, 0.5 + HANGING_FOOD_CLEARANCE_M + radius, -2.0))
    assert food.param("hanging") is True and food.param("radius") == radius
    assert food.position[1] + radius + food.param("stalk_length_m") == pytest.approx(5.0)
    text = world_scene_text(_world(food))
    node = text[text.index('[node name="nut"'):]
    assert re.search(r"^hanging = true$", node, re.M)
    assert float(_scene_value(node, "stalk_length_m")) == pytest.approx(5.0 - food.position[1] - radius)
    # The knock-down speed is one constant, copied into the generated GDScript.
    generated = (godot_project_dir() / "generated" / "protocol.gd").read_text()
    assert f"const HANGING_FOOD_KNOCK_SPEED_M_PER_S = {mechanics.HANGING_FOOD_KNOCK_SPEED_M_PER_S}" in generated
    assert "Protocol.HANGING_FOOD_KNOCK_SPEED_M_PER_S" in (godot_project_dir() / "entities" / "food.gd").read_text()


@pytest.mark.parametrize("kind, branch", [("apple", 2.4), ("pear", 5.0), ("carrot", 5.0)])
def test_hanging_food_refuses_a_branch_below_it_carrots_and_unknown_kinds(kind, branch):
    from avalon.datagen.world import hanging_food_entity

    with pytest.raises(ValueError, match="branch_height_m|unknown food kind|carrot grows in the ground"):
        hanging_food_entity(kind, "food", (0.0, 0.0, 0.0), branch_height_m=branch)
