"""Which worlds a set's recipe chooses (paper, Appendix G.1), before any is generated."""

from __future__ import annotations

import attr
import numpy as np
import pytest

from avalon.evaluation.sets.recipe import DEFAULT_SET, RECIPES, SetRecipe, difficulties, plan_worlds, recipe, version_tasks
from avalon.rules import animals
from avalon.tasks import TASKS, build_world
from avalon.tasks.eat import FOOD_LADDER


def test_fifty_worlds_are_ten_at_difficulty_one_and_forty_evenly_spaced_from_zero_to_one():
    levels = difficulties(50, 0.2)
    assert len(levels) == 50 and levels.count(1.0) == 11  # 10 hardest + the end of the spread
    spread = levels[:40]
    assert spread[0] == 0.0 and spread[-1] == 1.0
    assert np.allclose(np.diff(spread), 1.0 / 39)
    assert difficulties(2, 0.2) == [0.0, 1.0]
    assert difficulties(1, 0.0) == [0.0]


def test_the_default_set_has_fifty_worlds_of_each_of_its_fifteen_tasks_all_registered_for_evaluation_sets():
    planned = plan_worlds(RECIPES[DEFAULT_SET])
    tasks = sorted({w.task for w in planned})
    assert tasks == ["avoid", "bridge", "carry", "climb", "descend", "eat", "explore", "fight", "hunt", "jump", "move", "push",
                     "scramble", "stack", "throw"]
    assert all(TASKS[task].in_evaluation_sets for task in tasks)
    assert [w.task for w in planned] == [task for task in tasks for _ in range(50)]
    assert len({(w.task, w.seed) for w in planned}) == len(planned)


def test_the_earlier_sets_keep_the_tasks_they_were_built_with():
    first = ["climb", "descend", "eat", "explore", "jump", "move", "scramble"]
    for name in ("smoke", "v1"):
        assert sorted({w.task for w in plan_worlds(RECIPES[name])}) == first
    assert sorted({w.task for w in plan_worlds(RECIPES["v2"])}) == sorted(first + ["bridge", "push", "stack"])


def test_a_set_holds_the_tasks_whose_spec_names_its_version_or_an_earlier_one():
    for version in (1, 2, 3, 4):
        expected = sorted(name for name, spec in TASKS.items()
                          if spec.in_sets_from_version is not None and spec.in_sets_from_version <= version)
        assert version_tasks(version) == expected
        assert SetRecipe(name="any", version=version, worlds_per_task=1).set_tasks() == expected
    assert not any(task in version_tasks(10**5) for task, spec in TASKS.items() if spec.in_sets_from_version is None)


def test_eat_forces_every_food_kind_once_on_its_hardest_worlds():
    eat = [w for w in plan_worlds(RECIPES["v1"]) if w.task == "eat"]
    forced = [w for w in eat if w.forced]
    assert sorted(w.forced["food_kind"] for w in forced) == sorted(FOOD_LADDER)
    assert all(w.difficulty == 1.0 for w in forced)
    assert sum(w.difficulty == 1.0 and not w.forced for w in eat) == 1  # the spread's last world
    assert not any(w.forced for w in plan_worlds(RECIPES["v1"]) if not TASKS[w.task].forcing)


def test_a_set_of_the_animal_tasks_forces_hunt_once_per_prey_and_avoid_once_per_predator_at_difficulty_one():
    # G.1: "hunt every prey type and avoid every predator type"; the next set version takes these tasks.
    planned = plan_worlds(SetRecipe(name="animals", version=3, worlds_per_task=50, only_tasks=("avoid", "hunt")))
    for task, option, kinds in (("hunt", "prey_kind", set(animals.PREY_KINDS)),
                                ("avoid", "predator_kind", set(animals.PREDATOR_KINDS))):
        forced = [w for w in planned if w.task == task and w.forced]
        assert sorted(w.forced[option] for w in forced) == sorted(kinds)
        assert all(w.difficulty == 1.0 for w in forced)
        world = build_world(task, 1.0, forced[0].seed, forced=forced[0].forced)
        assert forced[0].forced[option] in {entity.kind for entity in world.entities}


def test_a_rebuild_plans_the_same_worlds_and_another_version_other_seeds():
    v1 = RECIPES["v1"]
    assert plan_worlds(v1) == plan_worlds(v1)
    again = plan_worlds(attr.evolve(v1, version=2, only_tasks=tuple(v1.set_tasks())))  # version 2 adds tasks
    assert [(w.task, w.difficulty, w.forced) for w in again] == [(w.task, w.difficulty, w.forced) for w in plan_worlds(v1)]
    assert not {w.seed for w in again} & {w.seed for w in plan_worlds(v1)}


def test_a_task_s_worlds_do_not_depend_on_the_other_tasks_of_the_set():
    """A new task enters the next build without moving the worlds of the others."""
    full = [w for w in plan_worlds(RECIPES["v1"]) if w.task == "jump"]
    alone = plan_worlds(attr.evolve(RECIPES["v1"], only_tasks=("jump",)))
    assert alone == full


def test_the_smoke_set_has_two_unforced_worlds_per_task():
    planned = plan_worlds(RECIPES["smoke"])
    assert all(not w.forced for w in planned)
    assert [w.difficulty for w in planned if w.task == "eat"] == [0.0, 1.0]


def test_unknown_recipe_names_the_sets_that_can_be_built():
    with pytest.raises(ValueError, match=r"no recipe for an evaluation set named 'v9'; the sets that can be built are: smoke, v1"):
        recipe("v9")


def test_a_set_too_small_for_its_forced_worlds_is_refused():
    with pytest.raises(ValueError, match=r"task 'eat' forces 10 worlds .* holds 5 per task; expected worlds_per_task >= 10"):
        plan_worlds(SetRecipe(name="tiny", version=1, worlds_per_task=5, only_tasks=("eat",)))


@pytest.mark.parametrize("fields, message", [
    ({"name": "a/b"}, "SetRecipe.name='a/b' must be letters"),
    ({"version": 0}, "SetRecipe.version=0 must be an int >= 1"),
    ({"worlds_per_task": 0}, "SetRecipe.worlds_per_task=0 must be an int >= 1"),
    ({"hardest_share": 1.5}, r"SetRecipe.hardest_share=1.5 must be a number in \[0.0, 1.0\]"),
    ({"only_tasks": ("eat", "fly")}, "unknown task 'fly'"),
    ({"only_tasks": ("eat", "hunt")}, "'hunt' enters the sets from version 3"),
])
def test_bad_recipes_are_refused_naming_the_field(fields, message):
    with pytest.raises(ValueError, match=message):
        SetRecipe(**{"name": "x", "version": 1, "worlds_per_task": 3, **fields})
