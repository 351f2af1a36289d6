"""Task registry: every module of this package is a task and declares one :class:`TaskSpec`.

A new task is one module ``avalon/tasks/<name>.py`` that ends with ``TASK = TaskSpec(name="<name>",
...)``: :data:`TASKS` collects them (shared code lives in :mod:`avalon.tasks.kit`, which is not a
task). Its generator ``(rng, difficulty, config) -> World`` turns the difficulty in [0, 1] into
every lower-level factor through the table of difficulty curves at the top of its module;
:func:`build_world` fills in the bookkeeping (task name, difficulty, seed) and
:func:`generate_world` exports the world folder.

A generator raises :class:`~avalon.tasks.kit.ImpossibleWorldError` when its random draws gave a
world that cannot keep the task's guarantees (say, the island had no room for the obstacle). Then
:func:`build_world` tries again with a generator from a derived seed (:func:`attempt_rng`): attempt
0 uses ``numpy.random.default_rng(seed)``, attempt k >= 1 uses
``numpy.random.default_rng(numpy.random.SeedSequence((seed, k)))``, up to :data:`MAX_ATTEMPTS`
attempts. The world keeps the requested seed, so (task, difficulty, seed) still names it exactly.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, TypeVar

import attr
import numpy as np

from avalon.datagen.export import export_world
from avalon.datagen.world import World
from avalon.errors import is_int_in, is_number_in, plain_int
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.forcing import check_forced
from avalon.tasks.kit.spec import TASK_ROLES, TaskSpec


def collect_tasks(package: ModuleType) -> dict[str, TaskSpec]:
    """The ``TASK`` of every module of ``package`` (subpackages aside), by name, in name order.

    ``TypeError`` naming the module if one declares no ``TaskSpec`` named after itself.
    """
    specs: dict[str, TaskSpec] = {}
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if module.ispkg:
            continue
        spec = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "TASK", None)
        if not isinstance(spec, TaskSpec) or spec.name != module.name:
            raise TypeError(
                f"{package.__name__}.{module.name} must declare TASK = TaskSpec(name={module.name!r}, ...), found "
                f"{spec!r}: every module of {package.__name__} is a task (shared code goes in its kit package)"
            )
        specs[spec.name] = spec
    return specs


#: Every task by name (see :class:`TaskSpec`).
TASKS: dict[str, TaskSpec] = collect_tasks(sys.modules[__name__])

#: Attempts :func:`build_world` makes (the requested seed, then derived seeds) before giving up.
MAX_ATTEMPTS = 16

T = TypeVar("T")


class WorldGenerationError(RuntimeError):
    """Every attempt to build a task's world was impossible (see :data:`MAX_ATTEMPTS`)."""


def task_for(role: str) -> str:
    """The name of the one task whose spec declares ``role`` (:data:`~avalon.tasks.kit.spec.TASK_ROLES`);
    ``ValueError`` when the role is unknown or not exactly one task declares it."""
    if role not in TASK_ROLES:
        raise ValueError(f"unknown task role {role!r}; the roles are: {', '.join(TASK_ROLES)}")
    names = [name for name, spec in TASKS.items() if spec.role == role]
    if len(names) != 1:
        raise ValueError(f"task role {role!r} ({TASK_ROLES[role]}) must be declared by one task; declared by {names or 'none'}")
    return names[0]


def smoke_world(seed: int = 0, time_limit_frames: int | None = None) -> World:
    """The world of the ``smoke`` role's task (the same for every seed and difficulty; ``seed`` is
    recorded), with its episodes' time limit replaced when ``time_limit_frames`` is given."""
    world = TASKS[task_for("smoke")].generate(np.random.default_rng(seed), 0.0)
    limit = world.time_limit_frames if time_limit_frames is None else time_limit_frames
    return attr.evolve(world, seed=seed, time_limit_frames=limit)


def check_task(task: str) -> TaskSpec:
    """The spec of the task named ``task``; ``ValueError`` listing the tasks if there is none."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the tasks are: {', '.join(sorted(TASKS))}")
    return TASKS[task]


def check_difficulty(difficulty: float) -> float:
    if not is_number_in(difficulty, 0.0, 1.0):
        raise ValueError(f"difficulty {difficulty!r} must be a number in [0, 1]")
    return float(difficulty)


def check_seed(seed: int) -> int:
    if not is_int_in(plain_int(seed), low=0):
        raise ValueError(f"seed {seed!r} must be an integer >= 0")
    return int(seed)


def world_key(task: str, difficulty: float, seed: int) -> str:
    """``task-difficulty-seed`` (difficulty to six decimals): the name of one task world wherever
    worlds are keyed (generated folders, per-world score files, human references)."""
    return f"{task}-{float(difficulty):.6f}-{int(seed)}"


def attempt_rng(seed: int, attempt: int) -> np.random.Generator:
    """The generator of attempt ``attempt`` for ``seed``: ``default_rng(seed)`` first, then
    ``default_rng(SeedSequence((seed, attempt)))``."""
    if attempt == 0:
        return np.random.default_rng(seed)
    return np.random.default_rng(np.random.SeedSequence((seed, attempt)))


def with_retries(build: Callable[[np.random.Generator], T], task: str, difficulty: float, seed: int) -> T:
    """``build(rng)`` for the attempts' generators in turn until one does not raise
    ``ImpossibleWorldError``; :class:`WorldGenerationError` naming task, difficulty and seed if none does."""
    reasons = []
    for attempt in range(MAX_ATTEMPTS):
        try:
            return build(attempt_rng(seed, attempt))
        except ImpossibleWorldError as error:
            reasons.append(str(error))
    raise WorldGenerationError(
        f"task {task!r} at difficulty {difficulty} with seed {seed}: no possible world in {MAX_ATTEMPTS} attempts "
        f"(seed, then SeedSequence((seed, k)) for k = 1..{MAX_ATTEMPTS - 1}); last reason: {reasons[-1]}"
    )


def build_world(task: str, difficulty: float, seed: int, config: object | None = None, forced: object = None) -> World:
    """The world of ``task`` at ``difficulty`` for ``seed`` (pure Python, no files), with the
    generator options ``forced`` pins (:mod:`avalon.tasks.kit.forcing`; None or empty: none)."""
    spec = check_task(task)
    difficulty = check_difficulty(difficulty)
    seed = check_seed(seed)
    options = check_forced(task, spec.forcing, forced)
    if options:
        made = with_retries(lambda rng: spec.generate(rng, difficulty, config, forced=options), task, difficulty, seed)
    else:
        made = with_retries(lambda rng: spec.generate(rng, difficulty, config), task, difficulty, seed)
    world = made if isinstance(made, World) else made.world  # a generator may return its layout
    rule = "all_food_or_energy_gain" if spec.succeeds_on_energy_gain else "all_food"
    return attr.evolve(world, task=task, difficulty=difficulty, seed=seed, success_rule=rule)


def generate_world(task: str, difficulty: float, seed: int, output_dir: str | os.PathLike, config: object | None = None,
                   forced: object = None) -> Path:
    """Builds the world (``forced``: see :func:`build_world`) and writes it as a world folder at
    ``output_dir``; returns its path."""
    return export_world(build_world(task, difficulty, seed, config, forced), output_dir)
