"""The scripted agent's pure-Python parts: body geometry, actions, the ground model read from a
World spec, walking paths, walk routes of eat and move worlds, and how a follower reports."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.agent.scripted.actions import TURN_PER_STEP_RAD, action, steps_to_turn, turn_rate
from avalon.agent.scripted.avoid import AvoidFollower
from avalon.agent.scripted.body import Body
from avalon.agent.scripted.follower import SKILL_PRIMITIVES, FollowResult, RouteFollower, step_primitive
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.paths import EDGE_CLEARANCE_M, plan_walk
from avalon.agent.scripted.policy import follower_for
from avalon.agent.scripted.task_routes import route_for, walk_route
from avalon.datagen.scenery import SceneryInstance, SceneryKind
from avalon.datagen.world import Entity, FlatGround, World
from avalon.rules import mechanics
from avalon.tasks import TASKS, move
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.spec import TaskSpec


def _body(position=(0.0, 0.0, 0.0), yaw=0.0, head=1.7, pitch=0.0) -> Body:
    return Body(position=position, yaw_rad=yaw, head_height_m=head, head_pitch_rad=pitch,
                hand_positions=(mechanics.LEFT_HAND_REST_M, mechanics.RIGHT_HAND_REST_M), grasping=(False, False),
                colliding=(False, False), energy=1.0, food_eaten=0, food_total=1, success=False,
                achievements=frozenset(), frame=0)


def _flat_world(entities=(), scenery=(), spawn=(0.0, 0.0, 0.0)) -> World:
    return World(task="test", difficulty=0.0, seed=0, ground=FlatGround(size_m=40.0), entities=tuple(entities),
                 scenery=tuple(scenery), spawn_position=spawn, time_limit_frames=100)


def _box(name, centre, size, yaw=0.0):
    return Entity(kind="box", name=name, position=centre, yaw_rad=yaw, params={"size": size, "color": (0.5, 0.5, 0.5)})


def test_body_geometry_follows_godots_axes():
    body = _body(position=(1.0, 2.0, 3.0), yaw=math.pi / 2)  # facing -x
    assert body.facing == pytest.approx((-1.0, 0.0), abs=1e-12)
    assert body.to_body_frame((0.0, 2.5, 3.0)) == pytest.approx([0.0, 0.5, -1.0])  # straight ahead, 0.5 m up
    assert body.to_body_frame((1.0, 2.0, 2.0)) == pytest.approx([1.0, 0.0, 0.0])  # -z is to its right
    assert body.yaw_error_rad((1.0, 0.0, 2.0)) == pytest.approx(-math.pi / 2)  # turn right
    assert body.yaw_error_rad((1.0, 0.0, 4.0)) == pytest.approx(math.pi / 2)
    assert body.pitch_to_rad((0.0, 3.7, 3.0)) == pytest.approx(0.0)  # at eye height
    assert body.pitch_to_rad((0.0, 2.7, 3.0)) == pytest.approx(-math.pi / 4)


def test_actions_fill_every_part_and_refuse_unknown_ones():
    parts = action(move_forward=0.5, right_grasp=1)
    assert parts["move_forward"].tolist() == [0.5] and parts["right_grasp"] == 1 and parts["eat"] == 0
    assert parts["head_yaw"].dtype == np.float32
    with pytest.raises(ValueError, match="unknown mouse_keyboard action part.*'fly'"):
        action(fly=1.0)
    assert turn_rate(TURN_PER_STEP_RAD / 2) == pytest.approx(0.5) and turn_rate(-10.0) == -1.0
    assert steps_to_turn(math.pi) == 10 and steps_to_turn(0.0) == 0


def test_the_ground_is_the_terrain_or_a_static_boxs_top():
    ground = Ground(_flat_world([_box("step", (2.0, 0.5, 0.0), (2.0, 1.0, 2.0), yaw=math.pi / 4)]))
    assert ground.height(0.0, 0.0) == 0.0
    assert ground.height(2.0, 0.0) == pytest.approx(1.0)
    assert ground.height(2.0 + 1.3, 0.0) == pytest.approx(1.0)  # a corner of the turned box (half diagonal 1.41)
    assert ground.height(2.0 + 1.0, 1.0) == 0.0  # beside its turned face
    distances, heights = ground.profile((0.0, 0.0, 0.0), (4.0, 0.0, 0.0))
    assert distances[-1] == pytest.approx(4.0) and heights.max() == pytest.approx(1.0) and heights[0] == 0.0


def test_a_walk_goes_round_a_tree_and_keeps_off_food_on_the_ground():
    tree = SceneryInstance(kind=SceneryKind.MAPLE, position=(0.0, 0.0, -3.0), yaw_rad=0.0, scale=1.0, color=(0.3, 0.5, 0.2))
    apple = Entity(kind="apple", name="apple", position=(0.0, 0.15, -6.5), params={"radius": 0.15})
    ground = Ground(_flat_world([apple], [tree]))
    path = plan_walk(ground, (0.0, 0.0, 0.0), (0.0, 0.0, -8.0))
    assert path.reaches_goal and path.points[-1][[0, 2]] == pytest.approx([0.0, -8.0])
    clearance = ground.obstacle_clearance_m(path.points[:, 0], path.points[:, 2])
    assert clearance.min() >= mechanics.BODY_RADIUS_M  # neither the trunk nor the apple is touched
    assert 8.0 < path.length_m < 10.0  # a detour, not a long way round


def test_a_walk_keeps_to_a_raised_causeway_and_finds_no_way_across_a_gap():
    causeway = _box("causeway", (0.0, 0.5, -5.0), (1.5, 1.0, 12.0))
    ground = Ground(_flat_world([causeway], spawn=(0.0, 1.0, 0.0)))
    path = plan_walk(ground, (0.0, 1.0, 0.0), (0.0, 1.0, -10.0))
    assert path.reaches_goal
    assert np.abs(path.points[:, 0]).max() < 0.75 - EDGE_CLEARANCE_M + 0.25 + 1e-9  # on top, off its edges
    assert path.points[:, 1].min() == pytest.approx(1.0)
    gap = Ground(_flat_world([_box("near", (0.0, 0.5, 0.0), (3.0, 1.0, 3.0)), _box("far", (0.0, 0.5, -6.0), (3.0, 1.0, 3.0))]))
    blocked = plan_walk(gap, (0.0, 1.0, 0.0), (0.0, 1.0, -6.0))
    assert not blocked.reaches_goal and blocked.miss_m > 3.0 and blocked.points[-1][2] > -1.5


def test_every_route_skill_has_a_primitive():
    assert set(SKILL_PRIMITIVES) == set(SKILLS)
    for skill in SKILLS:
        primitive = step_primitive(RouteStep(skill, (1.0, 2.0, 3.0)))
        assert primitive.name == skill and primitive.target == (1.0, 2.0, 3.0)


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_walk_route_of_a_move_world_crosses_the_chasm_on_its_causeway(difficulty):
    world, route = walk_route("move", difficulty, seed=3)
    assert route.start == world.spawn_position
    if not move.has_chasm(difficulty):
        assert route.steps == ()
        return
    assert route.skills() == {"walk"} and len(route.steps) == 2 + sum(difficulty >= d for d in move.KNOBS.causeway_segment_added_at)
    ground = Ground(world)
    for step in route.steps:  # every waypoint stands on the ground, causeway or plateau
        assert step.target[1] == pytest.approx(ground.height(step.target[0], step.target[2]))
    food = world.food[0].position
    assert math.dist(route.steps[-1].target[::2], food[::2]) < move.PLATEAU_RADIUS_M + move.CHASM_NOISE_M


def test_walk_route_refuses_tasks_it_does_not_know_and_bad_input():
    with pytest.raises(ValueError, match="unknown task 'swim'"):
        walk_route("swim", 0.0, 0)
    with pytest.raises(ValueError, match="task 'trivial' has no reference agent"):
        walk_route("trivial", 0.0, 0)
    with pytest.raises(ValueError, match="task 'jump' has no walking route of its own: its route comes from the solvability"):
        walk_route("jump", 0.0, 0)
    with pytest.raises(ValueError, match="difficulty nan"):
        walk_route("eat", float("nan"), 0)
    with pytest.raises(ValueError, match="seed -1"):
        walk_route("eat", 0.0, -1)


def test_the_follower_and_the_route_come_from_the_task_spec(monkeypatch):
    # A task the scripted agents have never heard of: its spec alone names its follower and route.
    route = Route(start=(0.0, 0.0, 0.0), steps=(RouteStep("walk", (0.0, 0.0, -2.0)),))
    toy = TaskSpec(name="toy", generate=lambda rng, d, config: _flat_world(), training_time_limit_s=Ramp(10.0),
                   food_visible_from_spawn=True, food_reachable_on_foot=True,
                   reference_agent="avalon.agent.scripted.avoid:AvoidFollower", reference_route=lambda world: route)
    monkeypatch.setitem(TASKS, "toy", toy)
    world = attr.evolve(_flat_world([Entity(kind="apple", name="apple", position=(0.0, 0.15, -3.0))]), task="toy")
    assert route_for(world) is route
    assert type(follower_for(world, route)) is AvoidFollower
    monkeypatch.setitem(TASKS, "toy", attr.evolve(toy, reference_agent=None))
    for call in (lambda: route_for(world), lambda: follower_for(world, route)):
        with pytest.raises(ValueError, match="task 'toy' has no reference agent"):
            call()


def test_a_follower_must_be_reset_and_reports_what_it_has_done():
    world = _flat_world([Entity(kind="apple", name="apple", position=(0.0, 0.15, -1.0))])
    follower = RouteFollower(world, Route(start=world.spawn_position, steps=()))
    with pytest.raises(RuntimeError, match="before reset"):
        follower.act({}, {})
    assert not follower.result.finished
    failed = FollowResult(finished=True, succeeded=False, failed_step=1, failed_skill="jump", reason="fell into the gap")
    assert failed.describe() == "failed at step 1 (jump): fell into the gap"
