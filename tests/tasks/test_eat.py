"""The eat task: determinism, what difficulty changes, and the guarantees of every world."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.scenery import FruitTreeConfig, SceneryKind
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_KINDS, FOOD_RADIUS_M
from avalon.tasks import build_world, eat
from avalon.tasks.kit import altar
from avalon.tasks.kit.geometry import facing_direction, wrap_angle
from avalon.tasks.kit.sight import OCCLUDER_PARTS
from tests.tasks.helpers import check_basic_guarantees, layout, surface_height, world_digest

SEEDS = range(10)
DIFFICULTIES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)

GOLDEN = {
    (0.0, 0): "d22339db315fc4b55b864b7f1487a0c6f696bc3801c573a94270fcd998ed27fc",  # the apple on an altar
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


def test_difficulty_zero_is_an_apple_straight_ahead_on_an_altar():
    for seed in SEEDS:
        lay = layout("eat", 0.0, seed)
        world = lay.world
        assert [f.kind for f in world.food] == ["apple"]
        assert lay.altar is not None and world.entity("altar").kind == "box"
        assert _distance(world) == pytest.approx(0.6, abs=1e-6)
        assert _bearing_deg(world) == pytest.approx(0.0, abs=1e-6)


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
    from avalon.rules.foods import HANGING_FOOD_CLEARANCE_M
    from tests.tasks.helpers import surface_height

    easier = [layout("eat", d, s).world for d in (0.0, 0.2, 0.4, 0.49) for s in SEEDS]
    assert not any(food.param("hanging") for world in easier for food in world.food)
    tree = FruitTreeConfig()
    # A standing agent's hand centre reaches shoulder + arm; it grasps what lies within its
    # radius + GRASP_REACH_M of its centre.
    standing_reach = mechanics.SHOULDER_HEIGHT_M + mechanics.ARM_REACH_M + mechanics.HAND_RADIUS_M + mechanics.GRASP_REACH_M
    counts = {True: 0, False: 0}
    for seed in range(24):
        lay = layout("eat", 0.9, seed)
        foods = lay.world.food
        assert all(bool(food.param("hanging")) == lay.hanging for food in foods)
        assert not (lay.hanging and lay.altar is not None)
        if lay.kind == "carrot":
            assert not lay.hanging
        if lay.kind == "honeycomb":
            assert lay.hanging or lay.altar is not None  # on the ground it would get dirty
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
            assert mechanics.BODY_HEIGHT_M < lowest < standing_reach  # walked under untouched, picked from the ground
            assert y + radius + food.param("stalk_length_m") == pytest.approx(canopy_bottom, abs=1e-5)
            reach = math.hypot(x - fruit_tree.position[0], z - fruit_tree.position[2])
            assert tree.trunk_radius_m * fruit_tree.scale + radius < reach < tree.canopy_radius_m * fruit_tree.scale - radius
    assert counts[True] >= 6 and counts[False] >= 4, counts


# --- food on an altar -------------------------------------------------------------------------

GRASP_RADIUS_M = mechanics.HAND_RADIUS_M + mechanics.GRASP_REACH_M  # plus the food's radius
HAND_STEP_M = mechanics.MAX_HAND_SPEED_M_PER_S * mechanics.STEP_SECONDS


def _body_frame(world, point) -> np.ndarray:
    """A world point in the spawned agent's body frame (x right, y up from the feet, z back),
    from Godot's yaw basis (local x = (cos, 0, -sin), local z = (sin, 0, cos))."""
    sx, sy, sz = world.spawn_position
    c, s = math.cos(world.spawn_yaw_rad), math.sin(world.spawn_yaw_rad)
    dx, dy, dz = point[0] - sx, point[1] - sy, point[2] - sz
    return np.array([c * dx - s * dz, dy, s * dx + c * dz])


def _box(world):
    """(centre, yaw, width, height) of the world's altar."""
    altar = world.entity("altar")
    width, height, depth = altar.param("size")
    assert altar.kind == "box" and width == depth
    return np.array(altar.position), altar.yaw_rad, width, height


def _box_local(world, x, z):
    centre, yaw, _, _ = _box(world)
    c, s = math.cos(yaw), math.sin(yaw)
    dx, dz = np.asarray(x) - centre[0], np.asarray(z) - centre[2]
    return c * dx - s * dz, s * dx + c * dz


def _distance_to_box(world, point) -> float:
    centre, _, width, height = _box(world)
    u, v = _box_local(world, point[0], point[2])
    flat = math.hypot(max(abs(u) - width / 2, 0.0), max(abs(v) - width / 2, 0.0))
    vertical = max(centre[1] - height / 2 - point[1], point[1] - centre[1] - height / 2, 0.0)
    return math.hypot(flat, vertical)


