"""Moving a liftable item (a stone, a log: any item under ``mechanics.MAX_LIFT_MASS_KG``): grasp it,
carry it to a place, set it down there.

In the ``mouse_keyboard`` space a closing hand goes where the camera looks and takes what it
touches; while it holds an item it returns to its rest pose, ahead of the chest, and the item
comes along as the body walks; opening the hand drops it (``docs/mechanics.md``). So
:class:`GraspItem` walks beside the item, looks at the middle of its near face's upper half and
closes the hand there (the same look-and-close as eating, :func:`~avalon.agent.scripted.eat.grasp`);
:class:`CarryTo` walks to a place with the hand held closed, failing if the item slips out;
:class:`SetDown` opens the hand and steps back. Where the item lies comes from the World spec
(the scripted agent reads no pixels); it is taken square on, by the middle of the side facing the
body: an item moved since (shoved, dropped) is missed and the
primitive fails naming it.
"""

from __future__ import annotations

from collections.abc import Iterator

import attr
import numpy as np

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action
from avalon.agent.scripted.eat import creep_towards, grasp
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation, describe
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity
from avalon.errors import float_triple
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M

#: The hand that carries (1: right), and its action.
HAND = 1
_GRASP = ("left_grasp", "right_grasp")[HAND]
#: The body's axis stands this far out from the item's near face to take it, metres (the body's
#: radius and a hand's reach to spare).
FACE_STAND_OFF_M = mechanics.BODY_RADIUS_M + 0.3
#: The hand aims this far below the item's top, on its near face, metres (at most half its height).
AIM_BELOW_TOP_M = 0.2
#: Attempts at taking the item, each from a little closer.
GRASP_ATTEMPTS = 3
CLOSER_M = 0.15
#: Steps the hand stays open after letting go, and the steps back after it.
RELEASE_STEPS = 4
BACK_STEPS = 4


def item_size_m(item: Entity) -> tuple[float, float, float]:
    """An item's bounding box (x, y, z) at its scale, metres."""
    scale = float(item.param("safe_scale", 1.0))
    return tuple(float(v) * scale for v in TOOL_SIZE_M[item.kind])


def near_face(item: Entity, from_xz) -> tuple[np.ndarray, float]:
    """The outward normal (unit x, z) of the side of ``item``'s footprint that faces ``from_xz``
    most squarely, and its distance from the item's centre, metres. Taken square on, the item held
    ahead of the chest keeps its corners off the body."""
    width, _, depth = item_size_m(item)
    x, _, z = item.position
    to = np.array([from_xz[0] - x, from_xz[1] - z])
    cos, sin = np.cos(item.yaw_rad), np.sin(item.yaw_rad)
    # A turn by yaw about +y takes the item's x axis to (cos, -sin) and its z axis to (sin, cos) in (x, z).
    sides = [(np.array([cos, -sin]), width / 2), (np.array([-cos, sin]), width / 2),
             (np.array([sin, cos]), depth / 2), (np.array([-sin, -cos]), depth / 2)]
    return max(sides, key=lambda side: float(np.dot(side[0], to)))


def near_face_point(item: Entity, from_xz) -> tuple[float, float, float]:
    """The point to take ``item`` by, seen from ``from_xz``: the middle of its side facing that point
    (:func:`near_face`), ``AIM_BELOW_TOP_M`` below its top."""
    _, height, _ = item_size_m(item)
    x, y, z = item.position
    normal, half = near_face(item, from_xz)
    return float(x + half * normal[0]), float(y + height / 2 - min(AIM_BELOW_TOP_M, height / 2)), float(z + half * normal[1])


@attr.s(auto_attribs=True)
class GraspItem(Primitive):
    """Walk beside ``item`` (an entity of the World spec), face it and close the hand on it. Fails
    if it is heavier than a hand lifts or no hand takes it."""

    item: Entity
    name = "grasp_item"

    def budget_steps(self, situation: Situation) -> int:
        return int(4 * situation.body.horizontal_distance_m(self.item.position) / WALK_PER_STEP_M) + 120

    def actions(self, situation: Situation) -> Iterator[Action]:
        mass = float(self.item.param("mass", 0.0) or 0.0)
        if mass > mechanics.MAX_LIFT_MASS_KG:
            raise PrimitiveFailed(f"{self.item.name} weighs {mass:g} kg: more than a hand lifts")
        x, _, z = self.item.position
        away, half = near_face(self.item, situation.body.xz)
        for attempt in range(GRASP_ATTEMPTS):
            distance = max(half + FACE_STAND_OFF_M - attempt * CLOSER_M, mechanics.BODY_RADIUS_M + 0.05)
            spot_xz = (x + distance * away[0], z + distance * away[1])
            spot = (spot_xz[0], float(situation.ground.height(*spot_xz)), spot_xz[1])
            yield from WalkTo(spot, tolerance_m=0.2, must_reach=False).actions(situation)
            yield from creep_towards(situation, spot, 0.15)
            if (yield from grasp(situation, near_face_point(self.item, situation.body.xz))):
                return
        raise PrimitiveFailed(f"no hand took {self.item.name} in {GRASP_ATTEMPTS} attempts ({describe(situation.body)})")


@attr.s(auto_attribs=True)
class CarryTo(Primitive):
    """Walk to ``target`` (x, y, z: the feet) holding what the hand holds. Fails if it is empty at
    the start or lets go on the way."""

    target: tuple[float, float, float] = attr.ib(converter=float_triple)
    tolerance_m: float = 0.3
    name = "carry"

    def budget_steps(self, situation: Situation) -> int:
        return WalkTo(self.target, tolerance_m=self.tolerance_m).budget_steps(situation)

    def actions(self, situation: Situation) -> Iterator[Action]:
        for walk in WalkTo(self.target, tolerance_m=self.tolerance_m, must_reach=False).actions(situation):
            if not situation.body.grasping[HAND]:
                raise PrimitiveFailed(f"the hand holds nothing on the way to {self.target} ({describe(situation.body)})")
            yield {**walk, _GRASP: 1}
        if not situation.body.grasping[HAND]:
            raise PrimitiveFailed(f"the hand let go on the way to {self.target} ({describe(situation.body)})")


@attr.s(auto_attribs=True)
class SetDown(Primitive):
    """Open the hand where the body stands (the item drops from the hand's rest pose in front of
    the chest) and step back from it."""

    name = "set_down"

    def budget_steps(self, situation: Situation) -> int:
        return RELEASE_STEPS + BACK_STEPS + 2

    def actions(self, situation: Situation) -> Iterator[Action]:
        for _ in range(RELEASE_STEPS):
            yield action()
        if situation.body.grasping[HAND]:
            raise PrimitiveFailed(f"the hand did not let go ({describe(situation.body)})")
        for _ in range(BACK_STEPS):
            yield action(move_forward=-0.5)


def carry_primitives(item: Entity, target) -> list[Primitive]:
    """Grasp ``item``, carry it to ``target`` (the feet's place) and set it down there."""
    return [GraspItem(item), CarryTo(target), SetDown()]

