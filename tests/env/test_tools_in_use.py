"""Tools and movable items in use, in the real simulator (paper, Appendix A.1; docs/items.md).

A log carried to a trench, laid across it and walked over; hands pushing a 200 kg boulder and
shoving light items; sticks and logs staying where they lie. Purpose-built worlds, scripted
actions. Where items are is read from the agent's own frames (colour + depth back to world
points, ``tests/env/camera.py``); where the body is, from ``info["world_body_position"]``.
"""

from __future__ import annotations

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.export import export_world
from avalon.datagen.world import TOOL_SIZE_M, Entity, FOOD_RADIUS_M, tool_entity
from avalon.env import mechanics as M
from tests.env.camera import colour_mask, world_points
from tests.env.test_mechanics import JUMP_APEX_STEPPED_M, Run, _box, _rate_toward, _world

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    root = tmp_path_factory.mktemp("tools")
    made = {}

    def world(name, entities, **kwargs):
        if name not in made:
            made[name] = str(export_world(_world(entities, **kwargs), root / name))
        return made[name]

    return world


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
        _box("near", (0.0, PLATFORM_TOP_M / 2, TRENCH_EDGE_Z + 6.0), (4.0, PLATFORM_TOP_M, 12.0)),
        _box("far", (0.0, PLATFORM_TOP_M / 2, TRENCH_EDGE_Z - width - 6.0), (4.0, PLATFORM_TOP_M, 12.0)),
    ]
    if with_log:
        entities.append(tool_entity("log", "log", (LOG_X, PLATFORM_TOP_M, LOG_NEAR_END_Z - length / 2), safe_scale=scale))
    return entities


def _bridge_the_trench(run, scale):
    """Picks the log up by its near end, carries it to the trench, lays it across, steps onto it
    with a jump and walks on. Open loop (the same actions whether or not there is a log), but for
    where the body stops. Returns the body positions after each step of the walk over."""
    thickness = TOOL_SIZE_M["log"][1] * scale
    grip = np.array([LOG_X, thickness + M.HAND_RADIUS_M, LOG_NEAR_END_Z - GRIP_FROM_END_M])
    for _ in range(10):  # crouch (a thin log lies below a standing reach) and put the hand on it...
        before = run.hand(1)
        run.step(head_position=[0, -1 if thickness < 0.5 else 0, 0], right_hand_position=_rate_toward(before, grip),
                 right_grasp=int(np.linalg.norm(before - grip) < 0.02))  # ...closing it there
    for _ in range(8):  # stand up, lifting it to hand height
        run.step(head_position=[0, 1, 0], right_hand_position=_rate_toward(run.hand(1), (LOG_X, 1.2, grip[2])), right_grasp=1)
    run.carried = run.grasping(1)
    stop_z = TRENCH_EDGE_Z + SET_DOWN_SHORT_OF_EDGE_M - LOG_NEAR_END_Z
    while run.body[2] > stop_z + 1e-3:  # carry it to the trench, slowing down to stop where it goes down
        run.step(head_position=[0, 0, -min(1.0, (run.body[2] - stop_z) / 0.5)], right_grasp=1)
        run.carried = run.carried and run.grasping(1)
    for _ in range(12):  # lower it until it rests on both edges (a held item stops at what it touches)
        run.step(head_position=[0, -1 if thickness < 0.5 else 0, 0],
                 right_hand_position=_rate_toward(run.hand(1), grip - (0, 0.05, 0)), right_grasp=1)
    run.step()  # let go
    run.laid = run.carried and not run.grasping(1)
    for _ in range(8):  # stand up, hand back to rest
        run.step(head_position=[0, 1, 0], right_hand_position=_rate_toward(run.hand(1), M.RIGHT_HAND_REST_M))
    run.step(head_position=[LOG_X / (M.MAX_WALK_SPEED_M_PER_S * M.STEP_SECONDS), 0, 0])  # step right, over the log's axis
    run.step(jump=1)  # straight up (walking into the log's end would shove it)...
    onto_z = TRENCH_EDGE_Z + SET_DOWN_SHORT_OF_EDGE_M - 0.2  # over the log's near end
    for _ in range(12):  # ...forward once above it, until over its near end; land there
        above = run.body[1] > PLATFORM_TOP_M + thickness + 0.05
        run.step(head_position=[0, 0, -0.5 if above and run.body[2] > onto_z else 0])
    positions = []
    for _ in range(40):  # walk on
        run.step(head_position=[0, 0, -0.5])
        positions.append(run.body.copy())
    return np.array(positions)


@pytest.mark.parametrize("scale, width", BRIDGES)
@pytest.mark.parametrize("with_log", [True, False])
def test_a_log_carried_to_a_trench_and_laid_across_it_carries_the_agent_over(env, worlds, scale, width, with_log):
    # Without the log the same actions drop the agent into the trench, 3 m deep: it cannot get out.
    run = Run(env, worlds(f"trench-{scale}-{width}-{with_log}", _trench_world(scale, width, with_log),
                          spawn=(0.0, PLATFORM_TOP_M, 0.0)))
    crossing = _bridge_the_trench(run, scale)
    far_edge = TRENCH_EDGE_Z - width
    over_trench = crossing[(crossing[:, 2] < TRENCH_EDGE_Z - M.BODY_RADIUS_M) & (crossing[:, 2] > far_edge + M.BODY_RADIUS_M)]
    if with_log:
        assert run.carried and run.laid and "grasp" in run.info["achievements"]
        thickness = TOOL_SIZE_M["log"][1] * scale
        assert len(over_trench) >= (width - 2 * M.BODY_RADIUS_M) / 0.25 - 1  # walked (0.25 m a step) the whole way over
        assert np.all(np.abs(over_trench[:, 1] - (PLATFORM_TOP_M + thickness)) < 0.05), over_trench  # on the log
        assert run.body[2] < far_edge - 1.0 and run.body[1] == pytest.approx(PLATFORM_TOP_M, abs=0.02)  # on the far side
        assert run.info["energy_lost_to_falls"] == 0.0 and float(run.observation["energy"][0]) == pytest.approx(1.0)
    else:
        assert not run.laid and "grasp" not in run.info["achievements"]
        assert run.body[1] == pytest.approx(0.0, abs=0.02) and far_edge < run.body[2] < TRENCH_EDGE_Z  # in the trench
        for _ in range(20):  # running jumps at the far wall do not get it out
            run.step(head_position=[0, 0, -1], jump=1)
            assert run.body[1] <= JUMP_APEX_STEPPED_M + 0.01
        assert far_edge < run.body[2] < TRENCH_EDGE_Z
