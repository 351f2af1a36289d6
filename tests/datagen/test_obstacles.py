import math

import attr
import numpy as np
import pytest

from avalon.datagen.biomes import Biome, assign_biomes
from avalon.datagen.obstacles import ObstacleRing, RingKind, angle_towards_deg, apply_ring, apply_rings
from avalon.datagen.terrain import HeightMap

GROUND_M = 5.0


@pytest.fixture(scope="module")
def flat():
    """An 80 m square at 2 points per metre, level at 5 m, water plane at 0."""
    n = 161
    return HeightMap(heights=np.full((n, n), GROUND_M), size_m=80.0, water_height_m=0.0)


def _polar(hm, cx=0.0, cz=0.0):
    x, z = np.meshgrid(hm.x_coords_m - cx, hm.z_coords_m - cz)
    return np.hypot(x, z), np.degrees(np.arctan2(z, x))


def _angle_diff(a, b):
    return np.abs((a - b + 180.0) % 360.0 - 180.0)


def test_chasm_lowers_the_band_except_at_the_gap(flat):
    ring = ObstacleRing(
        kind="chasm", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=15.0, width_m=4.0, height_m=3.0,
        gap_angle_deg=90.0, gap_width_m=6.0,
    )
    result = apply_ring(np.random.default_rng(0), flat, ring)
    h = result.heightmap.heights
    r, angle = _polar(flat)
    gap_half_deg = math.degrees(ring.gap_width_m / 2 / ring.mid_radius_m)
    away_from_gap = _angle_diff(angle, 90.0) > gap_half_deg + 5.0
    in_gap = _angle_diff(angle, 90.0) < gap_half_deg - 3.0
    deep = (r > 16.0) & (r < 18.0)  # band interior, clear of the sloped sides
    np.testing.assert_allclose(h[deep & away_from_gap], GROUND_M - 3.0, atol=1e-4)
    np.testing.assert_allclose(h[deep & in_gap], GROUND_M, atol=1e-4)
    np.testing.assert_allclose(h[(r < 14.5) | (r > 19.5)], GROUND_M, atol=1e-4)

    assert result.gap.any() and not (result.gap & result.wall).any()
    assert (_angle_diff(angle[result.gap], 90.0) <= gap_half_deg + 3.0).all()
    assert result.wall[deep & away_from_gap].all()
    np.testing.assert_array_equal(result.inside, r < 15.0)
    steep = result.heightmap.slope_deg() > 45.0
    assert steep.any() and not (steep & ~result.wall).any(), "all steep cells belong to the marked wall"


def test_chasm_gap_can_be_a_narrow_bridgeable_section(flat):
    ring = ObstacleRing(
        kind="chasm", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=15.0, width_m=6.0, height_m=3.0,
        gap_angle_deg=0.0, gap_width_m=8.0, gap_band_width_m=2.0, wall_slope_deg=89.0,
    )
    h = apply_ring(np.random.default_rng(0), flat, ring).heightmap
    # Along +x (the gap) only the middle 2 m of the 6 m band is a trench; along -x all of it is.
    assert h.height_at(18.0, 0.0) == pytest.approx(GROUND_M - 3.0, abs=1e-3)
    assert h.height_at(16.0, 0.0) == pytest.approx(GROUND_M, abs=1e-3)
    assert h.height_at(20.0, 0.0) == pytest.approx(GROUND_M, abs=1e-3)
    assert h.height_at(-16.0, 0.0) == pytest.approx(GROUND_M - 3.0, abs=1e-3)
    assert h.height_at(-20.0, 0.0) == pytest.approx(GROUND_M - 3.0, abs=1e-3)


def test_a_gap_without_edge_blend_has_sharp_sides(flat):
    ring = ObstacleRing(
        kind="chasm", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=15.0, width_m=6.0, height_m=3.0,
        gap_angle_deg=0.0, gap_width_m=8.0, gap_band_width_m=2.0, wall_slope_deg=89.9,
    )
    r, _ = _polar(flat)
    land = (r > 15.2) & (r < 16.8)  # beside the gap's trench, inside the full band
    levels = {}
    for blend in (True, False):
        h = apply_ring(np.random.default_rng(0), flat, attr.evolve(ring, gap_edge_blend=blend)).heightmap.heights
        levels[blend] = h[land]
    # Blended, the gap's sides pass through heights between the ground and the chasm's floor;
    # sharp, every point there is one or the other.
    between = lambda heights: (heights > GROUND_M - 3.0 + 1e-6) & (heights < GROUND_M - 1e-6)  # noqa: E731
    assert between(levels[True]).any()
    assert not between(levels[False]).any()
    assert (levels[False] == GROUND_M).any() and (levels[False] == GROUND_M - 3.0).any()


