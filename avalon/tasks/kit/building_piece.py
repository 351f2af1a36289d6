"""A building as an obstacle piece (:mod:`avalon.tasks.kit.obstacle`): the goal lies in a room of a
one-story building whose entrance faces the way the agent comes, with a door in the entrance and in
every doorway on the way from it to the goal's room, each facing the agent (the door difficulty of
the **open** task: ``avalon.tasks.kit.doors.door_params``).

``building_obstacle(draft, streams, difficulty, constraint)`` follows the piece interface: its
cheap choices (the building's size, layout and doors; all drawn from ``streams.sites``) in the
plan, the terrain work in ``plan.build(draft)``: the draft's height map levelled under the
building (``levelled_heightmap``), plants kept off its site. The returned :class:`Obstacle`'s
``items`` are the doors; its ``detail`` is a :class:`BuildingPiece`, whose ``building`` the caller
adds to the finished world (``avalon.datagen.buildings.add_building``: the site is already level,
so that levels nothing more) and whose ``route`` is the walk through the doors (the height map
does not know walls: a compositional certificate splices this route in for the crossing rather than
searching across the building).

How the building fits the constraint: a square footprint of at least ``KNOBS.side_tiles`` and of
twice the band's inner radius, placed so that the middle of the goal's room (the room farthest
from the entrance's) is the constraint's centre; every corner of the footprint, with the levelled
margin round it, lies within the band's outer radius. The crossing runs from 1.5 m outside the
entrance to the goal room's middle; its requirement is walking (the doors are what it asks).
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.buildings import OUTSIDE, TILE_SIZE_M, Building, levelled_heightmap
from avalon.datagen.buildings.openings import SIDES
from avalon.datagen.buildings.site import BLEND_M, SITE_MARGIN_M
from avalon.tasks.kit import ImpossibleWorldError, indoor
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.doors import door_params
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.route import RouteStep
from avalon.tasks.kit.skills import WALK


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BuildingPieceKnobs:
    """Every factor of the building piece that the difficulty d in [0, 1] sets."""

    #: Least side of the square footprint, tiles of 1 m (9 at d = 0, 15 at 1).
    side_tiles: Ramp = Ramp(9.0, 6.0)
    #: Most rooms of its one story (1 at d = 0: the entrance's door alone; 4 at 1), rounded.
    max_rooms: Ramp = Ramp(1.0, 3.0)


KNOBS = BuildingPieceKnobs()


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class BuildingPiece:
    """What the building piece built: the building to add to the world, the goal's room, and the
    way in through the doors."""

    building: Building
    goal_room: int
    #: (doorway index, room entered from; ``OUTSIDE`` for the entrance) of each door, in order.
    route_doorways: tuple[tuple[int, int], ...]
    #: Walks from in front of the entrance's door through each door to the goal room's middle.
    route: tuple[RouteStep, ...]


def _entrance_side(constraint: Constraint) -> str:
    """The outline side facing the way the path comes in (SIDES are (drow, dcol): +row is +z)."""
    angle = constraint.path_angle_rad()
    toward = (math.cos(angle), math.sin(angle))  # (x, z) from the centre toward the path
    return max(SIDES, key=lambda name: SIDES[name][1] * toward[0] + SIDES[name][0] * toward[1])


def _site_height_m(draft: Draft, building: Building) -> float:
    heightmap = draft.heightmap
    width, length = building.size_m
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    inside_x = (xs >= building.origin[0]) & (xs <= building.origin[0] + width)
    inside_z = (zs >= building.origin[2]) & (zs <= building.origin[2] + length)
    if not inside_x.any() or not inside_z.any():
        raise ImpossibleWorldError(f"building piece: its site at {building.centre} lies off the island's grid")
    return float(np.median(heightmap.heights[np.ix_(inside_z, inside_x)]))


def building_obstacle(draft: Draft, streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The building piece for ``constraint`` (see the module's docstring); ``ImpossibleWorldError``
    naming why when it does not fit the band, its site lies under water or its layout fails."""
    rng = streams.sites
    side = int(max(round(KNOBS.side_tiles.at(difficulty)), math.ceil(2.0 * constraint.inner_radius_m / TILE_SIZE_M)))
    side = min(side, 64)
    plain = indoor.one_story_building("building piece", side, side, int(round(KNOBS.max_rooms.at(difficulty))), rng,
                                      entrance_side=_entrance_side(constraint))
    entrance = next(k for k, doorway in enumerate(plain.doorways) if doorway.is_entrance)
    entrance_room = plain.doorways[entrance].rooms[0]
    hops = indoor.room_distances(plain, entrance_room)
    goal_room = max(sorted(hops), key=lambda room: hops[room])
    middle = indoor.room_middle(plain, goal_room)
    origin = (constraint.centre[0] - middle[0], 0.0, constraint.centre[1] - middle[2])
    placed = plain.moved_to(origin)
    width, length = placed.size_m
    corners = [(origin[0] + dx, origin[2] + dz) for dx in (-SITE_MARGIN_M, width + SITE_MARGIN_M)
               for dz in (-SITE_MARGIN_M, length + SITE_MARGIN_M)]
    farthest = max(math.dist(corner, constraint.centre) for corner in corners)
    if farthest > constraint.outer_radius_m:
        raise ImpossibleWorldError(f"building piece: a {side} x {side} tile building with its margin reaches "
                                   f"{farthest:.1f} m from the goal: beyond the band's {constraint.outer_radius_m:.1f} m")
    way = ((entrance, OUTSIDE), *indoor.doorway_route(plain, entrance_room, goal_room))
    params = [door_params(difficulty, rng) for _ in way]

    def build(draft: Draft) -> Obstacle:
        height = _site_height_m(draft, placed)
        if height <= draft.heightmap.water_height_m:
            raise ImpossibleWorldError(f"building piece: its site at {height:.2f} m lies under the water")
        building = placed.moved_to((origin[0], height, origin[2]))
        try:
            doors = tuple(indoor.door_in(building, k, entered_from, drawn) for (k, entered_from), drawn in zip(way, params))
        except ValueError as error:
            raise ImpossibleWorldError(f"building piece: {error}") from error
        steps = []
        for k, entered_from in way:
            doorway = building.doorways[k]
            steps += [RouteStep(WALK, point) for point in indoor.stand_points(doorway, indoor.front_yaw_rad(doorway, entered_from))]
        goal = (constraint.centre[0], building.floor_top_m(0), constraint.centre[1])
        steps.append(RouteStep(WALK, goal))
        drafted = draft.with_piece(levelled_heightmap(draft.heightmap, building), no_scenery=_site_mask(draft, building))
        start = steps[0].target
        crossing = Crossing(start=(start[0], start[2]), end=constraint.centre,
                            requirement=Requirement(skills=frozenset(), allowed=frozenset({WALK})))
        detail = BuildingPiece(building=building, goal_room=goal_room, route_doorways=way, route=tuple(steps))
        return Obstacle(draft=drafted, crossing=crossing, items=lambda ground: doors, detail=detail)

    return ObstaclePlan(constraint=constraint, build=build, detail=placed)


def _site_mask(draft: Draft, building: Building) -> np.ndarray:
    """Grid points on the levelled site or its blend (where ``add_building`` clears plants)."""
    reach = SITE_MARGIN_M + BLEND_M
    width, length = building.size_m
    xs, zs = draft.heightmap.x_coords_m, draft.heightmap.z_coords_m
    inside_x = (xs >= building.origin[0] - reach) & (xs <= building.origin[0] + width + reach)
    inside_z = (zs >= building.origin[2] - reach) & (zs <= building.origin[2] + length + reach)
    return inside_z[:, None] & inside_x[None, :]
