"""Forced worlds: generator options a request carries to the task's generator (eat's food kind)."""

from __future__ import annotations

import json

import attr
import pytest

from avalon.datagen.world_folder import read_world_info
from avalon.rules.foods import FOOD_KINDS
from avalon.tasks import TASKS, build_world, generate_world
from avalon.tasks.eat import FOOD_LADDER, food_kinds
from avalon.tasks.kit.forcing import ForcedOptions, Forcing, check_forced
from avalon.training.world_supply import WorldRequest, WorldSupply


def test_eat_declares_every_food_kind_as_forcible():
    assert TASKS["eat"].forcing == (Forcing("food_kind", FOOD_LADDER),)
    assert sorted(FOOD_LADDER) == sorted(FOOD_KINDS)


@pytest.mark.parametrize("difficulty", [0.0, 1.0])
def test_a_forced_eat_world_holds_the_forced_kind_whatever_the_difficulty(difficulty):
    for kind in FOOD_LADDER:
        world = build_world("eat", difficulty, 11, forced={"food_kind": kind})
        assert {food.kind for food in world.food} == {kind}
    # at d = 0 the drawn kind is always the first of the ladder: forcing did change something
    assert food_kinds(0.0) == (FOOD_LADDER[0],)


def test_no_forcing_and_empty_forcing_make_the_same_world(tmp_path):
    plain = generate_world("eat", 0.7, 5, tmp_path / "plain")
    empty = generate_world("eat", 0.7, 5, tmp_path / "empty", forced={})
    assert read_world_info(plain).content_hash == read_world_info(empty).content_hash


def test_forcing_the_drawn_kind_changes_nothing(tmp_path):
    """The forced kind replaces the drawn one after the draw: forcing the kind a world would have
    had anyway gives byte for byte the same world."""
    world = build_world("eat", 1.0, 21)
    kind = world.food[0].kind
    plain = generate_world("eat", 1.0, 21, tmp_path / "plain")
    forced = generate_world("eat", 1.0, 21, tmp_path / "forced", forced={"food_kind": kind})
    assert read_world_info(plain).content_hash == read_world_info(forced).content_hash
    other = next(k for k in FOOD_LADDER if k != kind)
    changed = generate_world("eat", 1.0, 21, tmp_path / "other", forced={"food_kind": other})
    assert read_world_info(changed).content_hash != read_world_info(plain).content_hash


def test_forced_options_are_an_immutable_hashable_mapping():
    options = ForcedOptions({"food_kind": "fig"})
    assert options == {"food_kind": "fig"} and dict(options) == {"food_kind": "fig"}
    assert options["food_kind"] == "fig" and options.get("other") is None and len(options) == 1
    assert hash(options) == hash(ForcedOptions.of([("food_kind", "fig")]))
    assert not ForcedOptions() and ForcedOptions.of(None) == {}
    with pytest.raises(TypeError):
        options["food_kind"] = "apple"  # type: ignore[index]


@pytest.mark.parametrize("bad", [{"food_kind": 3}, {"": "fig"}, {"food_kind": ""}, 5, "fig"])
def test_malformed_forced_options_are_refused_naming_them(bad):
    with pytest.raises(ValueError, match="forced="):
        ForcedOptions.of(bad)


def test_an_option_the_task_does_not_declare_or_a_value_it_does_not_take_is_refused():
    with pytest.raises(ValueError, match=r"task 'move' cannot force 'food_kind': the options it can force are: none"):
        build_world("move", 0.5, 1, forced={"food_kind": "fig"})
    with pytest.raises(ValueError, match=r"cannot force 'prey'.*food_kind"):
        check_forced("eat", TASKS["eat"].forcing, {"prey": "rabbit"})
    with pytest.raises(ValueError, match=r"forced food_kind='pear' is not one of apple, "):
        WorldRequest("eat", 0.5, 1, {"food_kind": "pear"})


def test_a_request_carries_its_forcing_through_json_and_keeps_its_folder_name():
    request = WorldRequest("eat", 1.0, 9, {"food_kind": "coconut"})
    again = WorldRequest(**json.loads(json.dumps(request.to_json())))
    assert again == request and hash(again) == hash(request)
    assert request.folder_name == WorldRequest("eat", 1.0, 9).folder_name == "eat-1.000000-9"
    assert WorldRequest("eat", 1.0, 9).forced == {}


def test_the_world_supply_generates_the_forced_world(tmp_path):
    request = WorldRequest("eat", 0.0, 4, {"food_kind": "avocado"})
    supply = WorldSupply()
    try:
        supply.submit(request)
        supplied = supply.take()
        assert supplied.error is None
        direct = generate_world("eat", 0.0, 4, tmp_path / "direct", forced={"food_kind": "avocado"})
        assert read_world_info(supplied.path).content_hash == read_world_info(direct).content_hash
        unforced = generate_world("eat", 0.0, 4, tmp_path / "unforced")
        assert read_world_info(unforced).content_hash != read_world_info(direct).content_hash
    finally:
        supply.close()


def test_task_specs_check_their_forcing_and_evaluation_set_flag():
    spec = TASKS["move"]
    assert spec.forcing == () and spec.in_evaluation_sets
    assert not TASKS["trivial"].in_evaluation_sets  # the same world for every seed and difficulty
    with pytest.raises(TypeError, match="forcing"):
        attr.evolve(spec, forcing=("food_kind",))
    with pytest.raises(ValueError, match=r"TaskSpec.in_sets_from_version=0: expected None or a set version >= 1"):
        attr.evolve(spec, in_sets_from_version=0)
    with pytest.raises(ValueError, match=r"Forcing\('food_kind'\).values=\(\) must be a non-empty tuple"):
        Forcing("food_kind", ())


def test_forcing_values_may_come_from_a_function_called_when_they_are_first_read():
    calls = []

    def kinds():
        calls.append(1)
        return ["fig", "apple"]

    forcing = Forcing("food_kind", kinds)
    assert calls == []  # not while the task module is imported
    assert forcing.values == ("fig", "apple") and forcing == Forcing("food_kind", ("fig", "apple"))
    assert forcing.values == ("fig", "apple") and calls == [1]
    check_forced("eat", (forcing,), {"food_kind": "fig"})
    with pytest.raises(ValueError, match=r"Forcing\('food_kind'\).values=\(\) must be a non-empty tuple"):
        check_forced("eat", (Forcing("food_kind", lambda: ()),), {"food_kind": "fig"})