def test_cliff_raises_the_inside_with_a_ramp_in_the_gap(flat):
    ring = ObstacleRing(
        kind="cliff", centre_x_m=5.0, centre_z_m=-5.0, inner_radius_m=10.0, width_m=1.0, height_m=4.0,
        gap_angle_deg=180.0, gap_width_m=4.0, gap_slope_deg=20.0,
    )
    result = apply_ring(np.random.default_rng(0), flat, ring)
    hm = result.heightmap
    r, angle = _polar(flat, 5.0, -5.0)
    np.testing.assert_allclose(hm.heights[r < 9.9], GROUND_M + 4.0, atol=1e-4)
    np.testing.assert_allclose(hm.heights[r > 11.1 + ring.ramp_length_m], GROUND_M, atol=1e-4)
    # Away from the gap the wall drops 4 m over 1 m; in the gap (towards -x) a 20 degree ramp.
    assert hm.height_at(15.0, -5.0) - hm.height_at(16.5, -5.0) == pytest.approx(4.0, abs=1e-3)
    ramp_drop = hm.height_at(5.0 - 12.0, -5.0) - hm.height_at(5.0 - 14.0, -5.0)
    assert ramp_drop == pytest.approx(2.0 * math.tan(math.radians(20.0)), abs=1e-3)
    assert result.gap.any() and (_angle_diff(angle[result.gap], 180.0) < 20.0).all()
    steep = hm.slope_deg() > 60.0
    assert steep.any() and not (steep & ~result.wall).any(), "all steep cells belong to the marked wall"


def test_drop_lowers_and_ridge_walls_off(flat):
    drop = ObstacleRing(kind=RingKind.DROP, centre_x_m=0, centre_z_m=0, inner_radius_m=8.0, width_m=1.0, height_m=2.0)
    h = apply_ring(np.random.default_rng(0), flat, drop).heightmap
    assert h.height_at(0.0, 0.0) == pytest.approx(GROUND_M - 2.0)
    assert h.height_at(0.0, 12.0) == pytest.approx(GROUND_M)

    ridge = ObstacleRing(
        kind="ridge", centre_x_m=0, centre_z_m=0, inner_radius_m=8.0, width_m=3.0, height_m=2.5,
        gap_angle_deg=-90.0, gap_width_m=4.0,
    )
    h = apply_ring(np.random.default_rng(0), flat, ridge).heightmap
    assert h.height_at(9.5, 0.0) == pytest.approx(GROUND_M + 2.5, abs=1e-3)
    assert h.height_at(0.0, -9.5) == pytest.approx(GROUND_M, abs=1e-3)  # the opening faces -z
    assert h.height_at(0.0, 0.0) == pytest.approx(GROUND_M)


def test_concentric_rings_compose(flat):
    outer = ObstacleRing(kind="cliff", centre_x_m=0, centre_z_m=0, inner_radius_m=25.0, width_m=1.0, height_m=2.0)
    inner = ObstacleRing(
        kind="chasm", centre_x_m=0, centre_z_m=0, inner_radius_m=10.0, width_m=3.0, height_m=4.0,
        climbable=True,
    )
    result = apply_rings(np.random.default_rng(0), flat, [outer, inner])
    h = result.heightmap
    assert h.height_at(0.0, 0.0) == pytest.approx(GROUND_M + 2.0)
    assert h.height_at(20.0, 0.0) == pytest.approx(GROUND_M + 2.0)
    assert h.height_at(0.0, 11.5) == pytest.approx(GROUND_M + 2.0 - 4.0, abs=1e-3)
    assert h.height_at(-30.0, 0.0) == pytest.approx(GROUND_M)
    r, _ = _polar(flat)
    np.testing.assert_array_equal(result.inside, r < 10.0)
    assert result.climbable[(r > 10.5) & (r < 12.5)].all()  # the chasm walls
    assert result.unclimbable[(r > 25.1) & (r < 25.9)].all()  # the cliff
    assert not (result.climbable & result.unclimbable).any()
    assert len(result.outlines) == 2


