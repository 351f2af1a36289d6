"""Which primitive a route's steps run: a run of climb steps that ends lower than it starts is
climbed down (the first from the top, the last onto the ground), any other climbed up; a walk to
where a fall, a jump or a climb starts may stop short of it; one primitive per route step."""

from __future__ import annotations

from avalon.agent.scripted.climb import ClimbTo
from avalon.agent.scripted.climb_down import ClimbDownTo, climb_primitives
from avalon.agent.scripted.follower import route_primitives
from avalon.agent.scripted.walk import WalkTo
from avalon.tasks.kit.route import Route, RouteStep


def test_a_run_of_climb_steps_ending_lower_is_climbed_down_from_the_top_onto_the_ground():
    top = (0.0, 20.0, 0.0)
    holds = [(0.0, 19.5, 1.0), (0.5, 10.0, 1.5), (0.5, 1.0, 2.0)]
    down = climb_primitives([top, *holds[:-1]], holds)
    assert [type(p) for p in down] == [ClimbDownTo] * 3
    assert [(p.from_the_top, p.onto_ground) for p in down] == [(True, False), (False, False), (False, True)]
    assert [p.target for p in down] == holds
    up = climb_primitives([(0.0, 1.0, 0.0), (0.0, 5.0, 1.0)], [(0.0, 5.0, 1.0), (0.0, 9.0, 1.5)])
    assert [type(p) for p in up] == [ClimbTo, ClimbTo]
    assert climb_primitives([top], [(0.0, 19.5, 1.0)])[0].__class__ is ClimbTo  # not a metre lower: up


def test_route_primitives_gives_one_primitive_per_step():
    route = Route(start=(0.0, 20.0, 0.0), steps=(
        RouteStep("walk", (0.0, 20.0, -1.0)), RouteStep("climb", (0.0, 12.0, -2.0)),
        RouteStep("climb", (0.0, 1.0, -2.5)), RouteStep("walk", (0.0, 1.0, -8.0)),
        RouteStep("climb", (0.0, 6.0, -9.0)),
    ))
    primitives = route_primitives(route)
    assert [type(p) for p in primitives] == [WalkTo, ClimbDownTo, ClimbDownTo, WalkTo, ClimbTo]
    assert [p.target for p in primitives] == [step.target for step in route.steps]
    assert not primitives[0].must_reach and not primitives[3].must_reach  # (each before a climb)


def test_a_walk_to_where_a_fall_a_jump_or_a_climb_starts_may_stop_short_of_it():
    route = Route(start=(0.0, 9.0, 0.0), steps=(
        RouteStep("walk", (0.0, 9.0, -3.0)), RouteStep("fall", (0.0, 5.0, -5.0)), RouteStep("walk", (0.0, 5.0, -6.0)),
        RouteStep("jump", (0.0, 5.0, -10.0)), RouteStep("walk", (0.0, 5.0, -12.0)),
    ))
    walks = [p for p in route_primitives(route) if isinstance(p, WalkTo)]
    assert [w.must_reach for w in walks] == [False, False, True]
