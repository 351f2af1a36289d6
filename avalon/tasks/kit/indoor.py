"""What the tasks set inside a building share: the rooms joined by doorways as a graph, the route
through the doorways from one room to another, doors placed in doorways facing the way the agent
comes, and the check that a door on the route can be worked from that side.

Geometry follows :mod:`avalon.datagen.buildings.spec` (tiles of ``TILE_SIZE_M``, rows along +z,
columns along +x) and the door table (:mod:`avalon.rules.doors`): a door's **front** faces +z
turned by its yaw, its locks and its button are on the front, and the agent comes from the front.
A doorway's ``yaw_rad`` is the heading from ``rooms[0]`` to ``rooms[1]``, so a door entered from
``rooms[0]`` has the doorway's yaw, and one entered from ``rooms[1]`` that yaw plus pi.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Optional

import numpy as np

from avalon.datagen.buildings import TILE_SIZE_M, Building, BuildingConfig, Doorway, TileKind, generate_building
from avalon.datagen.world import Entity, World
from avalon.errors import BuildingFitError
from avalon.rules import doors
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.doors import DoorParams

#: A route stands this far in front of a doorway's centre line before its door, metres (inside
#: the room: a wall tile is one tile wide and rooms are at least three).
DOORWAY_STAND_OFF_M = 1.5
#: Past a door the route goes on to this far beyond the leaf's length from the centre line,
#: metres: a hinged leaf opened square to its wall reaches a doorway's width into the room, and
#: the body (0.4 m round) passes its end.
PAST_LEAF_M = 0.5
#: Kinds of tile a button may sit on: a plain wall (not a window, a doorway or the entrance).
BUTTON_WALL_KINDS = (TileKind.WALL, TileKind.OUTER_WALL)


def one_story_building(who: str, width_tiles: int, length_tiles: int, max_rooms: int, rng: np.random.Generator,
                       entrance_side: str = "any", origin=(0.0, 0.0, 0.0)) -> Building:
    """A one-story rectangular building of the default appearance, its seed drawn from ``rng``;
    :class:`ImpossibleWorldError` naming ``who`` and why when its layout fails."""
    config = BuildingConfig(width_tiles=width_tiles, length_tiles=length_tiles, story_count=1, footprint="rectangle",
                            max_rooms=max_rooms, entrance_side=entrance_side)
    try:
        return generate_building(config, int(rng.integers(2**31)), origin=origin, name="building")
    except BuildingFitError as error:
        raise ImpossibleWorldError(f"{who}: {error}") from error


def room_middle(building: Building, room: int, story: int = 0) -> tuple[float, float, float]:
    """The middle of a room's rectangle on its story's floor top (metres)."""
    rect = building.stories[story].rooms[room].rect
    return (building.origin[0] + (rect.col + rect.cols / 2.0) * TILE_SIZE_M, building.floor_top_m(story),
            building.origin[2] + (rect.row + rect.rows / 2.0) * TILE_SIZE_M)


def door_name(doorway_index: int) -> str:
    """The entity name of the door in the building's doorway ``doorway_index``."""
    return f"door_{doorway_index}"


def interior_doorways(building: Building, story: int = 0) -> list[int]:
    """Indices (in ``building.doorways``) of the doorways between two rooms of ``story``."""
    return [k for k, d in enumerate(building.doorways) if d.story == story and not d.is_entrance]


def room_distances(building: Building, start_room: int, story: int = 0) -> dict[int, int]:
    """Doorways passed from ``start_room`` to each room of ``story`` it leads to (breadth first)."""
    distance = {start_room: 0}
    queue = deque([start_room])
    while queue:
        room = queue.popleft()
        for k in interior_doorways(building, story):
            a, b = building.doorways[k].rooms
            for here, there in ((a, b), (b, a)):
                if here == room and there not in distance:
                    distance[there] = distance[room] + 1
                    queue.append(there)
    return distance


def doorway_route(building: Building, from_room: int, to_room: int, story: int = 0) -> list[tuple[int, int]]:
    """The doorways of a shortest way from ``from_room`` to ``to_room``: (doorway index, the room
    it is entered from) in order; ``ValueError`` when no doorways join them."""
    back = room_distances(building, to_room, story)
    if from_room not in back:
        raise ValueError(f"rooms {from_room} and {to_room} of story {story} are not joined by doorways")
    route, room = [], from_room
    while room != to_room:
        k = min((k for k in interior_doorways(building, story) if room in building.doorways[k].rooms
                 and back.get(other_room(building.doorways[k], room), math.inf) == back[room] - 1))
        route.append((k, room))
        room = other_room(building.doorways[k], room)
    return route


def other_room(doorway: Doorway, room: int) -> int:
    a, b = doorway.rooms
    return b if room == a else a


def front_yaw_rad(doorway: Doorway, entered_from: int) -> float:
    """The yaw of a door in ``doorway`` whose front faces the room ``entered_from``."""
    if entered_from not in doorway.rooms:
        raise ValueError(f"room {entered_from} is not one of the doorway's rooms {doorway.rooms}")
    return doorway.yaw_rad if entered_from == doorway.rooms[0] else doorway.yaw_rad + math.pi


def front_direction(yaw_rad: float) -> np.ndarray:
    """The unit (x, z) direction a door of yaw ``yaw_rad`` faces (its front: +z turned by the yaw)."""
    return np.array([math.sin(yaw_rad), math.cos(yaw_rad)])


