"""Walking to a point: a path over the ground (:mod:`avalon.agent.scripted.paths`), followed by
steering the body's yaw towards a point a little ahead on it and slowing down at the end."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Optional

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.paths import WalkPath, plan_walk, pursuit_point
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.errors import float_triple

#: The walker steers at the path's point this far ahead, metres (farther cuts corners round trunks
#: and food; a step at full speed is 0.5 m).
LOOKAHEAD_M = 0.75
#: It walks only when its target is within this angle of its facing direction, radians (else it
#: turns on the spot first).
MAX_WALKING_TURN_RAD = math.radians(60.0)
#: A walk is stuck when it has not come this much closer in STUCK_STEPS steps, metres.
PROGRESS_M = 0.1
STUCK_STEPS = 20
#: A walk has fallen off its way when the feet are this far below the path's ground, metres.
FALL_M = 1.0
#: Default closeness to the target at which a walk is done, metres.
DEFAULT_TOLERANCE_M = 0.5
#: A walk whose path ends short of the target (within its tolerance) is done this close to the path's end, metres.
END_TOLERANCE_M = 0.3


@attr.s(auto_attribs=True)
class WalkTo(Primitive):
    """Walk until the feet are within ``tolerance_m`` (horizontally) of ``target`` (x, y, z).

    Fails when the ground offers no way there, when the body falls off its way, or when it stops
    coming closer (blocked); unless ``must_reach`` is False: then it walks as close as it can get
    (to the nearest point the ground lets it reach, until blocked) and succeeds there.
    """

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_m: float = DEFAULT_TOLERANCE_M
    must_reach: bool = True
    _path: Optional[WalkPath] = attr.ib(init=False, default=None, repr=False)
    name = "walk"

    def budget_steps(self, situation: Situation) -> int:
        self._path = plan_walk(situation.ground, situation.body.position, self.target, self.tolerance_m)
        return int(math.ceil(3.0 * self._path.length_m / WALK_PER_STEP_M)) + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        path = self._path if self._path is not None else plan_walk(situation.ground, situation.body.position, self.target)
        if not path.reaches_goal and self.must_reach:
            raise PrimitiveFailed(f"no way on foot to {self.target}: the nearest point reached is {path.miss_m:.2f} m short "
                                  f"({describe(situation.body)})")
        end = path.points[-1]
        try:
            yield from follow_path(situation, path, (end[0], end[1], end[2]), min(self.tolerance_m, END_TOLERANCE_M))
        except Blocked:
            if self.must_reach:
                raise


class Blocked(PrimitiveFailed):
    """The walk stopped coming closer."""


def follow_path(situation: Situation, path: WalkPath, goal, tolerance_m: float) -> Iterator[Action]:
    """Steer along ``path`` until the feet are within ``tolerance_m`` of ``goal`` (x, y, z)."""
    index = 0
    best, best_step, step = math.inf, 0, 0
    while True:
        body = situation.body
        distance = body.horizontal_distance_m(goal)
        if distance <= tolerance_m:
            return
        aim, index = pursuit_point(path, body.position, LOOKAHEAD_M, index)
        if body.feet_y_m < path.points[index, 1] - FALL_M:
            raise PrimitiveFailed(f"fell off the way to {tuple(round(float(v), 2) for v in goal)} ({describe(body)})")
        if distance < best - PROGRESS_M:
            best, best_step = distance, step
        elif step - best_step > STUCK_STEPS:
            raise Blocked(f"stuck {distance:.2f} m from {tuple(round(float(v), 2) for v in goal)} ({describe(body)})")
        yaw_error = body.yaw_error_rad(aim)
        # Slower while turning, so the body follows the path's bends rather than sweeping wide of them.
        forward = 0.0 if abs(yaw_error) > MAX_WALKING_TURN_RAD else min(math.cos(yaw_error), distance / WALK_PER_STEP_M)
        yield action(move_forward=forward, head_yaw=turn_rate(yaw_error), head_pitch=turn_rate(-body.head_pitch_rad))
        step += 1


def walk_towards(situation: Situation, goal, speed: float = 1.0) -> Action:
    """One step straight towards ``goal`` (x, y, z) at ``speed``, turning as needed (no path)."""
    body = situation.body
    yaw_error = body.yaw_error_rad(goal)
    forward = 0.0 if abs(yaw_error) > MAX_WALKING_TURN_RAD else float(np.clip(speed, -1.0, 1.0))
    return action(move_forward=forward, head_yaw=turn_rate(yaw_error))


@attr.s(auto_attribs=True)
class CrossTo(Primitive):
    """What the primitives that cross a drop, a gap or a wall on the way to ``target`` (x, y, z)
    share (:class:`~avalon.agent.scripted.fall.FallTo`, ``JumpTo``, ``ClimbTo``): once across,
    they walk the rest of the way, to within ``tolerance_m`` of it or as close as the ground allows."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_m: float = 0.4

    def walking_steps(self, situation: Situation) -> int:
        """Three times the steps a straight walk from the feet to the target takes (a budget's part)."""
        return int(3 * situation.body.horizontal_distance_m(self.target) / WALK_PER_STEP_M)

    def walk_the_rest(self, situation: Situation) -> Iterator[Action]:
        yield from WalkTo(self.target, tolerance_m=self.tolerance_m, must_reach=False).actions(situation)
