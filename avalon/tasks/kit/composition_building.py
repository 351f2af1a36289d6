"""A building at a compositional world's goal (paper, Appendix F.2: "the goal in a building with
probability 0.5"): the building piece (:mod:`avalon.tasks.kit.building_piece`) placed round the
goal, the building and its doors added to the finished world, and the certificate's route spliced
through its doors.

The height map does not know walls, so the route search cannot be asked to find the way in: it is
asked for the way from the spawn to the piece's crossing start (in front of the entrance's door),
and the piece's own walk through the doors (:attr:`BuildingPiece.route`) follows it, its last walk
stopping ``FOOD_STAND_OFF_M`` short of the food.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import attr
import numpy as np

from avalon.datagen.buildings import TILE_SIZE_M, add_building
from avalon.datagen.buildings.site import BLEND_M, SITE_MARGIN_M
from avalon.datagen.world import Entity, World
from avalon.errors import BuildingFitError
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.building_piece import KNOBS as BUILDING_KNOBS, BuildingPiece
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.skills import WALK

#: The route's last walk inside the goal's room stops this far from the food's centre, metres (as open's).
FOOD_STAND_OFF_M = 0.8


def goal_site_radius_m(difficulty: float) -> float:
    """The radius round the goal that holds the building piece at ``difficulty`` wherever its goal
    room lies in it: the diagonal of its least footprint with the levelled margin on each side,
    and the blend round that (the bands stop short of it), metres."""
    side = round(BUILDING_KNOBS.side_tiles.at(difficulty)) * TILE_SIZE_M + 2.0 * SITE_MARGIN_M
    return side * math.sqrt(2.0) + BLEND_M


def goal_building(details: Sequence[object]) -> Optional[BuildingPiece]:
    """The building at the goal among pieces' ``details`` (the goal-site piece comes last), or None."""
    return details[-1] if details and isinstance(details[-1], BuildingPiece) else None


def with_goal_building(world: World, piece: BuildingPiece, food_name: str) -> World:
    """``world`` with ``piece``'s building standing in it (its site already level) and the food
    named ``food_name`` lifted onto the building's floor; ``ImpossibleWorldError`` if it does not fit."""
    building = piece.building
    width, length = building.size_m
    for food in world.food:
        inside = all(origin - SITE_MARGIN_M <= v <= origin + extent + SITE_MARGIN_M for v, origin, extent in
                     ((food.position[0], building.origin[0], width), (food.position[2], building.origin[2], length)))
        if inside and food.name != food_name:
            raise ImpossibleWorldError(f"composition: {food.name} at {food.position} lies on the site of the building at the goal")
    try:
        built = add_building(world, building)
    except BuildingFitError as error:
        raise ImpossibleWorldError(f"composition: the building at the goal: {error}") from error
    floor = building.floor_top_m(0)

    def lifted(entity: Entity) -> Entity:
        if entity.name != food_name:
            return entity
        radius = FOOD_RADIUS_M.get(entity.kind, float(entity.param("radius", 0.0) or 0.0))
        return attr.evolve(entity, position=(entity.position[0], floor + radius, entity.position[2]))

    return attr.evolve(built, entities=tuple(lifted(entity) for entity in built.entities))


def spliced_route(outside: Route, piece: BuildingPiece, food: Entity) -> Route:
    """``outside`` (the spawn to the entrance's crossing start) followed by the walk through the
    doors, its last step ``FOOD_STAND_OFF_M`` short of ``food`` on the building's floor."""
    steps = list(piece.route[:-1])
    last = steps[-1].target if steps else outside.start
    away = np.subtract((last[0], last[2]), (food.position[0], food.position[2]))
    x, z = np.array([food.position[0], food.position[2]]) + away / max(float(np.hypot(*away)), 1e-9) * FOOD_STAND_OFF_M
    steps.append(RouteStep(WALK, (float(x), piece.building.floor_top_m(0), float(z))))
    return Route(start=outside.start, steps=(*outside.steps, *steps))
