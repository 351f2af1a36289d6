"""The task registry: names, difficulty and seed checks, and retries after impossible worlds."""

from __future__ import annotations

import json
import math

import attr
import numpy as np
import pytest

import avalon.tasks as tasks
from avalon.datagen.export import content_hash
from avalon.tasks import (
    MAX_ATTEMPTS,
    TASKS,
    WorldGenerationError,
    attempt_rng,
    build_world,
    check_difficulty,
    check_task,
    generate_world,
)
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.spec import TaskSpec
from avalon.tasks.trivial import trivial_world


def _registered(generate) -> TaskSpec:
    """A spec for a test generator, as a task module would declare it."""
    return TaskSpec(name=generate.__name__, generate=generate, training_time_limit_s=Ramp(30.0),
                    evaluation_time_limit_frames=200, food_visible_from_spawn=True, food_reachable_on_foot=True)


def test_eat_and_move_are_registered():
    assert {"trivial", "eat", "move"} <= set(TASKS)


def test_unknown_task_lists_the_tasks():
    with pytest.raises(ValueError) as error:
        build_world("jump-around", 0.5, 0)
    message = str(error.value)
    assert "'jump-around'" in message
    assert all(name in message for name in TASKS)
    with pytest.raises(ValueError, match=", ".join(sorted(TASKS))):  # every task, in name order
        check_task("Eat")


@pytest.mark.parametrize("difficulty", [-0.01, 1.01, math.nan, math.inf, True, "0.5", None])
def test_difficulty_outside_the_unit_interval_is_refused(difficulty):
    with pytest.raises(ValueError, match="difficulty"):
        build_world("eat", difficulty, 0)


def test_difficulty_bounds_are_allowed():
    assert check_difficulty(0) == 0.0 and check_difficulty(1) == 1.0


@pytest.mark.parametrize("seed", [-1, 1.5, "3", None])
def test_bad_seeds_are_refused(seed):
    with pytest.raises(ValueError, match="seed"):
        build_world("trivial", 0.0, seed)


def test_world_records_task_difficulty_seed_and_time_limit():
    world = build_world("eat", 0.25, 12)
    assert (world.task, world.difficulty, world.seed) == ("eat", 0.25, 12)
    assert world.time_limit_frames == TIME_LIMIT_FRAMES == 3000


def test_generated_world_folders_are_byte_identical(tmp_path):
    first = generate_world("eat", 0.8, 4, tmp_path / "a")
    second = generate_world("eat", 0.8, 4, tmp_path / "b")
    other = generate_world("eat", 0.8, 5, tmp_path / "c")
    assert content_hash(first) == content_hash(second) != content_hash(other)
    info = json.loads((first / "world.json").read_text())
    assert (info["task"], info["difficulty"], info["seed"], info["food_count"]) == ("eat", 0.8, 4, len(build_world("eat", 0.8, 4).food))


def test_attempt_zero_is_the_plain_seed_and_later_attempts_differ():
    assert attempt_rng(9, 0).uniform() == np.random.default_rng(9).uniform()
    draws = {attempt_rng(9, k).uniform() for k in range(5)}
    assert len(draws) == 5
    assert attempt_rng(9, 3).uniform() == np.random.default_rng(np.random.SeedSequence((9, 3))).uniform()


def test_an_impossible_world_is_retried_with_a_derived_seed(monkeypatch):
    first_draws = []

    def flaky(rng, difficulty, config):
        first_draws.append(rng.uniform())
        if len(first_draws) == 1:
            raise ImpossibleWorldError("no room for the test")
        return trivial_world()

    monkeypatch.setitem(tasks.TASKS, "flaky", _registered(flaky))
    world = build_world("flaky", 0.5, 42)
    assert len(first_draws) == 2
    assert first_draws == [attempt_rng(42, 0).uniform(), attempt_rng(42, 1).uniform()]
    assert (world.task, world.difficulty, world.seed) == ("flaky", 0.5, 42)  # the requested seed


def test_giving_up_names_task_difficulty_and_seed(monkeypatch):
    calls = []

    def hopeless(rng, difficulty, config):
        calls.append(1)
        raise ImpossibleWorldError("the island is too small")

    monkeypatch.setitem(tasks.TASKS, "hopeless", _registered(hopeless))
    with pytest.raises(WorldGenerationError) as error:
        build_world("hopeless", 0.75, 8)
    message = str(error.value)
    assert "'hopeless'" in message and "0.75" in message and "seed 8" in message
    assert "the island is too small" in message
    assert len(calls) == MAX_ATTEMPTS


def test_other_errors_are_not_retried(monkeypatch):
    calls = []

    def broken(rng, difficulty, config):
        calls.append(1)
        raise KeyError("bug")

    monkeypatch.setitem(tasks.TASKS, "broken", _registered(broken))
    with pytest.raises(KeyError):
        build_world("broken", 0.0, 0)
    assert len(calls) == 1


def test_each_role_is_declared_by_one_task_and_read_from_the_specs(monkeypatch):
    assert (tasks.task_for("first"), tasks.task_for("smoke")) == ("eat", "trivial")
    with pytest.raises(ValueError, match="unknown task role 'fastest'; the roles are: first, smoke"):
        tasks.task_for("fastest")
    monkeypatch.setitem(tasks.TASKS, "trivial", attr.evolve(tasks.TASKS["trivial"], role="first"))
    with pytest.raises(ValueError, match=r"task role 'first' .* must be declared by one task; declared by \['eat', 'trivial'\]"):
        tasks.task_for("first")
    with pytest.raises(ValueError, match=r"task role 'smoke' .* declared by none"):
        tasks.task_for("smoke")


def test_a_role_outside_the_vocabulary_is_refused_by_name():
    with pytest.raises(ValueError, match=r"TaskSpec.role='default': expected None or one of \('first', 'smoke'\)"):
        attr.evolve(tasks.TASKS["eat"], role="default")


def test_the_smoke_world_is_the_smoke_tasks_world_with_its_seed_and_time_limit():
    assert tasks.smoke_world(seed=3, time_limit_frames=7) == trivial_world(seed=3, time_limit_frames=7)
    assert tasks.smoke_world() == trivial_world()
