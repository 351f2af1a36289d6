"""The explore task: the food hidden from the spawn by the terrain (checked independently of the
generator's own check, over many seeds and difficulties), the certificate's walking route, the
knobs monotone in difficulty and doing what they say on the generated islands, the raised hill,
and a golden world."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.datagen.biomes import MOUNTAIN_BIOMES
from avalon.datagen.terrain import HeightMap
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks import TASKS, build_world, explore, with_retries
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import FoodPlacement, OutdoorTaskConfig, assemble_outdoor_world, split_streams
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import wrap_angle
from avalon.tasks.kit.sight import EYE_HEIGHT_M, line_of_sight
from tests.tasks.helpers import surface_height, terrain_hides, world_digest

DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = range(5)
CASES = [(d, seed) for d in DIFFICULTIES for seed in SEEDS]
#: The sight-line check costs ~1.5 s a world: three seeds per difficulty.
SIGHT_CASES = [(d, seed) for d, seed in CASES if seed < 3]

GOLDEN = {
    (0.5, 3): "501987eb1bf648f8edc565b0b372388d418070bd2402aad28e02bb591502f4e4",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> explore.ExploreLayout:
    """The layout of (difficulty, seed), with the retries of ``build_world``."""
    return with_retries(lambda rng: explore.build_layout(rng, difficulty, None), "explore", difficulty, seed)


def _world(difficulty: float, seed: int):
    return attr.evolve(_layout(difficulty, seed).world, seed=seed)


def _distance_m(world) -> float:
    sx, _, sz = world.spawn_position
    fx, _, fz = world.food[0].position
    return math.hypot(fx - sx, fz - sz)


def _apple_points(centre) -> list[tuple[float, float, float]]:
    """Points on the apple's surface: top, bottom, and rings at several heights."""
    x, y, z = centre
    r = FOOD_RADIUS_M["apple"]
    points = [(x, y + r, z), (x, y - r, z)]
    for lat in (-0.5, 0.0, 0.5, 1.0):
        for k in range(12):
            a = 2 * math.pi * k / 12
            ring = r * math.cos(lat)
            points.append((x + ring * math.cos(a), y + r * math.sin(lat), z + ring * math.sin(a)))
    return points


# --- determinism ---------------------------------------------------------------------------------


def test_the_layout_is_the_world_build_world_makes():
    assert world_digest(build_world("explore", 0.5, 1)) == world_digest(_world(0.5, 1))
    assert world_digest(build_world("explore", 0.5, 2)) != world_digest(_world(0.5, 1))


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digests (and say so in the commit).
    assert world_digest(build_world("explore", difficulty, seed)) == GOLDEN[(difficulty, seed)]


# --- the guarantee: hidden, yet reachable ---------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", SIGHT_CASES)
def test_no_sight_line_from_the_spawn_reaches_any_part_of_the_food(difficulty, seed):
    world = _world(difficulty, seed)
    heightmap = world.ground.heightmap
    sx, sy, sz = world.spawn_position
    assert sy == pytest.approx(surface_height(heightmap, sx, sz), abs=1e-6)
    (food,) = world.food
    assert food.kind == "apple"
    for eye_height in (mechanics.HEAD_MIN_HEIGHT_M, EYE_HEIGHT_M, mechanics.HEAD_MAX_HEIGHT_M):
        eye = (sx, sy + eye_height, sz)
        for point in _apple_points(food.position):
            # The same model that says the food of the other tasks is in sight, the other way round...
            assert not line_of_sight(heightmap, eye, point), f"the spawn's eye {eye_height} m up sees {point}"
            # ...and an independent surface (dense samples on the collider's triangles).
            assert terrain_hides(heightmap, eye, point), f"the terrain lets the eye {eye_height} m up see {point}"


