"""A running jump across a gap or up onto a ledge towards a point.

The body's horizontal speed is set by each step's action, in the air too (``godot/agent/player.gd``),
so a jump needs no run-up: the agent walks to the edge (the first place on the straight line to the
target where the ground falls away or rises by more than ``EDGE_STEP_M``), faces the target, jumps
``TAKE_OFF_M`` or less before the edge once its feet have settled (a body that ran into the lip's
slope may bounce off it), and keeps walking forward at full speed in the air until it is over the
landing (ground at the target's level, or an even way on to the target), then closes in on the
target, backing up if the flight carried it past (a narrow landing may end in another drop). Measured
(docs/mechanics.md): a jump taken 0.5 m before the edge clears gaps up to 5 m between platforms
of the same height; a standing jump rises 1.5 m.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.primitive import PrimitiveFailed, Situation, describe
from avalon.agent.scripted.push import JumpOnto, item_under
from avalon.agent.scripted.walk import CrossTo
from avalon.rules import mechanics

#: A change of ground height along the way larger than this is an edge, metres.
EDGE_STEP_M = 0.3
#: The jump is taken when the body's axis is this close to the edge (a gap's lip or a ledge's face), metres.
TAKE_OFF_M = 0.45
#: Below a gap's lip and the target by this much, the body has fallen in, metres.
FALLEN_M = 0.5
#: Feet this close to the ground under them have landed, metres.
LANDED_M = 0.1
#: Ground within this of the target's height is the landing's level, metres.
LANDING_LEVEL_M = 0.3
#: Before the jump the body stands still for at most this many steps...
SETTLE_STEPS = 8
#: ...until its feet move less than this up or down in one, metres.
SETTLED_M = 0.02
#: Steps in the air before giving up on landing.
AIR_STEPS = 30


def leave_ground(situation: Situation, what: str = "the jump", forward: float = 0.0) -> Generator[Action, None, float]:
    """Jump (moving ``forward`` as well); ``PrimitiveFailed`` naming ``what`` if the feet did not
    rise; the take-off's height, metres."""
    take_off_y = situation.body.feet_y_m
    yield action(move_forward=forward, jump=1.0)
    if situation.body.feet_y_m < take_off_y + 0.1:
        raise PrimitiveFailed(f"{what} did not leave the ground ({describe(situation.body)})")
    return take_off_y


def find_edge(situation: Situation, target) -> float | None:
    """Distance along the straight line from the feet to ``target`` of its first edge (see the
    module doc), or None if the way there is even."""
    body = situation.body
    distances, heights = situation.ground.profile(body.position, target)
    here = heights[0]
    away = np.nonzero(np.abs(heights - here) > EDGE_STEP_M)[0]
    return float(distances[away[0]]) if away.size else None


def way_is_floor(situation: Situation, target) -> bool:
    """Whether the straight line from the feet to ``target`` runs over ground no steeper than the
    floor angle (``mechanics.FLOOR_MAX_SLOPE_DEG``): no gap or ledge left between."""
    distances, heights = situation.ground.profile(situation.body.position, target)
    rise = np.abs(np.diff(heights))
    return bool((rise <= np.diff(distances) * math.tan(math.radians(mechanics.FLOOR_MAX_SLOPE_DEG)) + 1e-6).all())


