"""The ``open`` task: start inside a building and open the doors on the way to the room with the food.

Paper, Appendix F.1 and A.4: the agent must open doors (pushed, pulled or slid, latched, held by
locks) to reach the fruit; harder doors and more rooms with difficulty. Difficulty sets every
factor through :data:`KNOBS` (:class:`OpenKnobs`, the table below; ``docs/tasks/open.md`` quotes it):

- the building: one story, a rectangle of 9 x 9 tiles (1 m each, give or take one per side) at
  d = 0 growing to 21 x 21 at d = 1, split into 2 + round(N(3d, 0.1)) rooms (2 to 5; the layout may
  make fewer where the rooms do not fit: a world needs two);
- the agent starts in the middle of a room at the edge of the room graph (a room farthest from
  some other) facing the middle of its first door; the food (an apple) lies on the floor in the room farthest
  from it, so the way passes every doorway between them;
- every doorway between two rooms holds a door whose front (its locks, its button) faces the room
  nearer the spawn. Each door is the walk-through door (swinging both ways, no latch, no lock:
  walked through by pushing it) with probability 1 - 2d (always at d = 0, never from d = 0.5),
  else drawn by the paper's door difficulty at d (``avalon.tasks.kit.doors.door_params``: sliding
  and pull doors, latches and up to three locks as d grows; ``docs/doors.md``).

The building stands on flat ground, its entrance leading out; the outside joins only the
entrance's room, so going out does not go round a door.

Every world is certified (:func:`certificate`): the rooms of the spawn and the food are joined
through doorways; every doorway on that way holds a door whose front faces the room the agent
arrives from, whose locks its mechanism can hold and whose button (if any) sits on a plain wall
with floor in front of it; and with every door closed the food's room is not reached from the
spawn's (nothing bypasses the doors). The route walks to 1.5 m in front of each door and past it
beyond its opened leaf (the doorway's width and 0.5 m), then to beside the food: what the reference agent (``avalon.agent.scripted.doors``)
follows, working each door on the way.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.buildings import TILE_SIZE_M, Building, add_building, free_floor_positions
from avalon.datagen.world import Entity, FlatGround, World
from avalon.errors import BuildingFitError
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError, indoor
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.doors import DoorParams, door_params
from avalon.tasks.kit.geometry import yaw_towards
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.skills import WALK
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class OpenKnobs:
    """Every factor of an open world that the difficulty d in [0, 1] sets (docs/tasks/open.md quotes it)."""

    #: Side of the building's footprint, tiles of 1 m, before a uniform ±1 per side (9 at d = 0, 21 at 1).
    building_side_tiles: Ramp = Ramp(9.0, 12.0)
    #: Mean of the rooms beyond two (normal, standard deviation ROOM_SPREAD, rounded; 2-5 rooms).
    extra_rooms: Ramp = Ramp(0.0, 3.0)
    #: Chance that a door is the walk-through door, clipped to [0, 1] (1 at d = 0, 0 from d = 0.5).
    walk_through_probability: Ramp = Ramp(1.0, -2.0)
    #: Training episodes are truncated after this many seconds.
    training_time_limit_s: Ramp = Ramp(60.0, 120.0)


KNOBS = OpenKnobs()
#: Standard deviation of the room count's draw round ``2 + extra_rooms``.
ROOM_SPREAD = 0.1
MIN_ROOMS, MAX_ROOMS = 2, 5
#: The door of d = 0: it swings both ways, has no latch and no lock; the body pushes it open.
WALK_THROUGH_DOOR = DoorParams(mechanism="hinged_both", hinge_side="left", latch="none", locks=())
FOOD_NAME = "food_0"
#: Flat ground beyond the building on each side, metres.
GROUND_MARGIN_M = 12.0
#: The route's last walk stops this far from the food's centre, metres.
FOOD_STAND_OFF_M = 0.8


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class OpenLayout:
    """What a generated open world is made of, in the task's terms."""

    world: World
    building: Building
    spawn_room: int
    food_room: int
    #: (doorway index, room entered from) of each door on the way, in order.
    route_doorways: tuple[tuple[int, int], ...]


def _building(rng: np.random.Generator, difficulty: float) -> Building:
    side = KNOBS.building_side_tiles.at(difficulty)
    width, length = (int(round(side + rng.uniform(-1.0, 1.0))) for _ in range(2))
    rooms = int(np.clip(MIN_ROOMS + round(rng.normal(KNOBS.extra_rooms.at(difficulty), ROOM_SPREAD)), MIN_ROOMS, MAX_ROOMS))
    origin = (-width * TILE_SIZE_M / 2.0, 0.0, -length * TILE_SIZE_M / 2.0)
    building = indoor.one_story_building("open", width, length, rooms, rng, origin=origin)
    if len(building.stories[0].rooms) < MIN_ROOMS:
        raise ImpossibleWorldError(f"open: the {width} x {length} building has one room; the task needs two")
    return building


def _spawn_and_food_rooms(building: Building, rng: np.random.Generator) -> tuple[int, int]:
    """A room at the edge of the room graph (one of those farthest from some other) and, drawn
    among the rooms farthest from it, the food's."""
    rooms = range(len(building.stories[0].rooms))
    distances = {room: indoor.room_distances(building, room) for room in rooms}
    if any(len(d) < len(rooms) for d in distances.values()):
        raise ImpossibleWorldError("open: the building's rooms are not all joined by doorways")
    widest = max(max(d.values()) for d in distances.values())
    edge = [room for room in rooms if max(distances[room].values()) == widest]
    spawn = edge[int(rng.integers(len(edge)))]
    farthest = [room for room, hops in sorted(distances[spawn].items()) if hops == widest]
    return spawn, farthest[int(rng.integers(len(farthest)))]


