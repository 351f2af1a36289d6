"""Pushing a heavy item (one too heavy to lift: the boulder) along a straight line to a place.

The body shoves what it walks into along the contact's normal, at least as fast as it walks
(``godot/agent/loose_items.gd``: ``shove``; docs/mechanics.md, "Push"), so a push is a slow walk
into the item's back. :class:`PushTo` walks round the item to the spot behind it on the line from
its place through it (the item counts as a box there: ``Ground`` keeps the walk off it), faces
the place and walks on along the line, steering back onto it, until the item (which moves ahead of
the body) reaches the place or stops moving (it met the ledge). The agent does not see the item:
it counts the item to have moved as far as the body walked after touching it (where the body stopped
short of the spot it meant to touch it from, the item stands there); once done it tells its
``Ground`` where the item went (:meth:`~avalon.agent.scripted.ground.Ground.moved`).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.ground import is_pushed_only
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity
from avalon.errors import float_triple
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M

#: The body's axis stands this far behind the item's back before the push, metres.
STANCE_M = 0.6
#: Walking speed while pushing (``move_forward``; 1.0 is 5 m/s): slow, so the item stays ahead.
PUSH_SPEED = 0.2
#: The body steers back onto the line at this rate per metre off it (radians of yaw per metre).
LINE_GAIN_RAD_PER_M = 0.6
#: A push step that moves the body less than this has met resistance (the item is against something), metres.
STALLED_M = 0.02
#: Steps in a row without progress before the push counts as done against an obstacle.
STALLED_STEPS = 4
#: A push goes on at most this far past its goal (nothing stopped the item there), metres; and
#: fails when it stops farther than this (plus its tolerance) short of it.
OVERSHOOT_M = 0.5


def _turn_towards(situation: Situation, point: np.ndarray) -> Generator[Action, None, bool]:
    """Turn on the spot to face ``point`` (x, z), for up to 20 steps; whether it got there."""
    for _ in range(20):
        error = situation.body.yaw_error_rad((float(point[0]), 0.0, float(point[1])))
        if abs(error) < 0.03:
            return True
        yield action(head_yaw=turn_rate(error))
    return False


def _nearest_pushed_item(situation: Situation) -> Entity:
    items = [e for e in situation.ground.world.entities if is_pushed_only(e)]
    if not items:
        raise PrimitiveFailed("no item too heavy to lift in the world to push")
    body = situation.body
    return min(items, key=lambda e: body.horizontal_distance_m(e.position))


def _half_extent_along_m(item: Entity, direction: tuple[float, float]) -> float:
    """Half the item's footprint (its bounding box at its scale) along the world direction (x, z)."""
    scale = float(item.param("safe_scale", 1.0))
    width, _, depth = (v * scale for v in TOOL_SIZE_M[item.kind])
    c, s = math.cos(item.yaw_rad), math.sin(item.yaw_rad)
    right = abs(c * direction[0] - s * direction[1])
    back = abs(s * direction[0] + c * direction[1])
    return width / 2.0 * right + depth / 2.0 * back


