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

from avalon.agent.scripted.actions import Action, action, turn_rate
from avalon.agent.scripted.look import look_rates
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo, walk_towards
from avalon.datagen.world import Entity
from avalon.rules import mechanics

#: The body stands this far (horizontally, its axis to the food's centre) from food it takes, by
#: the food's height above the ground, metres: a crouching hand reaches food on the ground from
#: 0.65 m, a standing one food hanging in a tree (its bottom 2.1 m up; a hand reaches 2.45 m) from
#: 0.45 m. Food on a box (an altar) is taken from the nearest spot (from 0.65 m on) where the body
#: keeps BODY_CLEARANCE_M off the box and the resting hands (0.6 m ahead of the body, 1.2 m up)
#: keep HAND_CLEARANCE_M off the food and either pass over the box's top or stay HAND_CLEARANCE_M
#: off its sides: a hand moves in straight lines and stops at whatever it touches (it would jam
#: against the box's face, or knock the food off as the body walks up).
STAND_OFF_M = 0.65
OVERHEAD_HEIGHT_M = 1.8
OVERHEAD_STAND_OFF_M = 0.45
BODY_CLEARANCE_M = 0.05
HAND_CLEARANCE_M = 0.05
#: Farthest the body stands from food on a box, metres (a hand reaches 1 m from its shoulder and
#: closes on what lies within 0.25 m of its centre).
MAX_STAND_OFF_M = 1.2
#: The walk to that spot may end this far from it, metres.
STAND_TOLERANCE_M = 0.15
#: Before reaching for food on a box whose top is above the resting hand, the agent looks up this
#: steeply with the hand closed, so the hand rises (and draws back) clear of the box's face, radians.
RAISE_PITCH_RAD = mechanics.HEAD_MAX_PITCH_RAD
#: ...for at most this many steps, until the hand is this far above the top, metres.
RAISE_STEPS = 8
RAISE_ABOVE_TOP_M = 0.15
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


def stand_spot(situation: Situation, food: Entity, distance_m: float, direction) -> tuple[float, float, float]:
    """Where to stand to take ``food``: ``distance_m`` from it along ``direction`` (unit (x, z))."""
    fx, _, fz = food.position
    x, z = fx + distance_m * direction[0], fz + distance_m * direction[1]
    return (float(x), float(situation.ground.height(x, z)), float(z))


def stand_off_m(situation: Situation, food: Entity, direction) -> float:
    """How far from ``food`` to stand to take it, approaching from ``direction`` (a unit (x, z)
    vector from the food towards the body): see STAND_OFF_M."""
    x, y, z = food.position
    box = support_box(situation, food)
    if box is None:
        return OVERHEAD_STAND_OFF_M if y - situation.ground.terrain_height(x, z) > OVERHEAD_HEIGHT_M else STAND_OFF_M
    radius = float(food.param("radius", 0.1))
    distance = STAND_OFF_M
    while distance < MAX_STAND_OFF_M and not _clear_spot(situation, box, food.position, radius, distance, direction):
        distance += 0.05
    return distance


def _clear_spot(situation: Situation, box, food, radius: float, distance: float, direction) -> bool:
    """Whether standing ``distance`` from ``food`` on a box along ``direction`` keeps the body and
    the resting hands clear (see STAND_OFF_M)."""
    fx, fy, fz = food
    bx, bz = fx + distance * direction[0], fz + distance * direction[1]
    if float(box.footprint_distance_m(bx, bz)) < mechanics.BODY_RADIUS_M + BODY_CLEARANCE_M:
        return False
    feet = situation.ground.terrain_height(bx, bz)
    right, up, back = mechanics.RIGHT_HAND_REST_M
    for side in (-1.0, 1.0):  # the body faces -direction; its right is (direction.z, -direction.x)
        hx = bx + back * direction[0] + side * right * direction[1]
        hz = bz + back * direction[1] - side * right * direction[0]
        hy = feet + up
        if np.linalg.norm([hx - fx, hy - fy, hz - fz]) < radius + mechanics.HAND_RADIUS_M + HAND_CLEARANCE_M:
            return False
        over = hy - mechanics.HAND_RADIUS_M >= box.top_y_m + HAND_CLEARANCE_M
        beside = float(box.footprint_distance_m(hx, hz)) >= mechanics.HAND_RADIUS_M + HAND_CLEARANCE_M
        if not (over or beside):
            return False
    return True


def support_box(situation: Situation, food: Entity):
    """The static box ``food`` rests on (an altar), or None."""
    x, y, z = food.position
    radius = float(food.param("radius", 0.1))
    for box in situation.ground.boxes:
        if float(box.footprint_distance_m(x, z)) <= 0.0 and abs(y - radius - box.top_y_m) < 0.1:
            return box
    return None


def approach_direction(situation: Situation, food: Entity) -> np.ndarray:
    """Unit (x, z) vector from ``food`` towards the body."""
    fx, _, fz = food.position
    bx, _, bz = situation.body.position
    away = np.array([bx - fx, bz - fz])
    length = float(np.hypot(*away))
    return away / length if length > 1e-6 else -np.array(situation.body.facing)


def eat_one(situation: Situation, food: Entity) -> Iterator[Action]:
    """Walk beside ``food``, take it and eat it; :class:`PrimitiveFailed` if it cannot be taken."""
    eaten_before = situation.body.food_eaten
    target = aim_point(food)
    direction = approach_direction(situation, food)
    first_stand_off = stand_off_m(situation, food, direction)
    for attempt in range(GRASP_ATTEMPTS):
        stand_off = max(0.3, first_stand_off - attempt * CLOSER_M)
        if attempt > 0 or situation.body.horizontal_distance_m(target) > first_stand_off + STAND_TOLERANCE_M:
            spot = stand_spot(situation, food, stand_off, direction)
            yield from WalkTo(spot, tolerance_m=STAND_TOLERANCE_M, must_reach=False).actions(situation)
            yield from creep_towards(situation, spot, STAND_TOLERANCE_M)
        box = support_box(situation, food)
        hand_bottom = situation.body.feet_y_m + situation.body.hand_positions[HAND][1] - mechanics.HAND_RADIUS_M
        if box is not None and box.top_y_m + HAND_CLEARANCE_M > hand_bottom:
            yield from raise_hand(situation, box.top_y_m + RAISE_ABOVE_TOP_M)
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


def raise_hand(situation: Situation, height_m: float) -> Iterator[Action]:
    """Look up steeply with the hand closed, so it rises (and draws back), until its bottom is at
    ``height_m`` (world) or it stops rising."""
    for _ in range(RAISE_STEPS):
        body = situation.body
        if body.feet_y_m + body.hand_positions[HAND][1] - mechanics.HAND_RADIUS_M >= height_m:
            return
        yield action(head_pitch=turn_rate(RAISE_PITCH_RAD - body.head_pitch_rad), **{_GRASP: 1})
        if situation.body.grasping[HAND]:
            return


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

