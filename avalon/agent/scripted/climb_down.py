"""Climbing down a climbable wall, and the ``climb`` step that picks up or down.

Down a wall the agent does what the paper describes (F.1, descend): it falls while grabbing the
wall periodically. In the mouse-and-keyboard space (docs/mechanics.md, "Climb"): standing at the
top with its back to the drop, it looks down the wall and walks backwards off the edge; once the
feet have dropped, it closes both hands (each goes where the camera looks, the wall just in front,
and takes hold of it): gravity is suspended while a hand holds, and a fall after letting go counts
from the hold. Then, hand over hand, it lets go, falls ``DROP_PER_HOLD_M`` and grabs the wall
again, until the feet are within ``LET_GO_ABOVE_M`` of the target below (the ground at the foot):
there it lets go, lands and walks to the target. A target that is a hold on the wall (the route's
steps where its way down turns) is passed once the feet are below it.

:func:`climb_primitives` says which a route's ``climb`` steps run: :class:`ClimbDownTo` for a
run of steps going down, else :class:`~avalon.agent.scripted.climb.ClimbTo`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Optional

import attr

from avalon.agent.scripted.actions import Action, action, turn_rate
from avalon.agent.scripted.climb import ClimbTo
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.errors import float_triple

#: A climb step whose target lies this far below the feet (metres) is climbed down.
DOWN_BELOW_FEET_M = 1.0
#: Between holds the body falls this far before the hands close again, metres (a fall after
#: letting go counts from the hold; the safe height is 5 m).
DROP_PER_HOLD_M = 2.5
#: The last let-go happens with the feet at most this far above the target, metres.
LET_GO_ABOVE_M = 3.0
#: The head looks this far down (radians below the horizon) while climbing down: the wall just
#: below the eye, which is where a closing hand goes.
LOOK_DOWN_RAD = math.radians(55.0)
#: Steps the back-off, a grab and a landing may each take.
BACK_OFF_STEPS = 30
GRAB_STEPS = 8
LAND_STEPS = 40
#: Walking backwards off the top at this share of full speed, the body drops close to the wall;
#: it tries again this often when the first let-go lands it back on the edge.
BACK_OFF_SPEED = 0.4
BACK_OFF_TRIES = 3
#: The feet have left the top once this far below where they stood (the top's edge may slope), and
#: a body standing less than ON_THE_TOP_M below it is still up there, metres.
OFF_THE_TOP_M = 1.0
ON_THE_TOP_M = 1.5
#: The body has landed when its feet moved less than this in a step, metres, after the first
#: SETTLE_STEPS steps of a fall (a body let go of still stands still for a step).
LANDED_M = 0.02
SETTLE_STEPS = 2


@attr.s(auto_attribs=True)
class ClimbDownTo(Primitive):
    """Climb down the wall between the feet and ``target`` (x, y, z, below): a hold on the wall
    (done once the feet are below it, still hanging, or standing at the foot) or the ground at
    its foot (let go above it, land, walk to it). Starting at the top, it backs off the edge
    first; a later step of the way down goes on from where the last one ended. Fails when no hand
    takes hold, or the body never gets off the top or never lands."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    #: Whether the climb starts standing at the top (the first step of a way down), and whether
    #: ``target`` is the ground at the foot (its last) rather than a hold on the wall.
    from_the_top: bool = True
    onto_ground: bool = True
    tolerance_m: float = 0.4
    _wall_yaw: Optional[float] = attr.ib(init=False, default=None, repr=False)
    name = "climb"

    def budget_steps(self, situation: Situation) -> int:
        height = max(0.0, situation.body.feet_y_m - self.target[1])
        distance = situation.body.horizontal_distance_m(self.target)
        return int(BACK_OFF_STEPS + (GRAB_STEPS + 12) * (1.0 + height / DROP_PER_HOLD_M) + LAND_STEPS + 6 * distance) + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        onto_ground = self.onto_ground
        top = situation.body.feet_y_m
        tries = 0
        while True:
            body = situation.body
            if not body.is_hanging:
                if not (self.from_the_top and body.feet_y_m > top - ON_THE_TOP_M):
                    break  # at the foot (the holds there are at the ground's height)
                if tries > BACK_OFF_TRIES:
                    raise PrimitiveFailed(f"could not get off the top to climb down ({describe(body)})")
                tries += 1  # at the start, or a let-go put the body back on the edge
                yield from self._back_off(situation)
                yield from self._grab(situation)
                continue
            if not onto_ground and body.feet_y_m < self.target[1]:
                return  # past the hold where the route turns, still hanging
            if onto_ground and body.feet_y_m - self.target[1] <= LET_GO_ABOVE_M:
                break
            landed = yield from self._fall(situation, DROP_PER_HOLD_M)
            if not landed:
                yield from self._grab(situation)
        yield from self._land(situation)
        if onto_ground:
            yield from WalkTo(self.target, tolerance_m=self.tolerance_m, must_reach=False).actions(situation)

    def _wall_yaw_rate(self, situation: Situation) -> float:
        """The turn towards the wall: the yaw the body had hanging on it, or, standing at the top,
        the one that puts the target (the drop) behind it (fixed there: close above the target
        its direction means nothing)."""
        body = situation.body
        if self._wall_yaw is None:
            if body.is_hanging:
                self._wall_yaw = body.yaw_rad
            else:
                facing_target = math.atan2(-(self.target[0] - body.xz[0]), -(self.target[2] - body.xz[1]))
                self._wall_yaw = facing_target + math.pi
        return turn_rate((self._wall_yaw - body.yaw_rad + math.pi) % (2 * math.pi) - math.pi)

    def _look_rate(self, situation: Situation) -> float:
        return turn_rate(-LOOK_DOWN_RAD - situation.body.head_pitch_rad)

    def _back_off(self, situation: Situation) -> Iterator[Action]:
        """Turn the back to the drop and walk backwards off the edge, hands open."""
        top = situation.body.feet_y_m
        for _ in range(BACK_OFF_STEPS):
            if situation.body.feet_y_m < top - OFF_THE_TOP_M:
                return
            yaw = self._wall_yaw_rate(situation)
            yield action(move_forward=-BACK_OFF_SPEED if abs(yaw) < 0.2 else 0.0, head_yaw=yaw,
                         head_pitch=self._look_rate(situation))
        raise PrimitiveFailed(f"never got off the top towards {self.target} ({describe(situation.body)})")

    def _grab(self, situation: Situation) -> Iterator[Action]:
        """Close both hands on the wall in front until one holds (or the body has come to rest on
        the ground at the foot)."""
        previous = situation.body.feet_y_m
        for _ in range(GRAB_STEPS):
            yield action(left_grasp=1, right_grasp=1, head_yaw=self._wall_yaw_rate(situation),
                         head_pitch=self._look_rate(situation))
            body = situation.body
            if body.is_hanging:
                return
            if body.energy <= 0.0:
                break
            if abs(body.feet_y_m - previous) < LANDED_M:
                return  # standing: the fall ended on the ground
            previous = body.feet_y_m
        raise PrimitiveFailed(f"no hand took hold of the wall ({describe(situation.body)})")

    def _fall(self, situation: Situation, drop_m: float) -> Iterator[Action]:
        """Let go and fall ``drop_m``; returns whether the body landed first."""
        start = situation.body.feet_y_m
        previous = start
        for step in range(LAND_STEPS):
            yield action(head_yaw=self._wall_yaw_rate(situation), head_pitch=self._look_rate(situation))
            feet = situation.body.feet_y_m
            if feet <= start - drop_m:
                return False
            if step >= SETTLE_STEPS and abs(previous - feet) < LANDED_M:
                return True
            previous = feet
        raise PrimitiveFailed(f"never fell {drop_m:.2f} m ({describe(situation.body)})")

    def _land(self, situation: Situation) -> Iterator[Action]:
        """Let go and fall to the ground."""
        previous = situation.body.feet_y_m
        for step in range(LAND_STEPS):
            yield action(head_pitch=turn_rate(-situation.body.head_pitch_rad))
            feet = situation.body.feet_y_m
            if step >= SETTLE_STEPS and abs(previous - feet) < LANDED_M and not situation.body.is_hanging:
                if situation.body.energy <= 0.0:
                    break
                return
            previous = feet
        raise PrimitiveFailed(f"never landed below {self.target} ({describe(situation.body)})")


def climb_primitives(targets_before: list, targets: list) -> list[Primitive]:
    """The primitives of a run of ``climb`` steps: ``targets`` (x, y, z) in order, each reached
    from the one in ``targets_before`` (the previous step's target, the route's start for the
    first). A run that ends more than ``DOWN_BELOW_FEET_M`` below where it starts is climbed
    down (:class:`ClimbDownTo` each: the holds where the way down turns, then the ground at the
    foot); any other climbs up (:class:`~avalon.agent.scripted.climb.ClimbTo`)."""
    if targets and targets[-1][1] < targets_before[0][1] - DOWN_BELOW_FEET_M:
        last = len(targets) - 1
        return [ClimbDownTo(target, from_the_top=index == 0, onto_ground=index == last)
                for index, target in enumerate(targets)]
    return [ClimbTo(target) for target in targets]
