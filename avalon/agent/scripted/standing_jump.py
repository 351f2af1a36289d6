"""A standing jump up onto a ledge that may be a loose item (the steps of stack's staircase):
straight up, forward only once above it.

:class:`~avalon.agent.scripted.jump.JumpTo` runs forward from the take-off: its body meets the
ledge's face while still rising, which slides it up a terrain face but shoves a loose stone off its
place (the body moves with finite inertia and pushes the items it walks into: a 35 kg stone of a
staircase is knocked off the one below). :class:`JumpUpTo` walks to the face the same way, then
jumps standing and moves forward only while its feet are above the landing (as
``tests/game/agent/test_mechanics.py`` jumps onto two stacked stones): up to 1.5 m above the take-off
(the stepped jump's apex) less ``CLEAR_ABOVE_M``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.jump import AIR_STEPS, FALLEN_M, LANDED_M, LANDING_LEVEL_M, SETTLED_M, JumpTo, leave_ground
from avalon.agent.scripted.primitive import PrimitiveFailed, Situation, describe

#: A jump's target this far above the bare terrain lands on an item, metres.
ON_ITEM_M = 0.3
#: The feet move forward only once this high above the landing, metres.
CLEAR_ABOVE_M = 0.05


@attr.s(auto_attribs=True)
class JumpUpTo(JumpTo):
    """Jump up onto the ledge (a stone's top, a step of a staircase, a cliff's edge) between the
    feet and ``target`` (x, y, z): walk to its face, jump straight up, move over it once above it,
    land and walk to the target. Fails if the body falls or lands short of the ledge."""

    name = "jump_up"

    def _leap(self, situation: Situation) -> Iterator[Action]:
        take_off_y = yield from leave_ground(situation)
        previous_y = None
        for _ in range(AIR_STEPS):
            body = situation.body
            ground_y = situation.ground.height(*body.xz)
            on_landing = abs(ground_y - self.target[1]) < LANDING_LEVEL_M
            # Standing (not at the jump's apex): near the ground below and no longer moving.
            resting = previous_y is not None and abs(body.feet_y_m - previous_y) < SETTLED_M \
                and body.feet_y_m - ground_y < LANDING_LEVEL_M
            if on_landing and (body.feet_y_m - ground_y < LANDED_M or resting):
                return
            if body.feet_y_m < min(take_off_y, self.target[1]) - FALLEN_M:
                raise PrimitiveFailed(f"fell jumping up from {take_off_y:.2f} m towards {self.target} ({describe(body)})")
            previous_y = body.feet_y_m
            above = body.feet_y_m > self.target[1] + CLEAR_ABOVE_M
            ahead = body.horizontal_distance_m(self.target) * math.cos(body.yaw_error_rad(self.target))
            forward = float(np.clip(ahead / WALK_PER_STEP_M, -1.0, 1.0)) if above or on_landing else 0.0
            yield action(move_forward=forward)
        raise PrimitiveFailed(f"still in the air after {AIR_STEPS} steps ({describe(situation.body)})")


def standing_jumps(primitives, terrain: Ground) -> list:
    """``primitives`` with every running :class:`JumpTo` that lands on an item (its target stands
    more than ``ON_ITEM_M`` above ``terrain``: the ground without the items) replaced by a
    :class:`JumpUpTo` to its target; jumps onto terrain keep running (up a steep face the run
    slides the body higher)."""
    out = []
    for p in primitives:
        on_item = type(p) is JumpTo and p.target[1] - terrain.height(p.target[0], p.target[2]) > ON_ITEM_M
        out.append(JumpUpTo(p.target, tolerance_m=p.tolerance_m) if on_item else p)
    return out
