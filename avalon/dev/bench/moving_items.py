"""A scripted agent for ``avalon world benchmark --carry``: steps per second with the agent holding
and moving an item, the object tasks' working load (a held item follows the hand each step; a
pushed one slides over the ground under Bullet).

:class:`CarryActor` acts in the ``mouse_keyboard`` space with the scripted agent's primitives: in a
world with an item a hand can lift (``mechanics.MAX_LIFT_MASS_KG``: a stone, a log, a stick) it
walks beside the one nearest the spawn, looks at it and closes the right hand on it, then walks in
a wide circle holding it; in a world whose only items are too heavy to lift (push's boulder) it
pushes the one nearest the spawn back and forth along its width (:class:`PushTo`, 2.5 m each way).
When a grasp misses or a push gives up it starts over. :attr:`CarryActor.moving_item` says whether
the last step held an item or pushed one, so a benchmark reports how much of its timed stepping
was that work.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any, Optional

import numpy as np

from avalon.agent.scripted.actions import Action, action
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.eat import STAND_OFF_M, grasp, stand_spot
from avalon.agent.scripted.ground import Ground, is_pushed_only
from avalon.agent.scripted.primitive import PrimitiveFailed, Situation
from avalon.agent.scripted.push import PushTo
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.rules.tools import TOOL_MASS_KG

#: Walking speed (``move_forward``) and turn rate (``head_yaw``) while carrying: a circle of a few metres.
CARRY_SPEED = 0.5
CARRY_TURN = 0.15
#: Each push moves the item this far from where it lies, either way along its width, metres.
PUSH_SWING_M = 2.5
#: The hand that grasps.
HAND = 1


def liftable_items(world: World) -> list[Entity]:
    """The world's tools a hand can lift (stones, logs, sticks, rocks)."""
    return [e for e in world.entities if e.kind in TOOL_MASS_KG and not is_pushed_only(e)]


def movable_item(world: World) -> Optional[Entity]:
    """The item :class:`CarryActor` works with: the liftable one nearest the spawn, else the one too
    heavy to lift nearest it, else None."""
    spawn = world.spawn_position

    def nearest(items: list[Entity]) -> Optional[Entity]:
        return min(items, key=lambda e: math.dist(e.position[::2], spawn[::2])) if items else None

    return nearest(liftable_items(world)) or nearest([e for e in world.entities if is_pushed_only(e)])


class CarryActor:
    """Holds and carries (or pushes) an item of ``world``, one ``mouse_keyboard`` action per step.
    ``ValueError`` for a world without a movable item."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.item = movable_item(world)
        if self.item is None:
            raise ValueError(f"CarryActor: the {world.task} world holds no tool to carry or push")
        self.moving_item = False
        self._situation: Optional[Situation] = None
        self._script: Optional[Iterator[tuple[Action, bool]]] = None

    def reset(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        self._situation = Situation(world=self.world, ground=Ground(self.world), body=Body.read(observation, info))
        self._script = self._work()
        self.moving_item = False

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action:
        """The next action, given the last step's observation and ``info``."""
        if self._situation is None or self._script is None:
            raise RuntimeError("CarryActor used before reset: call reset(observation, info) first")
        self._situation.body = Body.read(observation, info)
        for _ in range(2):
            try:
                next_action, self.moving_item = next(self._script)
                return next_action
            except (PrimitiveFailed, StopIteration):
                self._script = self._work()
        self.moving_item = False
        return action()

    def _work(self) -> Iterator[tuple[Action, bool]]:
        if is_pushed_only(self.item):
            yield from self._push()
        else:
            yield from self._carry()

    def _carry(self) -> Iterator[tuple[Action, bool]]:
        situation = self._situation
        item = self.item
        body = situation.body
        away = np.array([body.position[0] - item.position[0], body.position[2] - item.position[2]])
        away = away / max(float(np.linalg.norm(away)), 1e-9)
        spot = stand_spot(situation, item, STAND_OFF_M, away)
        for step in WalkTo(spot, tolerance_m=0.2, must_reach=False).actions(situation):
            yield step, False
        grasping = grasp(situation, item.position)
        try:
            while True:
                yield next(grasping), False
        except StopIteration as done:
            if not done.value:
                raise PrimitiveFailed(f"no hand took the {item.kind}") from None
        while situation.body.grasping[HAND]:
            yield action(move_forward=CARRY_SPEED, head_yaw=CARRY_TURN, right_grasp=1), True
        raise PrimitiveFailed(f"the {item.kind} slipped out of the hand")

    def _push(self) -> Iterator[tuple[Action, bool]]:
        situation = self._situation
        while True:
            item = situation.ground.world.entity(self.item.name)
            c, s = math.cos(item.yaw_rad), math.sin(item.yaw_rad)
            for side in (1.0, -1.0):
                x = item.position[0] + side * PUSH_SWING_M * c
                z = item.position[2] - side * PUSH_SWING_M * s
                push = PushTo((x, float(situation.ground.terrain_height(x, z)), z))
                for step in push.actions(situation):
                    yield step, push.pushing
                item = situation.ground.world.entity(self.item.name)
