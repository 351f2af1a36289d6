"""The scramble task: its knobs (monotone, and doing what they say on the generated terrain), its
solvability certificate over many seeds and difficulties (the route jumps at low difficulty, climbs
at high difficulty, does both in between; no way without the skill each ring asks for), and a
golden world."""

from __future__ import annotations

import functools

import attr
import numpy as np
import pytest

from avalon.datagen.obstacles import RingKind
from avalon.rules.mechanics import JUMP_GAP_MISSED_M
from avalon.tasks import TASKS, build_world, scramble, with_retries
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import triangle_corner_heights, triangle_slopes_deg
from tests.tasks import piece_checks
from tests.tasks.helpers import world_digest

DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = (0, 1, 2)
CASES = [(d, s) for d in DIFFICULTIES for s in SEEDS]

GOLDEN = {
    (0.5, 0): "a712d3db6f5a1af7338a6b9cccee0f6b98498f2f36b5473f0a1026254bd9a49b",
}

#: Knobs that grow harder as they grow (+1) or as they shrink (-1).
DIRECTIONS = {
    "cliff_share": 1, "world_size_m": 1, "terrain_noise_m": 1, "hill_count": 1, "hill_height_m": 1,
    "plateau_radius_m": 1, "terrace_width_m": 1, "spawn_margin_m": 1, "cliff_height_m": 1,
    "climb_strip_width_m": -1, "chasm_width_m": 1, "chasm_depth_m": 1, "jump_gap_m": 1, "jump_stretch_m": -1,
    "training_time_limit_s": 1,
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> scramble.ScrambleLayout:
    """The layout of ``build_world("scramble", difficulty, seed)``, with the registry's retries."""
    return with_retries(lambda rng: scramble.build_layout(rng, difficulty, None), "scramble", difficulty, seed)


def _case_id(case) -> str:
    return "d{}-seed{}".format(*case)


def _values(knob, difficulty: float) -> tuple[float, ...]:
    return (knob.at(difficulty),) if isinstance(knob, Ramp) else knob.at(difficulty)


# --- the knobs -------------------------------------------------------------------------------------


def test_every_ramp_and_band_of_the_table_moves_one_way_with_difficulty():
    grid = np.linspace(0.0, 1.0, 41)
    fields = {field.name for field in attr.fields(scramble.ScrambleKnobs)
              if isinstance(getattr(scramble.KNOBS, field.name), (Ramp, Band))}
    assert fields == set(DIRECTIONS)
    for name, sign in DIRECTIONS.items():
        knob = getattr(scramble.KNOBS, name)
        series = np.array([_values(knob, d) for d in grid]) * sign
        assert (np.diff(series, axis=0) >= 0).all(), name


def test_more_rings_and_more_cliffs_fewer_chasms_with_difficulty():
    grid = np.linspace(0.0, 1.0, 101)
    rings = [scramble.ring_count(d) for d in grid]
    cliffs = [scramble.cliff_count(d) for d in grid]
    chasms = [scramble.chasm_count(d) for d in grid]
    assert rings == sorted(rings) and cliffs == sorted(cliffs) and chasms == sorted(chasms, reverse=True)
    assert (rings[0], cliffs[0], chasms[0]) == (1, 0, 1)  # d = 0: one chasm, jumped
    assert (scramble.cliff_count(0.5), scramble.chasm_count(0.5)) == (1, 1)  # both
    assert (rings[-1], cliffs[-1], chasms[-1]) == (3, 3, 0)  # d = 1: three cliffs, climbed


def test_the_spec_keeps_the_evaluation_limit_and_certifies_its_worlds():
    spec = TASKS["scramble"]
    assert spec is scramble.TASK and spec.certificate is scramble.certificate
    assert spec.evaluation_time_limit_frames == TIME_LIMIT_FRAMES == 3000
    assert not spec.food_reachable_on_foot and not spec.food_visible_from_spawn


# --- every world -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", [(d, s) for d, s in CASES if s in SEEDS[:2]], ids=_case_id)
def test_the_world_is_certified_and_its_route_uses_the_skills_its_rings_ask_for(case):
    difficulty, seed = case
    lay = _layout(difficulty, seed)
    world = attr.evolve(lay.world, seed=seed)  # build_world records the requested seed
    assert world_digest(world) == world_digest(build_world("scramble", difficulty, seed))
    assert [food.kind for food in world.food] == ["apple"]
    certificate = scramble.certificate(world)
    assert certificate.ok, certificate.reason
    assert certificate.route == lay.certificate.route
    skills = certificate.route.skills()
    kinds = [ring.kind for ring in lay.rings]
    assert len(kinds) == scramble.ring_count(difficulty)
    assert kinds.count(RingKind.CLIFF) == scramble.cliff_count(difficulty)
    if RingKind.CHASM in kinds:
        assert "jump" in skills, "a chasm is jumped where it narrows"
    if RingKind.CLIFF in kinds:
        assert "climb" in skills, "a cliff is climbed on its strip"
    else:
        assert "climb" not in skills
    # Each kind of ring asks for its own skill: without it the food is out of reach, even for the
    # bypass search's generous body (faces run up to 79 degrees, jumps slide up steep faces).
    for kind, skill in ((RingKind.CHASM, "jump"), (RingKind.CLIFF, "climb")):
        if kind in kinds:
            without = certify(world, world.food[0], frozenset({skill}))
            assert without.bypassed is False, f"{kind.value}: reached without {skill}"


def _levels_m(rings) -> list[float]:
    """The height offsets a stack of rings (outermost first) leaves: each cliff raises all inside
    it, each chasm's trench lies its depth below the ground round it."""
    levels, level = [0.0], 0.0
    for ring in rings:
        if ring.kind is RingKind.CLIFF:
            level += ring.height_m
            levels.append(level)
        else:
            levels.append(level - ring.height_m)
    return levels


@pytest.mark.parametrize("case", [(d, s) for d in (0.0, 0.5, 1.0) for s in SEEDS], ids=_case_id)
def test_the_rings_on_the_terrain_are_what_the_knobs_say(case):
    difficulty, seed = case
    lay = _layout(difficulty, seed)
    assert len(lay.world.ground.ring_outlines) == len(lay.rings)
    for ring in lay.rings:
        if ring.kind is RingKind.CLIFF:
            low, high = scramble.KNOBS.cliff_height_m.at(difficulty)
            assert low <= ring.height_m <= high
            assert ring.climb_path_width_m == pytest.approx(scramble.KNOBS.climb_strip_width_m.at(difficulty))
        else:
            assert ring.width_m == pytest.approx(scramble.KNOBS.chasm_width_m.at(difficulty))
            assert ring.width_m > JUMP_GAP_MISSED_M, "too wide to jump outside the stretch"
            assert ring.height_m == pytest.approx(scramble.KNOBS.chasm_depth_m.at(difficulty))
            low, high = scramble.KNOBS.jump_gap_m.at(difficulty)
            assert low <= ring.gap_band_width_m <= high
            assert ring.gap_width_m == pytest.approx(scramble.KNOBS.jump_stretch_m.at(difficulty))
    # On the terrain: every grid point lies at one of the levels the rings make (clean steps, no
    # ledge part of the way up a face), and each level the rings make is there.
    offset = lay.shaped.heightmap.heights.astype(np.float64) - lay.island.heights.astype(np.float64)
    levels = np.array(_levels_m(lay.rings))
    nearest = np.min(np.abs(offset[..., None] - levels), axis=-1)
    assert nearest.max() < 1e-3
    for level in levels:
        assert (np.abs(offset - level) < 1e-3).sum() > 20, f"no ground {level:.2f} m off the island's"
    # Every face is a wall on the grid: triangles whose corners stand at different levels are
    # steeper than 80 degrees (a running body gets up 79).
    corners = triangle_corner_heights(lay.shaped.heightmap.with_heights(offset))
    spread = corners.max(axis=-1) - corners.min(axis=-1)
    slopes = triangle_slopes_deg(lay.shaped.heightmap)
    assert (slopes[spread > 1.0] > 80.0).all()


def test_rougher_terrain_and_more_rings_with_difficulty():
    """What "more mountainous" means on the generated worlds: more relief inside the rings' reach."""
    def relief(difficulty: float) -> float:
        values = []
        for seed in SEEDS:
            lay = _layout(difficulty, seed)
            heights = lay.world.ground.heightmap.heights
            values.append(float(np.percentile(heights, 99) - np.percentile(heights[heights > 0], 10)))
        return float(np.mean(values))

    assert relief(0.0) < relief(0.5) < relief(1.0)
    assert [len(_layout(d, 0).rings) for d in (0.0, 0.5, 1.0)] == [1, 2, 3]


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_world_does_not_change_by_accident(difficulty, seed):
    # If a change to generation is intended, update the digest (and say so in the commit).
    assert world_digest(build_world("scramble", difficulty, seed)) == GOLDEN[(difficulty, seed)]


# --- the obstacle piece elsewhere ----------------------------------------------------------------

#: A band round a point of a plain island that is not the middle, the path crossing it 30 degrees
#: off the grid's axes: round the goal (cliffs and chasms, as the task's own worlds) and round the
#: start (drops and chasms: the way out climbs), on islands high enough for the drops.
PIECE_CENTRE = (5.0, -4.0)
PIECE_CASES = [(False, 0.5, 10.0), (True, 0.5, 16.0), (True, 1.0, 40.0)]


@pytest.mark.parametrize("inverted, difficulty, land_height_m", PIECE_CASES)
def test_the_piece_stands_in_another_band_either_way_up_and_its_crossing_is_certified(inverted, difficulty, land_height_m):
    constraint = piece_checks.band(PIECE_CENTRE, 4.0, 34.0, 30.0, inverted)
    piece, streams = piece_checks.build_piece(scramble.obstacle, piece_checks.plain_island(1, land_height_m), constraint,
                                              difficulty, seed=3)
    walls = [outline.kind for outline in piece.draft.ring_outlines]
    assert len(walls) == scramble.ring_count(difficulty)
    assert walls.count(RingKind.DROP if inverted else RingKind.CLIFF) == scramble.cliff_count(difficulty)
    piece_checks.assert_crossing_in_band(piece, constraint, slack_m=scramble.CROSSING_STANDOFF_M + 0.01, off_path_deg=1e-6)
    piece_checks.assert_unchanged_beyond(piece, constraint, margin_m=0.0)
    world = piece_checks.assembled_world(piece, streams, "scramble", difficulty)
    proof = piece_checks.certified(world, piece)
    assert proof.ok, proof.reason
    assert scramble.certificate(world).ok  # holding only the strips' interiors too
    assert "climb" in proof.route.skills() if scramble.cliff_count(difficulty) else "jump" in proof.route.skills()


def test_the_piece_refuses_a_band_too_narrow_and_rings_into_the_water_naming_why():
    island = piece_checks.plain_island(1)
    with pytest.raises(ImpossibleWorldError, match=r"scramble: the piece reaches .* beyond the band's outer radius 12.00 m"):
        piece_checks.build_piece(scramble.obstacle, island, piece_checks.band(PIECE_CENTRE, 4.0, 12.0, 0.0, False), 0.5, 0)
    with pytest.raises(ImpossibleWorldError, match=r"scramble: the rings round \(5.0, -4.0\) would reach into the water"):
        piece_checks.build_piece(scramble.obstacle, island, piece_checks.band(PIECE_CENTRE, 4.0, 34.0, 0.0, True), 1.0, 3)
