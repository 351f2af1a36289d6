"""Eating food whose place the World spec gives: walk to a spot beside it, look at it, close a hand
(in the mouse-and-keyboard space the hand goes where the camera looks, crouching for food low
down), then bring it to the mouth (``eat``). Food on the ground, on an altar and hanging in a tree
are all reached this way; a cluster (cherries) is eaten piece by piece, nearest first.

Every piece is aimed at where the spec puts it, so food that has been moved (knocked off, pushed
by the body) is missed: the primitive then tries the next piece and fails naming what it missed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import Action, action
from avalon.agent.scripted.look import look_rates
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo, walk_towards
from avalon.datagen.world import Entity

#: The body stands this far (horizontally, its axis to the food's centre) from food it takes, by
#: the food's height above the ground, metres: a crouching hand reaches food on the ground from
#: 0.65 m; food at chest height (an altar's top, higher than the resting hands) is taken from
#: farther, so the hands (0.6 m ahead of the body) do not knock it off as the body walks up; food
#: hanging in a tree (its bottom 2.1 m up) from nearer, as a hand reaches 2.45 m up at most.
STAND_OFF_M = 0.65
CHEST_HEIGHT_M = 0.8
CHEST_STAND_OFF_M = 0.85
OVERHEAD_HEIGHT_M = 1.8
OVERHEAD_STAND_OFF_M = 0.45
#: The walk to that spot may end this far from it, metres.
STAND_TOLERANCE_M = 0.15
#: Steps a hand may take to close on the food it is sent to.
GRASP_STEPS = 8
#: Steps the held food may take to reach the mouth.
EAT_STEPS = 10
#: Attempts at one piece (each after stepping a little closer).
GRASP_ATTEMPTS = 3
#: Each attempt after the first steps this much closer first, metres.
CLOSER_M = 0.15
#: The grasping hand (1: right).
HAND = 1
_GRASP = ("left_grasp", "right_grasp")[HAND]


def aim_point(food: Entity) -> tuple[float, float, float]:
    """Where to look to take ``food``: its centre, or above it for food in the ground (a carrot is
    taken by its leaves)."""
    x, y, z = food.position
    radius = float(food.param("radius", 0.1))
    return (x, y + 0.8 * radius, z) if food.param("buried_fraction") else (x, y, z)


@attr.s(auto_attribs=True)
class EatFood(Primitive):
    """Eat every piece of ``foods`` (entities of the World spec). Succeeds when the episode reports
    every food eaten (``success``); fails naming each piece it could not take."""

    foods: tuple[Entity, ...] = attr.ib(converter=tuple)
    name = "eat"

    def budget_steps(self, situation: Situation) -> int:
        walking = sum(situation.body.horizontal_distance_m(food.position) for food in self.foods)
        return int(60 * len(self.foods) + 6 * walking) + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        remaining = list(self.foods)
        misses: list[str] = []
        while not situation.body.success:
            if not remaining:
                raise PrimitiveFailed(f"{situation.body.food_eaten} of {situation.body.food_total} food eaten; "
                                      + "; ".join(misses))
            food = min(remaining, key=lambda f: situation.body.horizontal_distance_m(f.position))
            remaining.remove(food)
            try:
                yield from eat_one(situation, food)
            except PrimitiveFailed as miss:
                misses.append(f"{food.name}: {miss}")


def stand_spot(situation: Situation, food: Entity, distance_m: float) -> tuple[float, float, float]:
    """Where to stand to take ``food``: ``distance_m`` from it, on the side the body comes from."""
    fx, fy, fz = food.position
    bx, _, bz = situation.body.position
    away = np.array([bx - fx, bz - fz])
    length = float(np.hypot(*away))
    direction = away / length if length > 1e-6 else np.array(situation.body.facing) * -1.0
    x, z = fx + distance_m * direction[0], fz + distance_m * direction[1]
    return (float(x), float(situation.ground.height(x, z)), float(z))


def stand_off_m(situation: Situation, food: Entity) -> float:
    """How far from ``food`` to stand to take it (see STAND_OFF_M)."""
    x, y, z = food.position
    height = y - situation.ground.terrain_height(x, z)
    if height > OVERHEAD_HEIGHT_M:
        return OVERHEAD_STAND_OFF_M
    return CHEST_STAND_OFF_M if height > CHEST_HEIGHT_M else STAND_OFF_M


def eat_one(situation: Situation, food: Entity) -> Iterator[Action]:
    """Walk beside ``food``, take it and eat it; :class:`PrimitiveFailed` if it cannot be taken."""
    eaten_before = situation.body.food_eaten
    target = aim_point(food)
    first_stand_off = stand_off_m(situation, food)
    for attempt in range(GRASP_ATTEMPTS):
        stand_off = max(0.3, first_stand_off - attempt * CLOSER_M)
        if attempt > 0 or situation.body.horizontal_distance_m(target) > first_stand_off + STAND_TOLERANCE_M:
            spot = stand_spot(situation, food, stand_off)
            yield from WalkTo(spot, tolerance_m=STAND_TOLERANCE_M, must_reach=False).actions(situation)
            yield from creep_towards(situation, spot, STAND_TOLERANCE_M)
        if (yield from grasp(situation, target)):
            yield from bring_to_mouth(situation, eaten_before)
            return
    raise PrimitiveFailed(f"no hand took it at {tuple(round(v, 2) for v in target)} in {GRASP_ATTEMPTS} attempts "
                          f"({describe(situation.body)})")


def creep_towards(situation: Situation, spot, tolerance_m: float, max_steps: int = 8) -> Iterator[Action]:
    """Walk straight at ``spot`` slowly until within ``tolerance_m`` or blocked (no path: the last
    few centimetres beside an altar or a trunk, which the path planner keeps away from)."""
    previous = None
    for _ in range(max_steps):
        body = situation.body
        distance = body.horizontal_distance_m(spot)
        if distance <= tolerance_m or (previous is not None and previous - distance < 0.01):
            return
        previous = distance
        yield walk_towards(situation, spot, speed=min(0.5, distance / 0.5))


def grasp(situation: Situation, target) -> Iterator[Action]:
    """Look at ``target`` and close the hand there (the hand goes where the camera looks); True once
    it holds something, False after GRASP_STEPS steps without."""
    for _ in range(12):  # first look: the hand would close on whatever the camera's axis meets
        yaw_rate, pitch_rate, yaw_error, pitch_error = look_rates(situation.body, target)
        if abs(yaw_error) < math.radians(3) and abs(pitch_error) < math.radians(3):
            break
        yield action(head_yaw=yaw_rate, head_pitch=pitch_rate)
    for _ in range(GRASP_STEPS):
        yaw_rate, pitch_rate, _, _ = look_rates(situation.body, target)
        yield action(head_yaw=yaw_rate, head_pitch=pitch_rate, **{_GRASP: 1})
        if situation.body.grasping[HAND]:
            return True
    for _ in range(3):  # open the hand and let it come back before another attempt
        yield action()
    return False


def bring_to_mouth(situation: Situation, eaten_before: int) -> Iterator[Action]:
    """Hold on and bring the held food to the mouth until it is eaten; then open the hand."""
    for step in range(EAT_STEPS):
        before = np.array(situation.body.hand_positions[HAND])
        yield action(eat=1, **{_GRASP: 1})
        if step == 0 and np.linalg.norm(np.array(situation.body.hand_positions[HAND]) - before) < 0.01:
            # eat moves a hand holding food; one holding a climbable surface stays put
            yield action()
            raise PrimitiveFailed(f"the hand took hold of a surface, not the food ({describe(situation.body)})")
        if situation.body.food_eaten > eaten_before:
            yield action()
            return
        if not situation.body.grasping[HAND]:
            raise PrimitiveFailed(f"the food slipped out of the hand on its way to the mouth ({describe(situation.body)})")
    raise PrimitiveFailed(f"the held food was not eaten within {EAT_STEPS} steps (it may need opening) "
                          f"({describe(situation.body)})")

