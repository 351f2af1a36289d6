"""The descend task: its knobs move the way the table says and do it on the generated terrain (the
cliff's height, the platform, the climbable strip), the food lies below, a straight fall off the
cliff costs energy by equation 2 (and kills at the top difficulties), and every world keeps its
certificate (worlds with a platform also need it)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from avalon.rules import mechanics
from avalon.tasks import build_world, descend, with_retries
from avalon.tasks.kit import ImpossibleWorldError, assembly
from avalon.tasks.kit.geometry import ground_height
from tests.tasks import piece_checks
from tests.tasks.helpers import world_digest

SEEDS = range(4)
DIFFICULTIES = (0.0, 0.3, 0.55, 0.7, 1.0)
GRID = np.linspace(0.0, 1.0, 101)

GOLDEN = {
    (0.5, 3): "5ec6e87d20371df0687f62d911d28665c1bd2187ae9cb4a31fe8b60b5674b498",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> descend.DescendLayout:
    """The layout ``build_world`` makes for (difficulty, seed), with its retries."""
    return with_retries(lambda rng: descend.build_layout(rng, difficulty, None), "descend", difficulty, seed)


def _cases():
    return [(d, s) for d in DIFFICULTIES for s in SEEDS]


def fall_energy(drop_m: float) -> float:
    """Energy a fall of ``drop_m`` costs, by equation 2: C_fall m max(0, v^2 - v_threshold^2), with
    the landing speed v^2 = 2 g drop."""
    speed_squared = 2.0 * mechanics.GRAVITY_M_PER_S2 * drop_m
    return mechanics.FALL_DAMAGE_COEFFICIENT * mechanics.BODY_MASS_KG * max(
        0.0, speed_squared - mechanics.FALL_SAFE_SPEED_M_PER_S**2)


def _point(layout, angle: float, radius: float) -> tuple[float, float]:
    cx, cz = layout.cliff.ring.centre_x_m, layout.cliff.ring.centre_z_m
    return cx + radius * math.cos(angle), cz + radius * math.sin(angle)


def _drops(layout, angles) -> np.ndarray:
    """The cliff's drop in each direction: the plateau 0.5 m inside its edge to the ground 0.5 m
    beyond the wall's foot (platform included where there is one), metres."""
    ground = layout.world.ground.heightmap
    run = descend.wall_run_m(layout.cliff_height_m)
    out = []
    for angle in angles:
        edge = layout.cliff.edge_radius_m(angle)
        top = ground_height(ground, *_point(layout, angle, edge - 0.5))
        foot = ground_height(ground, *_point(layout, angle, edge + run + 0.5))
        out.append(top - foot)
    return np.array(out)


def _food_angle(layout) -> float:
    cx, cz = layout.cliff.ring.centre_x_m, layout.cliff.ring.centre_z_m
    fx, _, fz = layout.world.food[0].position
    return math.atan2(fz - cz, fx - cx)


def _angle_between_deg(a: float, b: float) -> float:
    return abs(math.degrees((a - b + math.pi) % (2 * math.pi) - math.pi))


# --- determinism ---------------------------------------------------------------------------------


def test_same_seed_same_world_and_different_seeds_differ():
    first = build_world("descend", 0.7, 2)
    assert world_digest(build_world("descend", 0.7, 2)) == world_digest(first)
    assert world_digest(build_world("descend", 0.7, 3)) != world_digest(first)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digests (and say so in the commit).
    assert world_digest(build_world("descend", difficulty, seed)) == GOLDEN[(difficulty, seed)]


# --- the knobs -----------------------------------------------------------------------------------


def test_every_knob_moves_one_way_with_difficulty():
    heights = [descend.cliff_height_m(d) for d in GRID]
    assert heights == sorted(heights) and heights[0] == 7.5 and heights[-1] == 44.0
    platforms = [descend.has_platform(d) for d in GRID]
    assert platforms == sorted(platforms, reverse=True) and platforms[0] and not platforms[-1]
    assert descend.has_platform(0.5) and not descend.has_platform(descend.KNOBS.platform_end_difficulty)
    strips = [descend.KNOBS.climb_path_width_m.at(d) for d in GRID]
    assert strips == sorted(strips, reverse=True) and strips[0] == 8.0 and strips[-1] == 2.0
    offsets = [descend.KNOBS.climb_path_offset_deg.at(d) for d in GRID]
    assert offsets == sorted(offsets)
    distances = [descend.food_distance_band_m(d) for d in GRID]
    assert distances == sorted(distances)
    with_platform = [d for d in GRID if descend.has_platform(d)]
    widths = [descend.KNOBS.platform_width_m.at(descend.KNOB_PROGRESS["platform_width_m"](d)) for d in with_platform]
    assert widths == sorted(widths, reverse=True)
    turns = [descend.KNOBS.platform_offset_deg.at(descend.KNOB_PROGRESS["platform_offset_deg"](d)) for d in with_platform]
    assert turns == sorted(turns)
    limits = [descend.KNOBS.training_time_limit_s.at(d) for d in GRID]
    assert limits == sorted(limits)