def _view_angles_deg(world, point) -> tuple[float, float]:
    x, y, z = _body_frame(world, point) - np.array([0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0])
    assert z < 0, "in front of the agent"
    return math.degrees(math.atan(abs(x) / -z)), math.degrees(math.atan(abs(y) / -z))


def check_altar_guarantees(world) -> None:
    """Food resting on the altar's top, the altar standing on dry flat enough ground, clear of
    plants and of the agent at spawn, the food in the camera's view."""
    centre, yaw, width, height = _box(world)
    top, bottom = centre[1] + height / 2, centre[1] - height / 2
    heightmap = world.ground.heightmap
    for food in world.food:
        radius = FOOD_RADIUS_M[food.kind]
        u, v = _box_local(world, food.position[0], food.position[2])
        assert max(abs(u), abs(v)) <= width / 2 - radius + 1e-9, f"{food.name} overhangs the top's edge"
        assert food.position[1] == pytest.approx(top + radius, abs=1e-9)
        assert max(_view_angles_deg(world, food.position)) <= 40.0 + 1e-6
    # The ground under the top: dry, below the top, above the (sunk) bottom, gentle.
    t = np.linspace(-0.5, 0.5, 7) * width
    c, s = math.cos(yaw), math.sin(yaw)
    heights = []
    for a in t:
        for b in t:
            heights.append(surface_height(heightmap, centre[0] + c * a + s * b, centre[2] - s * a + c * b))
    heights = np.array(heights)
    assert heights.min() >= heightmap.water_height_m + 0.05
    assert bottom < heights.min() - 0.1 and top - heights.max() >= 0.25
    assert heights.max() - heights.min() <= math.tan(math.radians(25)) * width * math.sqrt(2) + 1e-6
    # No plant or tree trunk inside it.
    for plant in world.scenery:
        trunk_radius = OCCLUDER_PARTS[SceneryKind(plant.kind)][0][0] * plant.scale
        u, v = _box_local(world, plant.position[0], plant.position[2])
        gap = math.hypot(max(abs(u) - width / 2, 0.0), max(abs(v) - width / 2, 0.0)) - trunk_radius
        assert gap > 0.0, f"a {plant.kind} grows into the altar"
    # The agent at spawn: body capsule and resting hands clear of it, eyes above its top.
    sx, sy, sz = world.spawn_position
    u, v = _box_local(world, sx, sz)
    body_gap = math.hypot(max(abs(u) - width / 2, 0.0), max(abs(v) - width / 2, 0.0)) - mechanics.BODY_RADIUS_M
    assert body_gap >= 0.05 - 1e-9
    cy, sy_ = math.cos(world.spawn_yaw_rad), math.sin(world.spawn_yaw_rad)
    for x, y, z in (mechanics.LEFT_HAND_REST_M, mechanics.RIGHT_HAND_REST_M):
        hand = (sx + cy * x + sy_ * z, sy + y, sz - sy_ * x + cy * z)  # body frame to world (Godot's yaw)
        assert _distance_to_box(world, hand) - mechanics.HAND_RADIUS_M >= 0.05 - 1e-9
        # The sleeping food stays out of the hand's Bullet pairing range (boxes grown by 0.02 m,
        # 0.05 m to spare) whatever the yaw: vertically, or horizontally by sqrt(2) times the sum.
        for food in world.food:
            reach = mechanics.HAND_RADIUS_M + 2 * 0.02 + 0.05
            vertical = abs(food.position[1] - hand[1]) >= reach + FOOD_RADIUS_M[food.kind] - 1e-9
            flat = math.hypot(food.position[0] - hand[0], food.position[2] - hand[2])
            assert vertical or flat >= math.sqrt(2) * (reach + FOOD_RADIUS_M[food.kind])
    assert sy + mechanics.HEAD_DEFAULT_HEIGHT_M > top


def test_the_chance_of_an_altar_falls_from_one_to_zero_with_difficulty():
    # The draw itself, over many generators: always at 0, never at 1, about 1 - d between.
    trials = 4000
    for difficulty in (0.0, 0.25, 0.5, 0.75, 1.0):
        hits = sum(eat.draw_altar(np.random.default_rng(k), "apple", difficulty)[0] for k in range(trials))
        expected = (1 - difficulty) * trials
        sigma = math.sqrt(trials * difficulty * (1 - difficulty))
        assert abs(hits - expected) <= 4 * sigma + 1e-9, (difficulty, hits)
    assert not any(eat.draw_altar(np.random.default_rng(k), "carrot", 0.0)[0] for k in range(100))
    # And in built worlds.
    assert all(layout("eat", 0.0, seed).altar is not None for seed in range(20))
    assert all(layout("eat", 1.0, seed).altar is None for seed in range(20))
    with_altar = sum(layout("eat", 0.5, seed).altar is not None for seed in range(40))
    assert 10 <= with_altar <= 30  # 1 - d = 0.5 (carrots, a sixth of the kinds here, never)
    fraction = {d: np.mean([layout("eat", d, seed).altar is not None for seed in range(20)]) for d in (0.2, 0.8)}
    assert fraction[0.2] > fraction[0.8]


