"""The climb task: determinism, the knobs against difficulty as measured on the generated cliffs,
the solvability certificate of many worlds (a route that climbs, no way up without climbing), and
what makes the cliff a cliff (flat tiers well above every take-off, faces steeper than 80 degrees,
holds only on the path)."""

from __future__ import annotations

import functools
import math

import attr
import numpy as np
import pytest

from avalon.datagen.noise import sample_periodic
from avalon.rules import mechanics
from avalon.tasks import build_world, climb, with_retries
from avalon.tasks.kit import ImpossibleWorldError, cliff as kit_cliff
from avalon.tasks.kit.capabilities import terrain_jump_rise_m
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import component_labels, triangle_index, triangle_slopes_deg, walkable_grid
from tests.tasks import piece_checks
from tests.tasks.helpers import surface_height, world_digest

#: 20 worlds for the properties, 2 to 5 segments' worth of difficulties.
PROPERTY_CASES = [(d, seed) for d in (0.0, 0.3, 0.5, 0.7, 1.0) for seed in range(4)]
SEEDS = range(4)

GOLDEN = {
    (0.5, 3): "f34196992b70b5f0868115964a159ffd789c04f08705eaa2903ce84f6aecdaf2",
    (1.0, 7): "8a8c4d87dcff6b3d26ebbf90d1179fd64e31a5ed856564b835fd9622be122cc8",  # three tiers
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> climb.ClimbLayout:
    """The layout ``build_world`` makes for (difficulty, seed) (the registry's retries included)."""
    return with_retries(lambda rng: climb.build_layout(rng, difficulty, None), "climb", difficulty, seed)


def _tier_levels(lay: climb.ClimbLayout) -> list[float]:
    """The height of each tier's flat top, outermost first."""
    cliff = lay.cliff
    heights = lay.world.ground.heightmap.heights  # as the biomes left it (beaches are eroded)
    x, z = np.meshgrid(cliff.heightmap.x_coords_m, cliff.heightmap.z_coords_m)
    r = np.hypot(x - cliff.centre[0], z - cliff.centre[1])
    theta = np.arctan2(z - cliff.centre[1], x - cliff.centre[0])
    levels = []
    for tier in range(cliff.spec.segments):
        t = r - sample_periodic(cliff.outlines[tier].inner_radius_m, theta)
        inner = t < -1.0
        if tier + 1 < cliff.spec.segments:
            inner &= r - sample_periodic(cliff.outlines[tier + 1].inner_radius_m, theta) > 0.5
        values = np.unique(np.round(heights[inner], 6))
        assert values.size == 1, f"tier {tier} is not flat: {values[:5]}"
        levels.append(float(values[0]))
    return levels


# --- determinism -------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("climb", 0.4, 2)
    assert world_digest(build_world("climb", 0.4, 2)) == world_digest(first)
    assert world_digest(build_world("climb", 0.4, 3)) != world_digest(first)
    assert world_digest(build_world("climb", 0.41, 2)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digests (and say so in the commit).
    assert world_digest(build_world("climb", difficulty, seed)) == GOLDEN[(difficulty, seed)]


def test_the_world_is_made_by_the_layout_builder_and_holds_one_apple_on_the_plateau():
    for seed in SEEDS:
        lay = _layout(0.5, seed)
        assert world_digest(attr.evolve(lay.world, seed=seed)) == world_digest(build_world("climb", 0.5, seed))
        assert [food.kind for food in lay.world.food] == ["apple"]
        food = lay.world.food[0]
        assert lay.cliff.inside[lay.world.ground.heightmap.nearest_index(food.position[0], food.position[2])]


# --- the knobs ---------------------------------------------------------------------------------


def test_the_knobs_are_monotone_in_difficulty():
    ds = np.linspace(0.0, 1.0, 41)
    knobs = climb.KNOBS

    def rising(values):
        return all(b >= a - 1e-12 for a, b in zip(values, values[1:]))

    assert rising([knobs.cliff_height_m.at(d) for d in ds])
    assert rising([-knobs.path_width_m.at(d) for d in ds])
    assert rising([climb.segment_count(d) for d in ds])
    assert rising([knobs.segment_offset_m.at(d) for d in ds])
    assert rising([knobs.approach.spawn_distance_m.at(d)[0] for d in ds]) and rising([knobs.approach.spawn_distance_m.at(d)[1] for d in ds])
    assert rising([knobs.approach.max_facing_offset_deg.at(d) for d in ds])
    assert rising([knobs.training_time_limit_s.at(d) for d in ds])
    assert [climb.segment_count(d) for d in (0.0, 0.59, 0.6, 0.84, 0.85, 1.0)] == [1, 1, 2, 2, 3, 3]
    # Every tier is taller than a jump slides up a face of the grid's gentlest wall slope.
    cell = 1.0 / climb.ISLAND.points_per_m
    for d in ds:
        tier = climb.cliff_spec(d).tier_height_m
        assert tier > float(terrain_jump_rise_m(math.degrees(math.atan(tier / cell)))) + 0.5, d


def test_the_cliff_gets_taller_with_difficulty_as_measured_on_the_terrain():
    for d in (0.0, 0.5, 1.0):
        for seed in SEEDS:
            lay = _layout(d, seed)
            levels = _tier_levels(lay)
            spec = lay.cliff.spec
            assert len(levels) == spec.segments == climb.segment_count(d)
            assert np.diff(levels) == pytest.approx([spec.tier_height_m] * (spec.segments - 1), abs=1e-4)
            # The top stands at least the whole height above the highest ground near the cliff's
            # foot, and at most the relief limit more above the lowest (or the water plane).
            foot = _foot_heights(lay)
            assert levels[-1] - foot.max() >= spec.height_m - 1e-4
            water = lay.world.ground.heightmap.water_height_m
            at_foot = _foot_heights(lay, kit_cliff.FOOT_BAND_M)
            assert levels[-1] - max(at_foot.min(), water) <= spec.height_m + climb.MAX_RELIEF_M + 1e-4
    heights = [np.mean([_tier_levels(_layout(d, s))[-1] - _foot_heights(_layout(d, s)).mean() for s in SEEDS])
               for d in (0.0, 0.5, 1.0)]
    assert heights == sorted(heights) and heights[0] >= 4.5 and heights[-1] >= 14.0


def _foot_heights(lay: climb.ClimbLayout, reach_m: float = kit_cliff.TAKE_OFF_REACH_M) -> np.ndarray:
    """Natural heights of the ground outside the cliff, within ``reach_m`` of its farthest foot."""
    cliff = lay.cliff
    heightmap = lay.world.ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - cliff.centre[0], z - cliff.centre[1])
    return heightmap.heights[~cliff.inside & (r <= cliff.spec.outer_radius_m + reach_m)]


def _path_width_m(lay: climb.ClimbLayout, tier: int) -> float:
    """Length along tier ``tier``'s wall, just below its top's edge, of the climbable ground."""
    cliff = lay.cliff
    climbable = lay.world.ground.biome_map.climbable
    heightmap = lay.world.ground.heightmap
    angles = np.radians(cliff.path_angles_deg[tier]) + np.linspace(-1.5, 1.5, 601)
    radius = sample_periodic(cliff.outlines[tier].inner_radius_m, angles) - 0.25
    xs, zs = cliff.centre[0] + radius * np.cos(angles), cliff.centre[1] + radius * np.sin(angles)
    rows, cols = heightmap.nearest_index(xs, zs)
    held = climbable[rows, cols]
    steps = np.hypot(np.diff(xs), np.diff(zs))
    return float(np.sum(steps[held[1:] & held[:-1]]))


def test_the_climbable_path_narrows_with_difficulty_as_measured_on_the_terrain():
    cell = 1.0 / climb.ISLAND.points_per_m
    for d in (0.0, 0.5, 1.0):
        for seed in SEEDS:
            lay = _layout(d, seed)
            for tier in range(lay.cliff.spec.segments):
                assert _path_width_m(lay, tier) == pytest.approx(lay.cliff.spec.path_width_m, abs=2 * cell)
    widths = [np.mean([_path_width_m(_layout(d, s), 0) for s in SEEDS]) for d in (0.0, 0.5, 1.0)]
    assert widths == sorted(widths, reverse=True) and widths[0] > 3.5 and widths[-1] < 2.0


def test_at_high_difficulty_the_path_zigzags_up_tiers_and_the_route_turns_along_each_ledge():
    for seed in SEEDS:
        lay = _layout(1.0, seed)
        spec, cliff = lay.cliff.spec, lay.cliff
        assert spec.segments == 3
        offsets = [abs(math.radians(b - a)) * spec.inner_radius_m(tier + 1)
                   for tier, (a, b) in enumerate(zip(cliff.path_angles_deg, cliff.path_angles_deg[1:]))]
        assert offsets == pytest.approx([spec.segment_offset_m] * 2)
        assert (cliff.path_angles_deg[1] - cliff.path_angles_deg[0]) * (cliff.path_angles_deg[2] - cliff.path_angles_deg[1]) < 0
        route = lay.certificate.route
        kinds = "".join(step.skill[0] for step in route.steps)  # w, c, j, f
        climbs = [part for part in kinds.split("w") if part]
        assert len(climbs) == 3 and all(set(part) == {"c"} for part in climbs), kinds
        # Between two climbs the route walks along the ledge to the next segment's foot.
        levels = _tier_levels(lay)
        ledge_walks = [step for step in route.steps if step.skill == "walk" and abs(step.target[1] - levels[0]) < 0.05]
        assert ledge_walks and max(math.dist(route.steps[0].target, w.target) for w in ledge_walks) > 1.5


def test_the_spawn_stands_the_knobs_distance_from_the_cliffs_foot_facing_it_at_zero():
    for d in (0.0, 1.0):
        low, high = climb.KNOBS.approach.spawn_distance_m.at(d)
        for seed in SEEDS:
            lay = _layout(d, seed)
            cliff, world = lay.cliff, lay.world
            sx, _, sz = world.spawn_position
            angle = math.atan2(sz - cliff.centre[1], sx - cliff.centre[0])
            distance = math.hypot(sx - cliff.centre[0], sz - cliff.centre[1]) - float(
                sample_periodic(cliff.outlines[0].inner_radius_m, angle)) - kit_cliff.WALL_RUN_M
            assert low - 1e-6 <= distance <= high + 1e-6
            if d == 0.0:  # facing the path's foot
                assert math.degrees(abs((world.spawn_yaw_rad - math.atan2(sx - cliff.centre[0], sz - cliff.centre[1])
                                         + math.pi) % (2 * math.pi) - math.pi)) < 1.0


# --- every world -------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES)
def test_every_world_is_certified_climbable_and_cannot_be_walked_or_jumped_up(difficulty, seed):
    lay = _layout(difficulty, seed)
    world = lay.world
    food = world.food[0]
    certificate = certify(world, food, {"climb"})
    assert certificate.ok, certificate.reason
    assert "climb" in certificate.route.skills() and certificate.route == lay.certificate.route
    assert math.dist(certificate.route.steps[-1].target, food.position) < 3.0
    # Independently of the search: the food's ground is not walkable from the spawn's.
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    spawn_area = labels[triangle_index(heightmap, *world.spawn_position[::2])]
    assert spawn_area != labels[triangle_index(heightmap, food.position[0], food.position[2])]
    # The food rests on the flat plateau, one radius above it.
    assert food.position[1] == pytest.approx(surface_height(heightmap, food.position[0], food.position[2]) + food.param("radius"))


@pytest.mark.parametrize("difficulty, seed", PROPERTY_CASES[::2])
def test_the_walls_are_steeper_than_a_jump_climbs_and_only_the_path_is_climbable(difficulty, seed):
    lay = _layout(difficulty, seed)
    cliff, world = lay.cliff, lay.world
    heightmap = world.ground.heightmap
    biome_map = world.ground.biome_map
    slopes = triangle_slopes_deg(heightmap)
    corners_inside = np.stack([cliff.inside[:-1, :-1], cliff.inside[:-1, 1:], cliff.inside[1:, :-1], cliff.inside[1:, 1:]])
    crossing = corners_inside.any(axis=0) & ~corners_inside.all(axis=0)  # cells the outermost wall crosses
    # Every triangle with a corner up on the cliff and one at its foot is a face over 80 degrees
    # (a triangle of a crossing cell lying wholly on one side is flat ground).
    steep = slopes[crossing]
    assert (steep.max(axis=-1) > mechanics.WALK_UP_BLOCKED_SLOPE_DEG).all()
    # Holds: every climbable wall point lies on a segment's strip.
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - cliff.centre[0], z - cliff.centre[1])
    theta = np.arctan2(z - cliff.centre[1], x - cliff.centre[0])
    near_any_wall = np.zeros(heightmap.shape, dtype=bool)
    on_a_path = np.zeros(heightmap.shape, dtype=bool)
    for tier, angle in enumerate(cliff.path_angles_deg):
        t = r - sample_periodic(cliff.outlines[tier].inner_radius_m, theta)
        near = np.abs(t) <= 0.5
        near_any_wall |= near
        along = np.abs((theta - math.radians(angle) + math.pi) % (2 * math.pi) - math.pi) * r
        on_a_path |= near & (along <= cliff.spec.path_width_m / 2 + 1e-6)
    assert biome_map.climbable[near_any_wall & ~on_a_path].sum() == 0
    assert biome_map.climbable[on_a_path].all()


