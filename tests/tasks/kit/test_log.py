"""A log laid across a chasm (avalon/tasks/kit/log.py) on hand-made fields: its footprint, resting
on sloping ground, how much of it rests on each rim of a trench, the piers under it, levelled
ground, the span a log must bridge, and the route over it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.obstacles import apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit import chasm, log
from avalon.tasks.kit.geometry import ground_height

LAND_M = 10.0


def _trench_field(gap_m: float = 6.0) -> tuple[HeightMap, chasm.ChasmRing]:
    """A flat field with a chasm 11 m across round (0, 0), narrowing to ``gap_m`` along the +z stretch."""
    field = HeightMap(heights=np.full((65, 65), LAND_M), size_m=64.0, water_height_m=0.0)
    ring = chasm.ChasmRing(centre=(0.0, 0.0), width_m=11.0, depth_m=7.0, stretch_width_m=gap_m, stretch_length_m=10.0,
                           stretch_angle_deg=90.0, noise_m=0.0)
    ringed = apply_ring(np.random.default_rng(0), field, ring.ring())
    return chasm.stepped_walls(field, ringed.heightmap, ring.depth_m), ring


def test_a_footprint_knows_its_axis_ends_and_what_lies_on_it():
    block = log.LogFootprint(centre=(1.0, 2.0), width_m=1.0, length_m=4.0, yaw_rad=math.pi / 2, top_m=3.0)
    assert block.axis == pytest.approx((1.0, 0.0)) and block.end(1.0) == pytest.approx((3.0, 2.0))
    assert block.clearance_m((1.0, 2.0)) == 0.0 and block.clearance_m((5.0, 2.0)) == pytest.approx(2.0)
    points = block.points(0.5)
    assert np.abs(points[:, 0] - 1.0).max() == pytest.approx(2.0) and np.abs(points[:, 1] - 2.0).max() == pytest.approx(0.5)
    with pytest.raises(ValueError, match="width_m"):
        log.LogFootprint(centre=(0, 0), width_m=0.0, length_m=1.0, yaw_rad=0.0, top_m=0.0)


def test_a_resting_log_lies_above_all_the_ground_under_it():
    x, z = np.meshgrid(np.linspace(-32, 32, 65), np.linspace(-32, 32, 65))
    slope = HeightMap(heights=5.0 + 0.2 * x + 0.05 * z, size_m=64.0, water_height_m=0.0)
    placed = log.resting_log(slope, (2.3, -1.7), 0.4)
    footprint = log.log_footprint(placed)
    bottom = placed.position[1] - log.LOG_SIZE_M[1] / 2.0
    ground = log.footprint_ground_m(slope, footprint, spacing_m=0.02)
    assert ground.max() <= bottom + 1e-9 and bottom - ground.max() <= log.REST_CLEARANCE_M + 0.01
    assert footprint.length_m == log.LOG_SIZE_M[2] == 9.0 and placed.param("safe_scale") == log.LOG_SCALE


def test_a_log_across_the_trench_rests_on_both_rims_and_on_two_piers():
    ground, ring = _trench_field()
    assert log.radial_span_m(ground, ring, math.pi / 2) == pytest.approx(6.0, abs=1.1)
    assert log.narrowest_outside_stretch_m(ground, ring) == pytest.approx(11.0, abs=1.1)
    middle = log.trench_middle_m(ground, ring, ring.middle_radius_m)
    assert middle == pytest.approx(ring.middle_radius_m, abs=0.6)
    across = log.resting_log(ground, (0.0, middle), log.radial_yaw(math.pi / 2))
    rests = log.end_rests_m(ground, across)
    assert min(rests) >= log.MIN_REST_M and sum(rests) == pytest.approx(9.0 - 6.0, abs=1.1)
    piers, raised = log.piers_under(ground, across)
    assert raised.position[1] == pytest.approx(across.position[1] + log.PIER_LIFT_M)
    for pier, rest in zip(piers, rests):
        assert log.is_pier(pier) and pier.param("size")[2] == rest
        assert pier.position[1] + log.PIER_HEIGHT_M / 2.0 == pytest.approx(raised.position[1] - log.LOG_SIZE_M[1] / 2.0)
    placement = log.LogPlacement(piers=piers, solved_log=raised, log=raised)
    assert placement.entities == (*piers, raised)


def test_levelled_ground_is_a_disc_or_a_ring():
    x, z = np.meshgrid(np.linspace(-32, 32, 65), np.linspace(-32, 32, 65))
    hills = HeightMap(heights=5.0 + 0.1 * x, size_m=64.0, water_height_m=0.0)
    radius = np.hypot(x, z)
    disc = log.levelled(hills, (0.0, 0.0), 10.0, (0.0, 0.0))
    assert np.allclose(disc.heights[radius <= 10.0], 5.0)
    assert np.array_equal(disc.heights[radius > 10.0 + log.LEVEL_BLEND_M], hills.heights[radius > 10.0 + log.LEVEL_BLEND_M])
    ring = log.levelled(hills, (0.0, 0.0), 20.0, (12.0, 0.0), inner_radius_m=12.0)
    assert np.array_equal(ring.heights[radius < 12.0], hills.heights[radius < 12.0])
    assert np.allclose(ring.heights[(radius >= 12.0 + log.LEVEL_BLEND_M) & (radius <= 20.0)], 5.0 + 0.1 * 12.0)


def test_the_route_over_a_laid_log_jumps_on_at_the_far_end_and_steps_off_the_near_one():
    ground, ring = _trench_field()
    across = log.resting_log(ground, (0.0, ring.middle_radius_m), log.radial_yaw(math.pi / 2))
    steps = log.crossing_steps(ground, across, (0.0, 1.0))
    assert [step.skill for step in steps] == ["walk", "jump", "walk", "fall", "walk"]
    top = log.log_footprint(across).top_m
    assert steps[1].target[1] == steps[2].target[1] == top and steps[1].target[2] > steps[2].target[2]
    assert steps[0].target[2] == pytest.approx(ring.middle_radius_m + 4.5 + log.APPROACH_BEFORE_END_M)
    assert steps[3].target[1] == pytest.approx(ground_height(ground, *steps[3].target[::2]))
    assert log.ends_outward_m(ring) == (1.0, 10.0)
