"""The reference agent of the compositional tasks (navigate, find, gather, survive): it follows the
certificate's route through every crossing with the route follower's primitives
(:func:`~avalon.agent.scripted.follower.route_primitives`: walks, jumps, climbs) and, where a walk
ends at a door's approach point (a building at the goal), works the door from its front
(:class:`~avalon.agent.scripted.doors.WorkDoor`) before walking on, then eats the food.

It works the doors :class:`WorkDoor` works (hinged doors that open away from it, unlatched or
latched once, locked by nothing or a button); any other door on the way makes it fail naming it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from avalon.agent.scripted.doors import APPROACH_MATCH_M, WorkDoor, approach_point
from avalon.agent.scripted.follower import RouteFollower, route_primitives
from avalon.agent.scripted.primitive import Primitive
from avalon.agent.scripted.walk import WalkTo
from avalon.datagen.world import Entity, World
from avalon.tasks.kit.route import Route


def composed_primitives(world: World, route: Route) -> list[Primitive]:
    """``route``'s primitives, with a :class:`WorkDoor` after each walk that ends at a door's approach point."""
    doors = [entity for entity in world.entities if entity.kind == "door"]
    out: list[Primitive] = []
    for primitive in route_primitives(route):
        out.append(primitive)
        if isinstance(primitive, WalkTo):
            out += [WorkDoor(door) for door in doors
                    if np.hypot(*np.subtract(approach_point(door), primitive.target)[[0, 2]]) < APPROACH_MATCH_M]
    return out


class ComposedFollower(RouteFollower):
    """Follows a compositional world's route through every crossing, working each door it reaches
    on the way into a building at the goal, then eats the food."""

    def __init__(self, world: World, route: Route, foods: Sequence[Entity] | None = None) -> None:
        super().__init__(world, route, foods=foods, primitives=composed_primitives(world, route))
