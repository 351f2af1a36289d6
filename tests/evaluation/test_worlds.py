"""Which fresh worlds an evaluation plays: evenly spaced or given difficulties, drawn or consecutive
seeds, forced generator choices, and the task evaluated when none is named."""

import pytest

from avalon.evaluation.worlds import default_task, evaluation_worlds
from avalon.tasks import TASKS


def test_evaluation_worlds_have_evenly_spaced_difficulties_and_fixed_seeds():
    requests = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)
    assert [r.task for r in requests] == ["eat"] * 5 + ["move"] * 5
    assert [r.difficulty for r in requests[:5]] == pytest.approx([0.0, 0.05, 0.1, 0.15, 0.2])
    assert requests == evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=0)  # the same worlds every time
    assert len({r.seed for r in requests}) == 10
    other = evaluation_worlds(["eat", "move"], 5, 0.0, 0.2, seed=1)
    assert not {r.seed for r in requests} & {r.seed for r in other}


def test_given_difficulties_take_episodes_worlds_each_and_a_first_seed_gives_the_same_seeds_at_each():
    requests = evaluation_worlds(["eat", "move"], 3, difficulties=[0.0, 1.0], first_seed=5)
    assert [(r.task, r.difficulty, r.seed) for r in requests] == [
        (task, difficulty, seed) for task in ("eat", "move") for difficulty in (0.0, 1.0) for seed in (5, 6, 7)]
    drawn = evaluation_worlds(["eat"], 3, difficulties=[0.0, 1.0], seed=2)
    assert [r.difficulty for r in drawn] == [0.0] * 3 + [1.0] * 3 and len({r.seed for r in drawn}) == 6
    spaced = evaluation_worlds(["eat"], 3, first_seed=0)
    assert [(r.difficulty, r.seed) for r in spaced] == [(0.0, 0), (0.5, 1), (1.0, 2)]


def test_forced_choices_are_pinned_in_every_world():
    requests = evaluation_worlds(["eat"], 2, forced={"food_kind": "fig"})
    assert all(dict(r.forced) == {"food_kind": "fig"} for r in requests)
    with pytest.raises(ValueError, match="food_kind"):
        evaluation_worlds(["move"], 2, forced={"food_kind": "fig"})


@pytest.mark.parametrize(
    "args, options, message",
    [
        ((["eat"], 0), {}, "episodes=0"),
        ((["eat"], 3, 0.5, 0.2), {}, "min_difficulty 0.5 is above max_difficulty 0.2"),
        ((["eat"], 3, 0.0, 1.5), {}, "difficulty 1.5"),
        ((["swim"], 3), {}, "unknown task 'swim'"),
        ((["eat"], 3), {"difficulties": []}, "names no difficulty"),
        ((["eat"], 3), {"difficulties": [0.5, 2.0]}, "difficulty 2.0"),
        ((["eat"], 3), {"first_seed": -1}, "seed"),
    ],
)
def test_bad_evaluation_settings_are_named(args, options, message):
    with pytest.raises(ValueError, match=message):
        evaluation_worlds(*args, **options)


def test_the_default_task_is_the_first_basic_task_of_table_one():
    basic = [spec for spec in TASKS.values() if spec.group == "basic"]
    assert TASKS[default_task()].table_row == min(spec.table_row for spec in basic)