def test_a_cliff_spec_refuses_bad_sizes_naming_them():
    sizes = dict(path_width_m=1.0, segment_offset_m=0.0, ledge_width_m=2.0, plateau_radius_m=3.5, noise_amplitude_m=0.3)
    with pytest.raises(ValueError, match="height_m=-1"):
        kit_cliff.CliffSpec(height_m=-1.0, segments=1, **sizes)
    with pytest.raises(ValueError, match="segments=0"):
        kit_cliff.CliffSpec(height_m=5.0, segments=0, **sizes)
    with pytest.raises(ValueError, match=r"noise_amplitude_m=4.0: expected less than plateau_radius_m=3.5"):
        kit_cliff.CliffSpec(height_m=5.0, segments=1, **{**sizes, "noise_amplitude_m": 4.0})


# --- the obstacle piece elsewhere ----------------------------------------------------------------

#: A band round a point of a plain island that is not the middle, the path coming in (or going
#: out) 30 degrees off the grid's axes; round the goal at d = 1 (three tiers up to a plateau),
#: round the start at d = 0.7 (a pit two tiers deep, on an island high enough for it).
PIECE_CENTRE = (5.0, -4.0)
PIECE_CASES = [(False, 1.0, 8.0), (True, 0.7, 16.0)]


@pytest.mark.parametrize("inverted, difficulty, land_height_m", PIECE_CASES)
def test_the_piece_stands_in_another_band_either_way_up_and_its_crossing_is_certified(inverted, difficulty, land_height_m):
    constraint = piece_checks.band(PIECE_CENTRE, 10.0, 22.0, 30.0, inverted)
    piece, streams = piece_checks.build_piece(climb.obstacle, piece_checks.plain_island(1, land_height_m), constraint,
                                              difficulty, seed=3)
    cut = piece.detail
    assert cut.inverted == inverted and cut.spec.segments == climb.segment_count(difficulty)
    # The innermost wall stands the outline's noise outside the band's inner radius; the first
    # segment faces the grid axis nearest the path (30 degrees off it: the crossing is that far round).
    assert cut.spec.plateau_radius_m == pytest.approx(10.0 + climb.CLIFF_NOISE_M)
    piece_checks.assert_crossing_in_band(piece, constraint, slack_m=climb.CROSSING_STANDOFF_M + 0.5, off_path_deg=50.0)
    piece_checks.assert_unchanged_beyond(piece, constraint, margin_m=0.0)
    # Round the goal the inside rises above the natural ground; round the start it sinks below.
    inside = cut.inside & (piece.draft.heightmap.heights != piece.draft.natural.heights)
    rise = piece.draft.heightmap.heights[inside] - piece.draft.natural.heights[inside]
    assert ((rise < 0) if inverted else (rise > 0)).all()
    world = piece_checks.assembled_world(piece, streams, "climb", difficulty)
    proof = piece_checks.certified(world, piece)
    assert proof.ok, proof.reason
    assert "climb" in proof.route.skills()


def test_the_piece_refuses_a_band_too_narrow_and_rough_ground_naming_why():
    island = piece_checks.plain_island(1)
    with pytest.raises(ImpossibleWorldError, match=r"climb: the piece reaches .* beyond the band's outer radius 12.00 m"):
        piece_checks.build_piece(climb.obstacle, island, piece_checks.band(PIECE_CENTRE, 10.0, 12.0, 0.0, False), 1.0, 0)
    with pytest.raises(ImpossibleWorldError, match=r"climb: a pit .* would reach the water"):
        piece_checks.build_piece(climb.obstacle, island, piece_checks.band(PIECE_CENTRE, 10.0, 22.0, 0.0, True), 1.0, 0)
