"""The scripted agent's jump, climb and fall primitives in the real simulator, on purpose-built
worlds (as tests/game/agent/test_mechanics.py builds them): it follows a one- or two-step route, then eats
the apple at its end; where the skill cannot work (a gap too wide, an unclimbable wall) it fails at
that step and says why."""

from __future__ import annotations

import numpy as np
import pytest

from avalon import AvalonEnv, EnvConfig
from avalon.agent.scripted.episode import run_episode
from avalon.agent.scripted.follower import RouteFollower
from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.export import export_world
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, FlatGround, Terrain, World
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit.route import Route, RouteStep

pytestmark = pytest.mark.godot

APPLE_RADIUS_M = FOOD_RADIUS_M["apple"]
PLATFORM_M = 1.0  # height of the gap worlds' platforms
TAKE_OFF_EDGE_Z = -6.0


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=32, is_training=False))
    yield env
    env.close()


def _box(name, centre, size, **params):
    return Entity(kind="box", name=name, position=centre, params={"size": size, "color": (0.6, 0.6, 0.6), **params})


def _apple(x, ground_y, z):
    return Entity(kind="apple", name="apple", position=(x, ground_y + APPLE_RADIUS_M, z))


def _flat(entities, spawn):
    return World(task="skills", difficulty=0.0, seed=0, ground=FlatGround(size_m=100.0), entities=tuple(entities),
                 spawn_position=spawn, time_limit_frames=1000)


def _run(env, tmp_path, world, steps):
    world_dir = export_world(world, tmp_path / "world")
    follower = RouteFollower(world, Route(start=world.spawn_position, steps=steps))
    return run_episode(env, follower, seed=0, options={"world_dir": str(world_dir)})


def _gap_world(width):
    """Two 1 m platforms 3 m wide, the near one's edge 6 m ahead of the spawn; the apple 2 m beyond
    the far one's edge."""
    far_edge = TAKE_OFF_EDGE_Z - width
    world = _flat([_box("take_off", (0.0, PLATFORM_M / 2, -2.0), (3.0, PLATFORM_M, 8.0)),
                   _box("landing", (0.0, PLATFORM_M / 2, far_edge - 4.0), (3.0, PLATFORM_M, 8.0)),
                   _apple(0.0, PLATFORM_M, far_edge - 2.0)], spawn=(0.0, PLATFORM_M, 0.0))
    return world, far_edge


def test_a_running_jump_crosses_a_gap_and_the_agent_eats_beyond_it(env, tmp_path):
    world, far_edge = _gap_world(4.5)
    steps = (RouteStep("walk", (0.0, PLATFORM_M, TAKE_OFF_EDGE_Z + 0.5)), RouteStep("jump", (0.0, PLATFORM_M, far_edge - 1.0)))
    episode = _run(env, tmp_path, world, steps)
    assert episode.success, episode.follow.describe()
    assert [result.name for result in episode.follow.primitives[:2]] == ["walk", "jump"]
    assert "jump" in episode.info["achievements"] and episode.info["energy"] == pytest.approx(2.0)


def test_a_gap_wider_than_a_jump_carries_fails_at_the_jump(env, tmp_path):
    world, far_edge = _gap_world(6.0)
    episode = _run(env, tmp_path, world, (RouteStep("jump", (0.0, PLATFORM_M, far_edge - 1.0)),))
    assert not episode.success and episode.follow.finished
    assert episode.follow.failed_step == 0 and episode.follow.failed_skill == "jump"
    assert "fell into the gap" in episode.follow.reason
    assert episode.info["world_body_position"][1] < 0.1  # at the bottom


def test_a_jump_gets_onto_a_one_metre_ledge(env, tmp_path):
    world = _flat([_box("ledge", (0.0, 0.5, -6.0), (4.0, 1.0, 4.0)), _apple(0.0, 1.0, -6.5)], spawn=(0.0, 0.0, 0.0))
    episode = _run(env, tmp_path, world, (RouteStep("jump", (0.0, 1.0, -5.5)),))
    assert episode.success, episode.follow.describe()
    assert episode.follow.primitives[0].name == "jump" and episode.follow.primitives[0].succeeded


def _block_world(climbable):
    """A 2.5 m block whose face is 2.8 m ahead of the spawn; the apple on its top."""
    return _flat([_box("block", (0.0, 1.25, -3.8), (3.0, 2.5, 2.0), climbable=climbable), _apple(0.0, 2.5, -4.2)],
                 spawn=(0.0, 0.0, 0.0))


def test_the_agent_climbs_a_climbable_block_hand_over_hand_and_eats_on_top(env, tmp_path):
    episode = _run(env, tmp_path, _block_world(True), (RouteStep("climb", (0.0, 2.5, -3.4)),))
    assert episode.success, episode.follow.describe()
    climb = episode.follow.primitives[0]
    assert climb.name == "climb" and climb.succeeded
    assert {"grasp", "climb_2m"} <= episode.info["achievements"]
    assert episode.info["world_body_position"][1] == pytest.approx(2.5, abs=0.05)