@pytest.mark.parametrize("difficulty, seed", CASES)
def test_the_certificate_walks_from_the_spawn_to_beside_the_food(difficulty, seed):
    world = _world(difficulty, seed)
    certificate = TASKS["explore"].certificate(world)
    assert certificate.ok, certificate.reason
    assert certificate.required == frozenset() and not certificate.bypassed
    route = certificate.route
    assert route.start == world.spawn_position and route.skills() == {"walk"}
    end = route.steps[-1].target
    assert math.dist(end, world.food[0].position) < 1.5
    assert world.time_limit_frames == explore.EXPLORE_TIME_LIMIT_FRAMES == 6000


def test_hiding_is_checked_on_every_level_of_detail_the_simulator_draws():
    # A ridge one grid cell wide, 2 m high, between an eye and an apple on flat ground: at full
    # detail it hides the apple; drawn every 4th point it vanishes, so the apple is not hidden.
    heights = np.zeros((65, 65), dtype=np.float32)
    heights[:, 33] = 2.0  # x = 1 m
    ridge = HeightMap(heights=heights, size_m=64.0)
    eye, apple = (-10.0, 1.8, 0.5), (10.0, FOOD_RADIUS_M["apple"], 0.5)
    assert explore.hidden_by_terrain([ridge], eye, apple)
    assert len(explore.drawn_surfaces(ridge)) == 3
    assert not explore.hidden_by_terrain(explore.drawn_surfaces(ridge), eye, apple)
    assert not explore.food_hidden(ridge, (eye[0], eye[2]), apple)
    # A wide bank stands at every level.
    heights[:, 28:40] = 2.0
    assert explore.food_hidden(HeightMap(heights=heights, size_m=64.0), (eye[0], eye[2]), apple)


def test_a_raised_hill_hides_the_food_at_its_gentle_foot_with_the_spawn_off_it():
    flat = HeightMap(heights=np.full((65, 65), 2.0, dtype=np.float32), size_m=64.0)
    spawn, food = (-5.0, 0.0), (4.0, 0.0)
    apple = (food[0], 2.0 + FOOD_RADIUS_M["apple"], food[1])
    assert not explore.food_hidden(flat, spawn, apple)
    hill = explore.hill_between(spawn, food)
    assert hill is not None and hill.radius_m == pytest.approx((9.0 - 1.0) / 1.9)
    hilly = hill.raise_on(flat)
    assert explore.food_hidden(hilly, spawn, (food[0], hilly.height_at(*food) + FOOD_RADIUS_M["apple"], food[1]))
    assert math.dist(spawn, hill.centre) >= hill.radius_m + explore.HILL_SPAWN_GAP_M - 1e-9
    assert math.dist(food, hill.centre) == pytest.approx(explore.HILL_FOOD_AT * hill.radius_m)
    assert hilly.slope_deg().max() < 35.0  # walkable over the top, too
    assert explore.hill_between(spawn, (1.0, 0.0)) is None  # too close for the smallest hill


def test_worlds_whose_own_terrain_does_not_hide_the_food_get_a_hill():
    hills = [_layout(d, seed).hill for d, seed in CASES]
    # Small flat islands need one, Large rocky ones mostly hide the food on their own.
    assert all(_layout(0.0, seed).hill is not None for seed in SEEDS)
    assert any(hill is None for hill in hills)
    for (d, seed), hill in zip(CASES, hills):
        if hill is not None:
            world = _world(d, seed)
            food = world.food[0].position
            assert math.dist((food[0], food[2]), hill.centre) == pytest.approx(explore.HILL_FOOD_AT * hill.radius_m)


# --- the knobs -----------------------------------------------------------------------------------


