"""Hunting with thrown tools: take a rock (or a stick), walk up to a prey animal, throw it at it,
and once it is knocked out, take it and eat it (the ``throw`` and ``hunt`` tasks).

Where the prey is comes from ``info["animals"]`` (the ground truth of each animal, one row per
animal in the World spec's order: x, y, z, state, hits; ``avalon.rules.animals.STATE_*``), which a
:class:`PreyWatch` keeps up to date each step; where the rocks lie comes from the World spec.

In the ``mouse_keyboard`` space ``right_throw`` swings the hand holding an item forward and up at
full speed and opens it in the same step (docs/mechanics.md, "Throwing a rock"): a standing throw
comes down about :data:`THROW_RANGE_M` ahead of the body. So :class:`ThrowAt` walks, rock in hand,
to the spot that range short of the prey (from the side where the ground between is most even,
the range corrected for the ground's drop), turns so the rock's line (:data:`HAND_OFFSET_M` to the
right of the body's axis) passes through the prey, and throws. A rock must come down on the prey
fast to hit it (``animal.gd``: ``on_hit``; one that lands short slides into it too slowly); one hit
knocks out every prey but a deer (two). A prey that moves is led: the aim is where it will be
when the rock comes down (its velocity over the last steps, ``AnimalWatch.lead``), and the walk up
starts over each time that point has moved half a metre, for :data:`CHASE_STEPS` at most (a prey
that flees stops once the body is far enough off). :class:`HuntWithRocks` takes the tools, rocks
first, nearest first, each thrown from another range, until the prey is down, then :class:`EatPrey` takes the
body where ``info`` puts it and eats it (the eating of :mod:`~avalon.agent.scripted.eat`, from
one stand-off only: stepping nearer, the body's capsule would press the small body into the ground).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Optional

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.animal_watch import PreyWatch, WatchingFollower
from avalon.agent.scripted.body import wrap_angle, yaw_towards
from avalon.agent.scripted.eat import (
    STAND_OFF_M,
    STAND_TOLERANCE_M,
    aim_point,
    approach_direction,
    bring_to_mouth,
    creep_towards,
    grasp,
    stand_spot,
)
from avalon.agent.scripted.pick_and_place import GraspItem
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.rules import mechanics
from avalon.tasks.kit.route import Route

#: The hand that throws (1: right) and its grasp and throw actions.
HAND = 1
_GRASP = ("left_grasp", "right_grasp")[HAND]
_THROW = ("left_throw", "right_throw")[HAND]
#: A standing throw (``right_throw``, the body still) knocks out a frog on level ground whose
#: centre lies this far ahead of the body's axis, metres, and this far to its right (the right
#: hand rests 0.3 m to the right; the rock flies a little inwards of it). Measured on d = 0 throw
#: worlds, seeds 0-9 (a frog is 0.18 m long; the rock must come down on it, not slide into it):
#: every world was hit from some range within 1.9-2.1 m, none from every one of them.
THROW_RANGE_M = 2.0
HAND_OFFSET_M = 0.2
#: The ranges the tools are thrown from in turn, metres: no one range hits in every world (d = 0
#: throw worlds, seeds 0-3, one rock each: 1.9 m knocked the frog out in 4, 2.0 m in 3, 2.1 m in 2;
#: hunt's d = 0, seed 0 is hit from 2.0 m, not 1.9 m).
THROW_RANGES_M = (2.0, 1.9, 2.1)
#: The tools thrown, rocks first: a thrown stick strikes as a rock does (any tool at 3 m/s is a
#: hit: docs/animals.md), and a hunt world may hold sticks only.
THROWN_KINDS = ("rock", "stick")
#: The hand leaves the rock at this speed (the hand's full speed), this fraction of it upwards
#: (``mouse_keyboard.gd``: the swing's rate (0, 0.5, -1), normalised), this high above the feet; the
#: rock comes down on what lies this high above the ground, metres (the range's correction for
#: ground above or below the feet only; the level range is measured).
RELEASE_SPEED_M_PER_S = mechanics.MAX_HAND_SPEED_M_PER_S
RELEASE_UP = 0.5 / math.sqrt(1.25)
RELEASE_HEIGHT_M = mechanics.RIGHT_HAND_REST_M[1] + 0.1
TARGET_HEIGHT_M = 0.1
#: Directions round the prey tried for the throw, and the score of a metre walked to its spot
#: against a metre of unevenness along the flight.
APPROACH_DIRECTIONS = 16
APPROACH_WALK_WEIGHT = 0.01
#: Where the prey will be and the throwing spot are kept this far inside the world's edge, metres.
WORLD_MARGIN_M = 1.0
#: The walk to the throwing spot ends within this of it, metres; then the body steps forward or
#: back until its distance from the target is within this of the spot's, metres...
STANCE_TOLERANCE_M = 0.15
RANGE_TOLERANCE_M = 0.02
#: ...and it faces within this of the aim, radians.
AIM_TOLERANCE_RAD = math.radians(0.5)
#: A prey that moved while the body settled is thrown at all the same if the body stands within
#: these of its spot and aim (metres, radians), the aim following where it will be.
MOVING_RANGE_TOLERANCE_M = 0.15
MOVING_AIM_TOLERANCE_RAD = math.radians(2.0)
#: Steps spent at most stepping onto the spot and turning to the aim.
SETTLE_STEPS = 30
#: Steps the agent waits after a throw for the rock to land and the hit to count.
LANDING_STEPS = 15
#: The walk up to the prey starts over when the prey has moved this far from where it was, metres.
PREY_MOVED_M = 0.5
#: The body's axis stands this far from the prey's centre to take it (as from food on the ground), metres.
EAT_STAND_OFF_M = STAND_OFF_M
#: Attempts at taking the knocked-out prey, each aimed at where it lies then, from the side the
#: body is on turned by these, walking first to this far off (then up to ``EAT_STAND_OFF_M``), metres...
EAT_APPROACH_TURNS_RAD = (0.0, math.pi / 2.0, -math.pi / 2.0, math.pi)
EAT_APPROACH_M = 1.0
#: ...and after a failed one it steps back this many steps with whatever the hand took instead
#: (the rock), then drops it.
PUT_AWAY_STEPS = 4
#: Steps spent at most coming up to one prey with one tool (a new approach each time where it will be
#: moved ``PREY_MOVED_M``: a prey that flees stops once the body is far enough off) before the throw
#: is given up.
CHASE_STEPS = 1200


def aim_yaw_rad(body_xz: tuple[float, float], target_xz: tuple[float, float]) -> float:
    """The body's yaw that puts ``target_xz`` on the line of the throwing hand (``HAND_OFFSET_M`` to
    the right of the body's axis, straight ahead)."""
    distance = math.dist(body_xz, target_xz)
    return wrap_angle(yaw_towards(body_xz, target_xz) + math.asin(min(1.0, HAND_OFFSET_M / max(distance, 1e-6))))


