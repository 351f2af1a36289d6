"""The carry task: a bridge, fight, stack or throw world whose items lie away from their place of
use, farther with difficulty; the base task's certificate and carry's own guarantees (each item at
least the knob's distance from its place, on ground the spawn walks to, from which the agent walks
to where it is used; in a fight world, out of the predators' reach), checked independently on many
worlds; forcing the base task; bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.tasks import TASKS, bridge, build_world, carry, fight, stack, throw, with_retries
from avalon.tasks.kit import chasm as kit_chasm, log as kit_log
from avalon.tasks.kit.forcing import Forcing
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
from tests.tasks.helpers import world_digest

BRIDGE_CASES = [(d, seed) for d in (0.0, 0.25, 0.5, 0.75, 1.0) for seed in range(3)]
STACK_CASES = [(d, seed) for d in (0.0, 0.5, 1.0) for seed in range(1)]
TOOL_CASES = [(base, d, seed) for base in ("throw", "fight") for d in (0.0, 0.25, 0.5, 0.75, 1.0) for seed in range(2)]

GOLDEN = {
    (0.5, 0, "bridge"): "667f3e87e3b1b3aaa5916be604834be0bb03d2203e82227e4aac124c98adbed2",
    (0.5, 0, "stack"): "9e4ba4ef1042e5377ecd51bdb8f24eec646e92f42a3d07409384b6167923293d",
    (0.5, 0, "throw"): "0c699de1d50f8a1eed1d3b4fbf26361d09b8ae95167bfd683da25b115cdcfbb3",
    (0.5, 0, "fight"): "27b0d0fb71e7de87c3077923c019d09ad7d683e50a4c9afe603b5cc8822ca7ae",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int, base_task: str) -> carry.CarryLayout:
    """The layout ``build_world("carry", difficulty, seed, forced={"base_task": base_task})`` makes."""
    return with_retries(lambda rng: carry.build_layout(rng, difficulty, None, base_task=base_task), "carry", difficulty, seed)


def _world(difficulty: float, seed: int, base_task: str):
    return attr.evolve(_layout(difficulty, seed, base_task).world, task="carry", difficulty=difficulty, seed=seed)


def _items(layout: carry.CarryLayout):
    names = {use.name for use in layout.uses}
    return [entity for entity in layout.world.entities if entity.name in names]


def _distance_m(item, place) -> float:
    return math.hypot(item.position[0] - place.position[0], item.position[2] - place.position[2])


def test_golden_worlds_do_not_change_by_accident():
    # If a change to generation is intended, update the digests (and say so in the commit).
    for (difficulty, seed, base_task), digest in GOLDEN.items():
        world = build_world("carry", difficulty, seed, forced={"base_task": base_task})
        assert world_digest(world) == digest, base_task


def test_the_knobs_are_one_way_in_difficulty_and_the_base_task_stays_easy():
    grid = np.linspace(0.0, 1.0, 21)
    low = [carry.KNOBS.carry_distance_m.at(d)[0] for d in grid]
    high = [carry.KNOBS.carry_distance_m.at(d)[1] for d in grid]
    limit = [carry.KNOBS.training_time_limit_s.at(d) for d in grid]
    assert np.all(np.diff(low) > 0) and np.all(np.diff(high) > 0) and np.all(np.diff(limit) > 0)
    assert all(lo <= hi for lo, hi in zip(low, high))
    assert {carry.KNOBS.base_difficulty.at(d) for d in grid} == {0.0}
    assert TASKS["carry"].evaluation_time_limit_frames == 6000  # ten minutes (paper, G.3)


def test_the_base_tasks_are_a_table_and_forcible():
    assert carry.BASE_TASKS == ("bridge", "fight", "stack", "throw")
    assert TASKS["carry"].forcing == (Forcing("base_task", carry.BASE_TASKS),)
    assert carry.variant_named("stack").build_layout is stack.build_layout
    assert carry.variant_named("throw").build_layout is throw.build_layout
    assert carry.variant_named("fight").build_layout is fight.build_layout


def _base_task_of(world) -> str:
    """Which base task a carry world is, from its items alone."""
    kinds = {entity.kind for entity in world.entities}
    for base, item in (("bridge", "log"), ("stack", "stone"), ("fight", "stick"), ("throw", "rock")):
        if item in kinds:
            return base
    raise AssertionError(f"a carry world with none of the items: {sorted(kinds)}")


def test_the_variant_is_drawn_from_the_worlds_rng_and_forcing_the_drawn_one_changes_nothing():
    seen = {}
    for seed in range(16):
        if len(seen) == len(carry.BASE_TASKS):
            break
        world = build_world("carry", 1.0, seed)
        seen.setdefault(_base_task_of(world), (seed, world))
    assert set(seen) == set(carry.BASE_TASKS)
    for base, (seed, world) in seen.items():
        assert world_digest(build_world("carry", 1.0, seed, forced={"base_task": base})) == world_digest(world)


@pytest.mark.parametrize("base_task", ["bridge", "fight", "stack", "throw"])
def test_forcing_the_base_task_gives_its_world(base_task):
    world = build_world("carry", 0.5, 0, forced={"base_task": base_task})
    assert _base_task_of(world) == base_task
    assert carry.layout_of(world).variant.base_task == base_task


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
            assert carry.footprint_gap_m(block, carry.footprint(other)) > 0.0, other.name
    for plant in world.scenery:
        trunk = max(r for r, b, _ in OCCLUDER_PARTS[plant.kind] if b == 0.0) * plant.scale
        across, along = block.local(plant.position[0], plant.position[2])
        gap = math.hypot(max(abs(float(across)) - block.width_m / 2, 0.0), max(abs(float(along)) - block.length_m / 2, 0.0))
        assert gap > trunk, f"a {plant.kind.value} stands in the log"
    walkable = walkable_grid(heightmap)
    assert path_exists(heightmap, walkable, world.spawn_position, log.position)
    assert path_exists(heightmap, walkable, log.position, use.approach)
    assert carry.walk_round_reasons(world, log) == []
    assert carry.carry_sweep_rise_m(heightmap, base.chasm, log) <= carry.CARRY_SWEEP_RISE_M
    # The base task's own guarantee: nothing crosses without the log, the log across the trench does.
    certificate = bridge.check_bridge(world, base.solved_log, base.chasm)
    assert certificate.ok and not certificate.bypassed, certificate.reason


@pytest.mark.parametrize("case", STACK_CASES, ids=lambda c: "d{}-seed{}".format(*c))
def test_stack_worlds_every_stone_lies_the_knobs_distance_from_its_place_resting_on_the_ground(case):
    difficulty, seed = case
    layout = _layout(difficulty, seed, "stack")
    world, base = layout.world, layout.base
    assert layout.certificate.ok, layout.certificate.reason
    stones = _items(layout)
    assert len(stones) == stack.stone_count(stack.layer_count(carry.KNOBS.base_difficulty.at(difficulty))) == 3
    places = {use.name: use.place for use in layout.uses}
    low, high = carry.KNOBS.carry_distance_m.at(difficulty)
    heightmap = world.ground.heightmap
    walkable = walkable_grid(heightmap)
    for stone in stones:
        assert low <= _distance_m(stone, places[stone.name]) <= high
        block = carry.footprint(stone)
        ground = kit_log.footprint_ground_m(heightmap, block, spacing_m=0.02)
        bottom = stone.position[1] - stack.STONE_HEIGHT_M / 2.0
        assert ground.max() <= bottom and bottom - ground.min() <= carry.STONE_RELIEF_M + kit_log.REST_CLEARANCE_M
        assert path_exists(heightmap, walkable, world.spawn_position, stone.position)
        assert path_exists(heightmap, walkable, stone.position, layout.uses[0].approach)
        for other in stones:
            if other is not stone:
                assert carry.footprint_gap_m(block, carry.footprint(other)) >= stack.STONE_CLEARANCE_M - 1e-6
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
        assert carry.walk_round_reasons(world, tool) == []
    # The base task's own guarantee, on the world as it is.
    if base_task == "throw":
        certificate = prey_certificate(world, tuple(t.kind for t in base.tools), 1)
        assert len(prey_of(world)) == 1
    else:
        certificate = fight.certificate(world)
        assert sum(plant.kind.value == "fruit_tree" for plant in world.scenery) == 1
    assert certificate.ok, certificate.reason


def test_a_fight_tool_within_a_predators_reach_fails_the_certificate():
    layout = _layout(0.0, 0, "fight")
    world = layout.world
    (guard,) = predators(world)
    tool = _items(layout)[0]
    # Beside the predator's home, on its ground: the walk there enters its reach.
    x, z = guard.position[0] + 1.0, guard.position[2]
    near = attr.evolve(tool, position=(x, float(ground_height(world.ground.heightmap, x, z)), z))
    moved = attr.evolve(world, entities=tuple(near if e.name == tool.name else e for e in world.entities))
    assert carry.check_carry(world, layout.variant, layout.base, layout.uses, 0.0).ok
    certificate = carry.check_carry(moved, layout.variant, layout.base, layout.uses, 0.0)
    assert not certificate.ok and "out of the predators' reach" in certificate.reason


@pytest.mark.parametrize("base_task", ["bridge", "fight", "stack", "throw"])
def test_the_certificate_from_the_world_alone_holds_and_fails_when_an_item_is_brought_close(base_task):
    world = _world(0.5, 0, base_task)
    assert carry.certificate(world).ok
    layout = _layout(0.5, 0, base_task)
    use = layout.uses[0]
    # The item where it is used (as the base task at d = 0 has it): carry's guarantee fails.
    closer = attr.evolve(world, entities=tuple(use.place if e.name == use.name else e for e in world.entities))
    certificate = carry.check_carry(closer, layout.variant, layout.base, layout.uses, carry.KNOBS.carry_distance_m.at(0.5)[0])
    assert not certificate.ok and "from where it is used" in certificate.reason
    # Without the item at all: both the base task's half and carry's fail.
    without = attr.evolve(world, entities=tuple(e for e in world.entities if e.name != use.name))
    certificate = carry.check_carry(without, layout.variant, layout.base, layout.uses, 0.0)
    assert not certificate.ok and f"no {use.place.kind} named {use.name}" in certificate.reason


def test_an_item_the_spawn_cannot_walk_to_fails_the_certificate():
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
    reasons = carry.carry_reasons(moved, layout.uses, 0.0)
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
    assert carry.walk_round_reasons(world, log) == []
    assert carry.walk_round_reasons(world, across) != []
    # A 1 m bump on the ring just ahead of the log, the way it is carried.
    rise = carry.carry_sweep_rise_m(heightmap, chasm, log)
    assert rise <= carry.CARRY_SWEEP_RISE_M
    turn = math.remainder(math.radians(chasm.stretch_angle_deg) - angle, 2 * math.pi)
    ahead = angle + math.copysign(math.radians(10.0), turn)
    radius = float(np.hypot(*offset))
    bx, bz = chasm.centre[0] + radius * math.cos(ahead), chasm.centre[1] + radius * math.sin(ahead)
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    bumped = heightmap.with_heights(heightmap.heights + (np.hypot(x - bx, z - bz) < 1.5).astype(heightmap.heights.dtype))
    assert carry.carry_sweep_rise_m(bumped, chasm, log) > 0.9


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match=r"forced base_task='hunt' is not one of bridge, fight, stack, throw"):
        build_world("carry", 0.5, 0, forced={"base_task": "hunt"})
    with pytest.raises(ValueError, match="base_task"):
        carry.variant_named("avoid")
    with pytest.raises(ValueError, match="world.task"):
        carry.layout_of(build_world("bridge", 0.0, 0))
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        carry.generate(np.random.default_rng(0), 0.5, {"world_size": "small"})
