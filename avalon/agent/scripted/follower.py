"""``RouteFollower``: a scripted agent for one episode that follows a :class:`~avalon.tasks.kit.route.Route`
step by step (each step's skill run by its primitive), then eats the food, and says where and why it
failed when it does.

It acts in the ``mouse_keyboard`` space, one env at a time: :meth:`RouteFollower.reset` with the
reset's observation and ``info``, then :meth:`RouteFollower.act` with each step's. It reads
``info`` (``world_body_position``, ``world_body_yaw``, food eaten, success) and the proprioceptive
observation; the World spec gives it the ground and the food.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

import attr

from avalon.agent.scripted.actions import Action, action
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.climb import ClimbTo
from avalon.agent.scripted.climb_down import climb_primitives
from avalon.agent.scripted.eat import EatFood
from avalon.agent.scripted.fall import FallTo
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.jump import JumpTo
from avalon.agent.scripted.primitive import Primitive, PrimitiveResult, PrimitiveRun, Situation
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.tasks.kit.route import Route, RouteStep

#: The primitive that carries out each skill of a route step.
SKILL_PRIMITIVES = {"walk": WalkTo, "jump": JumpTo, "climb": ClimbTo, "fall": FallTo}


def step_primitive(step: RouteStep, next_step: Optional[RouteStep] = None) -> Primitive:
    """The primitive that moves the feet to ``step.target`` with ``step.skill``. A walk to the foot
    of a climb gets as near as it can: its target stands by the wall, closer than a walk keeps
    to a wall's foot, and the climb walks up to the face itself."""
    if step.skill == "walk" and next_step is not None and next_step.skill == "climb":
        return WalkTo(step.target, must_reach=False)
    return SKILL_PRIMITIVES[step.skill](step.target)


def route_primitives(route: Route) -> list[Primitive]:
    """One primitive per step of ``route``: ``step_primitive``'s, but a run of climb steps going
    down is climbed down (:func:`~avalon.agent.scripted.climb_down.climb_primitives`), and a walk to
    where a fall, a jump or a climb starts may stop short of it (an edge, a wall's foot)."""
    out: list[Primitive] = []
    before = route.start
    for index, step in enumerate(route.steps):
        if step.skill == "climb" and (index == 0 or route.steps[index - 1].skill != "climb"):
            run = [s.target for s in route.steps[index:]]
            run = run[:next((k for k, s in enumerate(route.steps[index:]) if s.skill != "climb"), len(run))]
            out.extend(climb_primitives([before, *run[:-1]], run))
        elif step.skill == "walk" and index + 1 < len(route.steps) and route.steps[index + 1].skill != "walk":
            # Where a fall, a jump or a climb starts lies at an edge or by a wall, closer than the
            # walk planner goes: the next primitive walks the rest of the way.
            out.append(WalkTo(step.target, must_reach=False))
        elif step.skill != "climb":
            out.append(step_primitive(step))
        before = step.target
    return out


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FollowResult:
    """How far a :class:`RouteFollower` got."""

    #: Whether it has stopped acting (succeeded or failed).
    finished: bool
    #: Whether it ate all the food (the episode's ``success``).
    succeeded: bool
    #: The route step it failed at (``len(route.steps)``: eating), or None.
    failed_step: Optional[int] = None
    #: That step's skill ("walk", "jump", "climb", "fall" or "eat"), or None.
    failed_skill: Optional[str] = None
    #: Why it failed ("" if it has not).
    reason: str = ""
    #: Every primitive that ended, in order.
    primitives: tuple[PrimitiveResult, ...] = ()

    def describe(self) -> str:
        """One line for logs and test failures."""
        if self.succeeded:
            return f"succeeded after {len(self.primitives)} primitives"
        if self.failed_step is None:
            return "still going" if not self.finished else "finished without success"
        return f"failed at step {self.failed_step} ({self.failed_skill}): {self.reason}"


class RouteFollower:
    """Follows ``route`` through ``world``, then eats ``foods`` (default: every food of the world).
    ``primitives`` replaces the route's own (``route_primitives``): a task whose steps need other
    skills' primitives (jumping onto loose items) gives its own."""

    def __init__(self, world: World, route: Route, foods: Optional[Sequence[Entity]] = None,
                 primitives: Optional[Sequence[Primitive]] = None) -> None:
        self.world = world
        self.route = route
        self.foods = tuple(world.food if foods is None else foods)
        self.ground = Ground(world)
        steps = route_primitives(route) if primitives is None else list(primitives)
        self._primitives: list[Primitive] = steps + [EatFood(self.foods)]
        self._situation: Optional[Situation] = None
        self._index = 0
        self._run: Optional[PrimitiveRun] = None
        self._results: list[PrimitiveResult] = []
        self._failure: Optional[PrimitiveResult] = None

    def reset(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """Start over at the episode's reset."""
        self._situation = Situation(world=self.world, ground=self.ground, body=Body.read(observation, info))
        self._index = 0
        self._run = None
        self._results = []
        self._failure = None

    def observe(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """Take in a step's observation and ``info`` (``act`` does this itself)."""
        if self._situation is None:
            raise RuntimeError("RouteFollower used before reset: call reset(observation, info) at the episode's start")
        self._situation.body = Body.read(observation, info)

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action:
        """The next action, given the last step's observation and ``info``; once finished, "do nothing"."""
        self.observe(observation, info)
        while self._failure is None and self._index < len(self._primitives):
            if self._run is None:
                self._run = PrimitiveRun(self._primitives[self._index], self._situation)
            next_action = self._run.next_action()
            if next_action is not None:
                return next_action
            result = self._run.result
            self._results.append(result)
            self._run = None
            if not result.succeeded:
                self._failure = result
            else:
                self._index += 1
        return action()

    @property
    def result(self) -> FollowResult:
        """How far it got so far."""
        succeeded = self._situation is not None and self._situation.body.success
        finished = succeeded or self._failure is not None or self._index >= len(self._primitives)
        if self._failure is None:
            results = tuple(self._results)
            if succeeded and self._run is not None:  # the episode's success ends the primitive under way
                results += (PrimitiveResult(name=self._run.primitive.name, succeeded=True, steps=self._run.steps),)
            return FollowResult(finished=finished, succeeded=succeeded, primitives=results)
        return FollowResult(
            finished=True, succeeded=succeeded, failed_step=self._index, failed_skill=self._failure.name,
            reason=self._failure.reason, primitives=tuple(self._results),
        )