@attr.s(auto_attribs=True)
class JumpTo(CrossTo):
    """Jump across the gap or onto the ledge between the feet and ``target`` (x, y, z), then walk
    to it. Fails if the body falls into the gap or lands short of the ledge, or cannot reach the edge."""

    name = "jump"

    def budget_steps(self, situation: Situation) -> int:
        return self.walking_steps(situation) + AIR_STEPS + 60

    def actions(self, situation: Situation) -> Iterator[Action]:
        if item_under(situation, self.target) is not None:  # onto an item that a running jump would shove
            yield from JumpOnto(self.target).actions(situation)
            return
        edge = find_edge(situation, self.target)
        if edge is not None:
            yield from self._approach(situation, edge)
            yield from self._settle(situation)
            yield from self._leap(situation)
        yield from self.walk_the_rest(situation)

    def _approach(self, situation: Situation, edge_m: float) -> Iterator[Action]:
        """Walk straight at the target until the body's axis is TAKE_OFF_M from the edge, facing it."""
        start = np.array(situation.body.xz)
        direction = np.array([self.target[0], self.target[2]]) - start
        direction /= np.linalg.norm(direction)
        previous = None
        for _ in range(int(edge_m / (0.2 * WALK_PER_STEP_M)) + 20):
            body = situation.body
            travelled = float(np.dot(np.array(body.xz) - start, direction))
            left = edge_m - TAKE_OFF_M - travelled
            yaw_error = body.yaw_error_rad(self.target)
            if left <= 0.05 and abs(yaw_error) < 0.05:
                return
            blocked = previous is not None and abs(travelled - previous) < 0.01 and left > 0.05 and abs(yaw_error) < 0.05
            if blocked:  # against a ledge's face already
                return
            previous = travelled
            forward = 0.0 if abs(yaw_error) > 0.5 else float(np.clip(left / WALK_PER_STEP_M, 0.0, 1.0))
            yield action(move_forward=forward, head_yaw=turn_rate(yaw_error), head_pitch=turn_rate(-body.head_pitch_rad))
        raise PrimitiveFailed(f"never reached the edge {edge_m:.2f} m ahead ({describe(situation.body)})")

    def _settle(self, situation: Situation) -> Iterator[Action]:
        """Stand still until the feet stay at one height for two steps running (a body that ran
        into the lip's slope may bounce off it: in the air, its jump would not leave the ground),
        for a few steps at most."""
        quiet = 0
        for _ in range(SETTLE_STEPS):
            before = situation.body.feet_y_m
            yield action()
            quiet = quiet + 1 if abs(situation.body.feet_y_m - before) < SETTLED_M else 0
            if quiet == 2:
                return

    def _leap(self, situation: Situation) -> Iterator[Action]:
        """Jump, fly forward at full speed until over the target's level, then slow down so as not
        to overshoot; done once the feet stand on the ground there."""
        take_off_y = yield from leave_ground(situation, forward=1.0)
        lowest_safe = min(take_off_y, self.target[1]) - FALLEN_M
        previous_y = None
        for _ in range(AIR_STEPS):
            body = situation.body
            ground_y = situation.ground.height(*body.xz)
            # Beyond the gap or on the ledge: the way on to the target is even (the ground there
            # may fall or rise gently away from the target's level).
            beyond = way_is_floor(situation, self.target)
            over_landing = beyond or abs(ground_y - self.target[1]) < LANDING_LEVEL_M
            # Standing: the feet near the ground under the body's axis, or (the capsule's round
            # bottom resting on a slope higher up) no longer moving up or down.
            resting = previous_y is not None and abs(body.feet_y_m - previous_y) < SETTLED_M \
                and body.feet_y_m - ground_y < LANDING_LEVEL_M
            if over_landing and (body.feet_y_m - ground_y < LANDED_M or resting):
                return
            previous_y = body.feet_y_m
            if body.feet_y_m < lowest_safe:
                raise PrimitiveFailed(f"fell into the gap jumping from {take_off_y:.2f} m towards {self.target} "
                                      f"({describe(body)})")
            distance = body.horizontal_distance_m(self.target)
            # Over the landing, close in on the target along the way the body faces (back, if the
            # flight carried it past: a narrow landing may end in another drop).
            ahead = distance * math.cos(body.yaw_error_rad(self.target))
            forward = float(np.clip(ahead / WALK_PER_STEP_M, -1.0, 1.0)) if over_landing else 1.0
            yaw_rate = turn_rate(body.yaw_error_rad(self.target)) if distance > 0.5 else 0.0
            yield action(move_forward=forward, head_yaw=yaw_rate)
        raise PrimitiveFailed(f"still in the air after {AIR_STEPS} steps ({describe(situation.body)})")