@attr.s(auto_attribs=True)
class PushTo(Primitive):
    """Push the item too heavy to lift nearest the feet until its centre stands over ``target``
    (x, y, z: the ground there), within ``tolerance_m``, or against what stops it."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_m: float = 0.3
    #: Whether the last action was one of the push itself (walking into the item), not the way to it.
    pushing: bool = attr.ib(default=False, init=False)
    name = "push"

    def budget_steps(self, situation: Situation) -> int:
        item = _nearest_pushed_item(situation)
        distance = situation.body.horizontal_distance_m(item.position) + math.dist(
            (item.position[0], item.position[2]), (self.target[0], self.target[2]))
        return int(6 * distance / (PUSH_SPEED * WALK_PER_STEP_M)) + 120

    def actions(self, situation: Situation) -> Iterator[Action]:
        item = _nearest_pushed_item(situation)
        start = np.array([item.position[0], item.position[2]])
        goal = np.array([self.target[0], self.target[2]])
        length = float(np.linalg.norm(goal - start))
        if length <= self.tolerance_m:
            return
        direction = (goal - start) / length
        half = _half_extent_along_m(item, (float(direction[0]), float(direction[1])))
        stance = start - direction * (half + STANCE_M)
        stance_y = float(situation.ground.terrain_height(*stance))
        yield from WalkTo((float(stance[0]), stance_y, float(stance[1])), tolerance_m=0.2).actions(situation)
        if not (yield from _turn_towards(situation, goal)):
            raise PrimitiveFailed(f"could not face the push's goal ({describe(situation.body)})")
        # The item's centre stays ``offset`` ahead of the body's axis once they touch.
        offset = half + mechanics.BODY_RADIUS_M
        centre = start.copy()
        stalled = 0
        for _ in range(int(4 * (length + STANCE_M) / (PUSH_SPEED * WALK_PER_STEP_M)) + 40):
            body = situation.body
            here = np.array(body.xz)
            centre = start + direction * max(0.0, float(np.dot(here + direction * offset - start, direction)))
            left = float(np.dot(goal - centre, direction))
            # On until the item stops against what stands at its place (a ledge), or well past it.
            if stalled >= STALLED_STEPS or left < -OVERSHOOT_M:
                break
            # Steer back onto the line through the item's start and the goal.
            across = float(direction[0] * (here[1] - start[1]) - direction[1] * (here[0] - start[0]))
            aim_yaw = math.atan2(-direction[0], -direction[1]) + float(np.clip(LINE_GAIN_RAD_PER_M * across, -0.4, 0.4))
            yaw_error = math.remainder(aim_yaw - body.yaw_rad, 2.0 * math.pi)
            self.pushing = True
            yield action(move_forward=PUSH_SPEED if left > 0.3 else PUSH_SPEED / 2.0, head_yaw=turn_rate(yaw_error))
            self.pushing = False
            moved = float(np.linalg.norm(np.array(situation.body.xz) - here))
            stalled = stalled + 1 if moved < STALLED_M else 0
        else:
            raise PrimitiveFailed(f"the push towards {self.target} did not end ({describe(situation.body)})")
        if abs(left) > self.tolerance_m + OVERSHOOT_M:
            raise PrimitiveFailed(f"the push stopped {left:.2f} m short of {self.target} ({describe(situation.body)})")
        for _ in range(3):  # step back off the item
            yield action(move_forward=-0.4)
        # Stopped at its place: there along the line, as far to the side as the body pushed it.
        tangent = np.array([-direction[1], direction[0]])
        final = goal + tangent * float(np.dot(centre - goal, tangent))
        situation.ground = situation.ground.moved(item.name, (float(final[0]), float(final[1])))
        situation.world = situation.ground.world



#: Taking off for a jump onto an item, the body's axis stands this far from the item's side, metres.
MOUNT_TAKE_OFF_M = 0.5
#: The feet count as over the item's top once this far above it, metres.
MOUNT_CLEARANCE_M = 0.05
#: Walking speed while over the item's top (``move_forward``).
MOUNT_SPEED = 0.5
#: The body stands on the item when its axis is this close to the item's centre, metres.
MOUNT_CENTRE_M = 0.35
#: Jumps tried before giving up.
MOUNT_TRIES = 3
#: A point within this of an item's footprint and top lies on it (see :func:`item_under`), metres.
ITEM_SLACK_M = 0.5


def item_under(situation: Situation, point) -> Entity | None:
    """The item too heavy to lift whose top ``point`` (x, y, z) lies on: within ``ITEM_SLACK_M``
    of its footprint (where the agent's ground has it: a push leaves it about there) and of its
    top's height; or None."""
    for entity in situation.ground.world.entities:
        if is_pushed_only(entity):
            scale = float(entity.param("safe_scale", 1.0))
            width, height, depth = (v * scale for v in TOOL_SIZE_M[entity.kind])
            c, s = math.cos(entity.yaw_rad), math.sin(entity.yaw_rad)
            dx, dz = float(point[0]) - entity.position[0], float(point[-1]) - entity.position[2]
            top = entity.position[1] + height / 2.0
            if abs(c * dx - s * dz) <= width / 2.0 + ITEM_SLACK_M and abs(s * dx + c * dz) <= depth / 2.0 + ITEM_SLACK_M \
                    and abs(float(point[1]) - top) <= ITEM_SLACK_M:
                return entity
    return None


@attr.s(auto_attribs=True)
class JumpOnto(Primitive):
    """Jump onto the top of the item too heavy to lift under ``target`` (x, y, z) and stand on it.
    A running jump would meet the item's side and shove it (or slide off its sloping flanks), so
    the body takes off from a standstill beside it and moves over it only once its feet are above
    its top, then stops over its middle."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    name = "jump"

    def budget_steps(self, situation: Situation) -> int:
        return int(3 * situation.body.horizontal_distance_m(self.target) / WALK_PER_STEP_M) + 60 * MOUNT_TRIES

    def actions(self, situation: Situation) -> Iterator[Action]:
        item = item_under(situation, self.target)
        if item is None:
            raise PrimitiveFailed(f"no item to jump onto at {self.target}")
        centre = np.array([item.position[0], item.position[2]])
        top = 2.0 * item.position[1] - float(situation.ground.terrain_height(*centre))
        for _ in range(MOUNT_TRIES):
            here = np.array(situation.body.xz)
            away = here - centre
            away /= max(float(np.linalg.norm(away)), 1e-9)
            take_off = centre + away * (_half_extent_along_m(item, (float(away[0]), float(away[1]))) + MOUNT_TAKE_OFF_M)
            ground_y = float(situation.ground.terrain_height(*take_off))
            yield from WalkTo((float(take_off[0]), ground_y, float(take_off[1])), tolerance_m=0.2,
                              must_reach=False).actions(situation)
            yield from _turn_towards(situation, centre)
            for _ in range(2):
                yield action()
            yield action(jump=1.0)
            previous_y = None
            for _ in range(20):
                body = situation.body
                ahead = float(np.dot(centre - np.array(body.xz), np.array(body.facing)))
                over = body.feet_y_m > top + MOUNT_CLEARANCE_M
                on_top = body.horizontal_distance_m(centre) < MOUNT_CENTRE_M and abs(body.feet_y_m - top) < 0.2
                if on_top and previous_y is not None and abs(body.feet_y_m - previous_y) < 0.01:
                    return
                previous_y = body.feet_y_m
                forward = float(np.clip(ahead / WALK_PER_STEP_M, -MOUNT_SPEED, MOUNT_SPEED)) if over or on_top else 0.0
                yield action(move_forward=forward)
        raise PrimitiveFailed(f"could not get onto the {item.kind} at {item.position} ({describe(situation.body)})")
