"""The jump task: its knobs and what they do on the terrain, and the guarantees of every world
(the certificate: a jump is needed and enough; the chasm is jumpable only along its stretch; a
fallen agent climbs back out on the spawn's side, never up to the food, and jumps again)."""

from __future__ import annotations

import functools
import math
import operator

import attr
import numpy as np
import pytest

from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.tasks import build_world, jump, with_retries
from avalon.tasks.kit import ImpossibleWorldError, chasm as kit_chasm
from avalon.tasks.kit.capabilities import ROUTE_CAPABILITIES, jump_reach_m
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.route import SKILLS
from tests.tasks import chasm_pieces
from tests.tasks.helpers import world_digest

DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = range(5)
CASES = [(d, seed) for d in DIFFICULTIES for seed in SEEDS]

GOLDEN = {
    (0.5, 0): "80c845e58a0a7d397ac14ef1ea1251c77d8c1d88d03e5b7f0eaef9f5517dc42f",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> jump.JumpLayout:
    """The layout ``build_world`` makes for (difficulty, seed), with the registry's retries."""
    return with_retries(lambda rng: jump.build_layout(rng, difficulty, None), "jump", difficulty, seed)


def _case_id(case) -> str:
    return "d{}-seed{}".format(*case)


def _radial_cut_m(layout: jump.JumpLayout, angle_rad: float) -> list[tuple[float, float]]:
    """The stretches (from, to: radii in metres) along the ray from the chasm's centre at
    ``angle_rad`` where the ground lies more than half the chasm's depth below the natural terrain."""
    chasm = layout.chasm
    ground, natural = layout.outdoor.heightmap, layout.natural
    radii = np.arange(0.0, chasm.outer_radius_m + 2.0, 0.02)
    x = chasm.centre[0] + radii * math.cos(angle_rad)
    z = chasm.centre[1] + radii * math.sin(angle_rad)
    cut = np.asarray(ground_height(ground, x, z)) < np.asarray(ground_height(natural, x, z)) - chasm.depth_m / 2.0
    edges = np.flatnonzero(np.diff(cut.astype(np.int8)))
    starts, ends = radii[edges[cut[edges + 1]] + 1], radii[edges[~cut[edges + 1]]]
    return list(zip(starts.tolist(), ends.tolist()))


def test_golden_world_does_not_change_by_accident():
    # If a change to generation is intended, update the digest (and say so in the commit).
    for (difficulty, seed), digest in GOLDEN.items():
        assert world_digest(build_world("jump", difficulty, seed)) == digest


def test_every_knob_moves_one_way_with_difficulty():
    grid = np.linspace(0.0, 1.0, 21)
    rising = ("chasm.width_m", "chasm.stretch_width_m", "chasm.depth_m", "chasm.max_stretch_bearing_deg", "training_time_limit_s")
    for name in rising:
        values = [_knob(name, d) for d in grid]
        assert values == sorted(values) and values[0] < values[-1], name
    lengths = [jump.KNOBS.chasm.stretch_length_m.at(d) for d in grid]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] > lengths[-1]
    for band in (jump.KNOBS.spawn_to_trench_m, jump.KNOBS.food_to_trench_m):
        for low, high in zip(grid[:-1], grid[1:]):
            assert band.at(low)[0] <= band.at(high)[0] and band.at(low)[1] <= band.at(high)[1]
        assert band.at(0.0) != band.at(1.0)


def test_the_trench_stays_within_a_jump_with_margin_and_the_rest_of_the_chasm_beyond_one():
    # The widest trench (d = 1) against the measured gap: the route's jumps (grid point to grid
    # point, a cell more at most) keep a metre in hand.
    widest = jump.KNOBS.chasm.stretch_width_m.at(1.0)
    assert widest + 1.0 / kit_chasm.POINTS_PER_M <= mechanics.JUMP_GAP_CLEARED_M - 1.0
    assert jump.KNOBS.chasm.stretch_width_m.at(0.0) <= 2.0  # the paper's easiest jump is an easy one
    # The chasm outside the stretch is wider than the longest jump the body makes landing 2 m
    # lower (6.5 m measured), and than the bypass search's level reach.
    narrowest = jump.KNOBS.chasm.width_m.at(0.0)
    assert narrowest > jump_reach_m(-2.0) + 0.5 > mechanics.JUMP_GAP_CLEARED_M


