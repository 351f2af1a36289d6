"""Climbing a climbable wall (a climbable box, bare-mountain terrain) up to a point on its top.

In the mouse-and-keyboard space (docs/mechanics.md, "Mouse and keyboard" and "Climb"): walk up to
the face, look up it and close one hand (it goes where the camera looks and holds the surface), let
the other hand go, hold ``move_forward`` (it pulls the holding hand down and back, crouching: the
body rises) until the hand stops, then the other hand. Each hold is aimed at the face a little
above the eye, just below the top's edge at most; once the eye is over the top, onto the top, so
the last pull brings the body over the edge. Then it lets go and walks to the target.

The hand let go at the start of a pull stays caught against the wall below the rising body (a
hand moves in straight lines towards its resting place, ahead of the body, and stops at whatever
it touches), and a closed hand takes hold of the first surface within reach: closed there, it
would hold on below the feet. So between pulls the agent, hanging on one hand, turns aside until
the free hand's resting place is clear of the wall, lets it come back to rest, and turns back to
the wall; the hand then meets the wall at rest height, 1.2 m above the feet. Measured: cliffs of
bare-mountain terrain 2.5 to 10 m high at 60 to 90 degrees, 24-31 steps per metre of height.

A pull presses the body into the wall along the way it faces, so a climb at a slant to the face
slides sideways: the climb goes straight up the face (its normal), and on a terrain wall whose
climbable part is a strip (the biome map's grid: the grid point nearest a hand decides) it first
steps sideways to the strip's middle, and each reach turns the camera to the next hold on its line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Optional

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.body import HANDS, wrap_angle, yaw_towards
from avalon.agent.scripted.look import look_rates
from avalon.agent.scripted.primitive import PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import CrossTo, WalkTo
from avalon.datagen.world import Terrain
from avalon.rules import mechanics

#: A rise of the ground along the way larger than this is the wall's face, metres.
FACE_STEP_M = 0.5
#: The agent walks until its axis is this close to the face (its body's radius is 0.4 m), metres.
FACE_DISTANCE_M = 0.55
#: While the eye is below the top (plus EYE_OVER_TOP_M) the agent looks at the face this far above
#: the eye (at most FACE_BELOW_TOP_M below the top's edge); then onto the top, ONTO_TOP_M beyond the
#: edge. A closing hand goes where the camera looks, within reach. Metres.
REACH_ABOVE_EYE_M = 0.6
FACE_BELOW_TOP_M = 0.15
EYE_OVER_TOP_M = 0.1
ONTO_TOP_M = 0.3
#: A hand let go after a pull is stuck against the wall below the body (it moves in straight lines,
#: stopping at whatever it touches, towards its resting place ahead of the body): hanging on the
#: other hand, the agent turns this far towards the free hand's side, so its resting place comes
#: clear of the wall, lets it come to rest (within AT_REST_M), and turns back: it then meets the
#: wall at its resting height, 1.2 m above the feet, where it closes. Radians, metres.
TURN_ASIDE_RAD = math.radians(60.0)
AT_REST_M = 0.1
#: Steps each turn of that may take.
FREE_STEPS = 12
#: Steps a hand may take to take hold before the climb fails.
REACH_STEPS = 12
#: A pull is over when the holding hand moved less than this in a step, metres...
STOPPED_M = 0.02
#: ...or when the feet rose less than STOPPED_M over this many steps.
STALLED_STEPS = 5
#: The climb goes straight up the face (along the ground's uphill direction across it, measured
#: this far either side of the face around where the way meets it) when that is within
#: MAX_SQUARING_RAD of the way to the target; the line it climbs along reaches LINE_BEYOND_FACE_M
#: past the face. Metres, radians.
NORMAL_PROBE_M = 0.5
#: ...summed over these offsets along the face, metres.
NORMAL_SPREAD_M = (-1.0, -0.5, 0.0, 0.5, 1.0)
MAX_SQUARING_RAD = math.radians(60.0)
LINE_BEYOND_FACE_M = 3.0
#: On a terrain wall the climb goes up the middle of the climbable strip (the hands hold about
#: 0.3 m either side of its line, and the pulls drift), stepping sideways first; it looks for the
#: strip this far either side, and does not bother with steps shorter than SHIFT_TOLERANCE_M. Metres.
HOLDS_SEARCH_M = 2.0
SHIFT_TOLERANCE_M = 0.1
#: The climb is done when the feet are this close to the top's height over ground this close to it, metres.
ON_TOP_M = 0.05
OVER_TOP_M = 0.15
#: Feet this far below the top after letting go have fallen back down, metres.
FELL_BACK_M = 0.5


def find_face(situation: Situation, target) -> float | None:
    """Distance along the straight line from the feet to ``target`` of the wall's face: the first
    point where the ground rises FACE_STEP_M above the feet; None if it never does."""
    distances, heights = situation.ground.profile(situation.body.position, target)
    above = np.nonzero(heights > situation.body.feet_y_m + FACE_STEP_M)[0]
    return float(distances[above[0]]) if above.size else None


def _face_along(situation: Situation, start, direction, length_m: float) -> float | None:
    """Distance from ``start`` along ``direction`` ((x, z), unit) to where the ground first rises
    FACE_STEP_M above the feet, looking ``length_m`` ahead; None if it never does."""
    distances, heights = situation.ground.profile(start, start + direction * length_m)
    above = np.nonzero(heights > situation.body.feet_y_m + FACE_STEP_M)[0]
    return float(distances[above[0]]) if above.size else None


@attr.s(auto_attribs=True)
class ClimbTo(CrossTo):
    """Climb the wall between the feet and ``target`` (x, y, z: a point on its top), then walk to
    the target. Fails when no hand can take hold (an unclimbable surface), when a hold slips, or
    when the climb runs out of steps."""

    #: (x, z) of the far end of the straight line the climb goes up along (set when it starts).
    _line_end: Optional[tuple[float, float]] = attr.ib(init=False, default=None, repr=False)
    name = "climb"

    def budget_steps(self, situation: Situation) -> int:
        height = max(0.0, self.target[1] - situation.body.feet_y_m)
        distance = situation.body.horizontal_distance_m(self.target)
        return int(60 * (1.0 + height) + 3 * distance / WALK_PER_STEP_M) + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        face = find_face(situation, self.target)
        if face is None and situation.body.feet_y_m >= self.target[1] - FELL_BACK_M:
            # Already up: a route's climb ends with the hold at the top's edge and then the point
            # stood on beyond it, which the climb over the edge has brought the feet to.
            yield from self.walk_the_rest(situation)
            return
        if face is None:
            raise PrimitiveFailed(f"no wall rises on the way to {self.target} ({describe(situation.body)})")
        start = np.array(situation.body.xz)
        direction = np.array([self.target[0], self.target[2]]) - start
        direction /= np.linalg.norm(direction)
        direction, face = self._square_on(situation, start, direction, face)
        shift = self._shift_onto_holds(situation, start, direction, face)
        if shift:
            side = np.array([-direction[1], direction[0]])
            aside = start + side * shift
            yield from WalkTo((float(aside[0]), situation.body.feet_y_m, float(aside[1])), tolerance_m=SHIFT_TOLERANCE_M,
                              must_reach=False).actions(situation)
            start = np.array(situation.body.xz)
            face = _face_along(situation, start, direction, face + LINE_BEYOND_FACE_M)
            if face is None:
                raise PrimitiveFailed(f"no wall rises beside the holds ({describe(situation.body)})")
        self._line_end = tuple(float(v) for v in start + direction * (face + LINE_BEYOND_FACE_M))
        yield from self._approach(situation, start, direction, face)
        yield from self._climb(situation, start, direction)
        for _ in range(3):  # let go (both hands open) and stand
            yield action()
        if situation.body.feet_y_m < self.target[1] - FELL_BACK_M:
            raise PrimitiveFailed(f"fell back down after letting go at the top ({describe(situation.body)})")
        yield from self.walk_the_rest(situation)

    def _shift_onto_holds(self, situation: Situation, start, direction, face_m: float) -> float:
        """How far to step sideways (metres, to the left of ``direction``) to climb up the middle of
        the climbable strip of a terrain wall (as far as it lies within ``HOLDS_SEARCH_M``): 0 if
        the climb is there already, if the wall is not terrain, or if no strip lies that near."""
        ground = situation.world.ground
        if not isinstance(ground, Terrain):
            return 0.0
        heightmap, climbable = ground.heightmap, ground.biome_map.climbable
        side = np.array([-direction[1], direction[0]])
        offsets = np.arange(-HOLDS_SEARCH_M, HOLDS_SEARCH_M + 1e-9, 0.05)
        holds = np.ones(offsets.size, dtype=bool)
        for across in (-0.5, 0.5):  # the grid points at the face's foot and up it decide what the hands hold
            points = (start + direction * (face_m + across * heightmap.cell_size_m))[None, :] + offsets[:, None] * side[None, :]
            inside = heightmap.contains(points[:, 0], points[:, 1])
            rows, cols = heightmap.nearest_index(points[inside, 0], points[inside, 1])
            holds[~inside] = False
            holds[inside] &= climbable[rows, cols]
        if not holds.any():
            return 0.0
        nearest = int(np.flatnonzero(holds)[np.argmin(np.abs(offsets[holds]))])
        low = high = nearest
        while low > 0 and holds[low - 1]:
            low -= 1
        while high < offsets.size - 1 and holds[high + 1]:
            high += 1
        shift = float((offsets[low] + offsets[high]) / 2)
        return shift if abs(shift) > SHIFT_TOLERANCE_M else 0.0

    def _square_on(self, situation: Situation, start, direction, face_m: float) -> tuple[np.ndarray, float]:
        """The way up the wall and the face's distance along it: straight up the face (its uphill
        normal, from the ground's rise across it), so the pulls do not carry the body sideways,
        unless the target lies more than ``MAX_SQUARING_RAD`` off it; else towards the target."""
        height = situation.ground.height
        side = np.array([-direction[1], direction[0]])
        rise = np.zeros(2)
        for across in NORMAL_SPREAD_M:  # summed along the face, so a notch in it does not tilt the way up
            x, z = start + direction * face_m + side * across
            rise += [height(x + NORMAL_PROBE_M, z) - height(x - NORMAL_PROBE_M, z),
                     height(x, z + NORMAL_PROBE_M) - height(x, z - NORMAL_PROBE_M)]
        norm = float(np.linalg.norm(rise))
        if norm < FACE_STEP_M or float(np.dot(rise / norm, direction)) < math.cos(MAX_SQUARING_RAD):
            return direction, face_m
        normal = rise / norm
        face = _face_along(situation, start, normal, face_m + LINE_BEYOND_FACE_M)
        return (normal, face) if face is not None else (direction, face_m)

    def _approach(self, situation: Situation, start, direction, face_m: float) -> Iterator[Action]:
        previous = None
        for _ in range(int(face_m / (0.2 * WALK_PER_STEP_M)) + 20):
            body = situation.body
            travelled = float(np.dot(np.array(body.xz) - start, direction))
            left = face_m - FACE_DISTANCE_M - travelled
            yaw_error = body.yaw_error_rad((self._line_end[0], self.target[1], self._line_end[1]))
            blocked = previous is not None and abs(travelled - previous) < 0.01
            if abs(yaw_error) < 0.05 and (left <= 0.02 or blocked):
                return
            previous = travelled
            forward = 0.0 if abs(yaw_error) > 0.5 else float(np.clip(left / WALK_PER_STEP_M, 0.0, 1.0))
            yield action(move_forward=forward, head_yaw=turn_rate(yaw_error))
        raise PrimitiveFailed(f"never reached the wall's face {face_m:.2f} m ahead ({describe(situation.body)})")

    def _climb(self, situation: Situation, start, direction) -> Iterator[Action]:
        wall_yaw = yaw_towards((0.0, 0.0), (float(direction[0]), float(direction[1])))
        active = 1
        while not self._on_top(situation):
            yield from self._reach(situation, active, start, direction)
            yield from self._pull(situation, active, start, direction)
            if self._on_top(situation):
                return
            yield from self._free(situation, active, wall_yaw, start, direction)
            active = 1 - active

    def _on_top(self, situation: Situation) -> bool:
        """Whether the feet are up at the top and over ground that high (not hanging off the edge)."""
        body = situation.body
        top = self.target[1]
        return body.feet_y_m > top - ON_TOP_M and situation.ground.height(*body.xz) > top - OVER_TOP_M

    def _look(self, situation: Situation, start, direction) -> float:
        """The head pitch rate towards the next hold."""
        return look_rates(situation.body, self._hold_point(situation, start, direction))[1]

    def _reach(self, situation: Situation, hand: int, start, direction) -> Iterator[Action]:
        """Close ``hand`` (it goes where the camera looks, turned to the next hold on the climb's line,
        however far the pulls have carried the body sideways) until it holds; the other hand keeps
        its hold."""
        other = 1 - hand
        for aim in (self._hold_point, self._hold_ahead):
            for _ in range(REACH_STEPS):
                body = situation.body
                yaw_rate, pitch_rate, _, _ = look_rates(body, aim(situation, start, direction))
                yield action(head_yaw=yaw_rate, head_pitch=pitch_rate,
                             **{f"{HANDS[hand]}_grasp": 1, f"{HANDS[other]}_grasp": int(body.grasping[other])})
                if situation.body.grasping[hand]:
                    return
        raise PrimitiveFailed(f"the {HANDS[hand]} hand found nothing to hold on the wall ({describe(situation.body)})")

    def _pull(self, situation: Situation, hand: int, start, direction) -> Iterator[Action]:
        """Let the other hand go and pull on ``hand`` until it stops (the body rises), or until the
        body has stopped rising (the hand sliding to and fro in a corner of the wall)."""
        heights = [situation.body.feet_y_m]
        while True:
            body = situation.body
            before = np.array(body.hand_positions[hand])
            yield action(move_forward=1.0, head_pitch=self._look(situation, start, direction), **{f"{HANDS[hand]}_grasp": 1})
            if not situation.body.grasping[hand]:
                raise PrimitiveFailed(f"the {HANDS[hand]} hand's hold slipped ({describe(situation.body)})")
            if self._on_top(situation):  # over the edge: the hand may keep sliding on the top
                return
            if np.linalg.norm(np.array(situation.body.hand_positions[hand]) - before) < STOPPED_M:
                return
            heights.append(situation.body.feet_y_m)
            if len(heights) > STALLED_STEPS and heights[-1] - heights[-1 - STALLED_STEPS] < STOPPED_M:
                return

    def _free(self, situation: Situation, holding: int, wall_yaw: float, start, direction) -> Iterator[Action]:
        """Bring the free hand up: hanging on ``holding``, turn towards the free hand's side so its
        resting place is clear of the wall, let it come to rest, then turn back to the wall (it sweeps
        towards the wall at rest height)."""
        free = 1 - holding
        side = 1.0 if free == 0 else -1.0  # positive yaw turns left
        rest = np.array(mechanics.LEFT_HAND_REST_M if free == 0 else mechanics.RIGHT_HAND_REST_M)
        aside = wall_yaw + side * TURN_ASIDE_RAD
        for _ in range(FREE_STEPS):
            body = situation.body
            error = wrap_angle(aside - body.yaw_rad)
            if abs(error) < 0.05 and np.linalg.norm(np.array(body.hand_positions[free]) - rest) < AT_REST_M:
                break
            yield action(head_yaw=turn_rate(error), head_pitch=self._look(situation, start, direction),
                         **{f"{HANDS[holding]}_grasp": 1})
        for _ in range(FREE_STEPS):
            body = situation.body
            error = wrap_angle(wall_yaw - body.yaw_rad)
            if abs(error) < 0.02:
                return
            yield action(head_yaw=turn_rate(error), head_pitch=self._look(situation, start, direction),
                         **{f"{HANDS[holding]}_grasp": 1})

    def _hold_ahead(self, situation: Situation, start, direction) -> tuple[float, float, float]:
        """:meth:`_hold_point` on the line up the wall through where the body hangs now, for when
        the pulls have carried it off the climb's line beyond a hand's reach of its holds."""
        here = np.array(situation.body.xz) - direction * LINE_BEYOND_FACE_M
        return self._hold_point(situation, here, direction, here + 2.0 * direction * LINE_BEYOND_FACE_M)

    def _hold_point(self, situation: Situation, start, direction, end=None) -> tuple[float, float, float]:
        """Where the next hold should be: on the wall a little above the eye (just below the top's
        edge at most), or on the top beyond its edge once the eye is over it."""
        top = self.target[1]
        eye = situation.body.eye[1]
        onto_top = eye >= top + EYE_OVER_TOP_M
        height = top if onto_top else min(eye + REACH_ABOVE_EYE_M, top - FACE_BELOW_TOP_M)
        distances, heights = situation.ground.profile(start, self._line_end if end is None else end)
        above = np.nonzero(heights >= height - 0.05)[0]
        along = float(distances[above[0]]) if above.size else float(distances[-1])
        x, z = start + direction * (along + (ONTO_TOP_M if onto_top else 0.0))
        return (float(x), height, float(z))
