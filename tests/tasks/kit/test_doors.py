"""A door from a difficulty (avalon/tasks/kit/doors.py): deterministic, harder with difficulty, all
three locks possible at d = 1, never a lock its mechanism cannot hold."""

import numpy as np
import pytest

from avalon.rules import doors
from avalon.sim.paths import repository_dir
from avalon.tasks.kit.doors import LATCH_LEVELS, LOCK_LEVELS, MECHANISM_LEVELS, door_frequencies, door_params, split_difficulty


def test_the_same_seed_gives_the_same_doors():
    first = [door_params(0.6, np.random.default_rng(3)) for _ in range(5)]
    again = [door_params(0.6, np.random.default_rng(3)) for _ in range(5)]
    assert first == again


def test_every_drawn_door_is_one_its_mechanism_can_be():
    rng = np.random.default_rng(0)
    for difficulty in np.linspace(0.0, 1.0, 21):
        for _ in range(50):
            params = door_params(float(difficulty), rng)
            assert doors.locks_error(params.mechanism, params.locks) is None
            assert params.latch != "none" or not params.locks
            params.entity("door", (0, 0, 0), 0.0, 1.4, 2.5, 0.2)  # a valid entity


def test_doors_get_harder_with_difficulty_and_all_three_locks_come_at_one():
    easy, hard = door_frequencies(0.0, 4000), door_frequencies(1.0, 4000)
    assert easy["mechanism"]["hinged_both"] > 0.9 and easy["latch"]["none"] > 0.6  # walked through
    assert easy["lock count"].get(0, 0) > 0.7
    assert hard["locks"][("bolt", "bar", "button")] > 0.25
    assert hard["mechanism"].get("sliding", 0) + hard["mechanism"].get("hinged_pull", 0) > 0.9
    assert hard["latch"]["always"] > 0.9
    mean_locks = [sum(k * v for k, v in door_frequencies(d, 2000)["lock count"].items()) for d in (0.0, 0.5, 1.0)]
    assert mean_locks == sorted(mean_locks)


def test_sub_difficulties_keep_their_weighted_mean():
    rng = np.random.default_rng(1)
    for _ in range(100):
        parts = split_difficulty(0.5, rng)
        assert np.dot(parts, (4.0, 0.5, 1.0)) / 5.5 == pytest.approx(0.5)


def test_a_difficulty_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match=r"difficulty 1.5 must be a number in \[0, 1\]"):
        door_params(1.5, np.random.default_rng(0))


def test_the_doors_page_quotes_every_level_and_the_frequencies_at_one():
    page = (repository_dir() / "docs" / "doors.md").read_text()
    for name, level in {**MECHANISM_LEVELS, **LATCH_LEVELS}.items():
        assert f"| `{name}`" in page and f"| {level:g} |" in page
    for locks, level in LOCK_LEVELS.items():
        assert f"| {', '.join(locks) or 'none'} | {level:g} |" in page
    hard = door_frequencies(1.0)
    percent = {table: {key: round(100 * value) for key, value in counts.items()} for table, counts in hard.items()}
    mechanisms = " / ".join(str(percent["mechanism"].get(name, 0)) for name in MECHANISM_LEVELS)
    latches = " / ".join(str(percent["latch"].get(name, 0)) for name in LATCH_LEVELS)
    counts = " / ".join(str(percent["lock count"].get(n, 0)) for n in range(4))
    assert f"| 1 | {mechanisms} | {latches} | {counts} | {percent['locks'][('bolt', 'bar', 'button')]} |" in page
