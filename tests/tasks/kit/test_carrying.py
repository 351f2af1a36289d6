"""Carry's variants (avalon/tasks/kit/carrying.py, carried_log.py, carried_stones.py,
carried_tools.py) on the worlds carry makes of each base task, checked independently: every moved
item within the knob's distance band of its place of use, resting on the ground, on ground the
spawn walks to and from which the agent walks to where it is used, room to walk round it, the base
task's own guarantee on the world as it is; a log with no walk round it or rising ground on its
way refused; the footprints' gaps."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import tool_entity
from avalon.tasks import carry, fight, stack, with_retries
from avalon.tasks.kit import carried_log, carried_stones, carrying, chasm as kit_chasm, log as kit_log, staircase
from avalon.tasks.kit.geometry import (
    ground_height,
    path_exists,
    triangle_centroids,
    triangle_index,
    triangle_slopes_deg,
    walkable_grid,
)
from avalon.tasks.kit.predators import activation_radius_m, predators
from avalon.tasks.kit.prey import TOOL_MAX_SLOPE_DEG, prey_certificate, prey_of, tool_reach_m
from avalon.tasks.kit.sight import OCCLUDER_PARTS

BRIDGE_CASES = [(d, seed) for d in (0.0, 0.25, 0.5, 0.75, 1.0) for seed in range(3)]
STACK_CASES = [(d, seed) for d in (0.0, 0.5, 1.0) for seed in range(1)]
TOOL_CASES = [(base, d, seed) for base in ("throw", "fight") for d in (0.0, 0.25, 0.5, 0.75, 1.0) for seed in range(2)]


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int, base_task: str) -> carry.CarryLayout:
    """The layout ``build_world("carry", difficulty, seed, forced={"base_task": base_task})`` makes."""
    return with_retries(lambda rng: carry.build_layout(rng, difficulty, None, forced={"base_task": base_task}), "carry",
                        difficulty, seed)


def _items(layout: carry.CarryLayout):
    names = {use.name for use in layout.uses}
    return [entity for entity in layout.world.entities if entity.name in names]


def _distance_m(item, place) -> float:
    return math.hypot(item.position[0] - place.position[0], item.position[2] - place.position[2])


def test_footprints_and_their_gaps():
    stone = tool_entity("stone", "a", (0.0, 0.5, 0.0), safe_scale=staircase.STONE_SCALE)  # its bottom 0.5 m up
    block = carrying.footprint(stone)
    assert block.width_m == pytest.approx(staircase.STONE_WIDTH_M) and block.top_m == pytest.approx(0.5 + staircase.STONE_HEIGHT_M)
    beside = carrying.footprint(attr.evolve(stone, position=(staircase.STONE_WIDTH_M + 0.5, 0.5, 0.0)))
    assert carrying.footprint_gap_m(block, beside) == pytest.approx(0.5, abs=0.06)
    assert carrying.footprint_gap_m(block, carrying.footprint(stone)) == 0.0
    # One disc per square of the item's width along its length, each covering it and the clearance.
    field = HeightMap(heights=np.full((33, 33), 5.0), size_m=32.0, water_height_m=0.0)
    the_log = kit_log.resting_log(field, (0.0, 0.0), 0.0)
    discs = carrying.footprint_discs(the_log)
    assert len(discs) >= 10 and all(radius > kit_log.LOG_SIZE_M[0] / 2 + carrying.PLANT_CLEARANCE_M for *_, radius in discs)
    along = sorted(z for _, z, _ in discs)
    assert along[0] == pytest.approx(-along[-1]) and along[-1] + discs[0][2] > kit_log.LOG_SIZE_M[2] / 2


@pytest.mark.parametrize("case", BRIDGE_CASES, ids=lambda c: "d{}-seed{}".format(*c))
def test_bridge_worlds_the_log_lies_the_knobs_distance_away_on_level_ground_the_spawn_walks_to(case):
    difficulty, seed = case
    layout = _layout(difficulty, seed, "bridge")
    world, base = layout.world, layout.base
    assert layout.certificate.ok, layout.certificate.reason
    (log,) = _items(layout)
    (use,) = layout.uses
    assert use.place is base.solved_log
    low, high = carry.KNOBS.carry_distance_m.at(difficulty)
    # The first ring place at the drawn distance: within a quarter degree of ring (< 0.1 m) past it.
    assert low <= _distance_m(log, base.solved_log) <= high + 0.1
    heightmap = world.ground.heightmap
    block = kit_log.log_footprint(log)
    ground = kit_log.footprint_ground_m(heightmap, block, spacing_m=0.02)
    bottom = log.position[1] - kit_log.LOG_SIZE_M[1] / 2.0
    assert ground.max() <= bottom + 1e-6 and bottom - ground.min() <= kit_log.REST_TOLERANCE_M + kit_log.REST_CLEARANCE_M
    # Beyond the chasm on the spawn's side, not over it; the piers still mark the place of use.
    radius = math.dist(block.centre, base.chasm.centre)
    assert radius > base.chasm.outer_radius_m
    assert sum(kit_log.is_pier(entity) for entity in world.entities) == 2
    for other in world.entities:
        if other.name != log.name and other.kind in ("box", "log", "stone"):
            assert carrying.footprint_gap_m(block, carrying.footprint(other)) > 0.0, other.name
    for plant in world.scenery:
        trunk = max(r for r, b, _ in OCCLUDER_PARTS[plant.kind] if b == 0.0) * plant.scale
        across, along = block.local(plant.position[0], plant.position[2])
        gap = math.hypot(max(abs(float(across)) - block.width_m / 2, 0.0), max(abs(float(along)) - block.length_m / 2, 0.0))
        assert gap > trunk, f"a {plant.kind.value} stands in the log"
    walkable = walkable_grid(heightmap)
    assert path_exists(heightmap, walkable, world.spawn_position, log.position)
    assert path_exists(heightmap, walkable, log.position, use.approach)
    assert carrying.walk_round_reasons(world, log) == []
    assert carried_log.carry_sweep_rise_m(heightmap, base.chasm, log) <= carried_log.CARRY_SWEEP_RISE_M
    # The base task's own guarantee: nothing crosses without the log, the log across the trench does.
    certificate = kit_log.check_bridge(world, base.solved_log, base.chasm)
    assert certificate.ok and not certificate.bypassed, certificate.reason


@pytest.mark.parametrize("case", STACK_CASES, ids=lambda c: "d{}-seed{}".format(*c))
def test_stack_worlds_every_stone_lies_the_knobs_distance_from_its_place_resting_on_the_ground(case):
    difficulty, seed = case
    layout = _layout(difficulty, seed, "stack")
    world, base = layout.world, layout.base
    assert layout.certificate.ok, layout.certificate.reason
    stones = _items(layout)
    assert len(stones) == staircase.stone_count(stack.layer_count(carry.KNOBS.base_difficulty.at(difficulty))) == 3
    places = {use.name: use.place for use in layout.uses}
    low, high = carry.KNOBS.carry_distance_m.at(difficulty)
    heightmap = world.ground.heightmap
    walkable = walkable_grid(heightmap)
    for stone in stones:
        assert low <= _distance_m(stone, places[stone.name]) <= high
        block = carrying.footprint(stone)
        ground = kit_log.footprint_ground_m(heightmap, block, spacing_m=0.02)
        bottom = stone.position[1] - staircase.STONE_HEIGHT_M / 2.0
        assert ground.max() <= bottom and bottom - ground.min() <= carried_stones.STONE_RELIEF_M + kit_log.REST_CLEARANCE_M
        assert path_exists(heightmap, walkable, world.spawn_position, stone.position)
        assert path_exists(heightmap, walkable, stone.position, layout.uses[0].approach)
        for other in stones:
            if other is not stone:
                assert carrying.footprint_gap_m(block, carrying.footprint(other)) >= staircase.STONE_CLEARANCE_M - 1e-6
    # No stone stands in the staircase: the base certificate's bypass half holds on the bare terrain.
    certificate = stack.certificate(world)
    assert certificate.ok, certificate.reason
    assert float(ground_height(heightmap, *base.staircase.foot_xz)) == pytest.approx(base.staircase.base_m, abs=1e-6)


def test_the_distance_grows_with_difficulty():
    def median(difficulty):
        layouts = [_layout(difficulty, seed, "bridge") for seed in range(6)]
        return float(np.median([_distance_m(_items(layout)[0], layout.uses[0].place) for layout in layouts]))

    assert median(0.0) < median(0.5) < median(1.0)


@pytest.mark.parametrize("case", TOOL_CASES, ids=lambda c: "{}-d{}-seed{}".format(*c))
def test_tool_worlds_the_tools_lie_the_knobs_distance_away_resting_on_gentle_ground_the_spawn_walks_to(case):
    base_task, difficulty, seed = case
    layout = _layout(difficulty, seed, base_task)
    world, base = layout.world, layout.base
    assert layout.certificate.ok, layout.certificate.reason
    tools = _items(layout)
    # Every tool of the base world (at its own difficulty 0) moved, and nothing else changed.
    assert sorted(t.name for t in tools) == sorted(t.name for t in base.tools) and len(tools) >= 3
    assert [t.kind for t in tools] == [t.kind for t in base.tools]
    assert world.animals == base.world.animals and world.food == base.world.food
    assert world.spawn_position == base.world.spawn_position
    places = {use.name: use.place for use in layout.uses}
    low, high = carry.KNOBS.carry_distance_m.at(difficulty)
    heightmap = world.ground.heightmap
    slopes = triangle_slopes_deg(heightmap)
    walkable = walkable_grid(heightmap)
    guards = predators(world)
    if base_task == "fight":
        # The walk from the spawn keeps out of the predators' reach (and a margin).
        x, z = triangle_centroids(heightmap)
        for guard in guards:
            walkable = walkable & (np.hypot(x - guard.position[0], z - guard.position[2]) >= activation_radius_m(guard))
    for tool in tools:
        place = places[tool.name]
        assert place.kind == tool.kind and tool.yaw_rad == place.yaw_rad
        assert low <= _distance_m(tool, place) <= high
        # Resting on the ground: on the highest ground under its footprint, on a gentle triangle.
        centre = float(ground_height(heightmap, tool.position[0], tool.position[2]))
        slope = slopes[triangle_index(heightmap, tool.position[0], tool.position[2])]
        assert slope <= TOOL_MAX_SLOPE_DEG[tool.kind]
        assert centre - 1e-6 <= tool.position[1] <= centre + 0.6 * tool_reach_m(tool.kind) + 1e-6, (tool, centre)
        assert path_exists(heightmap, walkable, world.spawn_position, tool.position), tool.name
        assert path_exists(heightmap, walkable_grid(heightmap), tool.position, layout.uses[0].approach), tool.name
        for guard in guards:
            assert math.dist(tool.position[::2], guard.position[::2]) > activation_radius_m(guard), tool.name
        assert carrying.walk_round_reasons(world, tool) == []
    # The base task's own guarantee, on the world as it is.
    if base_task == "throw":
        certificate = prey_certificate(world, tuple(t.kind for t in base.tools), 1)
        assert len(prey_of(world)) == 1
    else:
        certificate = fight.certificate(world)
        assert sum(plant.kind.value == "fruit_tree" for plant in world.scenery) == 1
    assert certificate.ok, certificate.reason


def test_an_item_the_spawn_cannot_walk_to_fails_the_checks():
    layout = _layout(0.0, 1, "bridge")
    world = layout.world
    (use,) = layout.uses
    log = next(e for e in world.entities if e.name == use.name)
    # Down on the chasm's floor, far enough from the solved log.
    chasm = layout.base.chasm
    angle = math.radians(chasm.stretch_angle_deg) + math.pi
    x = chasm.centre[0] + (kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2) * math.cos(angle)
    z = chasm.centre[1] + (kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2) * math.sin(angle)
    sunk = attr.evolve(log, position=(x, float(ground_height(world.ground.heightmap, x, z)) + 0.5, z))
    moved = attr.evolve(world, entities=tuple(sunk if e.name == log.name else e for e in world.entities))
    reasons = carrying.carry_reasons(moved, layout.uses, 0.0)
    assert any("does not walk to" in reason for reason in reasons), reasons


def test_a_log_with_no_walk_round_it_or_rising_ground_on_its_way_is_refused():
    layout = _layout(0.5, 2, "bridge")
    world, chasm = layout.world, layout.base.chasm
    log = _items(layout)[0]
    heightmap = world.ground.heightmap
    # Turned across the ring, its inner end over the chasm: no way round to beside that end.
    offset = np.asarray((log.position[0], log.position[2])) - np.asarray(chasm.centre)
    angle = math.atan2(offset[1], offset[0])
    middle = np.asarray(chasm.centre) + (chasm.outer_radius_m + 1.0) * np.array([math.cos(angle), math.sin(angle)])
    across = attr.evolve(log, position=(middle[0], log.position[1], middle[1]), yaw_rad=math.atan2(math.cos(angle), math.sin(angle)))
    assert carrying.walk_round_reasons(world, log) == []
    assert carrying.walk_round_reasons(world, across) != []
    # A 1 m bump on the ring just ahead of the log, the way it is carried.
    rise = carried_log.carry_sweep_rise_m(heightmap, chasm, log)
    assert rise <= carried_log.CARRY_SWEEP_RISE_M
    turn = math.remainder(math.radians(chasm.stretch_angle_deg) - angle, 2 * math.pi)
    ahead = angle + math.copysign(math.radians(10.0), turn)
    radius = float(np.hypot(*offset))
    bx, bz = chasm.centre[0] + radius * math.cos(ahead), chasm.centre[1] + radius * math.sin(ahead)
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    bumped = heightmap.with_heights(heightmap.heights + (np.hypot(x - bx, z - bz) < 1.5).astype(heightmap.heights.dtype))
    assert carried_log.carry_sweep_rise_m(bumped, chasm, log) > 0.9
