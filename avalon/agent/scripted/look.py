"""Turning to face a world point, and looking at one (yaw and head pitch from the body's position
and head height)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import attr

from avalon.agent.scripted.actions import Action, action, steps_to_turn, turn_rate
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation
from avalon.errors import float_triple
from avalon.rules import mechanics

#: Facing or looking is done when the remaining turn is below this, radians.
DEFAULT_TOLERANCE_RAD = math.radians(2.0)
#: Steps beyond the turn itself a look may take (the eye moves when the head crouches).
SPARE_STEPS = 6


def look_rates(body: Body, point) -> tuple[float, float, float, float]:
    """(yaw rate, pitch rate, yaw error, pitch error) that turn the camera towards a world point
    (x, y, z): the errors in radians, the rates in [-1, 1] (as much as one step allows). The pitch
    stays within the head's limits."""
    yaw_error = body.yaw_error_rad(point)
    wanted = max(-mechanics.HEAD_MAX_PITCH_RAD, min(mechanics.HEAD_MAX_PITCH_RAD, body.pitch_to_rad(point)))
    pitch_error = wanted - body.head_pitch_rad
    return turn_rate(yaw_error), turn_rate(pitch_error), yaw_error, pitch_error


@attr.s(frozen=True, auto_attribs=True)
class TurnToFace(Primitive):
    """Turn the body (in place) until it faces ``point`` (x, y, z) within ``tolerance_rad``.
    Fails only by running out of steps."""

    point: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_rad: float = DEFAULT_TOLERANCE_RAD
    name = "turn"

    def budget_steps(self, situation: Situation) -> int:
        return steps_to_turn(situation.body.yaw_error_rad(self.point)) + SPARE_STEPS

    def actions(self, situation: Situation) -> Iterator[Action]:
        while abs(error := situation.body.yaw_error_rad(self.point)) > self.tolerance_rad:
            yield action(head_yaw=turn_rate(error))


@attr.s(frozen=True, auto_attribs=True)
class LookAt(Primitive):
    """Turn the body and pitch the head until the camera's axis points at ``point`` (x, y, z)
    within ``tolerance_rad`` both ways. Fails if the point lies beyond the head's pitch limits."""

    point: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_rad: float = DEFAULT_TOLERANCE_RAD
    name = "look"

    def budget_steps(self, situation: Situation) -> int:
        body = situation.body
        pitch = body.pitch_to_rad(self.point) - body.head_pitch_rad
        return max(steps_to_turn(body.yaw_error_rad(self.point)), steps_to_turn(pitch)) + SPARE_STEPS

    def actions(self, situation: Situation) -> Iterator[Action]:
        while True:
            body = situation.body
            yaw_rate, pitch_rate, yaw_error, pitch_error = look_rates(body, self.point)
            if abs(body.pitch_to_rad(self.point)) > mechanics.HEAD_MAX_PITCH_RAD + self.tolerance_rad:
                raise PrimitiveFailed(f"{self.point} lies beyond the head's pitch limit from the eye at {body.eye}")
            if abs(yaw_error) <= self.tolerance_rad and abs(pitch_error) <= self.tolerance_rad:
                return
            yield action(head_yaw=yaw_rate, head_pitch=pitch_rate)