def throw_spot(direction: tuple[float, float], target_xz: tuple[float, float], range_m: float = THROW_RANGE_M) -> tuple[float, float]:
    """Where to stand to throw at ``target_xz`` along ``direction`` (unit (x, z), from the spot
    towards the target): ``range_m`` short of it on the throwing hand's line (the body's axis
    ``HAND_OFFSET_M`` to that line's left)."""
    ux, uz = direction
    # The body's right, facing (ux, uz), is (-uz, ux) in (x, z) (x right, z back, yaw 0 faces -z).
    return (target_xz[0] - range_m * ux + HAND_OFFSET_M * uz, target_xz[1] - range_m * uz - HAND_OFFSET_M * ux)


def _flight_s(drop_m: float) -> float:
    """Seconds a rock thrown standing flies until it is ``drop_m`` below its height on level ground."""
    vy, g = RELEASE_SPEED_M_PER_S * RELEASE_UP, mechanics.GRAVITY_M_PER_S2
    fall = max(RELEASE_HEIGHT_M - TARGET_HEIGHT_M + drop_m, 0.0)
    return (vy + math.sqrt(vy * vy + 2.0 * g * fall)) / g


def throw_range_m(drop_m: float) -> float:
    """How far ahead of the body a standing throw comes down onto ground ``drop_m`` below the
    feet (negative: above), metres: :data:`THROW_RANGE_M` on level ground, longer or shorter by the
    ballistic flight's extra time."""
    horizontal = RELEASE_SPEED_M_PER_S * math.sqrt(1.0 - RELEASE_UP * RELEASE_UP)
    return THROW_RANGE_M + horizontal * (_flight_s(drop_m) - _flight_s(0.0))


