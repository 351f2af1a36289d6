"""Success per Appendix M as the world's data: in a world whose ``success_rule`` is
``all_food_or_energy_gain`` (gather's and survive's), eating one of two apples with more energy
than at the start is a success in ``info``; in an ``all_food`` world it is not. The real simulator
eats the apple; world.json carries the rule only where it is not the default."""

from __future__ import annotations

import json

import attr
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.datagen.world import Entity
from avalon.datagen.world_folder import read_world_info
from avalon.errors import WorldLoadError
from avalon.rules import mechanics
from avalon.tasks import TASKS, build_world
from tests.game.runs import Run, box, flat_world, rate_toward


def _two_apples(rule: str):
    """An apple on a table in front of the right hand, another 20 m away."""
    entities = [box("table", (0.3, 0.525, -1.2), (0.5, 1.05, 0.5)),
                Entity(kind="apple", name="food_0", position=(0.3, 1.2, -1.0)),
                Entity(kind="apple", name="food_1", position=(20.0, 0.15, 0.0))]
    return attr.evolve(flat_world(entities), success_rule=rule)


def test_the_rule_comes_from_the_spec_and_only_the_other_rule_is_written(tmp_path):
    for name, spec in TASKS.items():
        expected = "all_food_or_energy_gain" if spec.succeeds_on_energy_gain else "all_food"
        if spec.succeeds_on_energy_gain or name == "eat":
            world = build_world(name, 0.0, 0)
            assert world.success_rule == expected
            info = json.loads((export_world(world, tmp_path / name) / "world.json").read_text())
            assert info.get("success_rule", "all_food") == expected and ("success_rule" in info) == spec.succeeds_on_energy_gain
    with pytest.raises(ValueError, match="success_rule 'most_food'"):
        attr.evolve(flat_world([]), success_rule="most_food")


def test_a_world_json_with_an_unknown_rule_is_refused(tmp_path):
    folder = export_world(_two_apples("all_food_or_energy_gain"), tmp_path / "world")
    assert read_world_info(folder).success_rule == "all_food_or_energy_gain"
    info = json.loads((folder / "world.json").read_text())
    (folder / "world.json").write_text(json.dumps({**info, "success_rule": "most_food"}))
    with pytest.raises(WorldLoadError, match="success_rule"):
        read_world_info(folder)


@pytest.mark.godot
def test_one_apple_of_two_with_energy_gained_succeeds_only_under_the_energy_rule(tmp_path):
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=32))
    try:
        outcomes = {}
        for rule in ("all_food", "all_food_or_energy_gain"):
            run = Run(env, str(export_world(_two_apples(rule), tmp_path / rule)))
            assert not run.info["success"]
            run.step(right_hand_position=[0, 0, -0.5], right_grasp=1)
            for _ in range(10):
                run.step(right_hand_position=rate_toward(run.hand(1), (0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0)),
                         right_grasp=1)
                if run.info["food_eaten"]:
                    break
            assert run.info["food_eaten"] == 1 and run.info["food_total"] == 2
            assert run.info["energy"] > mechanics.INITIAL_ENERGY
            outcomes[rule] = run.info["success"]
    finally:
        env.close()
    assert outcomes == {"all_food": False, "all_food_or_energy_gain": True}
