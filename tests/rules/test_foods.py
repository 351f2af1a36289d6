"""The food table (avalon/rules/foods.py): its rows, their checks, and food.gd reading them as data."""

from __future__ import annotations

import math
import re

import attr
import pytest

from avalon.rules import foods, mechanics
from avalon.rules.foods import FOOD_KINDS, FOODS, FoodSpec, food_spec
from avalon.sim.paths import godot_project_dir
from avalon.sim.protocol import ACHIEVEMENTS

FOOD_SCRIPT = godot_project_dir() / "entities" / "food.gd"


def test_the_ten_foods_of_table_2_in_the_order_of_their_achievements():
    assert FOOD_KINDS == ("apple", "banana", "cherry", "mulberry", "fig", "orange", "avocado", "coconut", "honeycomb", "carrot")
    eat_achievements = [name[len("eat_"):] for name in ACHIEVEMENTS if name.startswith("eat_") and name != "eat_prey"]
    assert tuple(eat_achievements) == FOOD_KINDS


def test_each_row_differs_from_the_apple_in_the_way_table_2_says():
    apple = FOODS["apple"]
    assert FOODS["banana"].energy == 0.5 and all(f.energy == 1.0 for k, f in FOODS.items() if k != "banana")
    assert FOODS["mulberry"].radius_m == min(f.radius_m for f in FOODS.values())
    assert FOODS["cherry"].count_range[0] >= 2 and FOODS["cherry"].stem_length_radii > apple.stem_length_radii
    assert FOODS["fig"].splatter_speed_m_per_s > 0
    assert FOODS["coconut"].opening == "impact" and FOODS["coconut"].opened_by == ""
    assert FOODS["orange"].opening == "impact" and FOODS["orange"].opened_by == "rock"
    assert FOODS["avocado"].opening == "fall" and FOODS["avocado"].pit_when_opened
    assert FOODS["honeycomb"].dirty_on_ground
    assert FOODS["carrot"].grows_in_ground and FOODS["carrot"].look == "root"
    plain = {"apple", "banana", "cherry", "mulberry"}
    for kind in plain:
        food = FOODS[kind]
        assert food.rule() in ("none", f"comes {food.count_range[0]} to {food.count_range[1]} together"), kind
        assert food.changed_color == food.color, kind  # nothing ever changes its look
    for kind in set(FOOD_KINDS) - plain:
        assert FOODS[kind].rule() != "none", kind


def test_an_avocado_opens_at_the_landing_speed_of_a_2_m_drop():
    # sqrt(2 g h) less one step of gravity: a 2 m drop is sure to land this fast at 10 steps/s.
    expected = math.sqrt(2 * mechanics.GRAVITY_M_PER_S2 * 2.0) - mechanics.GRAVITY_M_PER_S2 * mechanics.STEP_SECONDS
    assert FOODS["avocado"].open_speed_m_per_s == expected == pytest.approx(5.3246, abs=1e-4)
    assert foods.landing_speed_m_per_s(1.0) < FOODS["coconut"].open_speed_m_per_s < expected


def test_the_easy_to_hard_ladder_follows_the_ranks_and_starts_with_the_apple():
    ranks = [FOODS[kind].difficulty_rank for kind in foods.FOODS_EASY_TO_HARD]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(FOODS)
    assert foods.FOODS_EASY_TO_HARD[0] == "apple"
    assert sorted(foods.FOODS_EASY_TO_HARD) == sorted(FOOD_KINDS)


def test_the_radius_view_is_the_tables():
    assert foods.FOOD_RADIUS_M == {kind: food.radius_m for kind, food in FOODS.items()}


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown food kind 'pear'.*apple"):
        food_spec("pear")
    assert food_spec("fig") is FOODS["fig"]


@pytest.mark.parametrize("change, message", [
    ({"radius_m": 0.0}, "radius_m 0.0 must be a finite number > 0"),
    ({"mass_kg": float("nan")}, "mass_kg nan must be"),
    ({"energy": -1.0}, "energy -1.0 must be a finite number >= 0"),
    ({"color": (1.2, 0.0, 0.0)}, r"color \(1.2, 0.0, 0.0\) must be three numbers in \[0, 1\]"),
    ({"look": "cube"}, "look 'cube' is not one of"),
    ({"opening": "squeeze", "open_speed_m_per_s": 1.0}, "opening 'squeeze' is not one of"),
    ({"opening": "impact"}, "open_speed_m_per_s 0.0 must be > 0 exactly when it must be opened"),
    ({"open_speed_m_per_s": 3.0}, "open_speed_m_per_s 3.0 must be > 0 exactly when"),
    ({"opening": "impact", "open_speed_m_per_s": 3.0, "opened_by": "hammer"}, "opened_by 'hammer' must be a tool kind"),
    ({"opening": "fall", "open_speed_m_per_s": 3.0, "opened_by": "rock"},
     "opened_by 'rock' must be a tool kind of .* with opening 'impact'"),
    ({"pit_when_opened": True}, "pit_when_opened needs an opening"),
    ({"buried_fraction": 1.0, "look": "root"}, r"buried_fraction 1.0 must be in \[0, 1\)"),
    ({"look": "root"}, "the look 'root' goes with buried_fraction > 0"),
    ({"buried_fraction": 0.5}, "the look 'root' goes with buried_fraction > 0"),
    ({"count_range": (3, 2)}, r"count_range \(3, 2\) must be"),
    ({"count_range": (2, 4)}, "cluster_radius_m 0.0 must be > 0 exactly when several come together"),
    ({"cluster_radius_m": 0.2}, "cluster_radius_m 0.2 must be > 0 exactly when"),
    ({"difficulty_rank": -1}, "difficulty_rank -1 must be an integer >= 0"),
])
def test_a_bad_row_is_refused_naming_the_food_the_field_and_the_value(change, message):
    with pytest.raises(ValueError, match=f"^apple: {message}"):
        attr.evolve(FOODS["apple"], **change)


def test_a_row_of_an_existing_kind_of_rule_needs_nothing_else():
    plum = FoodSpec(kind="plum", description="Like a fig.", radius_m=0.12, mass_kg=0.15, energy=1.0,
                    color=(0.35, 0.1, 0.4), changed_color=(0.6, 0.2, 0.3), stem_color=(0.3, 0.4, 0.15),
                    difficulty_rank=10, splatter_speed_m_per_s=4.0)
    assert plum.properties()["splatter_speed_m_per_s"] == 4.0
    assert plum.rule() == "splatters (inedible for good) on an impact >= 4 m/s"


def _string_literals(path):
    return set(re.findall(r'"([^"\\]*)"', path.read_text()))


def test_food_gd_branches_on_kinds_of_rule_and_look_never_on_a_food_name():
    literals = _string_literals(FOOD_SCRIPT)
    assert not literals & set(FOOD_KINDS), "food.gd must not name a food: read the row's properties"
    # Every kind of look and opening the table may use is one food.gd knows.
    assert set(foods.LOOKS) - {"sphere"} <= literals  # the sphere is its default branch
    assert set(foods.OPENINGS) <= literals


def test_every_property_a_row_sets_is_exported_by_food_gd():
    text = FOOD_SCRIPT.read_text()
    for name in FOODS["apple"].properties():
        assert re.search(rf"^export(\([^)]*\))? var {name} = ", text, re.M), f"food.gd exports no {name}"