def test_equation_2_as_written_here_matches_the_mechanics_constants():
    assert fall_energy(mechanics.SAFE_FALL_M) == pytest.approx(0.0, abs=1e-12)
    assert fall_energy(mechanics.LETHAL_FALL_M) == pytest.approx(mechanics.INITIAL_ENERGY)
    assert fall_energy(7.0) > 0.0


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_the_cliff_has_the_tables_height_on_the_terrain_and_a_straight_fall_off_it_hurts(difficulty):
    height = descend.cliff_height_m(difficulty)
    for seed in SEEDS:
        layout = _layout(difficulty, seed)
        angles = np.linspace(-math.pi, math.pi, 72, endpoint=False)
        platform = descend.KNOBS.platform_offset_deg  # the platform lies within this of the food's side
        if descend.has_platform(difficulty):
            away = [a for a in angles if min(_angle_between_deg(a, _food_angle(layout) + s * math.radians(
                platform.at(difficulty / descend.KNOBS.platform_end_difficulty))) for s in (-1, 1)) > 45.0]
        else:
            away = list(angles)
        drops = _drops(layout, away)
        assert np.median(drops) == pytest.approx(height, abs=1.5), f"seed {seed}"
        # Off the edge anywhere but onto the platform: a fall that costs energy, lethal at d = 1.
        direct = float(np.min(drops))
        # (more than the bypass search's longest safe fall, 0.5 m beyond the safe height)
        assert fall_energy(direct) > 0.0 and direct > mechanics.SAFE_FALL_M + 0.5, f"seed {seed}: {direct:.2f} m"
        if difficulty == 1.0:  # lethal off most of the edge, nearly so anywhere (the island's ground varies)
            assert fall_energy(float(np.median(drops))) >= mechanics.INITIAL_ENERGY, f"seed {seed}"
            assert fall_energy(direct) > 0.9 * mechanics.INITIAL_ENERGY, f"seed {seed}: {direct:.2f} m"
        # The food lies below, more than a safe fall.
        world = layout.world
        assert world.food[0].position[1] < world.spawn_position[1] - mechanics.SAFE_FALL_M


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_a_platform_breaks_the_cliff_into_two_safe_falls_at_easy_levels_only(difficulty):
    for seed in SEEDS:
        layout = _layout(difficulty, seed)
        cliff = layout.cliff
        if not descend.has_platform(difficulty):
            assert not cliff.platform.any()
            continue
        ground = layout.world.ground.heightmap
        level = float(np.median(ground.heights[cliff.platform]))
        x, z = np.meshgrid(ground.x_coords_m - cliff.ring.centre_x_m, ground.z_coords_m - cliff.ring.centre_z_m)
        # The plateau's edge above it: the plateau's points within 3 m of the platform.
        inside, platform = cliff.result.inside, cliff.platform
        gap = np.hypot(x[inside][:, None] - x[platform][None, :], z[inside][:, None] - z[platform][None, :])
        edge = ground.heights[inside][gap.min(axis=1) <= 3.0]
        assert level < float(np.min(ground.heights[inside])), f"seed {seed}: the platform lies below the plateau"
        above = float(np.median(edge)) - level
        assert 2.0 < above < mechanics.SAFE_FALL_M, f"seed {seed}: {above:.2f} m from the top to the platform"
        # The ground 1 m beyond its outer edge.
        r = np.hypot(x[platform], z[platform])
        rim = r >= r.max() - 0.5
        scale = (r[rim] + 1.0) / r[rim]
        beyond = [ground_height(ground, cliff.ring.centre_x_m + a * k, cliff.ring.centre_z_m + b * k)
                  for a, b, k in zip(x[platform][rim], z[platform][rim], scale)]
        below = level - float(np.median(beyond))
        assert 2.0 < below < mechanics.SAFE_FALL_M, f"seed {seed}: {below:.2f} m from the platform to the ground"
        # Its width along the cliff, as the table says (measured on the grid: within a cell or two).
        angles = np.arctan2(z[cliff.platform], x[cliff.platform])
        radii = np.hypot(x[cliff.platform], z[cliff.platform])
        spread = np.ptp(np.unwrap(np.sort(angles)))
        width = descend.KNOBS.platform_width_m.at(difficulty / descend.KNOBS.platform_end_difficulty)
        assert spread * float(np.max(radii)) == pytest.approx(width, abs=1.2), f"seed {seed}"


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_only_the_strip_of_the_wall_is_climbable_and_it_narrows_and_moves_round(difficulty):
    for seed in SEEDS:
        layout = _layout(difficulty, seed)
        cliff, biomes = layout.cliff, layout.world.ground.biome_map
        ground = biomes.heightmap
        wall = cliff.result.wall
        holds = wall & biomes.climbable
        assert holds.any() and not (biomes.climbable & wall & ~cliff.result.climbable).any()
        x, z = np.meshgrid(ground.x_coords_m - cliff.ring.centre_x_m, ground.z_coords_m - cliff.ring.centre_z_m)
        angles = np.arctan2(z[holds], x[holds])
        middle = math.atan2(np.mean(np.sin(angles)), np.mean(np.cos(angles)))
        offset = descend.KNOBS.climb_path_offset_deg.at(difficulty)
        assert _angle_between_deg(middle, _food_angle(layout)) == pytest.approx(offset, abs=5.0), f"seed {seed}"
        spread = np.ptp(np.unwrap(np.sort(angles - middle)))
        mid_radius = cliff.ring.mid_radius_m
        assert spread * mid_radius == pytest.approx(descend.KNOBS.climb_path_width_m.at(difficulty), abs=1.5), \
            f"seed {seed}"