@pytest.mark.parametrize("difficulty", (0.0, 0.1, 0.3, 0.5, 0.8))
def test_food_on_an_altar_rests_on_its_top_and_keeps_the_guarantees(difficulty):
    seen = 0
    for seed in range(12):
        lay = layout("eat", difficulty, seed)
        if lay.altar is None:
            assert "altar" not in {e.name for e in lay.world.entities}
            continue
        seen += 1
        assert lay.kind != "carrot"
        check_basic_guarantees(lay.world)
        check_altar_guarantees(lay.world)
        assert lay.world.entity("altar").param("color") is not None
    assert seen >= (12 if difficulty == 0.0 else 2)


def test_cherry_clusters_fit_on_the_altar():
    clusters = 0
    for seed in range(30):
        lay = eat.build_layout(np.random.default_rng(seed), 0.15)
        if lay.kind == "cherry" and lay.altar is not None:
            clusters += 1
            assert len(lay.world.food) >= 2
            check_altar_guarantees(lay.world)
    assert clusters >= 3


def test_at_difficulty_zero_a_short_reach_grasps_the_apple_and_one_hand_step_brings_it_to_the_mouth():
    head = np.array([0.0, mechanics.HEAD_DEFAULT_HEIGHT_M, 0.0])
    shoulders = [
        np.array([sign * mechanics.SHOULDER_HALF_WIDTH_M, mechanics.SHOULDER_HEIGHT_M, 0.0]) for sign in (-1, 1)
    ]
    rests = [np.array(mechanics.LEFT_HAND_REST_M), np.array(mechanics.RIGHT_HAND_REST_M)]
    for seed in SEEDS:
        world = layout("eat", 0.0, seed).world
        (food,) = world.food
        local = _body_frame(world, food.position)
        grasp = GRASP_RADIUS_M + FOOD_RADIUS_M["apple"]
        # Not in a resting hand's grasp, but a little forward/up of it (less than one step's move).
        nearest_rest = min(np.linalg.norm(local - rest) for rest in rests)
        assert grasp < nearest_rest <= grasp + HAND_STEP_M / 2
        # Within arm's reach of both shoulders, without walking.
        assert all(np.linalg.norm(local - shoulder) <= mechanics.ARM_REACH_M for shoulder in shoulders)
        # One hand step toward the head brings the held apple within eating distance.
        assert np.linalg.norm(local - head) - HAND_STEP_M <= mechanics.EAT_DISTANCE_M
        assert np.linalg.norm(local - head) > mechanics.EAT_DISTANCE_M
        assert max(_view_angles_deg(world, food.position)) <= 40.0


def test_the_altar_sits_between_the_resting_hands_at_difficulty_zero():
    for seed in SEEDS:
        world = layout("eat", 0.0, seed).world
        centre, _, width, height = _box(world)
        local = _body_frame(world, centre)
        assert width == pytest.approx(altar.TOP_WIDTH_M)
        assert abs(local[0]) < 1e-9  # straight ahead
        inner_edge = mechanics.SHOULDER_HALF_WIDTH_M - mechanics.HAND_RADIUS_M
        assert width / 2 < inner_edge
        assert local[1] + height / 2 == pytest.approx(altar.TOP_HEIGHT_M)


def test_altar_worlds_are_byte_identical_for_the_same_seed(tmp_path):
    from avalon.tasks import generate_world

    folders = [generate_world("eat", 0.0, 4, tmp_path / name) for name in ("a", "b")]
    files = sorted(p.relative_to(folders[0]) for p in folders[0].rglob("*") if p.is_file())
    assert files and files == sorted(p.relative_to(folders[1]) for p in folders[1].rglob("*") if p.is_file())
    for name in files:
        assert (folders[0] / name).read_bytes() == (folders[1] / name).read_bytes()
    assert "altar" in (folders[0] / "world.tscn").read_text()


def test_the_altar_draws_leave_worlds_without_an_altar_unchanged():
    # The altar's draws come after the ground factors: at difficulty 1 (never an altar) the food
    # is where it was before altars existed (the golden digest at (1.0, 3) pins the whole world).
    assert layout("eat", 1.0, 3).altar is None
    assert world_digest(build_world("eat", 1.0, 3)) == GOLDEN[(1.0, 3)]