def test_an_unclimbable_block_fails_the_climb_saying_no_hand_found_a_hold(env, tmp_path):
    episode = _run(env, tmp_path, _block_world(False), (RouteStep("climb", (0.0, 2.5, -3.4)),))
    assert not episode.success and episode.follow.failed_skill == "climb"
    assert "found nothing to hold" in episode.follow.reason
    assert episode.info["world_body_position"][1] == pytest.approx(0.0, abs=0.05)


STEP_FOOT_M, FACE_Z = 1.0, -3.0


def _step_world(climbable, rise_m=2.5, slope_deg=90.0, spawn_on_top=False):
    """Terrain (4 grid points per metre) with a step up of ``rise_m`` from z = -3 on, at
    ``slope_deg`` (90: over one 0.25 m cell), bare mountain (climbable) or the unclimbable biome; the
    apple 2 m beyond the top's edge or, spawning on top, 2 m before the foot."""
    size_m, points = 24.0, 97
    z = np.linspace(-size_m / 2, size_m / 2, points)
    run_m = 0.0 if slope_deg >= 90.0 else rise_m / np.tan(np.radians(slope_deg))
    rising = np.clip((FACE_Z - z) / max(run_m, 1e-9), 0.0, 1.0) if run_m else (z <= FACE_Z).astype(float)
    heights = (STEP_FOOT_M + rise_m * rising)[:, None] * np.ones((1, points))
    heightmap = HeightMap(heights=heights, size_m=size_m, water_height_m=0.0)
    biome = Biome.BARE_MOUNTAIN if climbable else Biome.UNCLIMBABLE_MOUNTAIN
    biome_map = BiomeMap(biome_ids=np.full((points, points), int(biome)), climbable=np.full((points, points), climbable),
                         colors=np.full((points, points, 3), 0.5), heightmap=heightmap)
    top, top_z = STEP_FOOT_M + rise_m, FACE_Z - run_m
    spawn = (0.0, top, top_z - 3.0) if spawn_on_top else (0.0, STEP_FOOT_M, 0.0)
    apple = _apple(0.0, STEP_FOOT_M, FACE_Z + 2.0) if spawn_on_top else _apple(0.0, top, top_z - 2.0)
    world = World(task="skills", difficulty=0.0, seed=0, ground=Terrain(biome_map=biome_map), entities=(apple,),
                  spawn_position=spawn, spawn_yaw_rad=np.pi if spawn_on_top else 0.0, time_limit_frames=1000)
    return world, (0.0, top, top_z - 1.0)


@pytest.mark.parametrize("rise_m, slope_deg", [(2.5, 90.0), (6.0, 70.0)])
def test_the_agent_climbs_a_bare_mountain_cliff_of_the_terrain(env, tmp_path, rise_m, slope_deg):
    world, top = _step_world(True, rise_m, slope_deg)
    episode = _run(env, tmp_path, world, (RouteStep("climb", top),))
    assert episode.success, episode.follow.describe()
    assert {"grasp", "climb_2m"} <= episode.info["achievements"]
    assert episode.info["world_body_position"][1] == pytest.approx(top[1], abs=0.05)


def test_an_unclimbable_terrain_cliff_fails_the_climb(env, tmp_path):
    world, top = _step_world(False)
    episode = _run(env, tmp_path, world, (RouteStep("climb", top),))
    assert not episode.success and episode.follow.failed_skill == "climb"
    assert "found nothing to hold" in episode.follow.reason and "grasp" not in episode.info["achievements"]


def test_the_agent_steps_off_the_terrain_step_and_falls_to_its_foot_unhurt(env, tmp_path):
    world, _ = _step_world(False, spawn_on_top=True)
    episode = _run(env, tmp_path, world, (RouteStep("fall", (0.0, STEP_FOOT_M, FACE_Z + 1.0)),))
    assert episode.success, episode.follow.describe()
    assert episode.follow.primitives[0].name == "fall" and episode.follow.primitives[0].succeeded
    assert episode.info["energy"] == pytest.approx(2.0)  # 2.5 m is within the safe fall height


def test_a_fall_from_8_m_lands_the_agent_at_the_target_with_equation_2s_damage(env, tmp_path):
    height = 8.0
    world = _flat([_box("tower", (0.0, height / 2, 0.5), (2.0, height, 2.0)), _apple(0.0, 0.0, -3.0)],
                  spawn=(0.0, height, 0.0))
    episode = _run(env, tmp_path, world, (RouteStep("fall", (0.0, 0.0, -2.0)),))
    assert episode.success, episode.follow.describe()
    damage = mechanics.FALL_DAMAGE_COEFFICIENT * mechanics.BODY_MASS_KG * (
        2 * mechanics.GRAVITY_M_PER_S2 * height - mechanics.FALL_SAFE_SPEED_M_PER_S**2)
    assert episode.info["energy"] == pytest.approx(2.0 - damage, abs=0.01)