def throw_direction(ground, body_xz: tuple[float, float], target_xz: tuple[float, float]) -> tuple[float, float]:
    """The direction (unit (x, z), towards the target) to throw at ``target_xz`` from: of
    :data:`APPROACH_DIRECTIONS` round it, the one whose line from the spot to the target runs over
    the most even ground (the throw's range is measured on level ground), the nearer side
    preferred among equals."""
    best, best_score = None, math.inf
    for k in range(APPROACH_DIRECTIONS):
        angle = 2.0 * math.pi * k / APPROACH_DIRECTIONS
        u = (math.cos(angle), math.sin(angle))
        spot = throw_spot(u, target_xz)
        if not bool(ground.contains(*spot)):
            continue
        t = np.linspace(0.0, 1.0, 9)
        xs = spot[0] + t * (target_xz[0] - spot[0])
        zs = spot[1] + t * (target_xz[1] - spot[1])
        heights = np.asarray(ground.height(xs, zs), dtype=float)
        # Unevenness along the flight (beyond a straight slope) and the height difference the range corrects.
        line = heights[0] + t * (heights[-1] - heights[0])
        score = float(np.abs(heights - line).max()) + 0.2 * abs(float(heights[-1] - heights[0])) \
            + APPROACH_WALK_WEIGHT * math.dist(body_xz, spot)
        if float(ground.obstacle_clearance_m(*spot)) < mechanics.BODY_RADIUS_M + 0.1:
            continue
        if score < best_score:
            best, best_score = u, score
    if best is None:
        dx, dz = target_xz[0] - body_xz[0], target_xz[1] - body_xz[1]
        length = max(math.hypot(dx, dz), 1e-6)
        best = (dx / length, dz / length)
    return best


def _holding(situation: Situation) -> bool:
    return bool(situation.body.grasping[HAND])


def _held(parts: Action) -> Action:
    return {**parts, _GRASP: 1}