def test_climbability_marks(flat):
    closed = ObstacleRing(kind="cliff", centre_x_m=0, centre_z_m=0, inner_radius_m=10.0, width_m=1.0, height_m=5.0)
    result = apply_ring(np.random.default_rng(0), flat, closed)
    assert result.wall.any()
    np.testing.assert_array_equal(result.unclimbable, result.wall)
    assert not result.climbable.any()

    path = ObstacleRing(
        kind="cliff", centre_x_m=0, centre_z_m=0, inner_radius_m=10.0, width_m=1.0, height_m=5.0,
        climb_path_angle_deg=45.0, climb_path_width_m=3.0,
    )
    result = apply_ring(np.random.default_rng(0), flat, path)
    _, angle = _polar(flat)
    assert result.climbable.any()
    assert (_angle_diff(angle[result.climbable], 45.0) < 10.0).all()
    np.testing.assert_array_equal(result.climbable | result.unclimbable, result.wall)

    biomes = assign_biomes(
        np.random.default_rng(0), result.heightmap,
        climbable_mask=result.climbable, unclimbable_mask=result.unclimbable,
    )
    assert (biomes.biome_ids[result.unclimbable] == Biome.UNCLIMBABLE_MOUNTAIN).all()
    assert biomes.climbable[result.climbable].all() and not biomes.climbable[result.unclimbable].any()


def test_noise_makes_the_radius_vary_with_angle(flat):
    ring = ObstacleRing(
        kind="cliff", centre_x_m=0, centre_z_m=0, inner_radius_m=15.0, width_m=1.0, height_m=3.0,
        noise_amplitude_m=4.0,
    )
    result = apply_ring(np.random.default_rng(3), flat, ring)
    outline = result.outlines[0]
    assert outline.inner_radius_m.std() > 0.5
    assert outline.inner_radius_m.min() >= 11.0 - 1e-9 and outline.inner_radius_m.max() <= 19.0 + 1e-9
    # The raised area follows the outline: sample just inside and just outside along a few directions.
    hm = result.heightmap
    for angle, radius in list(zip(outline.angles_rad, outline.inner_radius_m))[::32]:
        inside = radius - 0.8
        outside = radius + 1.8
        assert hm.height_at(inside * math.cos(angle), inside * math.sin(angle)) == pytest.approx(GROUND_M + 3.0, abs=0.2)
        assert hm.height_at(outside * math.cos(angle), outside * math.sin(angle)) == pytest.approx(GROUND_M, abs=0.2)


def test_rings_are_deterministic(flat):
    ring = ObstacleRing(kind="ridge", centre_x_m=0, centre_z_m=0, inner_radius_m=12.0, width_m=2.0, height_m=2.0,
                        noise_amplitude_m=3.0)
    a = apply_ring(np.random.default_rng(9), flat, ring).heightmap.digest()
    b = apply_ring(np.random.default_rng(9), flat, ring).heightmap.digest()
    c = apply_ring(np.random.default_rng(10), flat, ring).heightmap.digest()
    assert a == b and a != c


def test_angle_towards():
    assert angle_towards_deg(0.0, 0.0, 0.0, 5.0) == pytest.approx(90.0)
    assert angle_towards_deg(1.0, 1.0, -1.0, 1.0) == pytest.approx(180.0)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(noise_amplitude_m=12.0), "noise_amplitude_m=12.0"),
        (dict(kind="chasm", gap_band_width_m=3.0), "gap_band_width_m=3.0"),
        (dict(gap_band_width_m=1.0), "only chasms and ridges"),
        (dict(width_m=0.0), "width_m=0.0"),
        (dict(height_m=-2.0), "height_m=-2.0"),
        (dict(gap_width_m=1000.0), "gap_width_m=1000.0"),
        (dict(kind="moat"), "moat"),
    ],
)
def test_bad_rings(overrides, message):
    values = dict(kind="cliff", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=10.0, width_m=2.0, height_m=3.0)
    values.update(overrides)
    with pytest.raises(ValueError, match=message):
        ObstacleRing(**values)


def test_ring_centre_outside_the_world(flat):
    ring = ObstacleRing(kind="cliff", centre_x_m=100.0, centre_z_m=0.0, inner_radius_m=5.0, width_m=1.0, height_m=1.0)
    with pytest.raises(ValueError, match="outside the world"):
        apply_ring(np.random.default_rng(0), flat, ring)
