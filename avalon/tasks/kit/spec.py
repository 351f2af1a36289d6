"""What a task module declares: one :class:`TaskSpec`, which the registry collects.

A task module ``avalon/tasks/<name>.py`` starts with its table of difficulty curves (``KNOBS``)
and ends with ``TASK = TaskSpec(name="<name>", ...)``; :mod:`avalon.tasks` finds it there. The
curriculum asks the spec for the training time limit and the property tests
(``tests/tasks/test_every_task.py``) check every registered world against it.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.errors import is_int_in
from avalon.rules.mechanics import STEPS_PER_SECOND
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.forcing import Forcing

#: ``(rng, difficulty, config) -> World``: the world of one attempt; raises
#: :class:`~avalon.tasks.kit.ImpossibleWorldError` when the draws cannot keep the task's guarantees.
#: A task with ``TaskSpec.forcing`` also takes the forced options as the keyword ``forced``
#: (:class:`~avalon.tasks.kit.forcing.ForcedOptions`; the registry passes it only when some are).
TaskGenerator = Callable[[np.random.Generator, float, Optional[object]], World]
#: ``world -> Certificate``: the solvability certificate (:func:`avalon.tasks.kit.routes.certify`,
#: with the task's required skills and fall limits) of a world the task made.
TaskCertifier = Callable[[World], object]

_NAME = re.compile(r"[a-z][a-z0-9_]*")


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
    #: Training episodes are truncated after this many seconds, linear in difficulty. The paper
    #: (Appendix B.1) tunes them so 98% of human trials fit without giving them; ours are a few
    #: times what a direct solution takes.
    training_time_limit_s: Ramp = attr.ib(validator=_check_time_limit)
    #: The world's own time limit, frames at 10 per simulated second; evaluation uses it (paper,
    #: Appendix G.3: 5 minutes for every basic task but stack, carry and explore).
    evaluation_time_limit_frames: int = attr.ib(validator=_check_frames)
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
    #: Whether evaluation sets (``avalon/evaluation/sets/``) hold worlds of this task (not the trivial test world).
    in_evaluation_sets: bool = attr.ib(default=True, validator=attr.validators.instance_of(bool))

    def training_time_limit_frames(self, difficulty: float) -> int:
        """Frames after which a training episode at ``difficulty`` is truncated."""
        return int(round(self.training_time_limit_s.at(difficulty) * STEPS_PER_SECOND))