def test_every_knob_is_monotone_in_difficulty():
    grid = np.linspace(0.0, 1.0, 21)
    for field in attr.fields(explore.ExploreKnobs):
        knob = getattr(explore.KNOBS, field.name)
        if isinstance(knob, Ramp):
            values = [knob.at(d) for d in grid]
            assert values == sorted(values), field.name
        elif isinstance(knob, Band):
            lows, highs = zip(*(knob.at(d) for d in grid))
            assert list(lows) == sorted(lows) and list(highs) == sorted(highs), field.name
            assert all(low <= high for low, high in zip(lows, highs)), field.name
    sizes = [explore.world_size_m(d) for d in grid]
    assert sizes == sorted(sizes) and sizes[0] == 64.0 and sizes[-1] == 256.0  # Small to Large
    counts = [explore.mountain_count(d, explore.world_size_m(d)) for d in grid]
    assert counts == sorted(counts) and counts[0] == 0 and counts[-1] >= 4


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_the_world_size_and_the_food_distance_are_the_knobs(difficulty):
    low, high = explore.KNOBS.food_distance_m.at(difficulty)
    for seed in SEEDS:
        world = _world(difficulty, seed)
        assert world.ground.heightmap.size_m == explore.world_size_m(difficulty)
        assert low - 1e-9 <= _distance_m(world) <= high + 1e-9


def test_the_food_lies_ahead_at_zero_and_anywhere_at_one():
    def bearing_deg(world):
        sx, _, sz = world.spawn_position
        fx, _, fz = world.food[0].position
        # Yaw 0 faces -z; positive yaw turns left (towards -x).
        return abs(math.degrees(wrap_angle(math.atan2(-(fx - sx), -(fz - sz)) - world.spawn_yaw_rad)))

    assert all(bearing_deg(_world(0.0, seed)) < 1e-6 for seed in SEEDS)
    assert max(bearing_deg(_world(1.0, seed)) for seed in SEEDS) > 30.0


def _rockiness(world) -> tuple[float, float]:
    """Share of the land steeper than 35 degrees (steeper than a raised hill), and share of the
    land in the mountain biomes (bare rock and cliff)."""
    heightmap = world.ground.heightmap
    land = heightmap.heights >= heightmap.water_height_m
    steep = (heightmap.slope_deg() > 35.0) & land
    ids = world.ground.biome_map.biome_ids
    mountain = np.isin(ids, [int(b) for b in MOUNTAIN_BIOMES]) & land
    return float(steep.sum() / land.sum()), float(mountain.sum() / land.sum())


def test_the_terrain_gets_rockier_with_difficulty():
    means = []
    for d in (0.0, 0.5, 1.0):
        shares = np.array([_rockiness(_world(d, seed)) for seed in SEEDS])
        means.append(shares.mean(axis=0))
    steep, mountain = zip(*means)
    assert mountain[0] < mountain[1] < mountain[2], mountain
    assert steep[2] > 2 * max(steep[0], steep[1]), steep


# --- the kit's option for hidden food ------------------------------------------------------------


def test_assembly_keeps_no_sight_line_clear_for_hidden_food_and_would_refuse_it_otherwise():
    layout = _layout(0.0, 0)
    world = layout.world
    assert layout.outdoor.removed_occluders == 0
    spawn = (world.spawn_position[0], world.spawn_position[2])
    food = world.food[0].position
    arguments = dict(task="explore", difficulty=0.0, spawn=spawn, spawn_yaw_rad=world.spawn_yaw_rad,
                     foods=[FoodPlacement(kind="apple", x=food[0], z=food[2])], tree_site=None)
    config = OutdoorTaskConfig()
    hidden = assemble_outdoor_world(split_streams(np.random.default_rng(5)), config, layout.outdoor.biome_map,
                                    food_in_sight=False, clear_sight_lines=False, **arguments)
    assert hidden.world.food[0].position == food
    with pytest.raises(ImpossibleWorldError, match="cannot be seen from the spawn"):
        assemble_outdoor_world(split_streams(np.random.default_rng(5)), config, layout.outdoor.biome_map, **arguments)


def test_the_time_limit_is_ten_minutes_unless_the_config_sets_another():
    assert build_world("explore", 0.0, 1, OutdoorTaskConfig()).time_limit_frames == 6000
    assert build_world("explore", 0.0, 1, OutdoorTaskConfig(time_limit_frames=1234)).time_limit_frames == 1234
