"""The eat task: determinism, what difficulty changes, and the guarantees of every world."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.scenery import FruitTreeConfig, SceneryKind
from avalon.datagen.world import FOOD_KINDS, FOOD_RADIUS_M
from avalon.tasks import build_world, eat
from avalon.tasks.outdoor import facing_direction, wrap_angle

from tests.tasks.helpers import check_basic_guarantees, layout, world_digest

SEEDS = range(10)
DIFFICULTIES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)

GOLDEN = {
    (0.0, 0): "83610432f481f93598e16094dc552fba1e0641ebbaece268658bd8479d4d879c",
    (1.0, 3): "fc8dd8c30af190fe5f7c608b65fac2b2b2efc4095e94bbfa04258b6c413a480a",
}


def _bearing_deg(world) -> float:
    """Angle from the facing direction to the (first) food, degrees (positive: to the left)."""
    sx, _, sz = world.spawn_position
    fx, _, fz = world.food[0].position
    dx, dz = facing_direction(world.spawn_yaw_rad)
    # Positive yaw turns left: the food's yaw minus the spawn's.
    food_yaw = math.atan2(-(fx - sx), -(fz - sz))
    assert math.isclose(math.hypot(dx, dz), 1.0)
    return math.degrees(wrap_angle(food_yaw - world.spawn_yaw_rad))


def _distance(world) -> float:
    sx, _, sz = world.spawn_position
    xs = [f.position[0] for f in world.food]
    zs = [f.position[2] for f in world.food]
    return math.hypot(np.mean(xs) - sx, np.mean(zs) - sz)


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("eat", 0.6, 5)
    assert world_digest(build_world("eat", 0.6, 5)) == world_digest(first)
    assert world_digest(build_world("eat", 0.6, 6)) != world_digest(first)
    assert world_digest(build_world("eat", 0.61, 5)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digests (and say so in the commit).
    assert world_digest(build_world("eat", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_ladder_holds_every_food_kind_once_and_starts_with_apples():
    assert sorted(eat.FOOD_LADDER) == sorted(FOOD_KINDS)
    assert eat.food_kinds(0.0) == ("apple",) == eat.food_kinds(0.09)
    assert eat.food_kinds(1.0) == eat.FOOD_LADDER
    sizes = [len(eat.food_kinds(d)) for d in np.linspace(0, 1, 41)]
    assert sizes == sorted(sizes)


def test_difficulty_zero_is_an_apple_straight_ahead():
    for seed in SEEDS:
        world = layout("eat", 0.0, seed).world
        assert [f.kind for f in world.food] == ["apple"]
        assert 1.8 - 1e-6 <= _distance(world) <= 2.4 + 1e-6
        assert abs(_bearing_deg(world)) <= 10.0 + 1e-6


def test_difficulty_one_brings_harder_food_that_needs_a_turn():
    kinds = []
    for seed in range(16):
        world = layout("eat", 1.0, seed).world
        kinds.append(world.food[0].kind)
        assert 60.0 - 1e-6 <= abs(_bearing_deg(world)) <= 180.0
        assert 1.8 - 1e-6 <= _distance(world) <= 4.5 + 1e-6
    assert len(set(kinds)) >= 5
    assert kinds.count("apple") <= 6


def test_food_moves_off_to_the_side_as_difficulty_rises():
    mean_bearing = [np.mean([abs(_bearing_deg(layout("eat", d, s).world)) for s in SEEDS]) for d in (0.0, 0.4, 1.0)]
    assert mean_bearing[0] < mean_bearing[1] < mean_bearing[2]


def test_cherries_come_in_clusters_of_two_to_four():
    rng_worlds = [eat.build_layout(np.random.default_rng(seed), 0.15) for seed in range(16)]
    clusters = [lay.world.food for lay in rng_worlds if lay.kind == "cherry"]
    assert clusters, "difficulty 0.15 picks cherries about half the time"
    for food in clusters:
        assert 2 <= len(food) <= 4 and all(f.kind == "cherry" for f in food)
        assert len({f.name for f in food}) == len(food)
        for a in food:
            for b in food:
                if a is not b:
                    gap = math.dist(a.position, b.position)
                    assert 2 * FOOD_RADIUS_M["cherry"] <= gap <= 0.5


def test_food_lies_under_a_fruit_tree_except_carrots():
    tree = FruitTreeConfig()
    seen_carrot = seen_fruit = False
    for seed in range(40):
        if seen_carrot and seen_fruit and seed >= 8:
            break
        lay = eat.build_layout(np.random.default_rng(seed), 0.7)
        trees = [s for s in lay.world.scenery if s.kind == SceneryKind.FRUIT_TREE]
        if lay.kind == "carrot":
            seen_carrot = True
            assert trees == []
            continue
        seen_fruit = True
        assert len(trees) == 1
        (fruit_tree,) = trees
        for food in lay.world.food:
            reach = math.hypot(food.position[0] - fruit_tree.position[0], food.position[2] - fruit_tree.position[2])
            assert tree.trunk_radius_m * fruit_tree.scale + FOOD_RADIUS_M[food.kind] < reach
            assert reach <= tree.canopy_radius_m * fruit_tree.scale
    assert seen_carrot and seen_fruit


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_world_keeps_the_guarantees(difficulty):
    for seed in SEEDS:
        lay = layout("eat", difficulty, seed)
        check_basic_guarantees(lay.world)
        assert lay.world.task == "eat" and lay.world.time_limit_frames == 3000
        assert lay.world.ground.size_m == 64.0


def test_from_difficulty_half_food_may_hang_in_the_fruit_tree_within_reach_from_the_ground():
    from avalon.datagen.world import HANGING_FOOD_CLEARANCE_M
    from avalon.env import mechanics as M
    from tests.tasks.helpers import surface_height

    easier = [layout("eat", d, s).world for d in (0.0, 0.2, 0.4, 0.49) for s in SEEDS]
    assert not any(food.param("hanging") for world in easier for food in world.food)
    tree = FruitTreeConfig()
    # A standing agent's hand centre reaches shoulder + arm; it grasps what lies within its
    # radius + GRASP_REACH_M of its centre.
    standing_reach = M.SHOULDER_HEIGHT_M + M.ARM_REACH_M + M.HAND_RADIUS_M + M.GRASP_REACH_M
    counts = {True: 0, False: 0}
    for seed in range(24):
        lay = layout("eat", 0.9, seed)
        foods = lay.world.food
        assert all(bool(food.param("hanging")) == lay.hanging for food in foods)
        if lay.kind == "carrot":
            assert not lay.hanging
        if lay.kind == "honeycomb":
            assert lay.hanging  # on the ground it would get dirty
        counts[lay.hanging] += 1
        if not lay.hanging:
            continue
        (fruit_tree,) = [s for s in lay.world.scenery if s.kind == SceneryKind.FRUIT_TREE]
        canopy_bottom = fruit_tree.position[1] + tree.canopy_bottom_m * fruit_tree.scale
        heightmap = lay.world.ground.heightmap
        for food in foods:
            radius = FOOD_RADIUS_M[food.kind]
            x, y, z = food.position
            lowest = y - radius - surface_height(heightmap, x, z)
            assert lowest == pytest.approx(HANGING_FOOD_CLEARANCE_M)
            assert M.BODY_HEIGHT_M < lowest < standing_reach  # walked under untouched, picked from the ground
            assert y + radius + food.param("stalk_length_m") == pytest.approx(canopy_bottom, abs=1e-5)
            reach = math.hypot(x - fruit_tree.position[0], z - fruit_tree.position[2])
            assert tree.trunk_radius_m * fruit_tree.scale + radius < reach < tree.canopy_radius_m * fruit_tree.scale - radius
    assert counts[True] >= 6 and counts[False] >= 4, counts