@pytest.mark.parametrize("difficulty", (0.0, 0.5, 1.0))
def test_the_knobs_shape_the_chasm_on_the_terrain(difficulty):
    cell = 1.0 / kit_chasm.POINTS_PER_M
    for seed in range(3):
        layout = _layout(difficulty, seed)
        chasm = layout.chasm
        stretch = math.radians(chasm.stretch_angle_deg)
        # Across the middle of the stretch, one trench chasm.stretch_width_m wide, 3.7-4.5 m from the
        # plateau's edge... (a cell either side: the grid samples the walls).
        cuts = _radial_cut_m(layout, stretch)
        assert len(cuts) == 1, cuts
        assert cuts[0][1] - cuts[0][0] == pytest.approx(_knob("chasm.stretch_width_m", difficulty), abs=1.5 * cell)
        # ...and straight across everywhere else, chasm.width_m.
        for off in (math.pi / 2, math.pi, 3 * math.pi / 2):
            angle = stretch + off
            if abs(math.remainder(angle - stretch, 2 * math.pi)) <= chasm.stretch_half_angle_rad() + 0.05:
                continue
            cuts = _radial_cut_m(layout, angle)
            assert len(cuts) == 1, cuts
            assert cuts[0][1] - cuts[0][0] == pytest.approx(_knob("chasm.width_m", difficulty), abs=1.5 * cell)
        # The stretch: the arc at the chasm's middle where the cut is narrow.
        mid = kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2.0
        angles = np.linspace(-math.pi, math.pi, 1441)
        ground, natural = layout.outdoor.heightmap, layout.natural
        x = chasm.centre[0] + (mid - chasm.width_m / 4.0) * np.cos(stretch + angles)
        z = chasm.centre[1] + (mid - chasm.width_m / 4.0) * np.sin(stretch + angles)
        land = np.asarray(ground_height(ground, x, z)) > np.asarray(ground_height(natural, x, z)) - chasm.depth_m / 2.0
        arc = land.mean() * 2 * math.pi * mid  # measured at the middle, as the knob is
        assert arc == pytest.approx(_knob("chasm.stretch_length_m", difficulty), abs=3 * cell)
        # The floor lies chasm.depth_m below the natural ground.
        floor_x, floor_z = (chasm.centre[0] + (mid + 0.5 * chasm.width_m / 4) * math.cos(stretch + math.pi),
                            chasm.centre[1] + (mid + 0.5 * chasm.width_m / 4) * math.sin(stretch + math.pi))
        drop = ground_height(natural, floor_x, floor_z) - ground_height(ground, floor_x, floor_z)
        assert drop == pytest.approx(_knob("chasm.depth_m", difficulty), abs=1e-3)
        # Where the stretch lies, and how far the spawn and the food stand from the trench's lips
        # (or, off the stretch, from the chasm) along their directions from the centre.
        sx, _, sz = layout.world.spawn_position
        away = math.atan2(sz - chasm.centre[1], sx - chasm.centre[0])
        assert abs(math.degrees(math.remainder(stretch - away, 2 * math.pi))) <= \
            _knob("chasm.max_stretch_bearing_deg", difficulty) + 1e-6
        outline = layout.world.ground.ring_outlines[0]
        for point, knob in ((layout.world.spawn_position, "spawn_to_trench_m"),
                            (layout.world.food[0].position, "food_to_trench_m")):
            angle = math.atan2(point[2] - chasm.centre[1], point[0] - chasm.centre[0])
            radius = math.hypot(point[0] - chasm.centre[0], point[2] - chasm.centre[1])
            inner = float(np.interp(angle, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi))
            (start, end), = _radial_cut_m(layout, angle)
            low, high = getattr(jump.KNOBS, knob).at(difficulty)
            if knob.startswith("spawn"):  # the knob's distance out from the trench, or clear of the chasm
                by_knob = end - start < chasm.width_m / 2 and low - 1.5 * cell <= radius - end <= high + 1.5 * cell
                assert by_knob or radius - (inner + chasm.width_m) >= kit_chasm.SPAWN_BEYOND_CHASM_M - 1e-6, knob
            else:  # the knob's distance in from the trench, or well inside the plateau
                by_knob = end - start < chasm.width_m / 2 and low - 1.5 * cell <= start - radius <= high + 1.5 * cell
                assert by_knob or inner - radius >= kit_chasm.FOOD_INSIDE_PLATEAU_M - 1e-6, knob
            assert by_knob or difficulty > 0, "at d = 0 the spawn and the food face each other across the trench"
        at_zero = _layout(0.0, seed).world
        assert math.dist(at_zero.spawn_position, at_zero.food[0].position) < 7.5, "at d = 0 the food is close"


