"""The push task: determinism, the knobs against difficulty as measured on the generated worlds,
the solvability certificate of many worlds (no way onto the ledge without the boulder, a route with
it at the ledge's foot), the items resting on the ground without overlapping, and bad input."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import WorldGenerationError, build_world, push, with_retries
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import OutdoorTaskConfig
from avalon.tasks.kit.capabilities import jump_reach_m
from avalon.tasks.kit.geometry import triangle_slopes_deg
from avalon.tasks.kit.solved import Block
from tests.tasks import piece_checks
from tests.tasks.helpers import surface_height, world_digest

#: 24 worlds for the properties.
PROPERTY_CASES = [(d, seed) for d in (0.0, 0.25, 0.5, 0.75, 1.0, 0.9) for seed in range(3)]
SEEDS = range(4)

GOLDEN = {(0.5, 3): "cab2e705c415ab6f37b592cb676fba6f11c8f264d6710b02e3104e8a2f5338fe"}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> push.PushLayout:
    """The layout ``build_world`` makes for (difficulty, seed) (the registry's retries included)."""
    return with_retries(lambda rng: push.build_layout(rng, difficulty, None), "push", difficulty, seed)


def _footprint_gap_m(block: Block, x: float, z: float) -> float:
    right, back = block.local(x, z)
    return math.hypot(max(abs(float(right)) - block.width_m / 2, 0.0), max(abs(float(back)) - block.depth_m / 2, 0.0))


def _boulder_height_m(boulder) -> float:
    return TOOL_SIZE_M["boulder"][1] * float(boulder.param("safe_scale"))


# --- determinism -------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("push", 0.4, 2)
    assert world_digest(build_world("push", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("push", 0.4, 3)) != world_digest(first)
    assert world_digest(build_world("push", 0.41, 2)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("push", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_world_is_made_by_the_layout_builder_and_holds_one_apple_on_the_ledge():
    for seed in SEEDS:
        lay = _layout(0.5, seed)
        world = lay.world
        assert world_digest(attr.evolve(world, seed=seed)) == world_digest(build_world("push", 0.5, seed))
        assert [food.kind for food in world.food] == ["apple"]
        assert sorted(e.kind for e in world.entities) == ["apple", "boulder", "box"]
        ledge = Block.of_entity(world.entity(push.LEDGE_NAME))
        food = world.food[0]
        # On the middle of the ledge's top, one radius above it, out of a standing agent's reach.
        assert _footprint_gap_m(ledge, food.position[0], food.position[2]) == 0.0
        inset = min(ledge.width_m, ledge.depth_m) / 2 - max(abs(float(v)) for v in ledge.local(food.position[0], food.position[2]))
        assert inset >= 1.9
        assert food.position[1] == pytest.approx(ledge.top_m + food.param("radius"))


# --- the knobs ---------------------------------------------------------------------------------


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    knobs = push.KNOBS

    def rising(values):
        return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))

    assert rising([knobs.boulder_mass_kg.at(d) for d in ds])
    assert rising([knobs.push_distance_m.at(d)[0] for d in ds]) and rising([knobs.push_distance_m.at(d)[1] for d in ds])
    assert rising([knobs.spawn_bearing_deg.at(d) for d in ds])
    assert rising([knobs.spawn_gap_m.at(d)[0] for d in ds]) and rising([knobs.spawn_gap_m.at(d)[1] for d in ds])
    assert rising([knobs.training_time_limit_s.at(d) for d in ds])
    # Every boulder is pushed only (too heavy to lift) and within what was pushed in the simulator.
    assert all(mechanics.MAX_LIFT_MASS_KG < knobs.boulder_mass_kg.at(d) <= push.MAX_PUSHED_MASS_KG for d in ds)
    # The ledge is higher than any jump lands, and within a route jump of the boulder's top.
    top = push.boulder_size_m()[1]
    assert push.LEDGE_HEIGHT_M > mechanics.JUMP_LEDGE_MISSED_M + 0.25
    assert push.LEDGE_HEIGHT_M - top <= 1.2 and top <= 1.2


def test_the_boulder_gets_heavier_and_starts_farther_from_its_place_with_difficulty():
    by_difficulty = {}
    for d in (0.0, 0.5, 1.0):
        masses, distances = [], []
        for seed in SEEDS:
            world = _layout(d, seed).world
            boulder = world.entity(push.BOULDER_NAME)
            start = (boulder.position[0], boulder.position[2])
            distance = math.dist(start, push.push_place(world))
            low, high = push.KNOBS.push_distance_m.at(d)
            assert low - 1e-6 <= distance <= high + 1e-6, (d, seed, distance)
            assert float(boulder.param("mass")) == pytest.approx(push.KNOBS.boulder_mass_kg.at(d))
            masses.append(float(boulder.param("mass")))
            distances.append(distance)
        by_difficulty[d] = (np.mean(masses), np.mean(distances))
    assert by_difficulty[0.0][1] == pytest.approx(0.0, abs=1e-6)  # at d = 0 it already stands at the ledge's foot
    assert by_difficulty[0.0][0] < by_difficulty[0.5][0] < by_difficulty[1.0][0]
    assert by_difficulty[0.0][1] < by_difficulty[0.5][1] < by_difficulty[1.0][1]


def test_the_spawn_stands_the_knobs_distance_and_bearing_from_the_boulder():
    for d in (0.0, 0.5, 1.0):
        for seed in SEEDS:
            lay = _layout(d, seed)
            world, plan = lay.world, lay.plan
            boulder = Block.of_entity(world.entity(push.BOULDER_NAME))
            spawn = (world.spawn_position[0], world.spawn_position[2])
            low, high = push.KNOBS.spawn_gap_m.at(d)
            assert low - 1e-6 <= _footprint_gap_m(boulder, *spawn) <= high + 1e-6
            away = math.atan2(spawn[1] - boulder.centre[1], spawn[0] - boulder.centre[0])
            behind = math.atan2(plan.normal[1], plan.normal[0])
            bearing = abs(math.degrees(math.remainder(away - behind, 2 * math.pi)))
            assert bearing <= push.KNOBS.spawn_bearing_deg.at(d) + 1e-6, (d, seed, bearing)


# --- every world -------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_every_world_is_certified_and_the_ledge_cannot_be_jumped_onto_from_the_ground(difficulty, seed):
    lay = _layout(difficulty, seed)
    world = lay.world
    certificate = push.certificate(world)
    assert certificate.ok, certificate.reason
    assert certificate.route == lay.certificate.route
    skills = [step.skill for step in certificate.route.steps]
    assert skills.count("jump") >= 2  # onto the boulder, onto the ledge
    boulder = world.entity(push.BOULDER_NAME)
    pushed = math.dist((boulder.position[0], boulder.position[2]), push.push_place(world)) >= push.PUSH_MIN_M
    assert (skills[0] == "push") == pushed and skills.count("push") == int(pushed)
    assert math.dist(certificate.route.steps[-1].target, world.food[0].position) < 2.5
    # Independently of the search: no ground within a jump of the ledge stands within a jump's
    # rise (2 m: a 1.95 m box ledge is missed) of its top (a jump rising more than the feet's
    # path's apex, 1.5 m, lands within 2.75 m: 3.5 m with the capsule's catch and slack), and
    # nothing near it can be climbed.
    ledge = Block.of_entity(world.entity(push.LEDGE_NAME))
    heightmap = world.ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    right, back = ledge.local(x, z)
    gap = np.hypot(np.maximum(np.abs(right) - ledge.width_m / 2, 0.0), np.maximum(np.abs(back) - ledge.depth_m / 2, 0.0))
    near = (gap > 0.0) & (gap <= 3.5)
    assert heightmap.heights[near].max() < ledge.top_m - 2.0
    assert not world.ground.biome_map.climbable[gap <= jump_reach_m(0.0) + 0.5].any()
    # No plant stands within a few metres of the ledge (a trunk could be climbed, a canopy hide it).
    for plant in world.scenery:
        assert _footprint_gap_m(ledge, plant.position[0], plant.position[2]) > 3.0, plant


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_the_items_rest_on_the_ground_and_do_not_overlap(difficulty, seed):
    world = _layout(difficulty, seed).world
    heightmap = world.ground.heightmap
    boulder_entity = world.entity(push.BOULDER_NAME)
    boulder, ledge = Block.of_entity(boulder_entity), Block.of_entity(world.entity(push.LEDGE_NAME))
    ledge_box = world.entity(push.LEDGE_NAME)
    # The boulder's bottom is the ground under every point of its footprint (level within 2 cm):
    # neither sunk into the terrain nor hanging above it.
    bottom = boulder_entity.position[1] - _boulder_height_m(boulder_entity) / 2
    for u in np.linspace(-0.5, 0.5, 5):
        for v in np.linspace(-0.5, 0.5, 5):
            c, s = math.cos(boulder.yaw_rad), math.sin(boulder.yaw_rad)
            r, b = u * boulder.width_m, v * boulder.depth_m
            px, pz = boulder.centre[0] + c * r + s * b, boulder.centre[1] - s * r + c * b
            assert surface_height(heightmap, px, pz) == pytest.approx(bottom, abs=0.02)
    # The ledge stands on the ground: its bottom below the ground everywhere under it (no gap).
    ledge_bottom = ledge_box.position[1] - ledge_box.param("size")[1] / 2
    for u in np.linspace(-0.5, 0.5, 5):
        for v in np.linspace(-0.5, 0.5, 5):
            c, s = math.cos(ledge.yaw_rad), math.sin(ledge.yaw_rad)
            r, b = u * ledge.width_m, v * ledge.depth_m
            px, pz = ledge.centre[0] + c * r + s * b, ledge.centre[1] - s * r + c * b
            assert ledge_bottom < surface_height(heightmap, px, pz) - 0.1
    # No overlap: the boulder's footprint (and a hull's bulge beyond it) clear of the ledge's, the
    # food on the ledge's top, the spawn clear of both.
    c, s = math.cos(boulder.yaw_rad), math.sin(boulder.yaw_rad)
    half_w, half_d = boulder.width_m / 2, boulder.depth_m / 2
    corners = [(boulder.centre[0] + sx * half_w * c + sz * half_d * s, boulder.centre[1] - sx * half_w * s + sz * half_d * c)
               for sx in (-1, 1) for sz in (-1, 1)]
    assert min(_footprint_gap_m(ledge, *corner) for corner in corners) >= push.PLACE_GAP_M - 1e-6
    spawn = (world.spawn_position[0], world.spawn_position[2])
    assert _footprint_gap_m(boulder, *spawn) > mechanics.BODY_RADIUS_M + 0.5
    assert _footprint_gap_m(ledge, *spawn) > mechanics.BODY_RADIUS_M + 0.5


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES[::3])
def test_the_boulders_way_to_the_ledge_is_level_and_clear(difficulty, seed):
    world = _layout(difficulty, seed).world
    boulder = Block.of_entity(world.entity(push.BOULDER_NAME))
    place = push.push_place(world)
    heightmap = world.ground.heightmap
    slopes = triangle_slopes_deg(heightmap)
    for t in np.linspace(0.0, 1.0, 9):
        x = boulder.centre[0] + t * (place[0] - boulder.centre[0])
        z = boulder.centre[1] + t * (place[1] - boulder.centre[1])
        row, col = heightmap.nearest_index(x, z)
        assert slopes[max(row - 2, 0):row + 2, max(col - 2, 0):col + 2].max() <= push.PUSH_MAX_SLOPE_DEG
    for plant in world.scenery:
        if plant.kind.is_tree:
            assert math.dist((plant.position[0], plant.position[2]), place) > 2.0


# --- the certificate's halves ------------------------------------------------------------------------


def test_the_certificate_fails_without_the_boulders_help_and_with_a_bypass():
    world = _layout(0.0, 0).world
    boulder = world.entity(push.BOULDER_NAME)
    # A boulder too heavy (beyond what was pushed) or light enough to carry breaks the "items suffice" half.
    for mass in (push.MAX_PUSHED_MASS_KG + 100.0, mechanics.MAX_LIFT_MASS_KG):
        heavy = attr.evolve(world, entities=tuple(attr.evolve(e, params={**dict(e.params), "mass": mass})
                                                  if e.name == push.BOULDER_NAME else e for e in world.entities))
        certificate = push.certificate(heavy)
        assert not certificate.ok and "weighs" in certificate.reason
    # A small boulder (its top too low to jump onto the ledge from) has no route.
    small = attr.evolve(world, entities=tuple(
        attr.evolve(e, position=(e.position[0], e.position[1] - 0.3, e.position[2]),
                    params={**dict(e.params), "safe_scale": 0.55}) if e.name == push.BOULDER_NAME else e
        for e in world.entities))
    certificate = push.certificate(small)
    assert not certificate.solvable and certificate.route is None
    # A ledge low enough to jump onto from the ground is bypassed.
    ledge = world.entity(push.LEDGE_NAME)
    width, height, depth = ledge.param("size")
    lower = attr.evolve(ledge, position=(ledge.position[0], ledge.position[1] - 0.6, ledge.position[2]))
    low_world = attr.evolve(world, entities=tuple(lower if e.name == push.LEDGE_NAME else e for e in world.entities))
    food = low_world.food[0]
    low_world = attr.evolve(low_world, entities=tuple(attr.evolve(e, position=(e.position[0], e.position[1] - 0.6, e.position[2]))
                                                      if e is food else e for e in low_world.entities))
    certificate = push.certificate(low_world)
    assert certificate.bypassed and not certificate.ok
    assert boulder.param("mass") == push.KNOBS.boulder_mass_kg.at(0.0)


# --- bad input ---------------------------------------------------------------------------------


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        push.build_layout(np.random.default_rng(0), 0.5, {"world_size": "small"})
    with pytest.raises(ValueError, match="difficulty"):
        build_world("push", 1.5, 0)
    with pytest.raises(ValueError, match="boulder"):
        world = _layout(0.0, 0).world
        push.certificate(attr.evolve(world, entities=tuple(e for e in world.entities if e.name != push.BOULDER_NAME)))
    with pytest.raises(WorldGenerationError, match="'push'"):  # an island too small for the ledge and the boulder's way
        build_world("push", 1.0, 0, OutdoorTaskConfig(world_size=24.0))


# --- the obstacle piece elsewhere ----------------------------------------------------------------

#: A band round a point of a plain island that is not the middle, the path coming in 30 degrees off
#: the grid's axes.
PIECE_CENTRE = (5.0, -4.0)


@pytest.mark.parametrize("difficulty", [0.0, 1.0])
def test_the_piece_stands_round_another_goal_and_its_crossing_is_certified_with_the_boulder(difficulty):
    constraint = piece_checks.band(PIECE_CENTRE, 0.0, 22.0, 30.0, False)
    piece, streams = piece_checks.build_piece(push.obstacle, piece_checks.plain_island(1, points_per_m=1.0), constraint,
                                              difficulty, seed=3)
    chose = piece.detail
    # The ledge stands under the goal, its near face across the grid axis nearest the path.
    assert chose.plan.ledge_centre == PIECE_CENTRE and chose.plan.normal == pytest.approx((1.0, 0.0))
    assert piece.crossing.end == PIECE_CENTRE
    assert piece.crossing.requirement.skills == ({"jump", "push"} if difficulty > 0 else {"jump"})
    piece_checks.assert_crossing_in_band(piece, constraint, slack_m=0.0, off_path_deg=180.0)
    piece_checks.assert_unchanged_beyond(piece, constraint, margin_m=0.0, changed=lambda a, b: np.abs(a - b) > 1e-4)
    world = piece_checks.assembled_world(piece, streams, "push", difficulty)
    assert [e.name for e in world.entities] == ["food_0", push.LEDGE_NAME, push.BOULDER_NAME]
    # The piece's own certificate: no way up without the boulder, a route with it at the ledge's foot.
    proof = push.certificate(world)
    assert proof.ok, proof.reason
    assert proof.required == piece.crossing.requirement.skills <= proof.route.skills()


def test_the_piece_is_not_a_ring_and_says_so():
    island = piece_checks.plain_island(1, points_per_m=1.0)
    with pytest.raises(ImpossibleWorldError, match=r"push: the ledge is a free-standing box under the goal, not a ring: "
                                                   r"it cannot stand round the start \(heights inverted\)"):
        piece_checks.build_piece(push.obstacle, island, piece_checks.band(PIECE_CENTRE, 0.0, 22.0, 0.0, True), 0.5, 0)
    with pytest.raises(ImpossibleWorldError, match=r"push: the ledge stands at the band's centre, under the goal, not in "
                                                   r"a ring: expected an inner radius of 0 m, got 12.0 m"):
        piece_checks.build_piece(push.obstacle, island, piece_checks.band(PIECE_CENTRE, 12.0, 30.0, 0.0, False), 0.5, 0)
    with pytest.raises(ImpossibleWorldError, match=r"push: the pad and the boulder's way reach .* beyond the band's outer "
                                                   r"radius 8.00 m"):
        piece_checks.build_piece(push.obstacle, island, piece_checks.band(PIECE_CENTRE, 0.0, 8.0, 0.0, False), 0.5, 0)
