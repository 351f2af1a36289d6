"""The chasm's geometry (avalon/tasks/kit/chasm.py) on flat hand-made fields: the ring's radii and
stretch, fitting it in a band, stepped walls, the climbable half on either side, a moat, and which
jumps cross it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.obstacles import apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit import ImpossibleWorldError, chasm
from avalon.tasks.kit.obstacle import Constraint

LAND_M = 10.0


def _field(water_m: float = 0.0) -> HeightMap:
    """A flat field 64 m across at ``LAND_M``, one grid point per metre."""
    return HeightMap(heights=np.full((65, 65), LAND_M), size_m=64.0, water_height_m=water_m)


def _ring(**changes) -> chasm.ChasmRing:
    fields = dict(centre=(0.0, 0.0), width_m=9.0, depth_m=7.0, stretch_width_m=2.0, stretch_length_m=12.0,
                  stretch_angle_deg=90.0, noise_m=0.0)
    fields.update(changes)
    return chasm.ChasmRing(**fields)


def test_the_rings_radii_and_its_stretch():
    ring = _ring(noise_m=0.5)
    assert ring.outer_radius_m == 4.0 + 0.5 + 9.0 and ring.middle_radius_m == 8.5
    assert ring.stretch_rad == pytest.approx(math.pi / 2)
    assert ring.stretch_half_angle_rad() == pytest.approx(12.0 / (2 * 8.5))
    # Through the stretch's middle a direction meets it, opposite it does not.
    assert ring.meets_stretch(math.pi / 2, 8.5) and not ring.meets_stretch(-math.pi / 2, 8.5)
    # The spawn stands where asked on the stretch, a metre beyond the chasm off it; the food where
    # asked on it, a metre inside the plateau off it.
    assert ring.beyond_outward_m(math.pi / 2, 7.0) == 7.0 and ring.beyond_outward_m(0.0, 7.0) == 10.0
    assert ring.inside_outward_m(math.pi / 2, 2.0) == 2.0 and ring.inside_outward_m(0.0, 2.0) == -1.0
    ring_of = ring.ring()
    assert ring_of.gap_band_width_m == 2.0 and ring_of.gap_width_m == 12.0 and not ring_of.gap_edge_blend
    with pytest.raises(ValueError, match="width_m"):
        _ring(width_m=-1.0)


def test_a_chasm_fits_a_band_or_says_how_far_it_reaches():
    band = Constraint(centre=(0.0, 0.0), inner_radius_m=12.0, outer_radius_m=26.5, path=((40.0, 0.0), (0.0, 0.0)))
    assert chasm.ring_inner_radius_m(band, 4.0, 10.5, "jump") == 16.0  # exactly fits
    with pytest.raises(ImpossibleWorldError, match=r"jump: the chasm reaches 27\.00 m from the centre, beyond the "
                                                   r"band's outer radius 26\.50 m"):
        chasm.ring_inner_radius_m(band, 4.0, 11.0, "jump")


def test_stepped_walls_leave_two_levels_and_the_agents_half_climbable():
    field = _field()
    ring = _ring()
    ringed = apply_ring(np.random.default_rng(0), field, ring.ring())
    stepped = chasm.stepped_walls(field, ringed.heightmap, ring.depth_m)
    assert set(np.unique(stepped.heights)) == {LAND_M - ring.depth_m, LAND_M}
    outward = chasm.outward_distance_m(ringed.outlines[0], field)
    outer_up, outer_down = chasm.climbable_half(ringed, field, ring.width_m)
    inner_up, inner_down = chasm.climbable_half(ringed, field, ring.width_m, outer=False)
    assert (outer_up | outer_down).tolist() == ringed.wall.tolist() == (inner_up | inner_down).tolist()
    assert (outer_up == inner_down).all() and (outward[outer_up] > ring.width_m / 2).all()
    assert (outward[inner_up] <= ring.width_m / 2).all()


def test_a_chasm_under_water_is_a_moat():
    assert chasm.moat_reason(_field(), (0.0, 0.0), 4.0, 13.0, 7.0) is None
    assert chasm.moat_reason(_field(water_m=3.0), (0.0, 0.0), 4.0, 13.0, 7.0) == "the chasm around (0.0, 0.0) would be a moat"


def test_a_jump_crosses_a_chasm_at_its_stretch_only():
    field = _field()
    ring = _ring()
    stepped = chasm.stepped_walls(field, apply_ring(np.random.default_rng(0), field, ring.ring()).heightmap, 7.0)
    cut = stepped.heights < LAND_M - chasm.CUT_BELOW_M
    both = (chasm.INWARD, chasm.OUTWARD)
    # The 2 m trench is jumped: anywhere but at the stretch it is 9 m, beyond any jump.
    assert chasm.jump_across(stepped, ring, cut, ways=both, stretch_excepted=True) is None
    why = chasm.jump_across(stepped, ring, cut, ways=both, stretch_excepted=False)
    assert why is not None and why.startswith("a jump between") and why.endswith("would cross the chasm")
    # A chasm 4 m across everywhere is jumped off any stretch.
    narrow = _ring(width_m=4.0, stretch_width_m=1.0)
    stepped = chasm.stepped_walls(field, apply_ring(np.random.default_rng(0), field, narrow.ring()).heightmap, 7.0)
    why = chasm.jump_across(stepped, narrow, stepped.heights < LAND_M - 0.25, ways=(chasm.INWARD,), stretch_excepted=True)
    assert why is not None and why.endswith("would cross the chasm outside its stretch")


def test_crossing_points_run_from_the_agents_side():
    field = _field()
    ring = _ring()
    outline = apply_ring(np.random.default_rng(0), field, ring.ring()).outlines[0]
    start, end = chasm.crossing_points(ring, outline, 2.5, 6.5, inverted=False)
    assert start == pytest.approx((0.0, 10.5)) and end == pytest.approx((0.0, 6.5))
    assert chasm.crossing_points(ring, outline, 2.5, 6.5, inverted=True) == (end, start)
