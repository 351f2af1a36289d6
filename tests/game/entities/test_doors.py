"""Doors in the real simulator, worked by scripted hand and body motions (docs/doors.md): for each
mechanism, the agent pushed against the closed door stays on its side; then it opens the door as
that mechanism allows (pushing, pulling, dragging aside) and walks through."""

from __future__ import annotations

import math

import pytest

from avalon.errors import WorldLoadError
from tests.conftest import zero_action
from tests.datagen.tampering import copy_world, edit_scene
from tests.game.entities import doorways as dw
from tests.game.runs import Run

pytestmark = pytest.mark.godot


env = pytest.fixture(scope="module")(dw.vr_env)
world = pytest.fixture(scope="module")(dw.doorway_worlds)


@pytest.mark.parametrize("hinge_side", ["left", "right"])
def test_a_free_push_door_is_walked_through(env, world, hinge_side):
    run = Run(env, world(f"push_free_{hinge_side}", "hinged_push", hinge_side=hinge_side))
    assert dw.walk_forward(run, 12) < dw.THROUGH_Z


def test_a_door_that_swings_both_ways_is_walked_through(env, world):
    run = Run(env, world("both_free", "hinged_both"))
    assert dw.walk_forward(run, 12) < dw.THROUGH_Z


def test_a_latched_push_door_stops_the_body_until_its_handle_is_grasped_and_pushed(env, world):
    run = Run(env, world("push_once", "hinged_push", latch="once"))
    assert dw.walk_forward(run, 8) > dw.IN_FRONT_Z  # latched: walking into it does not open it
    assert dw.grasp_at(run, dw.hinged_handle())
    dw.push_through(run, steps=3)  # the hand pushes it ajar
    dw.release(run)
    assert dw.walk_forward(run, 10) < dw.THROUGH_Z  # unlatched for good: the body pushes it on


def test_a_pull_door_is_not_pushed_open_but_pulled_open_and_walked_round(env, world):
    run = Run(env, world("pull_free", "hinged_pull"))
    assert dw.walk_forward(run, 8) > dw.IN_FRONT_Z  # it cannot turn away from the front
    dw.walk_to(run, 0.35, dw.WALL_FRONT_Z + 0.45)
    assert dw.grasp_at(run, dw.hinged_handle())
    # Pull: the handle goes round the hinge toward the front while the body keeps ahead of the leaf.
    for degrees in range(5, 90, 6):
        angle = math.radians(degrees)
        ahead = angle + math.radians(28.0)
        body = (dw.HINGE_X + 1.65 * math.cos(ahead), dw.DOOR_Z + 1.65 * math.sin(ahead))
        dw.drive(run, body_target=body, hand_target=dw.hinged_handle(angle), grasp=True)
        assert run.grasping(dw.RIGHT), f"the hand slipped off the handle at {degrees} degrees"
    dw.release(run)
    for x, z in ((run.body[0], 0.4), (0.15, 0.4), (0.15, dw.WALL_FRONT_Z + 0.5)):  # round the open leaf
        dw.walk_to(run, x, z)
    assert dw.walk_forward(run, 10) < dw.THROUGH_Z


def test_a_door_stops_at_a_wall_in_its_swing(env, world):
    # A post just behind the wall, beside the hinge and out of the body's way: the leaf stops at
    # it about 33 degrees open, leaving 0.6 m between its edge and the far jamb, too narrow for the
    # body (swung through the post, the door would open fully and the body would walk through).
    run = Run(env, world("push_post", "hinged_push", post=(-0.4, dw.DOOR_Z - 0.45)))
    dw.walk_to(run, 0.25, dw.WALL_FRONT_Z + 0.5)
    assert dw.walk_forward(run, 12) > dw.THROUGH_Z + 0.3
    control = Run(env, world("push_free", "hinged_push"))
    dw.walk_to(control, 0.25, dw.WALL_FRONT_Z + 0.5)
    assert dw.walk_forward(control, 12) < dw.THROUGH_Z


def test_a_door_pulled_against_the_body_stops_there_without_moving_it(env, world):
    run = Run(env, world("pull_free", "hinged_pull"))
    dw.walk_to(run, 0.2, dw.WALL_FRONT_Z + 0.45)  # in the leaf's swing
    assert dw.grasp_at(run, dw.hinged_handle())
    standing = run.body.copy()
    for _ in range(8):  # the hand pulls the handle toward (and past) the body
        dw.drive(run, hand_target=dw.hinged_handle(math.radians(80)), grasp=True)
        assert abs(run.body - standing).max() < 0.01
    dw.release(run)
    assert abs(run.body - standing).max() < 0.01


def test_a_sliding_door_is_not_pushed_open_but_dragged_aside(env, world):
    run = Run(env, world("sliding_once", "sliding", latch="once"))
    assert dw.walk_forward(run, 8) > dw.IN_FRONT_Z
    assert dw.grasp_at(run, dw.sliding_handle())
    dw.drag_aside(run)
    dw.release(run)
    dw.walk_to(run, 0.0, dw.WALL_FRONT_Z + 0.6)
    assert dw.walk_forward(run, 10) < dw.THROUGH_Z


def test_a_world_whose_door_row_was_altered_is_refused_at_reset_naming_the_row(env, world, tmp_path):
    folder = copy_world(world("push_once", "hinged_push", latch="once"), tmp_path / "altered")
    edit_scene(folder, lambda text: text.replace("locks = PoolStringArray(  )", 'locks = PoolStringArray( "padlock" )'))
    with pytest.raises(WorldLoadError, match=r"door node 'Entities/door': locks = .*unknown lock kind 'padlock'"):
        env.reset(options={"world_dir": str(folder)})
    env.reset(options={"world_dir": world("push_once", "hinged_push", latch="once")})  # the next reset works
    env.step(zero_action())


def test_the_same_actions_in_a_door_world_give_the_same_frames(env, world):
    folder = world("push_once", "hinged_push", latch="once")
    frames = []
    for _ in range(2):
        run = Run(env, folder)
        dw.walk_forward(run, 6)
        dw.grasp_at(run, dw.hinged_handle(), steps=6)
        dw.push_through(run, steps=6)
        frames.append(run.observation["rgbd"].copy())
    assert (frames[0] == frames[1]).all()
