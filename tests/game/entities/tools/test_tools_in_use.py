"""Tools and movable items in use, in the real simulator (paper, Appendix A.1; docs/items.md).

A log carried to a trench, laid across it and walked over; hands pushing a 200 kg boulder and
shoving light items; sticks and logs staying where they lie. Purpose-built worlds, scripted
actions. Where items are is read from the agent's own frames (colour + depth back to world
points, ``tests/game/camera.py``); where the body is, from ``info["world_body_position"]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.world import Entity, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_SIZE_M
from tests.game.camera import colour_mask, world_points
from tests.game.runs import JUMP_APEX_STEPPED_M, Run, box, flat_world, rate_toward
from tests.game.world_cache import world_cache

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    return world_cache(tmp_path_factory.mktemp("tools"), flat_world)


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=32))
    yield env
    env.close()


@pytest.fixture(scope="module")
def camera_env():
    """Frames fine enough to find items in (a 5 cm stick 2 m away is 2-3 pixels wide)."""
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=128))
    yield env
    env.close()


# ---- A log bridges a trench ---------------------------------------------------------------------

PLATFORM_TOP_M = 3.0  # the trench is this deep: a jump (apex 1.25 m) cannot get out of it
TRENCH_EDGE_Z = -5.0  # the near platform ends here; the agent starts at z = 0 on it
LOG_NEAR_END_Z = -0.55  # the log lies along z, its near end just clear of the body (radius 0.4)
LOG_X = 0.3  # under the right hand
GRIP_FROM_END_M = 0.1
SET_DOWN_SHORT_OF_EDGE_M = 0.35  # the near end is laid this far back from the edge
# (log scale, trench width): the default 3 m log over 2 m; a 7.5 m log (scale 2.5) over 6 m, wider
# than a running jump clears (5 m, docs/mechanics.md).
BRIDGES = [(1.0, 2.0), (2.5, 6.0)]


def _trench_world(scale, width, with_log):
    length = TOOL_SIZE_M["log"][2] * scale
    entities = [
        box("near", (0.0, PLATFORM_TOP_M / 2, TRENCH_EDGE_Z + 6.0), (4.0, PLATFORM_TOP_M, 12.0)),
        box("far", (0.0, PLATFORM_TOP_M / 2, TRENCH_EDGE_Z - width - 6.0), (4.0, PLATFORM_TOP_M, 12.0)),
    ]
    if with_log:
        entities.append(tool_entity("log", "log", (LOG_X, PLATFORM_TOP_M, LOG_NEAR_END_Z - length / 2), safe_scale=scale))
    return entities


class Crossing(NamedTuple):
    carried: bool  # the hand held the log from the lift until it was laid down
    laid: bool  # ...and then let go of it
    positions: np.ndarray  # the body after each step of the walk over, (n, 3)


def _bridge_the_trench(run, scale) -> Crossing:
    """Picks the log up by its near end, carries it to the trench, lays it across, steps onto it
    with a jump and walks on. Open loop (the same actions whether or not there is a log), but for
    where the body stops."""
    thickness = TOOL_SIZE_M["log"][1] * scale
    grip = np.array([LOG_X, thickness + mechanics.HAND_RADIUS_M, LOG_NEAR_END_Z - GRIP_FROM_END_M])
    for _ in range(10):  # crouch (a thin log lies below a standing reach) and put the hand on it...
        before = run.hand(1)
        run.step(head_position=[0, -1 if thickness < 0.5 else 0, 0], right_hand_position=rate_toward(before, grip),
                 right_grasp=int(np.linalg.norm(before - grip) < 0.02))  # ...closing it there
    for _ in range(8):  # stand up, lifting it to hand height
        run.step(head_position=[0, 1, 0], right_hand_position=rate_toward(run.hand(1), (LOG_X, 1.2, grip[2])), right_grasp=1)
    carried = run.grasping(1)
    stop_z = TRENCH_EDGE_Z + SET_DOWN_SHORT_OF_EDGE_M - LOG_NEAR_END_Z
    while run.body[2] > stop_z + 1e-3:  # carry it to the trench, slowing down to stop where it goes down
        run.step(head_position=[0, 0, -min(1.0, (run.body[2] - stop_z) / 0.5)], right_grasp=1)
        carried = carried and run.grasping(1)
    for _ in range(12):  # lower it until it rests on both edges (a held item stops at what it touches)
        run.step(head_position=[0, -1 if thickness < 0.5 else 0, 0],
                 right_hand_position=rate_toward(run.hand(1), grip - (0, 0.05, 0)), right_grasp=1)
    run.step()  # let go
    laid = carried and not run.grasping(1)
    for _ in range(8):  # stand up, hand back to rest
        run.step(head_position=[0, 1, 0], right_hand_position=rate_toward(run.hand(1), mechanics.RIGHT_HAND_REST_M))
    run.step(head_position=[LOG_X / (mechanics.MAX_WALK_SPEED_M_PER_S * mechanics.STEP_SECONDS), 0, 0])  # step right, over the log's axis
    run.step(jump=1)  # straight up (walking into the log's end would shove it)...
    onto_z = TRENCH_EDGE_Z + SET_DOWN_SHORT_OF_EDGE_M - 0.2  # over the log's near end
    for _ in range(12):  # ...forward once above it, until over its near end; land there
        above = run.body[1] > PLATFORM_TOP_M + thickness + 0.05
        run.step(head_position=[0, 0, -0.5 if above and run.body[2] > onto_z else 0])
    positions = []
    for _ in range(40):  # walk on
        run.step(head_position=[0, 0, -0.5])
        positions.append(run.body.copy())
    return Crossing(carried, laid, np.array(positions))


@pytest.mark.parametrize("scale, width", BRIDGES)
@pytest.mark.parametrize("with_log", [True, False])
def test_a_log_carried_to_a_trench_and_laid_across_it_carries_the_agent_over(env, worlds, scale, width, with_log):
    # Without the log the same actions drop the agent into the trench, 3 m deep: it cannot get out.
    run = Run(env, worlds(f"trench-{scale}-{width}-{with_log}", _trench_world(scale, width, with_log),
                          spawn=(0.0, PLATFORM_TOP_M, 0.0)))
    crossing = _bridge_the_trench(run, scale)
    walk = crossing.positions
    far_edge = TRENCH_EDGE_Z - width
    over_trench = walk[(walk[:, 2] < TRENCH_EDGE_Z - mechanics.BODY_RADIUS_M) & (walk[:, 2] > far_edge + mechanics.BODY_RADIUS_M)]
    if with_log:
        assert crossing.carried and crossing.laid and "grasp" in run.info["achievements"]
        thickness = TOOL_SIZE_M["log"][1] * scale
        assert len(over_trench) >= (width - 2 * mechanics.BODY_RADIUS_M) / 0.25 - 1  # walked (0.25 m a step) the whole way over
        assert np.all(np.abs(over_trench[:, 1] - (PLATFORM_TOP_M + thickness)) < 0.05), over_trench  # on the log
        assert run.body[2] < far_edge - 1.0 and run.body[1] == pytest.approx(PLATFORM_TOP_M, abs=0.02)  # on the far side
        assert run.info["energy_lost_to_falls"] == 0.0 and float(run.observation["energy"][0]) == pytest.approx(1.0)
    else:
        assert not crossing.laid and "grasp" not in run.info["achievements"]
        assert run.body[1] == pytest.approx(0.0, abs=0.02) and far_edge < run.body[2] < TRENCH_EDGE_Z  # in the trench
        for _ in range(20):  # running jumps at the far wall do not get it out
            run.step(head_position=[0, 0, -1], jump=1)
            assert run.body[1] <= JUMP_APEX_STEPPED_M + 0.01
        assert far_edge < run.body[2] < TRENCH_EDGE_Z


# ---- Hands push -----------------------------------------------------------------------------------

def is_magenta(r, g, b):  # nothing else in these worlds is magenta
    return (r > g + 40) & (b > g + 40)


def is_red(r, g, b):  # an apple
    return (r > 120) & (r > g + 70) & (r > b + 70)


def is_yellow(r, g, b):
    return (r > 150) & (g > 120) & (b < r - 100)


def is_cyan(r, g, b):
    return (g > r + 100) & (b > r + 100)


def _seen(run, colour):
    """(centre, highest point, nearest z) of the pixels of ``colour``, from depth; None when unseen."""
    mask = colour_mask(run.observation["rgbd"], colour)
    if mask.sum() < 10:
        return None
    points = world_points(run.observation, run.info, mask)
    return points.mean(axis=0), points[:, 1].max(), points[:, 2].max()


def _crouch_and_look_down(run, hand_target):
    """Crouched (the shoulders sink: a hand reaches low), looking 19 degrees down, the right hand
    brought to ``hand_target`` (body frame)."""
    for k in range(6):
        run.step(head_position=[0, -1, 0], head_rotation=[-0.6 if k < 2 else 0, 0, 0],
                 right_hand_position=rate_toward(run.hand(1), hand_target))


def test_a_hand_pushes_a_200kg_boulder_the_way_it_moves(camera_env, worlds):
    # The hand alone (the body stands still), then the hand held out ahead of a walking body: the
    # boulder moves the hand's way, stays on the ground (it once sank a quarter of its height into
    # it when pushed), and the body never reaches it.
    boulder = tool_entity("boulder", "boulder", (0.3, 0.0, -1.45), base_color=(0.9, 0.1, 0.9))  # centred on the right hand
    run = Run(camera_env, worlds("hand-boulder", [boulder]))
    _crouch_and_look_down(run, (0.3, 0.5, -0.5))  # just short of it, at its widest
    start, top, _ = _seen(run, is_magenta)
    assert "push" not in run.info["achievements"] and run.observation["right_hand_is_colliding"][0] == 0.0
    for _ in range(4):  # forward to the limit of the arm
        run.step(right_hand_position=[0, 0, -1])
    for _ in range(5):
        run.step()
    centre, highest, _ = _seen(run, is_magenta)
    assert "push" in run.info["achievements"] and run.body[2] == pytest.approx(0.0, abs=1e-3)
    assert centre[2] - start[2] < -0.3 and abs(centre[0] - start[0]) < 0.1, (start, centre)
    assert highest > top - 0.06, (top, highest)
    for _ in range(12):  # walk 3 m, the hand held out ahead
        run.step(head_position=[0, 0, -0.5], right_hand_position=[0, 0, -1])
        centre, highest, nearest = _seen(run, is_magenta)
        assert nearest < run.body[2] - mechanics.BODY_RADIUS_M - 0.2, (run.body, nearest)  # only the hand touches it
        assert highest > top - 0.06, (top, highest)
    assert run.body[2] == pytest.approx(-3.0, abs=0.01)
    assert centre[2] - start[2] < -2.5 and abs(centre[0] - start[0]) < 0.3, (start, centre)


def test_an_unheld_apple_is_shoved_by_a_hand(camera_env, worlds):
    apple = Entity(kind="apple", name="apple", position=(0.3, FOOD_RADIUS_M["apple"], -0.9),
                   params={"radius": FOOD_RADIUS_M["apple"]})
    run = Run(camera_env, worlds("hand-apple", [apple]))
    _crouch_and_look_down(run, (0.3, 0.2, -0.5))
    start, _, _ = _seen(run, is_red)
    assert "push" not in run.info["achievements"]
    for _ in range(3):  # the hand sweeps forward through where it lies
        run.step(right_hand_position=[0, 0, -1])
    for _ in range(3):
        run.step()
    centre, _, _ = _seen(run, is_red)
    assert "push" in run.info["achievements"] and not run.grasping(1)
    assert centre[2] - start[2] < -0.5 and abs(centre[0] - start[0]) < 0.15, (start, centre)


def test_a_hand_pressed_down_on_a_stone_stops_on_it(camera_env, worlds):
    # Regression: hands moved with infinite inertia and sank through loose items, driving a 10 kg
    # stone half into the ground; pressing down is no push.
    stone = tool_entity("stone", "stone", (0.3, 0.0, -0.8), base_color=(0.9, 0.1, 0.9))
    run = Run(camera_env, worlds("hand-stone", [stone]))
    _crouch_and_look_down(run, (0.3, 0.6, -0.8))
    _, top, _ = _seen(run, is_magenta)
    stone_top = TOOL_SIZE_M["stone"][1]
    assert top == pytest.approx(stone_top, abs=0.05)
    for _ in range(8):
        run.step(head_position=[0, -1, 0], right_hand_position=[0, -1, 0])
        assert run.hand(1)[1] > stone_top + mechanics.HAND_RADIUS_M - 0.03, run.hand(1)  # resting on its top
    for _ in range(5):
        run.step(head_position=[0, -1, 0])
    _, highest, _ = _seen(run, is_magenta)
    assert highest == pytest.approx(stone_top, abs=0.05) and "push" not in run.info["achievements"]


# ---- Sticks and logs stay where they lie -------------------------------------------------------------


def test_sticks_and_logs_lying_on_the_ground_or_a_table_stay_there(camera_env, worlds):
    # Regression: they collided as cylinders, which Bullet at 10 steps/s let roll and sink through
    # the ground (a stick fell through within a few steps, a log rolled off and sank).
    items = {  # colour: the item of that colour; the sticks lie across the view
        is_magenta: tool_entity("stick", "stick", (-0.6, 0.0, -2.0), yaw_rad=np.pi / 2, base_color=(0.9, 0.1, 0.9)),
        is_yellow: tool_entity("log", "log", (1.4, 0.0, -3.5), base_color=(0.9, 0.8, 0.1)),
        is_cyan: tool_entity("stick", "stick_on_table", (-2.0, 0.8, -3.0), yaw_rad=np.pi / 2, base_color=(0.1, 0.8, 0.9)),
    }
    table = box("table", (-2.0, 0.4, -3.0), (1.0, 0.8, 2.0), color=(0.3, 0.3, 0.3))
    run = Run(camera_env, worlds("lying-tools", [*items.values(), table]))
    for k in range(8):  # look 27 degrees down; both hands up over the head, out of view
        run.step(head_rotation=[-0.5 if k < 3 else 0, 0, 0], left_hand_position=rate_toward(run.hand(0), (-0.3, 2.4, 0.1)),
                 right_hand_position=rate_toward(run.hand(1), (0.3, 2.4, 0.1)))
    before = {colour: world_points(run.observation, run.info, colour_mask(run.observation["rgbd"], colour)) for colour in items}
    assert all(len(points) >= 20 for points in before.values()), [len(points) for points in before.values()]
    for _ in range(60):
        run.step()
    for colour, points in before.items():
        now = world_points(run.observation, run.info, colour_mask(run.observation["rgbd"], colour))
        assert len(now) > 0.9 * len(points), items[colour].name
        assert np.linalg.norm(now.mean(axis=0) - points.mean(axis=0)) < 0.05, items[colour].name
