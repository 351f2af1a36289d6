"""Solvability certificates (avalon/tasks/kit/certificate.py) and their routes
(avalon/tasks/kit/route.py) on hand-made height maps with known answers, and on many generated
eat and move worlds (every one certified walkable).

The hand-made worlds are 30 m squares at 0.5 m between grid points whose height changes only
along z (an obstacle across the whole world: the world's edge is off limits, so nothing goes
round it). The agent starts at z = +8 and the food lies at z = -8.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.world import Entity, FlatGround, World
from avalon.rules import mechanics
from avalon.tasks import build_world
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.capabilities import ROUTE_CAPABILITIES, SHOULDER_SPAN_M, jump_reach_m
from avalon.tasks.kit.certificate import certify, require_certificate
from avalon.tasks.kit.route import SKILLS
from tests.tasks.kit.maps import terrain_world

SIZE_M, POINTS = 30.0, 61
Z = np.linspace(-SIZE_M / 2, SIZE_M / 2, POINTS)
SPAWN = (0.0, 8.0)
ALL = frozenset(SKILLS)
WALK = frozenset({"walk"})


def _world(profile, climbable_rows=None, **kwargs):
    """Heights ``profile(z)`` across every x; bare mountain on the rows where ``climbable_rows(z)``."""
    heights = np.repeat(np.asarray(profile(Z), dtype=np.float64)[:, None], POINTS, axis=1)
    climbable = None if climbable_rows is None else np.repeat(climbable_rows(Z)[:, None], POINTS, axis=1)
    return terrain_world(heights, SIZE_M, SPAWN, climbable=climbable, **kwargs)


def _food_on(world, x=0.0, z=-8.0):
    """An apple lying on the ground at (x, z)."""
    from avalon.tasks.kit.geometry import ground_height

    radius = 0.1
    return Entity(kind="apple", name="apple", position=(x, ground_height(world.ground.heightmap, x, z) + radius, z),
                  params={"radius": radius})


def _check_route(world, food, certificate):
    """What every route promises: it starts at the spawn, each jump is within the route's reach,
    and it ends where a hand takes the food."""
    route = certificate.route
    assert route.start == world.spawn_position
    previous = route.start
    for step in route.steps:
        if step.skill == "jump":
            distance = math.dist(previous[::2], step.target[::2])
            assert distance <= jump_reach_m(step.target[1] - previous[1]) + ROUTE_CAPABILITIES.jump_reach_slack_m + 1e-6
        previous = step.target
    fx, fy, fz = food.position
    low, high = SHOULDER_SPAN_M
    shoulder = min(max(fy, previous[1] + low), previous[1] + high)
    assert math.dist((fx, fy, fz), (previous[0], shoulder, previous[2])) <= ROUTE_CAPABILITIES.grasp_reach_m + 1e-6
    assert math.hypot(fx - previous[0], fz - previous[2]) >= mechanics.BODY_RADIUS_M  # not standing on it


# ---- walking ----------------------------------------------------------------------------------------


def test_a_flat_field_is_walked():
    world = _world(lambda z: np.ones_like(z))
    food = _food_on(world)
    certificate = certify(world, food, frozenset(), WALK)
    assert certificate.ok and certificate.solvable and not certificate.bypassed and certificate.reason == ""
    assert certificate.route.skills() == {"walk"} and len(certificate.route.steps) == 1  # one straight walk
    _check_route(world, food, certificate)


def test_food_within_reach_of_the_spawn_needs_no_step():
    world = _world(lambda z: np.ones_like(z))
    food = _food_on(world, 0.0, SPAWN[1] - 0.8)
    certificate = certify(world, food, frozenset(), WALK)
    assert certificate.ok and certificate.route.steps == ()


def test_a_route_keeps_out_of_water_but_a_bypass_wades():
    # A shallow moat (0.3 m deep, gentle banks) across the world: the body walks on its floor in
    # the simulator.
    world = _world(lambda z: np.interp(np.abs(z), [2.0, 5.0], [-0.3, 1.0]), water=0.0)
    food = _food_on(world)
    assert not certify(world, food, frozenset(), WALK).solvable
    assert certify(world, food, frozenset({"jump"}), frozenset({"walk", "jump"})).bypassed


def test_a_wall_of_boxes_blocks_the_route():
    wall = Entity(kind="box", name="wall", position=(0.0, 2.0, 0.0), params={"size": (SIZE_M, 2.0, 0.5)})
    world = _world(lambda z: np.ones_like(z), entities=(wall,))
    assert not certify(world, _food_on(world), frozenset(), WALK).solvable


def test_food_on_an_altar_is_reached_from_beside_it():
    # The altar's near side is at z = -7.3 and the apple 0.6 m beyond it: the grid point at
    # z = -7 is too close to the altar for the body, the one at -6.5 too far for a hand. The route
    # walks on from there until the body touches the altar.
    altar = Entity(kind="box", name="altar", position=(0.0, 1.7, -8.05), params={"size": (1.0, 1.4, 1.5)})
    world = _world(lambda z: np.ones_like(z), entities=(altar,))
    food = Entity(kind="apple", name="apple", position=(0.0, 2.5, -7.9), params={"radius": 0.1})
    certificate = certify(world, food, frozenset(), WALK)
    assert certificate.ok
    _check_route(world, food, certificate)
    last = certificate.route.steps[-1].target
    assert -7.3 + mechanics.BODY_RADIUS_M - 1e-6 <= last[2] < -6.5  # off the grid, up against the altar


# ---- jumping ----------------------------------------------------------------------------------------


def _chasm(width_m, depth_m=10.0, bridge_x=None):
    """A chasm ``width_m`` across at the top (from z = -2 to z = -2 - width), ``depth_m`` deep; with
    ``bridge_x``, a land bridge 3 m wide at that x."""
    def heights(z):
        return np.where((z < -2.0) & (z > -2.0 - width_m), 1.0 - depth_m, 1.0)

    world = _world(heights)
    if bridge_x is not None:
        hm = world.ground.heightmap
        filled = np.array(hm.heights)
        filled[:, np.abs(hm.x_coords_m - bridge_x) <= 1.5] = 1.0
        world = terrain_world(filled, SIZE_M, SPAWN)
    return world


def test_a_chasm_within_the_jump_reach_is_jumped_and_cannot_be_bypassed():
    world = _chasm(4.0)
    food = _food_on(world)
    certificate = certify(world, food, frozenset({"jump"}))
    assert certificate.ok
    assert certificate.route.skills() == {"walk", "jump"}
    jumps = [step for step in certificate.route.steps if step.skill == "jump"]
    assert len(jumps) == 1 and jumps[0].target[2] <= -6.0
    _check_route(world, food, certificate)


def test_a_chasm_beyond_the_route_reach_is_not_certified():
    world = _chasm(5.0)
    certificate = certify(world, _food_on(world), frozenset({"jump"}))
    assert not certificate.solvable and not certificate.ok and "cannot be reached" in certificate.reason


def test_the_bypass_search_jumps_a_little_farther_than_the_body_and_no_more():
    # Measured: 5.25 m clears from 0.5 m before the edge, i.e. 5.75 m from the edge; the bypass
    # search allows 6.0 m from edge to edge. Jumping is not the required skill here, so a jump
    # across is a bypass.
    near, far = _chasm(5.5), _chasm(6.5)
    assert certify(near, _food_on(near), frozenset({"climb"}), ALL).bypassed
    assert not certify(far, _food_on(far), frozenset({"climb"}), ALL).bypassed


def test_a_land_bridge_bypasses_the_jump():
    world = _chasm(4.0, bridge_x=6.0)
    certificate = certify(world, _food_on(world), frozenset({"jump"}))
    assert certificate.solvable and certificate.bypassed and not certificate.ok
    assert "without ['jump']" in certificate.reason
    assert certify(world, _food_on(world), frozenset(), WALK).ok  # walking over the bridge


# ---- climbing ---------------------------------------------------------------------------------------


def _cliff(height_m, face_m=0.5, climbable=True, ramp_x=None):
    """A cliff rising ``height_m`` over ``face_m`` (from z = -1 to z = -1 - face_m); bare mountain
    on its face and a cell either side, or unclimbable; with ``ramp_x``, a 25 degree ramp up it 3 m
    wide at that x."""
    def heights(z):
        return 1.0 + height_m * np.clip((-1.0 - z) / face_m, 0.0, 1.0)

    def face(z):
        return (z <= -0.5) & (z >= -1.5 - face_m) if climbable else np.zeros_like(z, dtype=bool)

    world = _world(heights, face)
    if ramp_x is not None:
        hm = world.ground.heightmap
        ramped = np.array(hm.heights)
        run = height_m / math.tan(math.radians(25.0))
        ramp = 1.0 + height_m * np.clip((-1.0 - hm.z_coords_m + run) / run, 0.0, 1.0)
        columns = np.abs(hm.x_coords_m - ramp_x) <= 1.5
        ramped[:, columns] = np.maximum(ramped[:, columns], ramp[:, None])
        world = terrain_world(ramped, SIZE_M, SPAWN, climbable=world.ground.biome_map.climbable)
    return world


def test_a_bare_mountain_cliff_is_climbed_and_cannot_be_walked_or_jumped_up():
    # 6 m over 0.5 m: 85 degrees, beyond walking up (78) and a jump's slide (2.8 m at 85).
    world = _cliff(6.0)
    food = _food_on(world)
    certificate = certify(world, food, frozenset({"climb"}))
    assert certificate.ok
    assert "climb" in certificate.route.skills()
    climbs = [step for step in certificate.route.steps if step.skill == "climb"]
    assert climbs[-1].target[1] == pytest.approx(7.0)  # onto the top
    _check_route(world, food, certificate)


def test_an_unclimbable_cliff_cannot_be_climbed():
    world = _cliff(6.0, climbable=False)
    certificate = certify(world, _food_on(world), frozenset({"climb"}))
    assert not certificate.solvable and not certificate.bypassed


def test_a_cliff_a_jump_slides_up_is_a_bypass():
    # 4 m over 0.5 m is 83 degrees: a jump into it rises 3.8 m, and 0.2 m of slack makes 4.0.
    world = _cliff(4.0)
    assert certify(world, _food_on(world), frozenset({"climb"})).bypassed
    steeper = _cliff(5.0)  # 84 degrees: 3.2 m
    assert not certify(steeper, _food_on(steeper), frozenset({"climb"})).bypassed


def test_a_cliff_gentle_enough_to_run_up_is_a_bypass():
    # 75 degrees: the body runs up it at full speed (measured to 78).
    world = _cliff(6.0, face_m=6.0 / math.tan(math.radians(75.0)))
    assert certify(world, _food_on(world), frozenset({"climb"})).bypassed


def test_a_ramp_bypasses_the_cliff():
    world = _cliff(6.0, ramp_x=-6.0)
    certificate = certify(world, _food_on(world), frozenset({"climb"}))
    assert certificate.solvable and certificate.bypassed
    assert certify(world, _food_on(world), frozenset(), WALK).ok  # up the ramp


# ---- falling ----------------------------------------------------------------------------------------


def _drop(depth_m, climbable=False):
    """The spawn on a plateau; from z = -1 the ground drops ``depth_m`` over one cell."""
    def heights(z):
        return 1.0 + depth_m * np.clip((z + 1.5) / 0.5, 0.0, 1.0)

    def face(z):
        return (z <= -0.5) & (z >= -2.0) if climbable else np.zeros_like(z, dtype=bool)

    return _world(heights, face)


def test_a_drop_within_the_safe_fall_height_is_fallen():
    world = _drop(4.0)
    food = _food_on(world)
    certificate = certify(world, food, frozenset({"fall"}), frozenset({"walk", "fall"}))
    assert certificate.ok
    falls = [step for step in certificate.route.steps if step.skill == "fall"]
    assert len(falls) == 1 and falls[0].target[1] == pytest.approx(1.0)
    _check_route(world, food, certificate)


def test_a_drop_beyond_the_safe_fall_height_needs_a_larger_allowed_fall():
    world = _drop(7.0)
    food = _food_on(world)
    assert not certify(world, food, frozenset({"fall"}), frozenset({"walk", "fall"})).solvable
    assert certify(world, food, frozenset({"fall"}), frozenset({"walk", "fall"}), max_fall_m=10.0).ok


def test_a_tall_climbable_drop_is_climbed_down_unless_a_survivable_fall_counts_as_a_bypass():
    world = _drop(20.0, climbable=True)
    food = _food_on(world)
    certificate = certify(world, food, frozenset({"climb"}))
    assert certificate.ok and "climb" in certificate.route.skills()
    _check_route(world, food, certificate)
    bypassed = certify(world, food, frozenset({"climb"}), bypass_max_fall_m=mechanics.LETHAL_FALL_M)
    assert bypassed.solvable and bypassed.bypassed


# ---- the interface ----------------------------------------------------------------------------------


def test_require_certificate_raises_the_impossible_world_error_with_the_reason():
    world = _chasm(4.0, bridge_x=6.0)
    with pytest.raises(ImpossibleWorldError, match=r"routes: .*without \['jump'\]"):
        require_certificate(world, _food_on(world), frozenset({"jump"}))
    assert require_certificate(_chasm(4.0), _food_on(world), frozenset({"jump"})).ok


@pytest.mark.parametrize("arguments, message", [
    (dict(required=frozenset({"swim"})), r"required=frozenset\(\{'swim'\}\) must be a set of skills"),
    (dict(required="walk"), r"required='walk' must be a set of skills"),
    (dict(required=frozenset(), allowed=frozenset({"jump"})), r"allowed=\['jump'\] must be a set of skills that includes 'walk'"),
    (dict(required=frozenset({"climb"}), allowed=WALK), r"required=\['climb'\] must be a subset of allowed=\['walk'\]"),
    (dict(required=frozenset(), max_fall_m=-1.0), r"max_fall_m=-1.0 must be a finite number >= 0.0 \(metres\)"),
    (dict(required=frozenset(), bypass_max_fall_m=math.nan), r"bypass_max_fall_m=nan must be a finite number"),
])
def test_bad_arguments_are_refused_with_what_was_expected(arguments, message):
    world = _world(lambda z: np.ones_like(z))
    with pytest.raises(ValueError, match=message):
        certify(world, _food_on(world), **arguments)


def test_food_and_worlds_the_certificate_cannot_judge_are_refused():
    world = _world(lambda z: np.ones_like(z))
    with pytest.raises(ValueError, match=r"food at \(40.0, 1.0, 0.0\) \(m\) is outside the world"):
        certify(world, (40.0, 1.0, 0.0), frozenset())
    with pytest.raises(ValueError, match=r"food=\(1.0, 2.0\) must be a food Entity or its centre"):
        certify(world, (1.0, 2.0), frozenset())
    flat = World(task="flat", difficulty=0.0, seed=0, ground=FlatGround(), entities=(), spawn_position=(0, 0, 0),
                 time_limit_frames=10)
    with pytest.raises(ValueError, match=r"world='FlatGround' must be a World on Terrain"):
        certify(flat, (1.0, 0.1, 1.0), frozenset())


# ---- generated worlds -------------------------------------------------------------------------------


def _certified_walkable(world):
    for food in world.food:
        certificate = certify(world, food, frozenset(), WALK)
        assert certificate.ok, f"{world.task} d={world.difficulty} seed={world.seed} {food.name}: {certificate.reason}"
        assert certificate.route.skills() <= {"walk"}
        _check_route(world, food, certificate)


@pytest.mark.parametrize("difficulty", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_every_eat_world_is_certified_walkable(difficulty):
    for seed in range(16):
        _certified_walkable(build_world("eat", difficulty, seed))


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", [0.0, 0.3, 0.35, 0.5, 0.65, 0.8, 0.9, 1.0])
def test_every_move_world_is_certified_walkable(difficulty):
    for seed in range(6):
        _certified_walkable(build_world("move", difficulty, seed))
