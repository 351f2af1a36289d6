"""The reference agent of worlds with doors on the way (the ``open`` task): it follows the
certificate's route and, at each door it reaches, works the door from its front before walking
through.

Where each door's parts are comes from the World spec and the door table (``avalon/rules/doors.py``,
as ``godot/entities/doors/door.gd`` places them). In the ``mouse_keyboard`` space a closing hand
goes where the camera looks: so :class:`WorkDoor` presses a door's button by looking at it and
closing the hand until it touches, and unlatches a door latched ``once`` by taking its handle the
same way and letting go; then the body walks through, pushing the leaf open.

What it works: hinged doors that open away from it (``hinged_both``, ``hinged_push``), without a
latch or latched ``once``, locked by nothing or by a button. A pull or sliding door, a door latched
``always`` (it must be held open while walking round its swing) and a bolt or bar (slid or turned
by a held hand, which the ``mouse_keyboard`` hand holds at its rest pose, 1.2 m up, beyond the
grip's 0.3 m of a bolt 0.7 m up) make :class:`WorkDoor` fail naming the door: the VR hand motions
that work every mechanism and lock are in ``tests/game/entities/doorways.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attr
import numpy as np

from avalon.agent.scripted.actions import Action, action
from avalon.agent.scripted.eat import grasp
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.look import look_rates
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.rules import doors
from avalon.tasks.kit.route import Route

#: The mechanisms, latches and locks :class:`WorkDoor` works (see the module's docstring).
WORKED_MECHANISMS = ("hinged_both", "hinged_push")
WORKED_LATCHES = ("none", "once")
WORKED_LOCKS = ("button",)
#: The body stands this far in front of a button or a handle to reach it, metres.
REACH_STAND_OFF_M = 0.75
#: The walk to that spot may end this far from it, metres.
STAND_TOLERANCE_M = 0.15
#: Steps the closed hand may take to touch the button, and the open hand's steps back after.
PRESS_STEPS = 10
RELEASE_STEPS = 3
#: A route step is a door's approach when its target lies this close to the door's front stand point, metres.
APPROACH_MATCH_M = 0.05
#: How far in front of a door its route's approach stands, metres (``avalon.tasks.kit.indoor``).
APPROACH_M = 1.5


def _front(door: Entity) -> np.ndarray:
    return np.array([np.sin(door.yaw_rad), np.cos(door.yaw_rad)])


def _latch(door: Entity) -> np.ndarray:
    sign = 1.0 if door.param("hinge_side") == "left" else -1.0
    return sign * np.array([np.cos(door.yaw_rad), -np.sin(door.yaw_rad)])


def _point(door: Entity, across_m: float, out_m: float, up_m: float) -> tuple[float, float, float]:
    """A point of a door: ``across_m`` toward its latch side, ``out_m`` toward its front, ``up_m``
    above its floor, from the bottom centre of its opening (world metres)."""
    x, y, z = door.position
    dx, dz = _latch(door) * across_m + _front(door) * out_m
    return (float(x + dx), float(y + up_m), float(z + dz))


def handle_point(door: Entity) -> tuple[float, float, float]:
    """The centre of a closed hinged leaf's front handle."""
    across = door.param("width_m") / 2.0 - doors.LATCH_GAP_M - doors.HANDLE_INSET_M
    return _point(door, across, (doors.DOOR_THICKNESS_M + doors.HANDLE_SIZE_M[2]) / 2.0, doors.HANDLE_HEIGHT_M)


def button_point(door: Entity) -> tuple[float, float, float]:
    """The centre of a door's button, on the wall's front face beside the latch side."""
    button = doors.LOCKS["button"]
    return _point(door, door.param("width_m") / 2.0 + doors.BUTTON_SIDE_OFFSET_M,
                  door.param("wall_thickness_m") / 2.0 + button.size_m[2] / 2.0, button.height_m)


def approach_point(door: Entity) -> tuple[float, float, float]:
    """Where the route stands before a door: ``APPROACH_M`` in front of its opening's centre."""
    return _point(door, 0.0, APPROACH_M, 0.0)


def _stand_before(point, door: Entity) -> tuple[float, float, float]:
    x, y, z = point
    fx, fz = _front(door) * REACH_STAND_OFF_M
    return (x + fx, door.position[1], z + fz)


@attr.s(auto_attribs=True)
class WorkDoor(Primitive):
    """Make ``door`` (an entity of the World spec) free to be walked through from its front:
    press its button, unlatch it by taking its handle; fails naming a door it cannot work."""

    door: Entity
    name = "door"

    def budget_steps(self, situation: Situation) -> int:
        return 200

    def actions(self, situation: Situation) -> Iterator[Action]:
        door = self.door
        mechanism, latch, locks = door.param("mechanism"), door.param("latch"), tuple(door.param("locks"))
        if mechanism not in WORKED_MECHANISMS or latch not in WORKED_LATCHES or set(locks) - set(WORKED_LOCKS):
            raise PrimitiveFailed(f"{door.name} is a {mechanism} door latched {latch!r} with locks {locks}: this agent "
                                  f"works {WORKED_MECHANISMS} doors latched {WORKED_LATCHES} with locks {WORKED_LOCKS}")
        if "button" in locks:
            yield from WalkTo(_stand_before(button_point(door), door), tolerance_m=STAND_TOLERANCE_M,
                              must_reach=False).actions(situation)
            yield from press(situation, button_point(door))
        if latch == "once":
            yield from WalkTo(_stand_before(handle_point(door), door), tolerance_m=STAND_TOLERANCE_M,
                              must_reach=False).actions(situation)
            if not (yield from grasp(situation, handle_point(door))):
                raise PrimitiveFailed(f"no hand took {door.name}'s handle at {handle_point(door)} ({describe(situation.body)})")
            for _ in range(RELEASE_STEPS):
                yield action()


def press(situation: Situation, point) -> Iterator[Action]:
    """Look at ``point`` and close the hand (it goes where the camera looks) until it touches
    something, then open it; :class:`PrimitiveFailed` when it touches nothing."""
    for _ in range(PRESS_STEPS):
        yaw_rate, pitch_rate, _, _ = look_rates(situation.body, point)
        yield action(head_yaw=yaw_rate, head_pitch=pitch_rate, right_grasp=1)
        if situation.body.colliding[1] or situation.body.grasping[1]:
            break
    else:
        raise PrimitiveFailed(f"the hand touched nothing at {tuple(round(v, 2) for v in point)} ({describe(situation.body)})")
    for _ in range(RELEASE_STEPS):
        yield action()


def door_primitives(world: World, route: Route) -> list[Primitive]:
    """The route's walks, with a :class:`WorkDoor` after each walk to a door's approach point."""
    door_entities = [entity for entity in world.entities if entity.kind == "door"]
    out: list[Primitive] = []
    for step in route.steps:
        out.append(WalkTo(step.target))
        for door in door_entities:
            if np.hypot(*np.subtract(approach_point(door), step.target)[[0, 2]]) < APPROACH_MATCH_M:
                out.append(WorkDoor(door))
    return out


class DoorFollower(RouteFollower):
    """Follows the route of a world with doors on its way (its certificate's), working each door
    it reaches (:class:`WorkDoor`), then eats the food."""

    def __init__(self, world: World, route: Route, foods: Sequence[Entity] | None = None) -> None:
        super().__init__(world, route, foods=foods, primitives=door_primitives(world, route))
