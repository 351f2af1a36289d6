"""Stepping off an edge and falling to a point below.

The path planner keeps walks away from drops, so this primitive walks straight at the target: off
the edge, on through the air (the body's horizontal speed follows the action in the air too), and
after landing walks the rest of the way. Falls higher than the safe height (5 m, docs/mechanics.md)
cost energy by equation 2; the route decides whether that is acceptable.
"""

from __future__ import annotations

from collections.abc import Iterator

import attr

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action
from avalon.agent.scripted.primitive import PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import CrossTo, walk_towards

#: The fall is over when the feet are this close to the target's height and not moving, metres.
LANDED_M = 0.5
#: Steps the agent may walk or fall before landing near the target's height.
MAX_FALL_STEPS = 80


@attr.s(auto_attribs=True)
class FallTo(CrossTo):
    """Walk off the edge towards ``target`` (x, y, z, below the feet), land, and walk to it. Fails
    if the body never gets down to the target's height (it landed on a ledge, say) or the fall
    ends the episode (energy 0)."""

    name = "fall"

    def budget_steps(self, situation: Situation) -> int:
        return self.walking_steps(situation) + MAX_FALL_STEPS + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        previous_y = situation.body.feet_y_m
        for _ in range(MAX_FALL_STEPS):
            body = situation.body
            if body.energy <= 0.0:
                raise PrimitiveFailed(f"the fall used up all the energy ({describe(body)})")
            if abs(body.feet_y_m - self.target[1]) < LANDED_M and abs(body.feet_y_m - previous_y) < 1e-3:
                break
            previous_y = body.feet_y_m
            yield walk_towards(situation, self.target, speed=min(1.0, body.horizontal_distance_m(self.target) / WALK_PER_STEP_M))
        else:
            raise PrimitiveFailed(f"never came down to {self.target[1]:.2f} m ({describe(situation.body)})")
        yield from self.walk_the_rest(situation)