def _knob(name: str, difficulty: float) -> float:
    """The knob ``name`` (dotted within a nested table: ``chasm.width_m``) at ``difficulty``."""
    return operator.attrgetter(name)(jump.KNOBS).at(difficulty)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_every_world_needs_its_jump_and_the_jump_is_at_the_stretch(case):
    layout = _layout(*case)
    world = layout.world
    assert [food.kind for food in world.food] == ["apple"]
    certificate = jump.certificate(world)
    assert certificate.ok, certificate.reason
    assert certificate.required == frozenset({"jump"}) and certificate.allowed == frozenset(SKILLS)
    assert jump.jumpable_outside_stretch(layout.outdoor.heightmap, layout.natural, layout.chasm) is None
    # The route's jump over the chasm takes off beyond it and lands inside, at the stretch, and
    # is well within the jump's reach.
    chasm = layout.chasm
    centre = np.array(chasm.centre)
    before = world.spawn_position
    crossings = []
    for step in certificate.route.steps:
        if step.skill == "jump":
            start, end = np.array(before)[[0, 2]], np.array(step.target)[[0, 2]]
            if np.linalg.norm(start - centre) > kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2 > np.linalg.norm(end - centre):
                crossings.append((start, end, step.target[1] - before[1]))
        before = step.target
    assert len(crossings) == 1, "the route jumps the chasm once"
    start, end, rise = crossings[0]
    assert np.linalg.norm(end - start) <= jump_reach_m(rise) + ROUTE_CAPABILITIES.jump_reach_slack_m + 1e-6
    middle = (start + end) / 2 - centre
    off = abs(math.remainder(math.atan2(middle[1], middle[0]) - math.radians(chasm.stretch_angle_deg), 2 * math.pi))
    assert off <= chasm.stretch_half_angle_rad() + 0.1


def _standing_in_the_chasm(layout: jump.JumpLayout) -> World:
    """The world with the agent put on the chasm's floor, opposite the stretch (fallen in)."""
    chasm = layout.chasm
    angle = math.radians(chasm.stretch_angle_deg) + math.pi
    radius = kit_chasm.PLATEAU_RADIUS_M + chasm.width_m / 2.0
    x, z = chasm.centre[0] + radius * math.cos(angle), chasm.centre[1] + radius * math.sin(angle)
    return attr.evolve(layout.world, spawn_position=(x, float(ground_height(layout.outdoor.heightmap, x, z)), z))


