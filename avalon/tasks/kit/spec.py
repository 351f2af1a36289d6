"""What a task module declares: one :class:`TaskSpec`, which the registry collects.

A task module ``avalon/tasks/<name>.py`` starts with its table of difficulty curves (``KNOBS``)
and ends with ``TASK = TaskSpec(name="<name>", ...)``; :mod:`avalon.tasks` finds it there. The
spec is every fact the rest of the system knows about the task: the curriculum asks it for the
training time limit and its group (the paper's protocols), the evaluation sets for whether and
from which set version they hold it and what they may force, the scripted reference agent for
its follower and route, the carry task for its carry variant, compositional worlds for its
obstacle piece, and the property tests (``tests/tasks/test_every_task.py``) check every
registered world against it. No list of task names exists anywhere else.

References to code in layers above the tasks (the scripted agents) are lazy: a
``"module:attribute"`` string, imported when :func:`resolve_reference` is asked for it.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable, Optional

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.errors import is_int_in
from avalon.rules.mechanics import STEPS_PER_SECOND
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.obstacle import ObstacleFunction

#: ``(rng, difficulty, config) -> World`` (or a layout whose ``.world`` is the World, such as a
#: task's ``build_layout``): the world of one attempt; raises
#: :class:`~avalon.tasks.kit.ImpossibleWorldError` when the draws cannot keep the task's guarantees.
#: A task with ``TaskSpec.forcing`` also takes the forced options as the keyword ``forced``
#: (:class:`~avalon.tasks.kit.forcing.ForcedOptions`; the registry passes it only when some are).
TaskGenerator = Callable[[np.random.Generator, float, Optional[object]], World]
#: ``world -> Certificate``: the solvability certificate (:func:`avalon.tasks.kit.certificate.certify`,
#: with the task's required skills and fall limits) of a world the task made.
TaskCertifier = Callable[[World], object]

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_REFERENCE = re.compile(r"[a-z_][\w.]*:[A-Za-z_]\w*")

#: The groups of the paper's tasks (section 5.1): the 16 basic tasks and the 4 compositional ones.
TASK_GROUPS = ("basic", "compositional")
#: How many tasks of each group the paper has (Table 1).
PAPER_TASK_COUNTS = {"basic": 16, "compositional": 4}
#: The roles one task each may declare (``TaskSpec.role``), so that defaults elsewhere read the
#: specs instead of spelling a task's name (:func:`avalon.tasks.task_for`).
TASK_ROLES = {
    "first": "the task a new user trains and plays first (avalon train's and avalon play's default)",
    "smoke": "the quickest world to load and step, the same for every seed (the env's default, avalon run, the simulator's benchmarks)",
}
#: The scripted agent that walks, jumps and climbs along a route (the certificate's, or the task's
#: ``reference_route``): the ``reference_agent`` of every task whose route alone solves it.
ROUTE_FOLLOWER = "avalon.agent.scripted.follower:RouteFollower"


def resolve_reference(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names, imported now; ``ValueError`` naming the
    reference when the module or the attribute does not exist."""
    if not isinstance(reference, str) or not _REFERENCE.fullmatch(reference):
        raise ValueError(f"reference {reference!r}: expected 'module:attribute'")
    module_name, name = reference.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise ValueError(f"reference {reference!r}: no module {module_name!r} ({error})") from error
    if not hasattr(module, name):
        raise ValueError(f"reference {reference!r}: module {module_name!r} has no attribute {name!r}")
    return getattr(module, name)


def _check_reference(instance, attribute, value) -> None:
    if value is not None and (not isinstance(value, str) or not _REFERENCE.fullmatch(value)):
        raise ValueError(f"TaskSpec.{attribute.name}={value!r}: expected None or a 'module:attribute' reference")


def _check_group(instance, attribute, value) -> None:
    if value is not None and value not in TASK_GROUPS:
        raise ValueError(f"TaskSpec.group={value!r}: expected None (a test world) or one of {TASK_GROUPS}")


def _check_row(instance, attribute, value) -> None:
    if value is not None and not is_int_in(value, 1, sum(PAPER_TASK_COUNTS.values())):
        raise ValueError(f"TaskSpec.table_row={value!r}: expected None or the task's row in the paper's Table 1 (1-20)")


def _check_set_version(instance, attribute, value) -> None:
    if value is not None and not is_int_in(value, 1, 10**6):
        raise ValueError(f"TaskSpec.in_sets_from_version={value!r}: expected None or a set version >= 1")


def _check_role(instance, attribute, value) -> None:
    if value is not None and value not in TASK_ROLES:
        raise ValueError(f"TaskSpec.role={value!r}: expected None or one of {tuple(TASK_ROLES)}")


def _check_name(instance, attribute, value) -> None:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ValueError(f"TaskSpec.name={value!r}: expected a lower-case identifier (a-z, 0-9, '_')")


def _check_time_limit(instance, attribute, value: Ramp) -> None:
    if not isinstance(value, Ramp) or min(value.at(0.0), value.at(1.0)) <= 0.0:
        raise ValueError(f"TaskSpec.training_time_limit_s={value!r}: expected a Ramp above 0 s from difficulty 0 to 1")