@attr.s(auto_attribs=True)
class ThrowAt(Primitive):
    """With a rock in the right hand, walk to :func:`throw_spot` of prey ``k`` of ``watch``, aim
    and throw; succeeds once the throw is made and the rock has landed (whether it hit or not:
    ``watch`` says), fails if the hand is empty or the prey cannot be come up to."""

    watch: PreyWatch
    k: int = 0
    range_m: float = THROW_RANGE_M
    name = "throw"

    def budget_steps(self, situation: Situation) -> int:
        return CHASE_STEPS + SETTLE_STEPS + LANDING_STEPS + 40

    def target(self, situation: Situation) -> tuple[float, float]:
        """Where the prey will be when a rock thrown now comes down (x, z), metres: a moving prey is
        led (no farther than :data:`WORLD_MARGIN_M` inside the world's edge)."""
        x, z = self.watch.lead(self.k, _flight_s(0.0) / mechanics.STEP_SECONDS)
        limit = situation.ground.half_size_m - WORLD_MARGIN_M
        return float(np.clip(x, -limit, limit)), float(np.clip(z, -limit, limit))

    def actions(self, situation: Situation) -> Iterator[Action]:
        spent = 0
        while spent < CHASE_STEPS:
            if not _holding(situation):
                raise PrimitiveFailed(f"the hand holds no rock to throw ({describe(situation.body)})")
            target = self.target(situation)
            direction = throw_direction(situation.ground, situation.body.xz, target)
            limit = situation.ground.half_size_m - WORLD_MARGIN_M
            spot = tuple(float(v) for v in np.clip(self._spot(situation, direction, target), -limit, limit))
            goal = (spot[0], float(situation.ground.height(*spot)), spot[1])
            moved = False
            for walk in WalkTo(goal, tolerance_m=STANCE_TOLERANCE_M, must_reach=False).actions(situation):
                yield _held(walk)
                spent += 1
                if math.dist(target, self.target(situation)) > PREY_MOVED_M:
                    moved = True
                    break
            if moved:
                continue
            for settle in self._settle(situation, direction):
                yield settle
                spent += 1
            range_error, yaw_error = self._errors(situation, direction)
            aimed = abs(range_error) <= MOVING_RANGE_TOLERANCE_M and abs(yaw_error) <= MOVING_AIM_TOLERANCE_RAD
            if math.dist(target, self.target(situation)) > PREY_MOVED_M and not aimed:
                continue
            yield action(**{_GRASP: 1, _THROW: 1})
            if _holding(situation):
                raise PrimitiveFailed(f"the hand kept the rock on the throw ({describe(situation.body)})")
            for _ in range(LANDING_STEPS):
                if self.watch.is_down(self.k):
                    return
                yield action()
            return
        raise PrimitiveFailed(f"the prey kept moving off: no throw in {CHASE_STEPS} steps ({describe(situation.body)})")

    def _spot(self, situation: Situation, direction, target) -> tuple[float, float]:
        """The spot to throw from along ``direction``, its range corrected for the ground's drop to the target."""
        level = throw_spot(direction, target, self.range_m)
        drop = float(situation.ground.height(*level)) - float(situation.ground.height(*target))
        return throw_spot(direction, target, self.range_m + throw_range_m(drop) - THROW_RANGE_M)

    def _errors(self, situation: Situation, direction) -> tuple[float, float]:
        """How much farther from the (led) target the body stands than its spot along ``direction``
        (metres), and how far it must turn to the aim (radians)."""
        body, target = situation.body, self.target(situation)
        wanted = math.dist(self._spot(situation, direction, target), target)
        return math.dist(body.xz, target) - wanted, wrap_angle(aim_yaw_rad(body.xz, target) - body.yaw_rad)

    def _settle(self, situation: Situation, direction) -> Iterator[Action]:
        """Turn to the aim and step forward or back until the body stands its spot's distance from
        the (led) target (within ``RANGE_TOLERANCE_M``; a sideways miss of the spot is taken up by the aim)."""
        for _ in range(SETTLE_STEPS):
            error, yaw_error = self._errors(situation, direction)
            if abs(error) <= RANGE_TOLERANCE_M and abs(yaw_error) <= AIM_TOLERANCE_RAD:
                return
            forward = 0.0
            if abs(error) > RANGE_TOLERANCE_M and abs(yaw_error) < math.radians(20.0):
                forward = float(np.clip(error / WALK_PER_STEP_M, -0.3, 0.3))
            yield _held(action(move_forward=forward, head_yaw=turn_rate(yaw_error)))
        # Close enough: the throw goes where it goes.


@attr.s(auto_attribs=True)
class EatPrey(Primitive):
    """Walk to knocked-out prey ``k`` of ``watch`` where it lies now, take it and eat it."""

    watch: PreyWatch
    k: int = 0
    name = "eat prey"

    def budget_steps(self, situation: Situation) -> int:
        return int(6 * situation.body.horizontal_distance_m(self.watch.position(self.k)) / WALK_PER_STEP_M) + 120

    def actions(self, situation: Situation) -> Iterator[Action]:
        if not self.watch.is_down(self.k):
            raise PrimitiveFailed(f"{self.watch.entities[self.k].name} is not knocked out ({describe(situation.body)})")
        misses = []
        for turn in EAT_APPROACH_TURNS_RAD:
            # From the side the body is on, then from either side of it: the rock that struck the
            # prey lies on or beyond it, and a hand may take the rock instead.
            x, y, z = self.watch.position(self.k)
            bx, bz = situation.body.xz
            away = math.atan2(bz - z, bx - x) + turn
            spot_xz = (x + EAT_APPROACH_M * math.cos(away), z + EAT_APPROACH_M * math.sin(away))
            spot = (spot_xz[0], float(situation.ground.height(*spot_xz)), spot_xz[1])
            yield from WalkTo(spot, tolerance_m=0.2, must_reach=False).actions(situation)
            try:  # aimed at where it lies now: the body or a rock may have shoved it since
                yield from _eat_lying(situation, self.watch, self.k)
                return
            except PrimitiveFailed as miss:
                misses.append(str(miss))
            yield from _put_away(situation)
        raise PrimitiveFailed("; ".join(misses))


