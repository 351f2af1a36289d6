"""The shape every scripted skill has: a :class:`Primitive` turns what the agent knows
(:class:`Situation`: the World spec, its ground, the body after the last step) into actions, one
step at a time, until it has succeeded, failed (:class:`PrimitiveFailed`, saying why) or spent its
step budget; :class:`PrimitiveRun` runs one and keeps the :class:`PrimitiveResult`.

A primitive's :meth:`~Primitive.actions` is a generator: it yields an action, and when the
generator resumes, ``situation.body`` is the body after that action's step. Returning ends it
with success; raising :class:`PrimitiveFailed` ends it with failure. A primitive may run another
inside itself with ``yield from other.actions(situation)`` (its budget is then the outer one's).
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from typing import Optional

import attr

from avalon.agent.scripted.actions import Action
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.ground import Ground
from avalon.datagen.world import World


class PrimitiveFailed(Exception):
    """A primitive cannot go on; the message says why (where the body was, what it expected)."""


@attr.s(auto_attribs=True, kw_only=True)
class Situation:
    """What a scripted agent knows: the World spec (given), its ground, and its body after the last
    step (replaced after every step)."""

    world: World
    ground: Ground
    body: Body


class Primitive(abc.ABC):
    """One skill: its :meth:`actions` until success or :class:`PrimitiveFailed`, within
    :meth:`budget_steps` steps."""

    #: The skill's name in reports.
    name: str = "primitive"

    @abc.abstractmethod
    def budget_steps(self, situation: Situation) -> int:
        """Steps the primitive may take, judged when it starts (generous: a few times what it needs)."""

    @abc.abstractmethod
    def actions(self, situation: Situation) -> Iterator[Action]:
        """Actions, one per step; ``situation.body`` is updated between them."""


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PrimitiveResult:
    """How a primitive ended."""

    name: str
    succeeded: bool
    #: Steps it took.
    steps: int
    #: Why it failed ("" when it succeeded).
    reason: str = ""


class PrimitiveRun:
    """One primitive being run: :meth:`next_action` until it returns None, then :attr:`result`."""

    def __init__(self, primitive: Primitive, situation: Situation) -> None:
        self.primitive = primitive
        self.situation = situation
        self.budget = int(primitive.budget_steps(situation))
        self.steps = 0
        self.result: Optional[PrimitiveResult] = None
        self._actions = primitive.actions(situation)

    def next_action(self) -> Optional[Action]:
        """The next action, or None once the primitive has ended (see :attr:`result`)."""
        if self.result is not None:
            return None
        try:
            action = next(self._actions)
        except StopIteration:
            return self._end(True)
        except PrimitiveFailed as failure:
            return self._end(False, str(failure))
        if self.steps >= self.budget:
            self._actions.close()
            return self._end(False, f"out of its budget of {self.budget} steps ({describe(self.situation.body)})")
        self.steps += 1
        return action

    def _end(self, succeeded: bool, reason: str = "") -> None:
        self.result = PrimitiveResult(name=self.primitive.name, succeeded=succeeded, steps=self.steps, reason=reason)
        return None


def describe(body: Body) -> str:
    """Where the body is, for failure messages."""
    x, y, z = body.position
    return f"feet at ({x:.2f}, {y:.2f}, {z:.2f}), frame {body.frame}"
