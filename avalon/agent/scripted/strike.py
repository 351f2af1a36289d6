"""Fighting a guard: take a rock, let the predator come, throw the rock onto its back when it is
within reach, and repeat with the next rock until it is knocked out (the ``fight`` task).

Where the guard is, its state and its hits come from ``info["animals"]`` (ground truth: x, y, z,
state, hits per animal in the World spec's order), which a :class:`GuardWatch` keeps up to date
each step; where the rocks lie comes from the World spec.

A chaser runs straight at an agent that stands still and stops with its near end
``animals.CHASE_STOP_GAP_M`` from the body's capsule (``docs/animals.md``), so a standing throw
(``right_throw``: the hand's 2 m/s swing forward and up, docs/mechanics.md) aimed along its line
of approach comes down on its back: the rock falls through a 0.45-0.8 m high back (alligator,
wolf) about 1.35-1.5 m ahead of the body's axis (:func:`falling_rock_at`; measured, a throw lands
0.35 m farther than this model: 2.0 m on level ground), where the guard's body lies once it has
come within :data:`STRIKE_REACH_M`. It strikes at the 3 m/s of a hit only if it has fallen 0.26 m or
more below the hand that let it go (1.3 m above the feet): a guard whose back stands higher than
about 1 m above the feet (one coming down a slope) is struck too slowly, a miss. So
:class:`StrikeGuard` takes the nearest rock (:class:`~avalon.agent.scripted.pick_and_place.GraspItem`),
walks towards the guard until it turns on the agent, then stands, turning so the throwing hand's
line passes through the guard's centre (:func:`~avalon.agent.scripted.throw.aim_yaw_rad`), and
throws when the guard's near end is within reach; missed, it takes the next tool (rocks first,
then the stick, thrown the same way). A guard that does not come (it stays idle) is walked up to
until it is within reach. A held stick is no use here: a blow needs a run (a hand alone moves at
most 2 m/s, below a hit's 3 m/s) and a mouse-and-keyboard hand holds its item 1.2 m up, above a
wolf's or an alligator's back.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Optional

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.animal_watch import GuardWatch, WatchingFollower
from avalon.agent.scripted.body import wrap_angle
from avalon.agent.scripted.follower import route_primitives
from avalon.agent.scripted.pick_and_place import GraspItem
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.throw import HAND, RELEASE_HEIGHT_M, RELEASE_SPEED_M_PER_S, RELEASE_UP, aim_yaw_rad
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.rules import mechanics
from avalon.rules.animals import STATE_ACTIVE
from avalon.tasks.kit.route import Route

_GRASP = ("left_grasp", "right_grasp")[HAND]
_THROW = ("left_throw", "right_throw")[HAND]
#: The rock is thrown when the guard's near end (its centre less half its longest side) is this
#: far from the body's axis or nearer, metres: a standing throw falls through a 0.45-0.8 m high
#: back about 1.35-1.5 m ahead (:func:`falling_rock_at`), and a chaser stops with its near end at the body's radius plus
#: ``animals.CHASE_STOP_GAP_M`` (0.85 m), so its body lies under the rock by the time it lands.
STRIKE_REACH_M = 1.4
#: The throw waits until the aim is within this of the hand's line, radians.
AIM_TOLERANCE_RAD = math.radians(3.0)
#: An idle guard is walked up to again when it has wandered this far from where the walk aimed, metres.
GUARD_MOVED_M = 1.0
#: Steps after a throw to see the rock land and the hit counted.
LANDING_STEPS = 6
#: The tools thrown, rocks first: a stick thrown strikes as a rock does (any tool at 3 m/s is a
#: hit), and it is there when a hand misses a small rock on sloping ground.
THROWN_KINDS = ("rock", "stick")
#: Steps spent at most on one rock between taking it and throwing it.
WAIT_STEPS = 600


def falling_rock_at(height_m: float) -> tuple[float, float]:
    """Where a rock thrown standing on level ground (``right_throw``: released at the hand's rest,
    :data:`~avalon.agent.scripted.throw.RELEASE_HEIGHT_M` up, at the hand's full speed, forward
    and up) comes down through ``height_m`` above the feet: (how far ahead of the body's axis,
    metres; its speed there, m/s). A hit needs ``mechanics.HIT_MIN_SPEED_M_PER_S``."""
    vx = RELEASE_SPEED_M_PER_S * math.sqrt(1.0 - RELEASE_UP * RELEASE_UP)
    vy, g = RELEASE_SPEED_M_PER_S * RELEASE_UP, mechanics.GRAVITY_M_PER_S2
    drop = RELEASE_HEIGHT_M - height_m
    t = (vy + math.sqrt(vy * vy + 2.0 * g * drop)) / g
    return -mechanics.RIGHT_HAND_REST_M[2] + vx * t, math.hypot(vx, vy - g * t)


def _held(parts: Action) -> Action:
    return {**parts, _GRASP: 1}


@attr.s(auto_attribs=True)
class StrikeGuard(Primitive):
    """Knock guard ``k`` of ``watch`` out with ``rocks`` (tools, entities of the World spec: rocks
    first, nearest first, one throw each). Fails when they run out first."""

    watch: GuardWatch
    rocks: tuple[Entity, ...] = attr.ib(converter=tuple)
    k: int = 0
    name = "strike"

    def budget_steps(self, situation: Situation) -> int:
        return len(self.rocks) * (WAIT_STEPS + LANDING_STEPS + 200)

    def actions(self, situation: Situation) -> Iterator[Action]:
        left = list(self.rocks)
        misses: list[str] = []
        while not self.watch.is_down(self.k):
            if not left:
                raise PrimitiveFailed(f"every rock thrown, {self.watch.entities[self.k].name} still up "
                                      f"({self.watch.hits(self.k)} hits): " + "; ".join(misses) + f" ({describe(situation.body)})")
            # Rocks first (they were thrown onto guards in the tests), nearest first.
            rock = min(left, key=lambda r: (r.kind != "rock", situation.body.horizontal_distance_m(r.position)))
            left.remove(rock)
            hits = self.watch.hits(self.k)
            try:
                yield from GraspItem(rock).actions(situation)
                yield from self._throw_when_near(situation)
            except PrimitiveFailed as miss:
                misses.append(f"{rock.name}: {miss}")
                for _ in range(3):
                    yield action()
                continue
            if self.watch.hits(self.k) == hits and not self.watch.is_down(self.k):
                misses.append(f"{rock.name}: thrown, missed")

    def _throw_when_near(self, situation: Situation) -> Iterator[Action]:
        """With a rock in the hand, go towards the guard until it comes (or until it is within
        reach), face it, throw when it is within :data:`STRIKE_REACH_M`, and wait for the rock to land."""
        goal: Optional[tuple[float, float, float]] = None
        walk: Optional[Iterator[Action]] = None
        for _ in range(WAIT_STEPS):
            if not situation.body.grasping[HAND]:
                raise PrimitiveFailed(f"the hand holds no rock ({describe(situation.body)})")
            if self.watch.is_down(self.k):
                return
            guard = self.watch.position(self.k)
            target = (guard[0], guard[2])
            near_end = self.watch.near_end_m(self.k, situation.body.xz)
            yaw_error = wrap_angle(aim_yaw_rad(situation.body.xz, target) - situation.body.yaw_rad)
            if near_end <= STRIKE_REACH_M:
                if abs(yaw_error) <= AIM_TOLERANCE_RAD:
                    break
                yield _held(action(head_yaw=turn_rate(yaw_error)))
                continue
            if self.watch.state(self.k) == STATE_ACTIVE:
                # It is coming: stand still and face it (a chaser stops just within reach).
                walk = None
                yield _held(action(head_yaw=turn_rate(yaw_error)))
                continue
            if walk is None or goal is None or math.dist(target, goal[::2]) > GUARD_MOVED_M:
                goal = guard
                walk = WalkTo(goal, tolerance_m=STRIKE_REACH_M, must_reach=False).actions(situation)
            step = next(walk, None)
            if step is None:
                walk = None
                yield _held(action(move_forward=float(np.clip(near_end / WALK_PER_STEP_M, 0.0, 0.5)),
                                   head_yaw=turn_rate(yaw_error)))
            else:
                yield _held(step)
        else:
            raise PrimitiveFailed(f"{self.watch.entities[self.k].name} never came within reach in {WAIT_STEPS} steps "
                                  f"({describe(situation.body)})")
        hits = self.watch.hits(self.k)
        yield action(**{_GRASP: 1, _THROW: 1})
        if situation.body.grasping[HAND]:
            raise PrimitiveFailed(f"the hand kept the rock on the throw ({describe(situation.body)})")
        for _ in range(LANDING_STEPS):
            if self.watch.is_down(self.k) or self.watch.hits(self.k) > hits:
                return
            yield action()


class StrikeFollower(WatchingFollower):
    """A scripted agent of fight worlds that fights: knocks each guard out in turn with the world's
    rocks and sticks (:class:`StrikeGuard`; each guard is offered every tool: one already
    thrown is reached for where it lay, missed and passed over), then walks the certificate's route to the food and eats it."""

    def __init__(self, world: World, route: Route, rocks: Optional[Sequence[Entity]] = None) -> None:
        self.watch = GuardWatch(world)
        rocks = tuple(e for e in world.entities if e.kind in THROWN_KINDS) if rocks is None else tuple(rocks)
        strikes = [StrikeGuard(self.watch, rocks, k) for k in range(len(self.watch.slots))]
        super().__init__(world, route, primitives=strikes + route_primitives(route))
