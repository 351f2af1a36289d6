"""Climbing a climbable wall (a climbable box, bare-mountain terrain) up to a point on its top.

In the mouse-and-keyboard space (docs/mechanics.md, "Mouse and keyboard" and "Climb"): walk up to
the face, look up it and close one hand (it goes where the camera looks and holds the surface), let
the other hand go, hold ``move_forward`` (it pulls the holding hand down and back, crouching: the
body rises) until the hand stops, then the other hand. Near the top the agent looks down onto it,
so the last hold is on the top surface and the pull brings the body over the edge. Then it lets go
and walks to the target.
"""

from __future__ import annotations

from collections.abc import Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.body import HANDS
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.validation import float_triple

#: A rise of the ground along the way larger than this is the wall's face, metres.
FACE_STEP_M = 0.5
#: The agent walks until its axis is this close to the face (its body's radius is 0.4 m), metres.
FACE_DISTANCE_M = 0.55
#: Head pitch while reaching up the face, and while reaching onto the top, radians.
PITCH_UP_RAD = 0.7
PITCH_DOWN_RAD = -0.5
#: The agent looks onto the top once its feet are within this of the top's height, metres.
LOOK_ONTO_TOP_M = 1.5
#: Steps a hand may take to take hold before the climb fails.
REACH_STEPS = 12
#: A pull is over when the holding hand moved less than this in a step, metres.
STOPPED_M = 0.02
#: The climb is done when the feet are this close to the top's height and past the face, metres.
ON_TOP_M = 0.05
PAST_FACE_M = 0.1


def find_face(situation: Situation, target) -> float | None:
    """Distance along the straight line from the feet to ``target`` of the wall's face: the first
    point where the ground rises FACE_STEP_M above the feet; None if it never does."""
    distances, heights = situation.ground.profile(situation.body.position, target)
    above = np.nonzero(heights > situation.body.feet_y_m + FACE_STEP_M)[0]
    return float(distances[above[0]]) if above.size else None


@attr.s(auto_attribs=True)
class ClimbTo(Primitive):
    """Climb the wall between the feet and ``target`` (x, y, z: a point on its top), then walk to
    the target. Fails when no hand can take hold (an unclimbable surface), when a hold slips, or
    when the climb runs out of steps."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_m: float = 0.4
    name = "climb"

    def budget_steps(self, situation: Situation) -> int:
        height = max(0.0, self.target[1] - situation.body.feet_y_m)
        distance = situation.body.horizontal_distance_m(self.target)
        return int(60 * (1.0 + height) + 3 * distance / WALK_PER_STEP_M) + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        face = find_face(situation, self.target)
        if face is None:
            raise PrimitiveFailed(f"no wall rises on the way to {self.target} ({describe(situation.body)})")
        start = np.array(situation.body.xz)
        direction = np.array([self.target[0], self.target[2]]) - start
        direction /= np.linalg.norm(direction)
        yield from self._approach(situation, start, direction, face)
        yield from self._climb(situation, start, direction, face)
        for _ in range(3):  # let go (both hands open) and stand
            yield action()
        yield from WalkTo(self.target, tolerance_m=self.tolerance_m, must_reach=False).actions(situation)

    def _approach(self, situation: Situation, start, direction, face_m: float) -> Iterator[Action]:
        previous = None
        for _ in range(int(face_m / (0.2 * WALK_PER_STEP_M)) + 20):
            body = situation.body
            travelled = float(np.dot(np.array(body.xz) - start, direction))
            left = face_m - FACE_DISTANCE_M - travelled
            yaw_error = body.yaw_error_rad(self.target)
            blocked = previous is not None and abs(travelled - previous) < 0.01
            if abs(yaw_error) < 0.05 and (left <= 0.02 or blocked):
                return
            previous = travelled
            forward = 0.0 if abs(yaw_error) > 0.5 else float(np.clip(left / WALK_PER_STEP_M, 0.0, 1.0))
            yield action(move_forward=forward, head_yaw=turn_rate(yaw_error))
        raise PrimitiveFailed(f"never reached the wall's face {face_m:.2f} m ahead ({describe(situation.body)})")

    def _climb(self, situation: Situation, start, direction, face_m: float) -> Iterator[Action]:
        top = self.target[1]
        active, reaching, reach_steps = 1, True, 0
        while True:
            body = situation.body
            past = float(np.dot(np.array(body.xz) - start, direction)) - face_m
            if body.feet_y_m > top - ON_TOP_M and past > PAST_FACE_M:
                return
            wanted = PITCH_UP_RAD if body.feet_y_m + LOOK_ONTO_TOP_M < top else PITCH_DOWN_RAD
            parts = {"head_pitch": turn_rate(wanted - body.head_pitch_rad), f"{HANDS[active]}_grasp": 1}
            other = 1 - active
            if reaching:
                parts[f"{HANDS[other]}_grasp"] = int(body.grasping[other])  # hold on until the new hold is taken
                yield action(**parts)
                reach_steps += 1
                if situation.body.grasping[active]:
                    reaching, reach_steps = False, 0
                elif reach_steps > REACH_STEPS:
                    raise PrimitiveFailed(f"the {HANDS[active]} hand found nothing to hold on the wall ({describe(situation.body)})")
                continue
            before = np.array(body.hand_positions[active])
            yield action(move_forward=1.0, **parts)  # the other hand lets go; the body rises
            if not situation.body.grasping[active]:
                raise PrimitiveFailed(f"the {HANDS[active]} hand's hold slipped ({describe(situation.body)})")
            if np.linalg.norm(np.array(situation.body.hand_positions[active]) - before) < STOPPED_M:
                active, reaching = other, True