def _check_frames(instance, attribute, value) -> None:
    if not is_int_in(value, 1, 10**7):
        raise ValueError(f"TaskSpec.evaluation_time_limit_frames={value!r}: expected an int from 1 to 10**7 (frames)")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class TaskSpec:
    """One task, as the registry, the curriculum, evaluation and the property tests see it."""

    #: The task's name (``build_world(name, ...)``, ``--tasks name``); also its module's name.
    name: str = attr.ib(validator=_check_name)
    #: Makes the task's world for one attempt (see :data:`TaskGenerator`).
    generate: TaskGenerator = attr.ib(validator=attr.validators.is_callable())
    #: The task's table of difficulty curves (its module's ``KNOBS``), quoted on its doc page.
    knobs: Optional[object] = attr.ib(default=None)
    #: Training episodes are truncated after this many seconds, linear in difficulty (default: the
    #: knobs' ``training_time_limit_s``). The paper (Appendix B.1) tunes them so 98% of human trials
    #: fit without giving them; ours are a few times what a direct solution takes.
    training_time_limit_s: Ramp = attr.ib(validator=_check_time_limit)
    #: The world's own time limit, frames at 10 per simulated second; evaluation uses it (paper,
    #: Appendix G.3: 5 minutes, the default, for every basic task but stack, carry and explore).
    evaluation_time_limit_frames: int = attr.ib(default=TIME_LIMIT_FRAMES, validator=_check_frames)
    #: Whether every food can be seen from the spawn's eyes once the agent turns in place.
    food_visible_from_spawn: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: Whether every food can be reached on foot from the spawn (over walkable triangles of the
    #: terrain, or anywhere on flat ground). False for tasks that need a climb, a jump or a tool:
    #: they prove reachability their own way, in their own tests.
    food_reachable_on_foot: bool = attr.ib(validator=attr.validators.instance_of(bool))
    #: The task's solvability certificate of one of its worlds (see :data:`TaskCertifier`): the
    #: skills it requires and the falls it allows. The generator rejects worlds whose certificate
    #: fails; the scripted agent follows the certificate's route. None for tasks whose food is
    #: reached on foot (eat, move), whose routes are read from how the world was built.
    certificate: Optional[TaskCertifier] = attr.ib(
        default=None, validator=attr.validators.optional(attr.validators.is_callable()))
    #: The choices of its generator a caller may pin (:mod:`avalon.tasks.kit.forcing`): evaluation
    #: sets force one world per value (eat: every food kind). Its generator then takes ``forced``.
    forcing: tuple[Forcing, ...] = attr.ib(
        default=(), converter=tuple, validator=attr.validators.deep_iterable(attr.validators.instance_of(Forcing)))
    #: The paper's group of the task ("basic" or "compositional"; None: a test world such as
    #: ``trivial``): the training protocols (``MT-TB``, ``MT-TC``, ``MT-TA``) read it.
    group: Optional[str] = attr.ib(default="basic", validator=_check_group)
    #: The task's row in the paper's Table 1 (1-20: eat 1 ... carry 16, navigate 17 ... gather 20):
    #: the order in which tasks are listed wherever they are listed together.
    table_row: Optional[int] = attr.ib(default=None, validator=_check_row)
    #: The first version of the evaluation sets that holds worlds of this task (None: no set does,
    #: as for the trivial test world). A set of version v holds every task whose version is <= v.
    in_sets_from_version: Optional[int] = attr.ib(default=None, validator=_check_set_version)
    #: The task's obstacle as a piece (:mod:`avalon.tasks.kit.obstacle`), for tasks whose obstacle
    #: can stand between an agent and its goal; the task's own generator places it round the food.
    obstacle: Optional[ObstacleFunction] = attr.ib(
        default=None, validator=attr.validators.optional(attr.validators.is_callable()))
    #: The scripted reference agent, ``"module:attribute"`` of a callable ``(world, route) ->
    #: follower`` (``avalon.agent.scripted``); None: the task has no reference agent.
    reference_agent: Optional[str] = attr.ib(default=None, validator=_check_reference)
    #: Where the reference agent's route comes from, ``world -> Route``; None: the certificate's.
    reference_route: Optional[Callable[[World], object]] = attr.ib(
        default=None, validator=attr.validators.optional(attr.validators.is_callable()))
    #: Whether an episode also succeeds when the agent ate at least one food and ends with more
    #: energy than it started with (Appendix M's rule for the tasks of several foods); else only
    #: "every food eaten" is a success.
    succeeds_on_energy_gain: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))
    #: The task's variant in the carry task (its items lie away from where they are used),
    #: ``"module:attribute"`` of a ``CarryVariant``; None: carry has no variant of this task.
    carry_variant: Optional[str] = attr.ib(default=None, validator=_check_reference)
    #: The role the task plays for the rest of the system (a key of :data:`TASK_ROLES`), or None.
    role: Optional[str] = attr.ib(default=None, validator=_check_role)

    @property
    def in_evaluation_sets(self) -> bool:
        """Whether any evaluation set holds worlds of this task."""
        return self.in_sets_from_version is not None

    @training_time_limit_s.default
    def _knobs_time_limit(self) -> Ramp:
        limit = getattr(self.knobs, "training_time_limit_s", None)
        if limit is None:
            raise ValueError(f"TaskSpec(name={self.name!r}): give training_time_limit_s, or knobs with a training_time_limit_s")
        return limit

    def training_time_limit_frames(self, difficulty: float) -> int:
        """Frames after which a training episode at ``difficulty`` is truncated."""
        return int(round(self.training_time_limit_s.at(difficulty) * STEPS_PER_SECOND))