def _doors(building: Building, spawn_room: int, route, difficulty: float, rng: np.random.Generator) -> list[Entity]:
    """A door in every doorway between rooms: those of the way in its order, then the others; each
    facing the room nearer the spawn."""
    near = indoor.room_distances(building, spawn_room)
    on_route = [k for k, _ in route]
    others = [k for k in indoor.interior_doorways(building) if k not in on_route]
    entered = dict(route)
    for k in others:
        a, b = building.doorways[k].rooms
        entered[k] = a if near[a] <= near[b] else b
    walk_through = float(np.clip(KNOBS.walk_through_probability.at(difficulty), 0.0, 1.0))
    made = []
    for k in on_route + others:
        params = WALK_THROUGH_DOOR if rng.uniform() < walk_through else door_params(difficulty, rng)
        try:
            made.append(indoor.door_in(building, k, entered[k], params))
        except ValueError as error:
            raise ImpossibleWorldError(f"open: {error}") from error
    return made


def _food(building: Building, food_room: int, rng: np.random.Generator) -> Entity:
    centre = indoor.room_middle(building, food_room)[::2]
    spots = free_floor_positions(building, 0, food_room)
    if not spots:
        raise ImpossibleWorldError(f"open: room {food_room} has no free floor for the food")
    x, y, z = min(spots, key=lambda p: (math.hypot(p[0] - centre[0], p[2] - centre[1]), p))
    radius = FOOD_RADIUS_M["apple"]
    return Entity(kind="apple", name=FOOD_NAME, position=(x, y + radius, z), yaw_rad=float(rng.uniform(-math.pi, math.pi)),
                  params={"radius": radius})


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> OpenLayout:
    """The open world of one attempt and what it is made of (the registry takes ``.world``)."""
    building = _building(rng, difficulty)
    spawn_room, food_room = _spawn_and_food_rooms(building, rng)
    route = indoor.doorway_route(building, spawn_room, food_room)
    doors = _doors(building, spawn_room, route, difficulty, rng)
    food = _food(building, food_room, rng)
    spawn = indoor.room_middle(building, spawn_room)
    first = building.doorways[route[0][0]].position
    side = max(building.size_m) + 2.0 * GROUND_MARGIN_M
    world = World(task="open", difficulty=difficulty, seed=0, ground=FlatGround(size_m=float(side)),
                  entities=(food, *doors), spawn_position=spawn, spawn_yaw_rad=yaw_towards((spawn[0], spawn[2]), (first[0], first[2])),
                  time_limit_frames=TIME_LIMIT_FRAMES)
    try:
        world = add_building(world, building)
    except BuildingFitError as error:
        raise ImpossibleWorldError(f"open: {error}") from error
    accepted = certificate(world)
    if not accepted.ok:
        raise ImpossibleWorldError(f"open: {accepted.reason}")
    return OpenLayout(world=world, building=building, spawn_room=spawn_room, food_room=food_room, route_doorways=tuple(route))


def _room_of(building: Building, point) -> int:
    tile = building.tile_at(point[0], point[2])
    return -1 if tile is None else int(building.room_ids(0)[tile])


def certificate(world: World) -> Certificate:
    """The open world's certificate (see the module's docstring): the route through the doors,
    each workable from the side the agent arrives on, and no way to the food with them closed."""
    if len(world.buildings) != 1 or not world.food:
        raise ValueError("open certificate: expected a world with one building and food")
    building, food = world.buildings[0], world.food[0]
    spawn_room, food_room = _room_of(building, world.spawn_position), _room_of(building, food.position)
    allowed = frozenset({WALK})
    problems = []
    if spawn_room < 0 or food_room < 0:
        problems.append("the spawn or the food is not in a room of the building")
        route = []
    else:
        try:
            route = indoor.doorway_route(building, spawn_room, food_room)
        except ValueError as error:
            problems.append(str(error))
            route = []
    doors = indoor.doors_by_doorway(world, building)
    steps = []
    for k, entered_from in route:
        if k not in doors:
            problems.append(f"doorway {k} on the way has no door")
            continue
        why = indoor.door_problem(building, doors[k], k, entered_from)
        if why:
            problems.append(why)
        doorway = building.doorways[k]
        front, back = indoor.stand_points(doorway, indoor.front_yaw_rad(doorway, entered_from))
        if (_room_of(building, front), _room_of(building, back)) != (entered_from, indoor.other_room(doorway, entered_from)):
            problems.append(f"the stand points before and past {doors[k].name} are not in the rooms it joins")
        steps += [RouteStep(WALK, front), RouteStep(WALK, back)]
    bypassed = spawn_room >= 0 and food_room in indoor.closed_doors_reach(building, spawn_room, set(doors))
    solvable = not problems and bool(steps)
    if solvable:
        last = steps[-1].target
        away = np.subtract((last[0], last[2]), (food.position[0], food.position[2]))
        x, z = np.array([food.position[0], food.position[2]]) + away / max(float(np.hypot(*away)), 1e-9) * FOOD_STAND_OFF_M
        steps.append(RouteStep(WALK, (float(x), building.floor_top_m(0), float(z))))
    reasons = problems + (["the food's room is reached with every door closed"] if bypassed else [])
    return Certificate(required=frozenset(), allowed=allowed, solvable=solvable, bypassed=bypassed,
                       route=Route(start=world.spawn_position, steps=steps) if solvable else None,
                       reason="; ".join(reasons))


TASK = TaskSpec(name="open", generate=build_layout, knobs=KNOBS, certificate=certificate,
                food_visible_from_spawn=False, food_reachable_on_foot=False, table_row=15, in_sets_from_version=4,
                reference_agent="avalon.agent.scripted.doors:DoorFollower")
