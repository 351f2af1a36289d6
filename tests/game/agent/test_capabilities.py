"""The agent's measured capabilities (``avalon/rules/mechanics.py``, "Measured capabilities") in
the real simulator: each holds, and a little beyond it does not.

Purpose-built worlds: boxes on flat ground (gaps, ledges, steps, towers) and height-map terrain
whose slope rises along -z (walking up and down, jumping into steep faces, a tall climbable
face). The agent faces -z and runs at full speed unless a test says otherwise. Figures and what
they mean: docs/mechanics.md. The solvability certificates (avalon/tasks/kit/certificate.py) build on
these numbers with margins (avalon/tasks/kit/capabilities.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import FlatGround, Terrain, World
from avalon.rules import mechanics
from avalon.tasks.kit.capabilities import modelled_gap_m
from tests.game.runs import C_FALL_PER_V2, LETHAL_FALL_M, SAFE_FALL_M, Run, box, fall_from, rate_toward, tower
from tests.game.world_cache import world_cache

pytestmark = pytest.mark.godot

RAMP_FOOT_Z_M = -1.0  # terrain ramps start here and rise (or fall) along -z
GROUND_M = 1.0  # terrain height in front of them


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", resolution=32))
    yield env
    env.close()


def _flat_world(entities, spawn=(0.0, 0.0, 0.0)):
    return World(task="capabilities", difficulty=0.0, seed=0, ground=FlatGround(size_m=100.0), entities=tuple(entities),
                 spawn_position=spawn, spawn_yaw_rad=0.0, time_limit_frames=1000)


def _ramp_world(profile, spawn_z=2.0, size_m=40.0, points=161, climbable=False):
    """Terrain whose height along z is ``profile(z)`` (the same across x); 0.25 m between grid
    points; bare mountain (climbable) or cliff everywhere. The agent stands at ``spawn_z``."""
    z = np.linspace(-size_m / 2, size_m / 2, points)
    heights = np.repeat(profile(z)[:, None], points, axis=1)
    heightmap = HeightMap(heights=heights, size_m=size_m, water_height_m=-100.0)
    biome = Biome.BARE_MOUNTAIN if climbable else Biome.UNCLIMBABLE_MOUNTAIN
    biome_map = BiomeMap(biome_ids=np.full((points, points), int(biome)), climbable=np.full((points, points), climbable),
                         colors=np.full((points, points, 3), 0.5), heightmap=heightmap)
    spawn = (0.0, float(profile(np.array([spawn_z]))[0]), spawn_z)
    return World(task="capabilities", difficulty=0.0, seed=0, ground=Terrain(biome_map=biome_map), entities=(),
                 spawn_position=spawn, spawn_yaw_rad=0.0, time_limit_frames=1000)


def _ramp_up(slope_deg, rise_m):
    run = rise_m / math.tan(math.radians(slope_deg))
    return lambda z: GROUND_M + np.clip((RAMP_FOOT_Z_M - z) / run, 0.0, 1.0) * rise_m


def _ramp_down(slope_deg, drop_m):
    run = drop_m / math.tan(math.radians(slope_deg))
    return lambda z: GROUND_M + drop_m - np.clip((RAMP_FOOT_Z_M - z) / run, 0.0, 1.0) * drop_m


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    root = tmp_path_factory.mktemp("capabilities")
    flat = world_cache(root / "flat", _flat_world)
    ramps = world_cache(root / "ramps", _ramp_world)
    return flat, ramps


def _run_forward(run, steps, speed=1.0, jump_when=None):
    """Runs forward (-z) for ``steps``, jumping on the steps where ``jump_when(body)`` holds (once:
    never again after the first); returns the body positions after each step and the fall
    damage taken."""
    positions, damage, jumped = [], 0.0, False
    for _ in range(steps):
        jump = not jumped and jump_when is not None and jump_when(run.body)
        jumped = jumped or jump
        run.step(head_position=[0, 0, -speed], jump=int(jump))
        positions.append(run.body.copy())
        damage += run.info["energy_lost_to_falls"]
        if run.terminated:
            break
    return np.array(positions), damage


# ---- jumping --------------------------------------------------------------------------------------

EDGE_Z_M = -6.0  # the take-off platform's edge


def _gap_world(width_m, drop_m):
    """A platform 1 + drop_m high ending at z = -6 and, ``width_m`` beyond, one 1 m high."""
    length, top = 8.0, 1.0 + drop_m
    return [box("take_off", (0.0, top / 2, EDGE_Z_M + length / 2), (3.0, top, length)),
            box("landing", (0.0, 0.5, EDGE_Z_M - width_m - length / 2), (3.0, 1.0, length))]


@pytest.mark.parametrize("drop_m, width_m, cleared", [
    (0.0, mechanics.JUMP_GAP_CLEARED_M, True), (0.0, mechanics.JUMP_GAP_MISSED_M, False),
    (1.0, 6.0, True), (1.0, 6.5, False), (2.0, 6.5, True), (2.0, 7.0, False), (4.0, 7.5, True), (4.0, 8.0, False),
])
def test_a_running_jump_clears_the_measured_gap_and_no_wider(env, worlds, drop_m, width_m, cleared):
    # The path model of the certificates predicts the same (avalon/tasks/kit/capabilities.py).
    assert (width_m <= modelled_gap_m(drop_m) + 1e-9) == cleared
    flat, _ = worlds
    top = 1.0 + drop_m
    run = Run(env, flat(f"gap-{width_m}-{drop_m}", _gap_world(width_m, drop_m), spawn=(0.0, top, 0.0)))
    take_off = EDGE_Z_M + 0.5
    positions, _ = _run_forward(run, 30, jump_when=lambda body: take_off - 0.5 < body[2] <= take_off + 1e-3)
    landed = np.any((np.abs(positions[:, 1] - 1.0) < 0.05) & (positions[:, 2] < EDGE_Z_M - width_m))
    assert landed == cleared


def _ledge_world(height_m):
    return [box("ledge", (0.0, height_m / 2, -6.0), (4.0, height_m, 8.0))]  # its face at z = -2


@pytest.mark.parametrize("height_m, cleared", [(mechanics.JUMP_LEDGE_M, True), (mechanics.JUMP_LEDGE_MISSED_M, False)])
def test_a_running_jump_reaches_a_ledge_of_the_measured_height_and_no_higher(env, worlds, height_m, cleared):
    flat, _ = worlds
    world_dir = flat(f"ledge-{height_m}", _ledge_world(height_m), spawn=(0.0, 0.0, 3.0))
    on_top = []
    for before in (0.5, 1.0, 1.5, 2.0):  # take-off this far before the face
        run = Run(env, world_dir)
        positions, _ = _run_forward(run, 25, jump_when=lambda body, before=before: body[2] <= -2.0 + before + 1e-3)
        on_top.append(bool(np.any((np.abs(positions[:, 1] - height_m) < 0.05) & (positions[:, 2] < -2.2))))
    assert any(on_top) if cleared else not any(on_top)


@pytest.mark.parametrize("slope_deg", [80.0, 85.0, 88.0])
def test_a_jump_into_steep_terrain_rises_the_measured_height(env, worlds, slope_deg):
    _, ramps = worlds
    world_dir = ramps(f"face-{slope_deg}", _ramp_up(slope_deg, 12.0), spawn_z=4.0)
    rises = []
    for before in (0.4, 0.7, 1.0, 1.5, 2.0, 3.0):  # take-off this far before the face's foot
        run = Run(env, world_dir)
        positions, _ = _run_forward(run, 40, jump_when=lambda body, before=before: body[2] <= RAMP_FOOT_Z_M + before + 1e-3)
        rises.append(positions[:, 1].max() - GROUND_M)
    assert max(rises) == pytest.approx(mechanics.TERRAIN_JUMP_RISE_M[slope_deg], abs=0.15)


# ---- walking --------------------------------------------------------------------------------------


@pytest.mark.parametrize("height_m, cleared", [(mechanics.STEP_UP_M, True), (mechanics.STEP_UP_BLOCKED_M, False)])
def test_walking_gets_over_a_step_of_the_measured_height_and_no_higher(env, worlds, height_m, cleared):
    flat, _ = worlds
    run = Run(env, flat(f"step-{height_m}", _ledge_world(height_m)))
    positions, _ = _run_forward(run, 12)
    on_top = np.any((np.abs(positions[:, 1] - height_m) < 0.03) & (positions[:, 2] < -2.5))
    assert on_top == cleared
    assert cleared or positions[-1, 2] > -2.0 + mechanics.BODY_RADIUS_M - 0.05  # blocked at the face


@pytest.mark.parametrize("slope_deg, cleared", [(mechanics.WALK_UP_MAX_SLOPE_DEG, True),
                                                (mechanics.WALK_UP_BLOCKED_SLOPE_DEG, False)])
def test_walking_up_terrain_gets_up_the_measured_slope_and_no_steeper(env, worlds, slope_deg, cleared):
    _, ramps = worlds
    rise = 6.0
    run = Run(env, ramps(f"up-{slope_deg}", _ramp_up(slope_deg, rise)))
    positions, _ = _run_forward(run, 80)
    assert (positions[:, 1].max() >= GROUND_M + rise - 0.05) == cleared
    assert cleared or positions[:, 1].max() < GROUND_M + 0.1


@pytest.mark.parametrize("slope_deg", [mechanics.FLOOR_MAX_SLOPE_DEG - 1.0, mechanics.FLOOR_MAX_SLOPE_DEG + 1.0])
def test_walking_down_a_slope_is_a_fall_only_beyond_the_floor_angle(env, worlds, slope_deg):
    _, ramps = worlds
    drop = 10.0
    run = Run(env, ramps(f"down-{slope_deg}", _ramp_down(slope_deg, drop), spawn_z=0.0))
    positions, damage = _run_forward(run, 30)
    assert positions[-1, 1] == pytest.approx(GROUND_M, abs=0.1)  # down at the foot
    if slope_deg <= mechanics.FLOOR_MAX_SLOPE_DEG:
        assert damage == 0.0
    else:  # the whole 10 m counts as one fall (equation 2)
        expected = C_FALL_PER_V2 * (2 * mechanics.GRAVITY_M_PER_S2 * drop - mechanics.FALL_SAFE_SPEED_M_PER_S**2)
        assert damage == pytest.approx(expected, rel=0.05)


# ---- falling --------------------------------------------------------------------------------------


def test_the_documented_fall_heights_are_the_rules(env):
    assert mechanics.SAFE_FALL_M == pytest.approx(SAFE_FALL_M) and mechanics.LETHAL_FALL_M == pytest.approx(LETHAL_FALL_M)


def test_a_fall_just_above_the_safe_height_hurts(env, worlds):
    flat, _ = worlds
    height = mechanics.SAFE_FALL_M + 0.5
    run = Run(env, flat("tower-safe", tower(height), spawn=(0.0, height, 0.0)))
    damage = fall_from(run)
    assert damage == pytest.approx(C_FALL_PER_V2 * (2 * mechanics.GRAVITY_M_PER_S2 * height - mechanics.FALL_SAFE_SPEED_M_PER_S**2),
                                   rel=0.05)
    assert damage > 0.0  # (test_mechanics.py: 5.0 m does no damage)


def test_a_fall_just_below_the_lethal_height_is_survived(env, worlds):
    flat, _ = worlds
    height = math.floor(mechanics.LETHAL_FALL_M * 10) / 10 - 0.2  # 36.8 m (test_mechanics.py: 37.3 m kills)
    run = Run(env, flat("tower-lethal", tower(height), spawn=(0.0, height, 0.0)))
    damage = fall_from(run)
    assert 0.9 < damage < 1.0 and not run.terminated and float(run.observation["energy"][0]) > 0.0


# ---- climbing -------------------------------------------------------------------------------------


def _hand_over_hand(run, steps):
    """Climbs a face ahead: the free hand reaches straight up (clear of the face), then forward
    onto it and closes; the other lets go; the hold is pulled down while crouching; repeat."""
    active, phase = 1, "up"
    for _ in range(steps):
        side, other = ("right", "left") if active else ("left", "right")
        current = run.hand(active)
        keep_other = int(run.grasping(1 - active))
        if phase == "up":
            target = (0.3 if active else -0.3, 2.4, -0.1)
            run.step(head_position=[0, 1, 0], **{f"{side}_hand_position": rate_toward(current, target), f"{other}_grasp": keep_other})
            if np.linalg.norm(run.hand(active) - current) < 0.02:
                phase = "forward"
        elif phase == "forward":
            run.step(head_position=[0, 1, 0], **{f"{side}_hand_position": [0, 0, -1], f"{side}_grasp": 1, f"{other}_grasp": keep_other})
            if run.grasping(active):
                phase = "pull"
            elif np.linalg.norm(run.hand(active) - current) < 0.02:
                phase = "up"
        else:
            run.step(head_position=[0, -1, 0], **{f"{side}_hand_position": rate_toward(current, (current[0], -0.2, 0.0)),
                                                  f"{side}_grasp": 1})
            assert run.grasping(active), "the hold slipped"
            if np.linalg.norm(run.hand(active) - current) < 0.02:
                active, phase = 1 - active, "up"


def test_climbing_a_tall_bare_mountain_face_has_no_height_limit(env, worlds):
    # A 10 m face of bare mountain at 87 degrees (0.5 m deep): the agent climbs it hand over hand;
    # gravity is suspended while it holds on, so it keeps rising as long as there are holds.
    _, ramps = worlds
    run = Run(env, ramps("tall-face", _ramp_up(math.degrees(math.atan(10.0 / 0.5)), 10.0), spawn_z=0.0, climbable=True))
    _hand_over_hand(run, 100)
    heights = [info["world_body_position"][1] for info in run.infos]
    assert max(heights) - GROUND_M > 2 * (mechanics.SHOULDER_HEIGHT_M + mechanics.ARM_REACH_M)  # beyond two standing reaches
    assert run.grasping(0) or run.grasping(1)
    assert {"grasp", "climb_2m"} <= run.info["achievements"]