def latch_direction(yaw_rad: float, hinge_side: str) -> np.ndarray:
    """The unit (x, z) direction from a door's centre to its latch side (its local +x for a door
    hinged on the left, -x on the right)."""
    sign = 1.0 if hinge_side == "left" else -1.0
    return sign * np.array([math.cos(yaw_rad), -math.sin(yaw_rad)])


def stand_points(doorway: Doorway, yaw_rad: float):
    """Feet points (x, y, z) in front of a door of yaw ``yaw_rad`` in ``doorway``
    (:data:`DOORWAY_STAND_OFF_M`) and past it, beyond its opened leaf (:data:`PAST_LEAF_M`)."""
    x, y, z = doorway.position
    fx, fz = front_direction(yaw_rad)
    past = doorway.width_m + PAST_LEAF_M
    return (x + fx * DOORWAY_STAND_OFF_M, y, z + fz * DOORWAY_STAND_OFF_M), (x - fx * past, y, z - fz * past)


def button_problem(building: Building, doorway: Doorway, yaw_rad: float, hinge_side: str) -> Optional[str]:
    """Why a door's button cannot be pressed from the front (None when it can): the wall tile past
    the opening's latch-side edge must be a plain wall, and the tile in front of it room floor (or,
    for the entrance entered from outside, the ground beyond the footprint)."""
    x, _, z = doorway.position
    latch = latch_direction(yaw_rad, hinge_side) * (doorway.width_m / 2.0 + TILE_SIZE_M / 2.0)
    front = front_direction(yaw_rad) * TILE_SIZE_M
    kinds = building.stories[doorway.story].kinds
    wall = building.tile_at(x + latch[0], z + latch[1])
    floor = building.tile_at(x + latch[0] + front[0], z + latch[1] + front[1])
    if wall is None or kinds[wall] not in BUTTON_WALL_KINDS:
        return f"no plain wall for the button beside the doorway at ({x:.1f}, {z:.1f}) on its {hinge_side} hinge's latch side"
    outside = doorway.is_entrance and (floor is None or kinds[floor] == TileKind.VOID)
    if not outside and (floor is None or kinds[floor] != TileKind.ROOM):
        return f"no floor in front of the button beside the doorway at ({x:.1f}, {z:.1f})"
    return None


def door_in(building: Building, doorway_index: int, entered_from: int, params: DoorParams) -> Entity:
    """The door ``params`` describe in a doorway of ``building``, its front toward ``entered_from``.
    A door with a button whose latch side has no wall for it turns its hinge the other way; a
    ``ValueError`` names the doorway when neither side has one."""
    doorway = building.doorways[doorway_index]
    yaw = front_yaw_rad(doorway, entered_from)
    if "button" in params.locks and button_problem(building, doorway, yaw, params.hinge_side):
        flipped = doors.SIDES[1 - doors.SIDES.index(params.hinge_side)]
        why = button_problem(building, doorway, yaw, flipped)
        if why:
            raise ValueError(why)
        params = DoorParams(mechanism=params.mechanism, hinge_side=flipped, latch=params.latch, locks=params.locks)
    return params.entity(door_name(doorway_index), doorway.position, yaw, doorway.width_m, doorway.height_m,
                         doorway.wall_thickness_m)


def door_problem(building: Building, door: Entity, doorway_index: int, entered_from: int) -> Optional[str]:
    """Why ``door`` cannot be worked by an agent arriving from ``entered_from`` (None when it can):
    it must fill the doorway, face that room, hold only locks its mechanism allows, and have a
    pressable button where it has one."""
    doorway = building.doorways[doorway_index]
    yaw = front_yaw_rad(doorway, entered_from)
    if math.dist(door.position, doorway.position) > 1e-6:
        return f"{door.name} does not stand in doorway {doorway_index}"
    if abs(math.remainder(door.yaw_rad - yaw, 2.0 * math.pi)) > 1e-6:
        return f"{door.name}'s front does not face room {entered_from}, where the agent arrives"
    mechanism, locks = door.param("mechanism"), tuple(door.param("locks"))
    reason = doors.locks_error(mechanism, locks)
    if reason is not None:
        return f"{door.name}: {reason}"
    if "button" in locks:
        return button_problem(building, doorway, yaw, door.param("hinge_side"))
    return None


def doors_by_doorway(world: World, building: Building) -> dict[int, Entity]:
    """The world's doors by the index of the doorway of ``building`` each stands in."""
    found = {}
    for k, doorway in enumerate(building.doorways):
        for entity in world.entities:
            if entity.kind == "door" and math.dist(entity.position, doorway.position) < 1e-6:
                found[k] = entity
    return found


def closed_doors_reach(building: Building, start_room: int, closed: set[int], story: int = 0) -> set[int]:
    """Rooms of ``story`` reached from ``start_room`` through doorways not in ``closed`` (the
    entrance adds no way: the outside joins only the entrance's room)."""
    reached = {start_room}
    queue = deque([start_room])
    while queue:
        room = queue.popleft()
        for k, doorway in enumerate(building.doorways):
            if doorway.story != story or doorway.is_entrance or k in closed or room not in doorway.rooms:
                continue
            there = other_room(doorway, room)
            if there not in reached:
                reached.add(there)
                queue.append(there)
    return reached