def _eat_lying(situation: Situation, watch: PreyWatch, k: int) -> Iterator[Action]:
    """Step up beside knocked-out prey ``k`` (``EAT_STAND_OFF_M`` off: nearer, the body's capsule
    would stand on the small body and press it into the ground), take it and eat it."""
    eaten_before = situation.body.food_eaten
    food = watch.as_food(k)
    spot = stand_spot(situation, food, EAT_STAND_OFF_M, approach_direction(situation, food))
    yield from WalkTo(spot, tolerance_m=STAND_TOLERANCE_M, must_reach=False).actions(situation)
    yield from creep_towards(situation, spot, STAND_TOLERANCE_M)
    if not (yield from grasp(situation, aim_point(watch.as_food(k)))):
        raise PrimitiveFailed(f"no hand took {food.name} at {tuple(round(v, 2) for v in watch.position(k))} "
                              f"({describe(situation.body)})")
    yield from bring_to_mouth(situation, eaten_before)


def _put_away(situation: Situation) -> Iterator[Action]:
    """Whatever the hand holds (a rock taken instead of the prey), carried a step back and dropped
    there, clear of the prey (dropped from the mouth it could land on it)."""
    for _ in range(PUT_AWAY_STEPS):
        yield action(move_forward=-0.5, **({_GRASP: 1} if _holding(situation) else {}))
    for _ in range(3):
        yield action()


@attr.s(auto_attribs=True)
class HuntWithRocks(Primitive):
    """Knock prey ``k`` of ``watch`` out with ``rocks`` (tools, entities of the World spec: rocks
    first, nearest first, one throw each), then eat it. Fails when the tools run out first."""

    watch: PreyWatch
    rocks: tuple[Entity, ...] = attr.ib(converter=tuple)
    k: int = 0
    name = "hunt"

    def budget_steps(self, situation: Situation) -> int:
        far = max([situation.body.horizontal_distance_m(r.position) for r in self.rocks]
                  + [situation.body.horizontal_distance_m(self.watch.position(self.k))])
        return int(len(self.rocks) * (8 * far / WALK_PER_STEP_M + CHASE_STEPS + 200)) + 300

    def actions(self, situation: Situation) -> Iterator[Action]:
        left = list(self.rocks)
        misses = []
        ranges = THROW_RANGES_M
        throws = 0
        while not self.watch.is_down(self.k):
            if not left:
                raise PrimitiveFailed(f"every rock thrown, {self.watch.entities[self.k].name} still up: "
                                      + "; ".join(misses) + f" ({describe(situation.body)})")
            rock = min(left, key=lambda r: (r.kind != "rock", situation.body.horizontal_distance_m(r.position)))
            left.remove(rock)
            try:
                yield from GraspItem(rock).actions(situation)
                yield from ThrowAt(self.watch, self.k, ranges[throws % len(ranges)]).actions(situation)
                throws += 1
            except PrimitiveFailed as miss:
                misses.append(f"{rock.name}: {miss}")
                for _ in range(3):
                    yield action()
                continue
            if not self.watch.is_down(self.k):
                misses.append(f"{rock.name}: thrown, missed")
        yield from EatPrey(self.watch, self.k).actions(situation)


class ThrowFollower(WatchingFollower):
    """The scripted agent of throw worlds (and hunt worlds with a rock): hunts each prey in turn
    with the world's rocks (:class:`HuntWithRocks`) and eats it. The certificate's ``route`` (a
    walk to the nearest rock, then to the prey) only says the way is open on foot: the walks are
    planned afresh towards where the rocks and the prey are."""

    def __init__(self, world: World, route: Route, rocks: Optional[Sequence[Entity]] = None) -> None:
        self.watch = PreyWatch(world)
        rocks = tuple(e for e in world.entities if e.kind in THROWN_KINDS) if rocks is None else tuple(rocks)
        primitives = [HuntWithRocks(self.watch, rocks, k) for k in range(len(self.watch.slots))]
        super().__init__(world, route, foods=(), primitives=primitives)