# --- certificates --------------------------------------------------------------------------------


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_world_is_certified_with_the_skill_its_difficulty_needs(difficulty):
    for seed in SEEDS:
        layout = _layout(difficulty, seed)
        certificate = descend.certificate(layout.world)
        assert certificate.ok, f"seed {seed}: {certificate.reason}"
        skills = [step.skill for step in certificate.route.steps]
        if descend.has_platform(difficulty):
            assert certificate.required == {"fall"} and skills.count("fall") == 2, f"seed {seed}: {skills}"
            assert "climb" not in skills
        else:
            assert certificate.required == {"climb"} and "climb" in skills, f"seed {seed}: {skills}"
        # Every fall of the route is safe: the descent costs no energy.
        height = layout.world.spawn_position[1]
        for step in certificate.route.steps:
            if step.skill == "fall":
                assert height - step.target[1] < mechanics.SAFE_FALL_M
            height = step.target[1]


@pytest.mark.parametrize("difficulty", [d for d in DIFFICULTIES if descend.has_platform(d)])
def test_without_the_platform_only_climbing_leads_down_safely(difficulty):
    for seed in SEEDS:
        layout = _layout(difficulty, seed)
        plain = descend.world_without_platform(layout.world, layout.cliff, assembly.resolve_config(None))
        without = descend.needs_the_platform(plain)
        assert without.solvable and not without.bypassed, f"seed {seed}: {without.reason}"
        # ...while with it walking and safe falls get down (the certificate's route).
        assert descend.certificate(layout.world).route.skills() == {"walk", "fall"}


def test_the_world_grows_from_small_to_medium_to_hold_the_food_below_a_tall_cliff():
    assert descend.world_size_name(0.0) == "small" == descend.world_size_name(0.55)
    assert descend.world_size_name(1.0) == "medium"
    assert _layout(0.0, 0).world.ground.heightmap.size_m == 64.0
    assert _layout(1.0, 0).world.ground.heightmap.size_m == 128.0


# --- the obstacle piece elsewhere ----------------------------------------------------------------

#: A band round a point of a plain island that is not the middle, the path crossing it 30 degrees
#: off the grid's axes: round the start (a plateau, as the task's own worlds) and round the goal (a
#: pit the food lies in, on an island high enough for it), with a platform and without.
PIECE_CENTRE = (5.0, -4.0)
PIECE_CASES = [(True, 0.3, 8.0), (True, 0.8, 8.0), (False, 0.3, 14.0), (False, 0.65, 22.0)]


@pytest.mark.parametrize("inverted, difficulty, land_height_m", PIECE_CASES)
def test_the_piece_stands_in_another_band_either_way_up_and_its_crossing_is_certified(inverted, difficulty, land_height_m):
    constraint = piece_checks.band(PIECE_CENTRE, 8.0, 26.0, 30.0, inverted)
    piece, streams = piece_checks.build_piece(descend.obstacle, piece_checks.plain_island(1, land_height_m), constraint,
                                              difficulty, seed=3)
    cut = piece.detail
    assert cut.ring.kind.value == ("cliff" if inverted else "drop") and cut.platform.any() == descend.has_platform(difficulty)
    piece_checks.assert_crossing_in_band(piece, constraint, slack_m=descend.CROSSING_STANDOFF_M, off_path_deg=1e-6)
    piece_checks.assert_unchanged_beyond(piece, constraint, margin_m=0.0)
    # The crossing's start lies above its end by the wall's height, give or take the island's relief.
    start, end = (float(ground_height(piece.draft.heightmap, *p)) for p in (piece.crossing.start, piece.crossing.end))
    assert start - end == pytest.approx(descend.cliff_height_m(difficulty), abs=2.0)
    world = piece_checks.assembled_world(piece, streams, "descend", difficulty)
    proof = piece_checks.certified(world, piece)
    assert proof.ok, proof.reason
    assert proof.required == descend.requirement(difficulty).skills <= proof.route.skills()


def test_the_piece_refuses_a_band_too_narrow_and_a_pit_into_the_water_naming_why():
    island = piece_checks.plain_island(1)
    with pytest.raises(ImpossibleWorldError, match=r"descend: the piece reaches .* beyond the band's outer radius 12.00 m"):
        piece_checks.build_piece(descend.obstacle, island, piece_checks.band(PIECE_CENTRE, 4.0, 12.0, 0.0, True), 0.3, 0)
    with pytest.raises(ImpossibleWorldError, match=r"descend: a pit 44.00 m deep round \(5.0, -4.0\) would reach the water"):
        piece_checks.build_piece(descend.obstacle, island, piece_checks.band(PIECE_CENTRE, 4.0, 40.0, 0.0, False), 1.0, 0)
