"""The bridge task: its knobs and what they do on the terrain, and the guarantees of every world
(the certificate: the terrain alone gives no way to the food, the log laid across the trench
does; the log rests on the ground, liftable and reachable; it lies across at d = 0)."""

from __future__ import annotations

import functools
import math
import operator

import attr
import numpy as np
import pytest

from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks import bridge, build_world, with_retries
from avalon.tasks.kit import chasm as kit_chasm, log as kit_log
from avalon.tasks.kit.capabilities import BYPASS_CAPABILITIES, jump_reach_m
from avalon.tasks.kit.certificate import bypass_reaches, certify
from avalon.tasks.kit.route import SKILLS
from avalon.tasks.kit.solved import with_blocks
from tests.tasks import chasm_pieces
from tests.tasks.helpers import world_digest

DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = range(5)
CASES = [(d, seed) for d in DIFFICULTIES for seed in SEEDS]

GOLDEN = {
    (0.5, 0): "f11922ed6b8b55a80f673ca3bf659a39548b48d199655d210fce5271888df62c",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> bridge.BridgeLayout:
    """The layout ``build_world`` makes for (difficulty, seed), with the registry's retries."""
    return with_retries(lambda rng: bridge.build_layout(rng, difficulty, None), "bridge", difficulty, seed)


def _case_id(case) -> str:
    return "d{}-seed{}".format(*case)


def _log(layout: bridge.BridgeLayout):
    logs = [entity for entity in layout.world.entities if entity.kind == "log"]
    assert len(logs) == 1
    return logs[0]


def _radial_span_m(layout: bridge.BridgeLayout, angle_rad: float) -> float:
    return kit_log.radial_span_m(layout.world.ground.heightmap, layout.chasm, angle_rad)


def test_golden_world_does_not_change_by_accident():
    # If a change to generation is intended, update the digest (and say so in the commit).
    for (difficulty, seed), digest in GOLDEN.items():
        assert world_digest(build_world("bridge", difficulty, seed)) == digest


def test_every_knob_moves_one_way_with_difficulty():
    grid = np.linspace(0.0, 1.0, 21)
    rising = ("chasm.width_m", "chasm.stretch_width_m", "chasm.depth_m", "chasm.max_stretch_bearing_deg", "training_time_limit_s")
    for name in rising:
        values = [operator.attrgetter(name)(bridge.KNOBS).at(d) for d in grid]
        assert values == sorted(values) and values[0] < values[-1], name
    for name in ("chasm.stretch_length_m", "log_in_place_chance"):
        values = [operator.attrgetter(name)(bridge.KNOBS).at(d) for d in grid]
        assert values == sorted(values, reverse=True) and values[0] > values[-1], name
    assert bridge.KNOBS.log_in_place_chance.at(0.0) == 1.0 and bridge.KNOBS.log_in_place_chance.at(1.0) == 0.0
    for band in (bridge.KNOBS.log_distance_m, bridge.KNOBS.spawn_to_bridge_m, bridge.KNOBS.food_to_bridge_m):
        for low, high in zip(grid[:-1], grid[1:]):
            assert band.at(low)[0] <= band.at(high)[0] and band.at(low)[1] <= band.at(high)[1]
        assert band.at(0.0) != band.at(1.0)


def test_the_trench_is_beyond_a_jump_and_the_chasm_beyond_the_log():
    longest_jump = jump_reach_m(0.0) + BYPASS_CAPABILITIES.jump_reach_slack_m  # the bypass search's
    log_length = kit_log.LOG_SIZE_M[2]
    for d in np.linspace(0.0, 1.0, 11):
        gap = bridge.KNOBS.chasm.stretch_width_m.at(d)
        assert longest_jump < gap < log_length - 2 * kit_log.MIN_REST_M
        assert bridge.KNOBS.chasm.width_m.at(d) > log_length
    assert kit_log.LOG_MASS_KG <= mechanics.MAX_LIFT_MASS_KG


@pytest.mark.parametrize("difficulty", [0.0, 1.0])
def test_the_knobs_shape_the_chasm_on_the_terrain(difficulty):
    for seed in range(3):
        layout = _layout(difficulty, seed)
        chasm = layout.chasm
        stretch = math.radians(chasm.stretch_angle_deg)
        # Along the stretch's middle the chasm is the trench: wider than a jump, and the log laid
        # across it rests on both sides.
        gap = _radial_span_m(layout, stretch)
        assert gap >= chasm.stretch_width_m - 0.5
        assert min(kit_log.end_rests_m(layout.world.ground.heightmap, layout.solved_log)) >= kit_log.MIN_REST_M
        # Outside the stretch it is wider than the log everywhere.
        half = chasm.stretch_half_angle_rad() + 2.0 / (kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2.0)
        for angle in np.linspace(stretch + half, stretch + 2 * math.pi - half, 200):  # finer than the generator's check
            assert _radial_span_m(layout, angle) > kit_log.LOG_SIZE_M[2], (seed, angle)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_every_world_needs_the_log_and_the_log_suffices(case):
    layout = _layout(*case)
    world, food = layout.world, layout.world.food[0]
    assert layout.certificate.ok, layout.certificate.reason
    # No way on the terrain alone, whatever the skills and any fall short of a lethal one...
    assert not bypass_reaches(world, food, frozenset(SKILLS), max_fall_m=mechanics.LETHAL_FALL_M)
    # ...and a route with the log burned in across the trench.
    bare = attr.evolve(world, entities=[entity for entity in world.entities if not kit_log.is_pier(entity)])
    burned = kit_log.log_footprint(layout.solved_log).block(min_width_m=2.0)
    solved = certify(with_blocks(bare, [burned]), food, frozenset(), frozenset(SKILLS))
    assert solved.solvable, solved.reason
    log = _log(layout)
    assert float(log.param("mass", kit_log.LOG_MASS_KG)) <= mechanics.MAX_LIFT_MASS_KG
    assert log.param("safe_scale") == layout.solved_log.param("safe_scale") == kit_log.LOG_SCALE
    # The route the scripted agent follows crosses on the log and ends beside the food.
    route = layout.certificate.route
    assert [step.skill for step in route.steps] == ["walk", "jump", "walk", "fall", "walk"]
    assert math.dist(route.steps[-1].target, food.position) < 3.0


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_the_log_rests_on_the_ground_and_clear_of_everything(case):
    layout = _layout(*case)
    world = layout.world
    heightmap = world.ground.heightmap
    log = _log(layout)
    block = kit_log.log_footprint(log)
    bottom = log.position[1] - kit_log.LOG_SIZE_M[1] / 2.0
    ground = kit_log.footprint_ground_m(heightmap, block, spacing_m=0.02)
    assert ground.max() <= bottom + 1e-6, "the log is inside the terrain"
    piers = [entity for entity in world.entities if kit_log.is_pier(entity)]
    assert len(piers) == 2
    for pier in piers:  # static stone boxes standing in the ground under the laid log's ends
        width, height, length = pier.param("size")
        pier_block = kit_log.LogFootprint(centre=(pier.position[0], pier.position[2]), width_m=width, length_m=length,
                                  yaw_rad=pier.yaw_rad, top_m=pier.position[1] + height / 2)
        under = kit_log.footprint_ground_m(heightmap, pier_block, spacing_m=0.05)
        # It stands in the ground (which may fall away under its corner over the trench's lip), its
        # top a little above the highest ground under it.
        assert pier.position[1] - height / 2 < under.max() <= pier_block.top_m - kit_log.PIER_LIFT_M + 1e-6
        assert length >= kit_log.MIN_REST_M
    if layout.in_place:  # across the trench: both ends on the piers, each pier under one end
        assert all(pier.position[1] + pier.param("size")[1] / 2 == pytest.approx(bottom, abs=1e-6) for pier in piers)
        ends = [block.end(-1.0), block.end(1.0)]
        for pier in piers:
            across, along = block.local(pier.position[0], pier.position[2])
            assert abs(float(across)) < 1e-6
            assert min(math.dist((pier.position[0], pier.position[2]), end) for end in ends) == \
                pytest.approx(pier.param("size")[2] / 2, abs=1e-6)
    else:  # on level ground: its whole footprint on it
        assert bottom - ground.min() <= kit_log.REST_TOLERANCE_M
    for entity in world.entities:
        if entity is log or kit_log.is_pier(entity):
            continue
        radius = FOOD_RADIUS_M.get(entity.kind, 0.0)
        across, along = block.local(entity.position[0], entity.position[2])
        clear = math.hypot(max(abs(float(across)) - block.width_m / 2, 0.0), max(abs(float(along)) - block.length_m / 2, 0.0))
        assert clear > radius + 0.5, f"{entity.name} overlaps the log"
    for plant in world.scenery:
        if plant.kind.is_tree:
            across, along = block.local(plant.position[0], plant.position[2])
            assert abs(float(across)) > block.width_m / 2 or abs(float(along)) > block.length_m / 2, "a tree in the log"
    spawn = world.spawn_position
    assert math.hypot(spawn[0] - block.centre[0], spawn[2] - block.centre[1]) > mechanics.BODY_RADIUS_M


def test_the_log_lies_across_at_d0_and_elsewhere_at_d1():
    for seed in SEEDS:
        assert _layout(0.0, seed).in_place
        layout = _layout(1.0, seed)
        assert not layout.in_place
        chasm = layout.chasm
        centre = np.asarray(chasm.centre)
        points = kit_log.log_footprint(_log(layout)).points()
        assert np.hypot(*(points - centre).T).min() > kit_chasm.PLATEAU_RADIUS_M + chasm.width_m  # beyond the chasm


def test_the_log_starts_farther_from_the_stretch_with_difficulty():
    def distance(layout):
        return math.dist(kit_log.log_footprint(_log(layout)).centre, kit_log.log_footprint(layout.solved_log).centre)

    assert np.mean([distance(_layout(1.0, seed)) for seed in SEEDS]) > \
        np.mean([distance(_layout(0.5, seed)) for seed in SEEDS]) > np.mean([distance(_layout(0.0, seed)) for seed in SEEDS])


def test_the_certificate_of_a_world_is_rebuilt_from_its_seed():
    world = build_world("bridge", 0.5, 3)
    certificate = bridge.certificate(world)
    assert certificate.ok and certificate.route.start == world.spawn_position
    with pytest.raises(ValueError, match="'bridge'"):
        bridge.certificate(build_world("jump", 0.0, 0))


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        bridge.TASK.generate(np.random.default_rng(0), 0.5, {"world_size": "small"})
    with pytest.raises(ValueError, match="difficulty"):
        build_world("bridge", float("nan"), 0)
    world = build_world("bridge", 0.0, 0)
    with pytest.raises(ValueError, match="blocks"):
        with_blocks(world, ["a log"])
    with pytest.raises(ValueError, match="allowed"):
        bypass_reaches(world, world.food[0], frozenset({"jump"}))


@pytest.mark.parametrize("island_seed, inverted", [(0, False), (1, False), (1, True)])
def test_the_piece_stands_in_a_band_round_another_point(island_seed, inverted):
    # A band 12-40 m round a point that is not the food, the path coming in at 35 degrees (out with
    # the goal outside): the levelled ground, the chasm and the log stand in the band (with the
    # goal outside the log lies inside the ring, on the agent's side), the terrain beyond it is the
    # island's, and a world with the spawn at the crossing's start and an apple at its end has no
    # way across but the log, which suffices (the bridge certificate).
    island = chasm_pieces.raised_island(island_seed, 8.0)
    band = chasm_pieces.band((0.0, 0.0), 12.0, 40.0, 35.0, inverted)
    piece, streams = chasm_pieces.built_piece(bridge.obstacle, island, band, 0.5, seed=island_seed)
    start, end = (chasm_pieces.radius_m(band, point) for point in (piece.crossing.start, piece.crossing.end))
    assert 12.0 < min(start, end) and max(start, end) < 40.0 and (start < end) == inverted
    assert chasm_pieces.unchanged_outside(island, piece, band, margin_m=0.0)
    world = chasm_pieces.assembled(piece, streams, 0.5)
    placed = piece.detail.place_log(world.ground.heightmap)
    assert [e.kind for e in placed.entities] == ["box", "box", "log"] and placed.entities[-1] in world.entities
    assert (placed.log is placed.solved_log) == piece.detail.in_place
    if not piece.detail.in_place:  # on the agent's side of the ring
        lying = chasm_pieces.radius_m(band, kit_log.log_footprint(placed.log).centre)
        ring = piece.detail.chasm
        assert (lying < ring.inner_radius_m) if inverted else (lying > ring.outer_radius_m)
    certificate = bridge.check_bridge(world, placed.solved_log, piece.detail.chasm, piece.detail.level_at)
    assert certificate.ok, certificate.reason
    # The crossing's requirement holds of the world with the log burned in across the trench.
    need = piece.crossing.requirement
    bare = attr.evolve(world, entities=[entity for entity in world.entities if not kit_log.is_pier(entity)])
    burned = with_blocks(bare, [kit_log.log_footprint(placed.solved_log).block(min_width_m=2.0)])
    assert certify(burned, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m).ok
