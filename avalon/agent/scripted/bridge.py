"""Crossing a chasm on a log laid across it (the ``bridge`` task).

The route of a bridge world (``task_route("bridge", d, seed)``, the certificate's) walks to the
log's outer end, jumps onto it, walks along its top, steps off beyond its inner end and walks to
the food. Two things differ from a terrain route:

- the agent's ground must know the log: :func:`bridged_world` is the World spec with a static
  box where the log lies, so :class:`~avalon.agent.scripted.ground.Ground` sees its top (the world
  the simulator runs is unchanged);
- the jump onto the log is :class:`MountLog`, not a running jump: walking or flying into the log's
  end would shove it off its place (docs/items.md, "A log bridges a gap"), so the agent jumps
  straight up and moves forward only once its feet are above the log's top
  (``tests/game/entities/tools/test_tools_in_use.py`` does the same).

:class:`LogBridgeFollower` is a :class:`~avalon.agent.scripted.follower.RouteFollower` with both.
Where the log lies elsewhere, :class:`LayLogAcross` fetches it first: it grasps the log's end
(standing on its axis, looking down at it: in the mouse-and-keyboard space the hand goes where the
camera looks), carries it held out ahead along the ring to the stretch, turns to face the
chasm's centre, walks to the brink and lets go; where the log lies then is worked out from the
hand (a held item follows it rigidly), and the crossing runs over it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Optional

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action, turn_rate
from avalon.agent.scripted.body import Body, wrap_angle
from avalon.agent.scripted.follower import RouteFollower, route_primitives
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.jump import leave_ground
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.errors import float_triple
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import bridge as bridge_task
from avalon.tasks.kit import log as kit_log
from avalon.tasks.kit.route import Route

#: The agent moves forward over the log only once its feet are this far above the top, metres
#: (lower, the body's round bottom catches the log's end and shoves it along its axis).
CLEARANCE_M = 0.25
#: Steps in the air before giving up on landing on the log.
AIR_STEPS = 25
#: A landing within this of the log's top is on it, metres.
ON_TOP_M = 0.1


def log_box(log: Entity) -> Entity:
    """A static ``box`` entity of the log's size where it lies (for the agent's ground only)."""
    scale = float(log.param("safe_scale", 1.0) or 1.0)
    size = tuple(v * scale for v in TOOL_SIZE_M["log"])
    return Entity(kind="box", name=f"{log.name}-as-ground", position=log.position, yaw_rad=log.yaw_rad,
                  params={"size": size})


def bridged_world(world: World, logs: Optional[Sequence[Entity]] = None) -> World:
    """``world`` as the agent walks it: every log (default: the world's logs) also a static box."""
    logs = [entity for entity in world.entities if entity.kind == "log"] if logs is None else list(logs)
    return attr.evolve(world, entities=world.entities + tuple(log_box(log) for log in logs))


@attr.s(auto_attribs=True)
class MountLog(Primitive):
    """From beside a log's end, get onto its top at ``target`` (x, top, z): face the target, jump
    straight up, and move forward once the feet are above the top; then walk to the target."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    name = "mount"

    def budget_steps(self, situation: Situation) -> int:
        return int(4 * situation.body.horizontal_distance_m(self.target) / WALK_PER_STEP_M) + AIR_STEPS + 40

    def actions(self, situation: Situation) -> Iterator[Action]:
        for _ in range(40):  # face the target on the spot
            error = situation.body.yaw_error_rad(self.target)
            if abs(error) < 0.02:
                break
            yield action(head_yaw=turn_rate(error))
        take_off = yield from leave_ground(situation, "the jump onto the log")
        previous = None
        for _ in range(AIR_STEPS):
            body = situation.body
            above = body.feet_y_m > self.target[1] + CLEARANCE_M
            on_top = abs(body.feet_y_m - self.target[1]) < ON_TOP_M and previous is not None and \
                abs(body.feet_y_m - previous) < 0.02
            distance = body.horizontal_distance_m(self.target)
            if on_top and distance < 0.5:
                return
            if body.feet_y_m < take_off + 0.05 and previous is not None and body.feet_y_m < previous:
                raise PrimitiveFailed(f"came down short of the log's top {self.target[1]:.2f} m ({describe(body)})")
            previous = body.feet_y_m
            ahead = distance * math.cos(body.yaw_error_rad(self.target))
            forward = float(max(-1.0, min(1.0, ahead / WALK_PER_STEP_M))) if (above or on_top) else 0.0
            yield action(move_forward=forward)
        raise PrimitiveFailed(f"not on the log's top after {AIR_STEPS} steps ({describe(situation.body)})")


def bridge_primitives(route: Route) -> list[Primitive]:
    """The primitives of a bridge route: :func:`route_primitives`, the jump onto the log a
    :class:`MountLog`, the last walk (to beside the food, which eating walks on from) as close as
    it gets."""
    primitives = [MountLog(primitive.target) if primitive.name == "jump" else primitive
                  for primitive in route_primitives(route)]
    if primitives and isinstance(primitives[-1], WalkTo):
        primitives[-1] = WalkTo(primitives[-1].target, must_reach=False)
    return primitives


#: The agent grasps the log standing this far beyond its end on its axis, metres.
GRASP_STAND_OFF_M = 0.6
#: The walk to the log round the ring goes by points this far apart, metres.
APPROACH_LEG_M = 4.0
#: ...closing the hand on its top this far in from the end, metres.
GRIP_FROM_END_M = 0.15
#: The hand tries this many steps to close on the log.
GRASP_STEPS = 20
#: Carrying along the ring, the agent walks straight between points this far apart, metres.
CARRY_LEG_M = 2.0
#: A carrying walk is done this close to its point, metres.
CARRY_TOLERANCE_M = 0.15
#: The agent turns on the spot (the log sweeps round) when its heading is off by more than this, radians.
CARRY_TURN_RAD = math.radians(20.0)
#: Steps to wait after letting go, for the log to come to rest.
SETTLE_STEPS = 6


def _hand_world(body: Body, hand: int = 1) -> np.ndarray:
    """A hand's centre in the world."""
    x, y, z = body.hand_positions[hand]
    c, s = math.cos(body.yaw_rad), math.sin(body.yaw_rad)
    return np.array([body.position[0] + c * x + s * z, body.position[1] + y, body.position[2] - s * x + c * z])


def _grasping_action(**parts: float) -> Action:
    return action(right_grasp=1, **parts)


def _carry_to(situation: Situation, goal, tolerance_m: float = CARRY_TOLERANCE_M) -> Iterator[Action]:
    """Holding on, turn on the spot to face ``goal`` (x, z) and walk straight to it."""
    for _ in range(200):
        body = situation.body
        if not body.grasping[1]:
            raise PrimitiveFailed(f"dropped the log on the way to {tuple(round(v, 2) for v in goal)} ({describe(body)})")
        distance = body.horizontal_distance_m((goal[0], goal[-1]))
        if distance <= tolerance_m:
            return
        error = body.yaw_error_rad((goal[0], goal[-1]))
        forward = 0.0 if abs(error) > CARRY_TURN_RAD else min(1.0, distance / WALK_PER_STEP_M) * math.cos(error)
        yield _grasping_action(move_forward=forward, head_yaw=turn_rate(error), head_pitch=turn_rate(-body.head_pitch_rad))
    raise PrimitiveFailed(f"never got to {tuple(round(v, 2) for v in goal)} carrying the log ({describe(situation.body)})")


def _turn_to(situation: Situation, yaw_rad: float) -> Iterator[Action]:
    """Holding on, turn on the spot to ``yaw_rad``."""
    for _ in range(60):
        error = wrap_angle(yaw_rad - situation.body.yaw_rad)
        if abs(error) < 0.01:
            return
        yield _grasping_action(head_yaw=turn_rate(error))


def _to_world_xz(body: Body, vector) -> np.ndarray:
    """A body-frame vector (x right, z back) turned into the world's (x, z)."""
    c, s = math.cos(body.yaw_rad), math.sin(body.yaw_rad)
    return np.array([c * vector[0] + s * vector[2], -s * vector[0] + c * vector[2]])


@attr.s(frozen=True, auto_attribs=True)
class Grip:
    """How a held log lies relative to the hand that holds it (it follows the hand rigidly): its
    centre from the hand's, in the body frame, metres, and its yaw less the body's, radians."""

    offset: np.ndarray
    relative_yaw_rad: float

    @classmethod
    def taken(cls, body: Body, log: Entity) -> "Grip":
        """The grip of the right hand that has just closed on ``log`` (still where the World spec has it)."""
        offset = body.to_body_frame(np.array(log.position)) - body.to_body_frame(_hand_world(body))
        return cls(offset, wrap_angle(log.yaw_rad - body.yaw_rad))

    def log_xz(self, body: Body) -> np.ndarray:
        """Where the held log's centre is, (x, z)."""
        return _hand_world(body)[[0, 2]] + _to_world_xz(body, self.offset)


@attr.s(auto_attribs=True)
class LayLogAcross(Primitive):
    """Fetch ``log`` (the World spec's) and lay it where ``solved`` lies across a chasm round
    ``centre`` (x, z), carrying it along the ring; then cross on it to ``food`` (x, z) (the
    crossing's primitives, on the ground with the log where it was laid)."""

    log: Entity
    solved: Entity
    centre: tuple[float, float]
    food: tuple[float, float]
    #: Where the log was laid (estimated from the hand), once it has been.
    laid: Optional[Entity] = attr.ib(default=None, init=False)
    name = "lay log"

    def budget_steps(self, situation: Situation) -> int:
        return 3000

    def actions(self, situation: Situation) -> Iterator[Action]:
        block = kit_log.log_footprint(self.log)
        stretch = np.asarray(kit_log.log_footprint(self.solved).centre) - np.asarray(self.centre)
        # Grip the end farther from the stretch: the log then points round the ring the way it goes.
        towards = tuple(np.asarray(self.centre) + stretch)
        sign = 1.0 if math.dist(block.end(1.0), towards) > math.dist(block.end(-1.0), towards) else -1.0
        end = np.asarray(block.end(sign))
        axis = np.asarray(block.axis) * -sign  # from the gripped end along the log
        yield from self._walk_to(situation, end - axis * GRASP_STAND_OFF_M)
        grip_at = end + axis * GRIP_FROM_END_M
        yield from self._grasp(situation, (grip_at[0], block.top_m, grip_at[1]))
        grip = Grip.taken(situation.body, self.log)
        for _ in range(8):  # stand up, the hand (and the log) back to carrying height
            yield _grasping_action(head_pitch=turn_rate(-situation.body.head_pitch_rad))
        yield from self._carry_round(situation, math.atan2(stretch[1], stretch[0]))
        yield from self._lay(situation, grip, -stretch / np.linalg.norm(stretch))
        yield from self._cross(situation)

    def _walk_to(self, situation: Situation, stand: np.ndarray) -> Iterator[Action]:
        """To ``stand`` (x, z), beside the log's end. More than a quarter round the ring, round it in
        short walks first (a walk judges its progress by the straight-line distance, which a way
        round the chasm first lengthens)."""
        centre, ground = np.asarray(self.centre), situation.ground
        here, there = np.asarray(situation.body.xz) - centre, stand - centre
        radius = max(float(np.hypot(*here)), float(np.hypot(*there)))
        start = math.atan2(here[1], here[0])
        turn = math.remainder(math.atan2(there[1], there[0]) - start, 2 * math.pi)
        legs = int(abs(turn) * radius / APPROACH_LEG_M) if abs(turn) > math.pi / 2 else 0
        for k in range(1, legs + 1):
            angle = start + turn * k / (legs + 1)
            point = centre + radius * np.array([math.cos(angle), math.sin(angle)])
            yield from WalkTo((point[0], ground.height(*point), point[1]), must_reach=False).actions(situation)
        yield from WalkTo((stand[0], ground.height(*stand), stand[1]), tolerance_m=0.15).actions(situation)

    def _grasp(self, situation: Situation, grip_point) -> Iterator[Action]:
        """Face along the log, look down at ``grip_point`` (on its top) and close the right hand."""
        for _ in range(40):
            error = situation.body.yaw_error_rad(grip_point)
            if abs(error) < 0.02:
                break
            yield action(head_yaw=turn_rate(error))
        for _ in range(GRASP_STEPS):
            body = situation.body
            if body.grasping[1]:
                return
            pitch = body.pitch_to_rad(grip_point) - body.head_pitch_rad
            yield action(right_grasp=1, head_pitch=turn_rate(pitch), head_yaw=turn_rate(body.yaw_error_rad(grip_point)))
        if not situation.body.grasping[1]:
            raise PrimitiveFailed(f"the hand did not close on the log's end at {grip_point} ({describe(situation.body)})")

    def _carry_round(self, situation: Situation, stretch_angle_rad: float) -> Iterator[Action]:
        """Holding the log, along the ring (at the body's distance from the centre) to the stretch's direction."""
        centre = np.asarray(self.centre)
        radius = float(np.hypot(*(np.asarray(situation.body.xz) - centre)))
        here = math.atan2(situation.body.xz[1] - centre[1], situation.body.xz[0] - centre[0])
        turn = math.remainder(stretch_angle_rad - here, 2 * math.pi)
        legs = max(1, int(math.ceil(abs(turn) * radius / CARRY_LEG_M)))
        for k in range(1, legs + 1):
            angle = here + turn * k / legs
            yield from _carry_to(situation, (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle)))

    def _lay(self, situation: Situation, grip: Grip, inward: np.ndarray) -> Iterator[Action]:
        """Turn the held log out over the chasm onto the solved log's axis, walk in until it lies
        over the piers, let go; :attr:`laid` is where it then lies."""
        facing = math.atan2(-inward[0], -inward[1])
        # The heading that turns the held log onto the solved log's axis (the closer of its two ways round).
        aligned = wrap_angle(self.solved.yaw_rad - grip.relative_yaw_rad)
        if abs(wrap_angle(aligned - facing)) > math.pi / 2:
            aligned = wrap_angle(aligned + math.pi)
        yield from _turn_to(situation, aligned)
        body = situation.body
        # Where the body stands when the log, held as it is, lies where the solved log does.
        brink = np.array([self.solved.position[0], self.solved.position[2]]) - (grip.log_xz(body) - np.asarray(body.xz))
        yield from _carry_to(situation, (brink[0], brink[1]), tolerance_m=0.1)
        yield from _turn_to(situation, aligned)
        body = situation.body
        position = tuple(float(v) for v in grip.log_xz(body))
        yield action()  # let go
        for _ in range(SETTLE_STEPS):
            yield action()
        laid = kit_log.resting_log(situation.world.ground.heightmap, position,
                                       wrap_angle(body.yaw_rad + grip.relative_yaw_rad), name=self.log.name)
        # On the piers it lies as high as the solved log (the terrain under it is lower).
        self.laid = attr.evolve(laid, position=(position[0], max(laid.position[1], self.solved.position[1]), position[1]))

    def _cross(self, situation: Situation) -> Iterator[Action]:
        """Cross on the laid log, the agent's ground now knowing it where it was laid."""
        world = situation.world
        others = [entity for entity in world.entities if entity is not self.log]
        situation.ground = Ground(bridged_world(attr.evolve(world, entities=others), [self.laid]))
        steps = kit_log.crossing_steps(world.ground.heightmap, self.laid, self.food)
        for primitive in bridge_primitives(Route(start=situation.body.position, steps=steps)):
            primitive.budget_steps(situation)
            yield from primitive.actions(situation)


class LogBridgeFollower(RouteFollower):
    """Follows a bridge route over the logs of ``world`` (see the module doc), then eats the food.
    ``layout`` says where the log goes across the trench (default: ``bridge.layout_of(world)``); a
    world whose log lies elsewhere is fetched and laid there first (:class:`LayLogAcross`)."""

    def __init__(self, world: World, route: Route, layout: Optional[bridge_task.BridgeLayout] = None) -> None:
        layout = bridge_task.layout_of(world) if layout is None else layout
        solved = layout.solved_log
        log = next(entity for entity in world.entities if entity.kind == "log")
        if math.dist(log.position, solved.position) < 0.05:
            primitives = bridge_primitives(route)
        else:
            food = world.food[0].position
            primitives = [LayLogAcross(log, solved, layout.chasm.centre, (food[0], food[2]))]
        super().__init__(bridged_world(world), route, foods=world.food, primitives=primitives)
