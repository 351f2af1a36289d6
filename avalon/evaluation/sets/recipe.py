"""How a set's worlds are chosen (paper, Appendix G.1), before any world is generated.

A set of version v holds every registered task whose ``TaskSpec.in_sets_from_version`` is at most
v, in name order (a task enters the sets from the version its spec names, so an older set keeps
its tasks). Per task: ``n`` worlds, ``round(hardest_share * n)`` of them at difficulty 1 and the
rest evenly spaced over [0, 1]; with ``force_every_value`` the hardest worlds are forced, one per
value of each of the task's :class:`~avalon.tasks.kit.forcing.Forcing` (a task that forces its
food kind: one world per kind, at d = 1). Seeds are drawn from a generator seeded by a SHA-256 of
``(set name, version, task)``: a rebuild chooses the same worlds, a new task adds its worlds
without moving the others', and a new version draws new ones.
"""

from __future__ import annotations

import hashlib
from typing import Optional

import attr
import numpy as np

from avalon.errors import check_bool, check_int, check_non_empty_str, check_number, refuse
from avalon.tasks import TASKS, check_task
from avalon.tasks.kit.forcing import ForcedOptions

#: Seeds are drawn below this bound (and a replacement adds 1 to a seed: far from any limit).
SEED_BOUND = 2**62


def version_tasks(version: int) -> list[str]:
    """The tasks of the sets of ``version``: those whose ``TaskSpec.in_sets_from_version`` is at most it, by name."""
    return sorted(name for name, spec in TASKS.items() if spec.in_evaluation_sets and spec.in_sets_from_version <= version)


def _check_name(instance, attribute, value) -> None:
    check_non_empty_str(value, "SetRecipe.name")
    if not all(c.isalnum() or c in "-_" for c in value):
        refuse("SetRecipe.name", value, "letters, digits, '-' and '_' only (it names files)")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SetRecipe:
    """A set's name, version and how its worlds are chosen (see the module's docstring)."""

    name: str = attr.ib(validator=_check_name)
    version: int = attr.ib(validator=lambda _, __, value: check_int(value, "SetRecipe.version", low=1))
    #: Worlds per task.
    worlds_per_task: int = attr.ib(validator=lambda _, __, value: check_int(value, "SetRecipe.worlds_per_task", low=1))
    #: Share of each task's worlds at difficulty 1 (G.1: 20%).
    hardest_share: float = attr.ib(default=0.2, validator=lambda _, __, value: check_number(
        value, "SetRecipe.hardest_share", low=0.0, high=1.0))
    #: Whether each task's hardest worlds are forced, one per value it can force.
    force_every_value: bool = attr.ib(default=True, validator=lambda _, __, value: check_bool(
        value, "SetRecipe.force_every_value"))
    #: Only these of the version's tasks (a small set for a test), or None: every one of them.
    only_tasks: Optional[tuple[str, ...]] = attr.ib(default=None, converter=attr.converters.optional(tuple))

    def __attrs_post_init__(self) -> None:
        held = version_tasks(self.version)
        for task in self.only_tasks or ():
            spec = check_task(task)
            if task not in held:
                refuse("SetRecipe.only_tasks", self.only_tasks, f"tasks of the sets of version {self.version} "
                       f"({', '.join(held)}): {task!r} enters the sets from version {spec.in_sets_from_version}")

    def set_tasks(self) -> list[str]:
        """The set's tasks, in name order."""
        held = version_tasks(self.version)
        return held if self.only_tasks is None else [task for task in held if task in self.only_tasks]

    def to_json(self) -> dict:
        return {"worlds_per_task": self.worlds_per_task, "hardest_share": self.hardest_share,
                "force_every_value": self.force_every_value, "tasks": self.set_tasks()}


def _recipes() -> dict[str, SetRecipe]:
    versions = sorted({spec.in_sets_from_version for spec in TASKS.values() if spec.in_evaluation_sets})
    return {
        "smoke": SetRecipe(name="smoke", version=1, worlds_per_task=2, force_every_value=False),
        **{f"v{version}": SetRecipe(name=f"v{version}", version=version, worlds_per_task=50) for version in versions},
    }


#: The sets ``avalon evalset build`` knows, read from the specs: ``v<n>`` for every version a task
#: enters the sets at (G.1's 50 worlds per task of the tasks of versions up to n) and ``smoke`` (2
#: per task of version 1, at d = 0 and 1, unforced: for tests and quick checks). A new task that
#: names the next version in its spec makes that version's recipe; its set is built and checked in.
RECIPES: dict[str, SetRecipe] = _recipes()
#: The set that scoring uses unless told otherwise.
DEFAULT_SET = "v3"


def recipe(name: str) -> SetRecipe:
    """The recipe of ``name``; ``ValueError`` listing the recipes when there is none."""
    if name not in RECIPES:
        raise ValueError(f"no recipe for an evaluation set named {name!r}; the sets that can be built are: {', '.join(RECIPES)}")
    return RECIPES[name]


@attr.s(frozen=True, auto_attribs=True)
class PlannedWorld:
    """A world the recipe asks for, before generation (its seed may still be replaced)."""

    task: str
    difficulty: float
    seed: int
    forced: ForcedOptions = attr.ib(factory=ForcedOptions, converter=ForcedOptions.of)


def difficulties(worlds: int, hardest_share: float) -> list[float]:
    """``worlds`` difficulties, ascending: ``round(hardest_share * worlds)`` at 1, the rest evenly over [0, 1]."""
    hardest = int(round(hardest_share * worlds))
    spread = worlds - hardest
    evenly = np.linspace(0.0, 1.0, spread) if spread > 1 else np.zeros(spread)
    return [float(d) for d in evenly] + [1.0] * hardest


def task_seeds(recipe: SetRecipe, task: str, count: int) -> list[int]:
    """``count`` distinct seeds for ``task``'s worlds, drawn from a generator seeded by ``(name, version, task)``."""
    tag = hashlib.sha256(f"avalon-evalset/{recipe.name}/{recipe.version}/{task}".encode()).digest()
    rng = np.random.default_rng(np.random.SeedSequence(int.from_bytes(tag[:16], "little")))
    seeds: list[int] = []
    while len(seeds) < count:
        seed = int(rng.integers(0, SEED_BOUND))
        if seed not in seeds:
            seeds.append(seed)
    return seeds


def plan_worlds(recipe: SetRecipe) -> list[PlannedWorld]:
    """Every world of the set, task by task, by difficulty (see the module's docstring)."""
    planned = []
    for task in recipe.set_tasks():
        spec = check_task(task)
        levels = difficulties(recipe.worlds_per_task, recipe.hardest_share)
        forced: list[ForcedOptions] = [ForcedOptions()] * len(levels)
        if recipe.force_every_value:
            values = [ForcedOptions({entry.option: value}) for entry in spec.forcing for value in entry.values]
            if len(values) > len(levels):
                raise ValueError(f"set {recipe.name!r}: task {task!r} forces {len(values)} worlds (one per value) but the set "
                                 f"holds {len(levels)} per task; expected worlds_per_task >= {len(values)}")
            if values:
                forced[-len(values):] = values  # the hardest worlds
        for difficulty, seed, options in zip(levels, task_seeds(recipe, task, len(levels)), forced):
            planned.append(PlannedWorld(task, difficulty, seed, options))
    return planned
