"""The compositional tasks' reference agent: the route's primitives, with a door worked after each
walk to a door's approach point (a building at the goal), and none in a world without doors."""

from __future__ import annotations

from avalon.agent.scripted.composed import ComposedFollower, composed_primitives
from avalon.agent.scripted.doors import WorkDoor
from avalon.agent.scripted.follower import route_primitives
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import task_route


def test_each_door_on_the_way_into_the_building_is_worked_once_after_the_walk_to_it():
    world, route = task_route("navigate", 0.25, 0)  # a building at the goal, two doors on the way in
    doors = [entity for entity in world.entities if entity.kind == "door"]
    assert world.buildings and len(doors) == 2
    primitives = composed_primitives(world, route)
    worked = [primitive.door.name for primitive in primitives if isinstance(primitive, WorkDoor)]
    assert sorted(worked) == sorted(door.name for door in doors)
    assert [p for p in primitives if not isinstance(p, WorkDoor)] == route_primitives(route)
    assert isinstance(follower_for(world, route), ComposedFollower)


def test_a_world_without_doors_gets_the_route_followers_primitives():
    world, route = task_route("navigate", 0.5, 3)
    assert not world.buildings
    assert composed_primitives(world, route) == route_primitives(route)
