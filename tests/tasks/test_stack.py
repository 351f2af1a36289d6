"""The stack task: determinism and a golden world, the knobs against difficulty as measured on the
generated worlds, the certificate (no way up without the stones, a route over the staircase, the
stones to build it: each half shown able to fail), and the stones resting on the ground or on each
other, never inside the terrain or another stone (from the World spec; the simulator's side is in
``tests/agent/scripted/test_stack_solved.py``)."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.datagen.world import Terrain
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import build_world, stack, with_retries
from avalon.tasks.kit import ImpossibleWorldError, staircase
from avalon.tasks.kit.capabilities import terrain_jump_rise_m
from avalon.tasks.kit.geometry import triangle_slopes_deg
from avalon.tasks.kit.solved import Block, window, with_blocks
from tests.tasks import piece_checks
from tests.tasks.helpers import surface_height, world_digest

#: 15 worlds: two to four layers, all, some or none of them built.
PROPERTY_CASES = [(d, seed) for d in (0.0, 0.3, 0.5, 0.8, 1.0) for seed in range(2)]

GOLDEN = {(0.5, 3): "dd8582573cfdbe7f30815e25a89d7ff82fdcb3d1800ea33ebfbd893646beb59f"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> stack.StackLayout:
    """The layout ``build_world`` makes for (difficulty, seed) (the registry's retries included)."""
    return with_retries(lambda rng: stack.build_layout(rng, difficulty, None), "stack", difficulty, seed)


def _stones(world):
    return [e for e in world.entities if e.kind == "stone"]


def _corners(stone) -> np.ndarray:
    """The stone's footprint corners (x, z), (4, 2)."""
    half = TOOL_SIZE_M["stone"][0] * float(stone.param("safe_scale", 1.0)) / 2
    cos, sin = math.cos(stone.yaw_rad), math.sin(stone.yaw_rad)
    local = np.array([(-half, -half), (half, -half), (half, half), (-half, half)])
    # A turn by yaw about +y: local x goes to (cos, -sin), local z to (sin, cos) in (x, z).
    return np.array([(stone.position[0] + a * cos + b * sin, stone.position[2] - a * sin + b * cos) for a, b in local])


def _separated(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex footprints (corner arrays) do not overlap (separating axis test)."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() + 1e-6 or pb.max() <= pa.min() + 1e-6:
                return True
    return False


def _inside(point, poly: np.ndarray) -> bool:
    """Whether ``point`` (x, z) lies in the convex polygon ``poly`` (corners in order)."""
    signs = []
    for i in range(len(poly)):
        edge, to_point = poly[(i + 1) % len(poly)] - poly[i], np.subtract(point, poly[i])
        signs.append(edge[0] * to_point[1] - edge[1] * to_point[0])
    return all(v >= -1e-9 for v in signs) or all(v <= 1e-9 for v in signs)


def _height_m(stone) -> float:
    return TOOL_SIZE_M["stone"][1] * float(stone.param("safe_scale", 1.0))


# --- determinism --------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("stack", 0.5, 0)
    assert world_digest(first) == world_digest(attr.evolve(_layout(0.5, 0).world, seed=0))
    assert world_digest(build_world("stack", 0.5, 0)) == world_digest(first)
    assert world_digest(attr.evolve(_layout(0.5, 1).world, seed=0)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("stack", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_world_holds_one_apple_on_the_plateau_and_a_ten_minute_limit():
    for seed in range(3):
        lay = _layout(0.5, seed)
        assert [food.kind for food in lay.world.food] == ["apple"]
        assert lay.world.time_limit_frames == stack.TASK.evaluation_time_limit_frames == 10 * 60 * 10
        assert staircase.staircase_of(lay.world) == lay.staircase
        top, _ = _plateau_and_yard(lay)
        food = lay.world.food[0].position
        assert staircase.plateau_mask(lay.world.ground.heightmap, lay.staircase.centre)[
            lay.world.ground.heightmap.nearest_index(food[0], food[2])]
        assert food[1] > top


# --- the knobs ----------------------------------------------------------------------------------


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    knobs = stack.KNOBS

    def rising(values):
        return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))

    assert rising([stack.layer_count(d) for d in ds])
    assert [stack.layer_count(d) for d in (0.0, 0.34, 0.35, 0.69, 0.7, 1.0)] == [2, 2, 3, 3, 4, 4]
    assert rising([-knobs.built_layers_share.at(d) for d in ds])
    assert rising([staircase.stone_count(stack.layer_count(d)) - stack.built_layer_count(d) for d in ds])
    assert stack.built_layer_count(0.0) == stack.layer_count(0.0) and stack.built_layer_count(1.0) == 0
    assert rising([knobs.stone_spread_deg.at(d) for d in ds])
    assert rising([knobs.approach.spawn_distance_m.at(d)[0] for d in ds]) and rising([knobs.approach.spawn_distance_m.at(d)[1] for d in ds])
    assert rising([knobs.approach.max_facing_offset_deg.at(d) for d in ds])
    assert rising([knobs.training_time_limit_s.at(d) for d in ds])
    assert rising([staircase.cliff_height_m(stack.layer_count(d)) for d in ds])


def test_the_wall_is_taller_than_any_jump_from_the_yard_and_the_staircase_leaves_a_jump_to_the_top():
    cell = 1.0 / stack.ISLAND.points_per_m
    for layers in (2, 3, 4):
        height = staircase.cliff_height_m(layers)
        slope = math.degrees(math.atan(height / cell))
        assert height > float(terrain_jump_rise_m(slope)) + 0.2 + 0.1  # the bypass search's slide, with margin
        assert height > mechanics.JUMP_LEDGE_MISSED_M + 0.5
        assert staircase.LEDGE_RISE_M <= 1.2 and staircase.STONE_HEIGHT_M <= 1.2  # the route search's jumps
    # One layer fewer would leave a wall the face lets a jump slide up: two layers is the least.
    low = staircase.cliff_height_m(1)
    assert low < float(terrain_jump_rise_m(math.degrees(math.atan(low / cell)))) + 0.2


def _plateau_and_yard(lay: stack.StackLayout) -> tuple[float, float]:
    """(the plateau's height, the yard's) as measured on the terrain: at the centre and at the
    staircase's foot."""
    heightmap = lay.world.ground.heightmap
    stair = lay.staircase
    return (surface_height(heightmap, *stair.centre), surface_height(heightmap, *stair.foot_xz))


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_the_knobs_do_what_they_say_on_the_generated_world(difficulty, seed):
    lay = _layout(difficulty, seed)
    world, stair = lay.world, lay.staircase
    top, yard = _plateau_and_yard(lay)
    layers = stack.layer_count(difficulty)
    assert stair.layers == layers
    assert top - yard == pytest.approx(layers * staircase.STONE_HEIGHT_M + staircase.LEDGE_RISE_M, abs=1e-4)
    stones = _stones(world)
    assert len(stones) == staircase.stone_count(layers)
    built = [s for s in stones if s.name in lay.built]
    assert len(built) == sum(layers - j for j in range(stack.built_layer_count(difficulty)))
    # Loose stones lie within the spread of the staircase's direction seen from the centre.
    away = math.atan2(stair.outward[1], stair.outward[0])
    for s in stones:
        if s.name in lay.loose:
            bearing = math.atan2(s.position[2] - stair.centre[1], s.position[0] - stair.centre[0])
            assert abs(math.degrees(math.remainder(bearing - away, 2 * math.pi))) <= stack.KNOBS.stone_spread_deg.at(difficulty) + 1e-6
    # The spawn stands its knob's distance beyond the staircase's outer end, facing it within the offset.
    spawn = world.spawn_position
    out = math.hypot(spawn[0] - stair.centre[0], spawn[2] - stair.centre[1]) - stair.outer_end_m
    low, high = stack.KNOBS.approach.spawn_distance_m.at(difficulty)
    assert low - 1e-6 <= out <= high + 1e-6
    facing = (-math.sin(world.spawn_yaw_rad), -math.cos(world.spawn_yaw_rad))
    to_stair = np.subtract(stair.column_xz(layers - 1), (spawn[0], spawn[2]))
    off = math.degrees(math.acos(np.clip(np.dot(facing, to_stair) / np.linalg.norm(to_stair), -1, 1)))
    assert off <= stack.KNOBS.approach.max_facing_offset_deg.at(difficulty) + 1e-3
    # The food lies on the plateau, inset from the wall above the staircase by its knob.
    food = world.food[0].position
    inset = stack.PLATEAU_HALF_SIDE_M - np.dot(np.subtract((food[0], food[2]), stair.centre), stair.outward)
    low, high = stack.KNOBS.approach.food_inset_m.at(difficulty)
    assert low - 1e-6 <= inset <= high + 1e-6
    assert surface_height(world.ground.heightmap, food[0], food[2]) == pytest.approx(top, abs=1e-4)


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES[::3])
def test_the_wall_is_sheer_and_unclimbable_all_round(difficulty, seed):
    lay = _layout(difficulty, seed)
    ground = lay.world.ground
    heightmap = ground.heightmap
    plateau = staircase.plateau_mask(heightmap, lay.staircase.centre)
    wall = staircase.wall_mask(plateau)
    assert not ground.biome_map.climbable[wall].any()
    top, yard = _plateau_and_yard(lay)
    slopes = triangle_slopes_deg(heightmap)
    rows, cols = np.nonzero(wall[:-1, :-1] & wall[1:, 1:])
    steep = slopes[rows, cols].max(axis=-1)
    # Every triangle that climbs from the yard to the top rises the whole wall within one cell.
    assert steep.max() >= math.degrees(math.atan((top - yard) * stack.ISLAND.points_per_m)) - 1e-3


# --- the certificate ----------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES[::3])
def test_the_certificate_holds_from_the_world_alone_and_its_route_jumps_up_the_staircase(difficulty, seed):
    lay = _layout(difficulty, seed)
    certificate = stack.certificate(lay.world)
    assert certificate.ok and not certificate.bypassed, certificate.reason
    steps = certificate.route.steps
    assert [s.skill for s in steps][-(lay.staircase.layers + 1):] == ["jump"] * (lay.staircase.layers + 1)
    top, _ = _plateau_and_yard(lay)
    assert steps[-1].target[1] == pytest.approx(top, abs=0.01)


def test_each_half_of_the_certificate_can_fail():
    lay = _layout(0.5, 1)
    world, stair = lay.world, lay.staircase
    food = world.food[0]
    start = (stair.foot_xz[0], stair.base_m, stair.foot_xz[1])
    # The items are needed: the terrain alone has no route even with the route search's limits...
    from avalon.tasks.kit.certificate import certify

    bare = window(world, stair.centre, stack.CERTIFICATE_WINDOW_M, start)
    assert not certify(bare.world, bare.world.food[0], frozenset(), frozenset({"walk", "jump", "climb", "fall"})).solvable
    # ...and a staircase one layer short leaves no route.
    short = attr.evolve(stair, layers=stair.layers - 1)
    cut = window(with_blocks(world, short.blocks()), stair.centre, stack.CERTIFICATE_WINDOW_M, start)
    assert not certify(cut.world, cut.world.food[0], frozenset(), frozenset({"walk", "jump", "climb", "fall"})).solvable
    # A stone too few, or one too heavy to lift, fails the stones' half.
    stones = _stones(world)
    fewer = attr.evolve(world, entities=tuple(e for e in world.entities if e is not stones[-1]))
    assert "stones for a staircase" in stack.certificate(fewer).reason
    heavy = attr.evolve(stones[-1], params=(*stones[-1].params, ("mass", 41.0)))
    heavier = attr.evolve(world, entities=tuple(heavy if e is stones[-1] else e for e in world.entities))
    assert "more than a hand lifts" in stack.certificate(heavier).reason
    # A wall one layer lower (the plateau lowered by a stone's height) is bypassed.
    heights = world.ground.heightmap.heights.astype(np.float64)
    lowered = np.where(staircase.plateau_mask(world.ground.heightmap, stair.centre),
                       heights - (stair.layers - 1) * staircase.STONE_HEIGHT_M, heights)
    biome_map = attr.evolve(world.ground.biome_map, heightmap=world.ground.heightmap.with_heights(lowered))
    low_food = attr.evolve(food, position=(food.position[0], food.position[1] - (stair.layers - 1) * staircase.STONE_HEIGHT_M,
                                           food.position[2]))
    low = attr.evolve(world, ground=Terrain(biome_map=biome_map),
                      entities=tuple(low_food if e is food else e for e in world.entities))
    assert stack.certificate(low).bypassed


# --- the stones rest on the ground --------------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_every_stone_rests_on_the_ground_or_on_a_stone_and_none_overlaps(difficulty, seed):
    world = _layout(difficulty, seed).world
    heightmap = world.ground.heightmap
    stones = _stones(world)
    for stone in stones:
        assert float(stone.param("mass")) <= mechanics.MAX_LIFT_MASS_KG
        bottom = stone.position[1] - _height_m(stone) / 2
        corners = _corners(stone)
        # Points over the whole footprint: the terrain nowhere rises into the stone.
        u = np.linspace(0.0, 1.0, 9)
        grid = [corners[0] + a * (corners[1] - corners[0]) + b * (corners[3] - corners[0]) for a in u for b in u]
        under = np.array([surface_height(heightmap, x, z) for x, z in grid])
        assert under.max() <= bottom + 1e-4, (stone.name, under.max(), bottom)
        on_ground = under.min() >= bottom - 1e-4
        below = [o for o in stones if o is not stone and abs(o.position[1] + _height_m(o) / 2 - bottom) < 1e-4
                 and not _separated(_corners(o), corners)]
        # On the ground (level under its whole footprint) or on a stone whose top holds its centre.
        held = any(_inside((stone.position[0], stone.position[2]), _corners(o)) for o in below)
        assert on_ground or held, stone.name
    for i, a in enumerate(stones):
        for b in stones[i + 1:]:
            overlap_y = min(a.position[1] + _height_m(a) / 2, b.position[1] + _height_m(b) / 2) - \
                max(a.position[1] - _height_m(a) / 2, b.position[1] - _height_m(b) / 2)
            assert overlap_y <= 1e-6 or _separated(_corners(a), _corners(b)), (a.name, b.name)


# --- bad input ----------------------------------------------------------------------------------


def test_bad_input_is_refused_with_the_value_named():
    with pytest.raises(ValueError, match="1.5"):
        build_world("stack", 1.5, 0)
    with pytest.raises(ValueError, match="does not lie on a flat plateau|no staircase fits"):
        staircase.staircase_of(build_world("eat", 0.0, 0))
    with pytest.raises(ValueError, match="a World on Terrain"):
        with_blocks("not a world", [])
    world = _layout(0.0, 0).world
    with pytest.raises(ValueError, match="sequence of Block"):
        with_blocks(world, [(0.0, 0.0, 1.0)])
    with pytest.raises(ValueError, match="half_side_m"):
        window(world, (0.0, 0.0), -1.0, world.spawn_position)
    with pytest.raises(ValueError, match="beyond the world's edge"):
        window(world, (0.0, 0.0), 100.0, world.spawn_position)
    with pytest.raises(ValueError, match="width_m"):
        Block(centre=(0.0, 0.0), width_m=0.0, depth_m=1.0, top_m=1.0)


def test_with_blocks_raises_the_ground_under_a_turned_footprint_only():
    world = _layout(0.0, 0).world
    heightmap = world.ground.heightmap
    x, z = world.spawn_position[0], world.spawn_position[2]
    block = Block(centre=(x, z), width_m=2.0, depth_m=1.0, top_m=50.0, yaw_rad=math.pi / 2)
    raised = with_blocks(world, [block]).ground.heightmap
    assert surface_height(raised, x, z + 0.9) == pytest.approx(50.0)  # along z: its width, after the turn
    assert surface_height(raised, x + 0.9, z) < 50.0  # along x: beyond its depth
    assert surface_height(raised, x, z + 1.5) == pytest.approx(surface_height(heightmap, x, z + 1.5))


# --- the obstacle piece elsewhere ----------------------------------------------------------------

#: A band round a point of a plain island (0.25 m grid) that is not the middle, the path crossing
#: it 30 degrees off the grid's axes: round the goal (a plateau 10 m across, its inner radius the
#: band's) and round the start (a pit 18 m across, sunk into a level rim).
PIECE_CENTRE = (3.0, 5.0)
PIECE_CASES = [(False, 1.0, 5.0, 20.0), (False, 0.3, 5.0, 20.0), (True, 1.0, 0.0, 26.0), (True, 0.5, 0.0, 26.0)]


@pytest.mark.parametrize("inverted, difficulty, inner_m, outer_m", PIECE_CASES)
def test_the_piece_stands_in_another_band_either_way_up_and_its_crossing_is_certified(inverted, difficulty, inner_m, outer_m):
    constraint = piece_checks.band(PIECE_CENTRE, inner_m, outer_m, 30.0, inverted)
    island = piece_checks.plain_island(3, land_height_m=10.0, points_per_m=stack.ISLAND.points_per_m)
    piece, streams = piece_checks.build_piece(stack.obstacle, island, constraint, difficulty, seed=3)
    stair = piece.detail.staircase
    assert stair.layers == stack.layer_count(difficulty) and stair.direction == pytest.approx((1.0, 0.0))
    assert abs(stair.wall_offset_m) == (stack.PIT_HALF_SIDE_M + 0.25 if inverted else inner_m)
    piece_checks.assert_crossing_in_band(piece, constraint, slack_m=stack.CROSSING_INSET_M, off_path_deg=30.0 + 1e-6)
    piece_checks.assert_unchanged_beyond(piece, constraint, margin_m=0.0, changed=lambda a, b: np.abs(a - b) > 1e-4)
    # The crossing climbs the wall: its end stands the wall's height above its start.
    heights = [surface_height(piece.draft.heightmap, *p) for p in (piece.crossing.start, piece.crossing.end)]
    assert heights[1] - heights[0] == pytest.approx(staircase.cliff_height_m(stair.layers), abs=1e-4)
    world = piece_checks.assembled_world(piece, streams, "stack", difficulty)
    assert len(_stones(world)) == staircase.stone_count(stair.layers)
    proof = stack.staircase_certificate(world, stair)
    assert proof.ok, proof.reason
    assert [s.skill for s in proof.route.steps][-(stair.layers + 1):] == ["jump"] * (stair.layers + 1)


def test_the_piece_refuses_rough_ground_and_a_band_too_narrow_naming_why():
    island = piece_checks.plain_island(1, land_height_m=10.0, points_per_m=stack.ISLAND.points_per_m)
    with pytest.raises(ImpossibleWorldError, match=r"stack: the ground round \(-4.0, 3.0\) varies by .* more than 2.5 m"):
        piece_checks.build_piece(stack.obstacle, island, piece_checks.band((-4.0, 3.0), 0.0, 26.0, 0.0, True), 0.5, 0)
    with pytest.raises(ImpossibleWorldError, match=r"stack: the yard reaches 23.49 m from its centre: beyond the band's "
                                                   r"outer radius 20.00 m"):
        piece_checks.build_piece(stack.obstacle, island, piece_checks.band(PIECE_CENTRE, 0.0, 20.0, 0.0, True), 0.5, 0)