@pytest.mark.parametrize("difficulty", (0.0, 0.5, 1.0))
def test_a_fallen_agent_climbs_back_out_on_the_spawns_side_and_must_jump_again(difficulty):
    for seed in range(2):
        layout = _layout(difficulty, seed)
        fallen = _standing_in_the_chasm(layout)
        spawn = layout.world.spawn_position
        out = certify(fallen, (spawn[0], spawn[1] + 0.5, spawn[2]), frozenset({"climb"}), frozenset({"walk", "climb"}))
        assert out.ok, out.reason
        # From the floor the food takes a jump still (the inner walls cannot be climbed, walked
        # or jump-slid up): the route climbs out on the spawn's side and jumps again.
        again = jump.certificate(fallen)
        assert again.ok, again.reason
        skills = [step.skill for step in again.route.steps]
        assert "climb" in skills and skills.index("climb") < skills.index("jump")
        # The biome map says so: the outer half of the walls holds, the inner half does not
        # (but where the floor lies under the water plane: water is no rock).
        climbable = layout.world.ground.biome_map.climbable
        ground = layout.outdoor.heightmap
        outer = kit_chasm.outward_distance_m(layout.world.ground.ring_outlines[0], ground)
        cut = (ground.heights < layout.natural.heights - layout.chasm.depth_m / 2) & ~ground.is_water()
        assert climbable[cut & (outer > layout.chasm.width_m / 2 + 0.5)].all()
        assert not climbable[cut & (outer < layout.chasm.width_m / 2 - 0.5)].any()


def test_bad_configs_are_refused_by_name():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        jump.TASK.generate(np.random.default_rng(0), 0.5, {"world_size": "small"})
    with pytest.raises(ValueError, match="difficulty"):
        build_world("jump", float("nan"), 0)


@pytest.mark.parametrize("difficulty, inverted", [(0.0, False), (0.5, False), (0.5, True)])
def test_the_piece_stands_in_a_band_round_another_point(difficulty, inverted):
    # A band 12-30 m round a point that is not the food, the path coming in at 35 degrees (out at
    # 35 degrees with the goal outside): the chasm stands in the band, the terrain beyond it is the
    # island's, and a world with the spawn at the crossing's start and an apple at its end needs a
    # jump and takes one (the certificate with the crossing's requirement), off no other stretch.
    island = chasm_pieces.raised_island(0, 8.0)
    band = chasm_pieces.band((0.0, 0.0), 12.0, 30.0, 35.0, inverted)
    piece, streams = chasm_pieces.built_piece(jump.obstacle, island, band, difficulty)
    start, end = (chasm_pieces.radius_m(band, point) for point in (piece.crossing.start, piece.crossing.end))
    assert 12.0 < min(start, end) and max(start, end) < 30.0 and (start < end) == inverted
    assert chasm_pieces.unchanged_outside(island, piece, band, margin_m=0.0)
    if difficulty == 0.0:  # the stretch faces the path
        angle = math.degrees(math.atan2(piece.crossing.end[1], piece.crossing.end[0]))
        assert angle == pytest.approx(35.0, abs=1e-6)
    # The half of the chasm on the agent's side is the climbable one.
    ring = piece.detail.chasm
    outward = kit_chasm.outward_distance_m(piece.draft.ring_outlines[0], island)
    agent_side = outward < ring.width_m / 2.0 if inverted else outward > ring.width_m / 2.0
    assert piece.draft.climbable.any() and not (piece.draft.climbable & ~agent_side).any()
    world = chasm_pieces.assembled(piece, streams, difficulty)  # the piece's items check: no jump off the stretch
    need = piece.crossing.requirement
    certificate = certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m,
                          bypass_max_fall_m=need.bypass_max_fall_m)
    assert certificate.ok and need.skills == frozenset({"jump"}), certificate.reason
    assert "jump" in certificate.route.skills()


def test_the_piece_refuses_a_band_too_narrow_for_it():
    island = chasm_pieces.raised_island(0, 8.0)
    narrow = chasm_pieces.band((0.0, 0.0), 12.0, 20.0, 0.0, False)
    with pytest.raises(ImpossibleWorldError, match=r"jump: the chasm reaches 26\.50 m from the centre, beyond the "
                                                   r"band's outer radius 20\.00 m"):
        chasm_pieces.built_piece(jump.obstacle, island, narrow, 0.5)
