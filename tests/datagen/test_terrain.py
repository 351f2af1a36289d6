import hashlib
import math

import numpy as np
import pytest

from avalon.datagen.terrain import WORLD_SIZES_M, HeightMap, WorldConfig, build_heightmap


def _hash(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def _flat(size_m=20.0, points_per_m=1.0, height=1.0, water=0.0) -> HeightMap:
    n = int(round(size_m * points_per_m)) + 1
    return HeightMap(heights=np.full((n, n), height), size_m=size_m, water_height_m=water)


# --- generation -----------------------------------------------------------------------------------


def test_same_seed_gives_identical_bytes():
    a = build_heightmap(np.random.default_rng(7), WorldConfig())
    b = build_heightmap(np.random.default_rng(7), WorldConfig())
    assert a.heights.dtype == np.float32
    assert _hash(a.heights) == _hash(b.heights)
    assert a.digest() == b.digest()


def test_different_seed_gives_different_terrain():
    a = build_heightmap(np.random.default_rng(7), WorldConfig())
    b = build_heightmap(np.random.default_rng(8), WorldConfig())
    assert _hash(a.heights) != _hash(b.heights)


@pytest.mark.parametrize("seed", range(5))
def test_default_world_is_an_island_with_pools(seed):
    config = WorldConfig()
    hm = build_heightmap(np.random.default_rng(seed), config)
    assert hm.shape == (65, 65)
    water = hm.is_water()
    edges = np.concatenate([water[0], water[-1], water[:, 0], water[:, -1]])
    assert edges.all(), "every edge point must be under water"
    assert hm.ocean_mask()[0, 0]

    x, z = np.meshgrid(hm.x_coords_m, hm.z_coords_m)
    centre = np.hypot(x, z) < config.size_m / 4
    assert (~water[centre]).mean() > 0.8, "the centre of the island is mostly land"
    assert 0.25 < (~water).mean() < 0.8
    assert hm.fresh_water_mask().any(), "default worlds have at least one inland pool"
    assert not (hm.fresh_water_mask() & hm.ocean_mask()).any()


def test_edges_stay_water_even_with_a_wild_coastline():
    # Coast noise far larger than the distance to the edge: only the margin keeps the edge wet.
    config = WorldConfig(coast_distance_m=1.0, coast_margin_m=1.0, coast_noise_m=14.0)
    for seed in range(6):
        hm = build_heightmap(np.random.default_rng(seed), config)
        water = hm.is_water()
        assert water[0].all() and water[-1].all() and water[:, 0].all() and water[:, -1].all()


def test_land_is_mostly_walkable_at_agent_scale():
    for seed in range(3):
        hm = build_heightmap(np.random.default_rng(seed), WorldConfig.for_size("medium"))
        land = ~hm.is_water()
        slope = hm.slope_deg()[land]
        assert np.median(slope) < 25.0
        assert (slope > 45.0).mean() < 0.1


def test_mountains_make_high_steep_ground():
    flat = WorldConfig.for_size("medium", mountain_count=0, hill_count=0)
    steep = WorldConfig.for_size("medium", mountain_count=3, hill_count=0, mountain_height_range_m=(25.0, 30.0))
    a = build_heightmap(np.random.default_rng(1), flat)
    b = build_heightmap(np.random.default_rng(1), steep)
    assert b.heights.max() > a.heights.max() + 15.0
    assert (b.slope_deg() > 45).sum() > (a.slope_deg() > 45).sum()


def test_named_sizes():
    assert WORLD_SIZES_M["small"] == 64.0
    assert WORLD_SIZES_M["huge"] == 440.0
    assert WORLD_SIZES_M["small"] < WORLD_SIZES_M["medium"] < WORLD_SIZES_M["large"] < WORLD_SIZES_M["huge"]
    small, huge = WorldConfig.for_size("small"), WorldConfig.for_size("huge")
    assert small == WorldConfig(), "the defaults are the Small world"
    assert huge.size_m == 440.0 and huge.grid_points_per_side == 441
    assert huge.mountain_count > small.mountain_count
    assert huge.mountain_radius_range_m[0] > small.mountain_radius_range_m[0]
    medium = build_heightmap(np.random.default_rng(0), WorldConfig.for_size("medium", points_per_m=0.5))
    assert medium.shape == (65, 65) and medium.size_m == 128.0 and medium.cell_size_m == 2.0


@pytest.mark.parametrize(
    "overrides, names",
    [
        (dict(size_m=-1.0), "size_m=-1.0"),
        (dict(points_per_m=0.0), "points_per_m=0.0"),
        (dict(fractal_iteration_count=0), "fractal_iteration_count=0"),
        (dict(fractal_iteration_count=2.5), "fractal_iteration_count=2.5"),
        (dict(noise_scale_decay=1.5), "noise_scale_decay=1.5"),
        (dict(water_height_m=math.nan), "water_height_m=nan"),
        (dict(mountain_height_range_m=(5.0, 2.0)), "mountain_height_range_m=(5.0, 2.0)"),
        (dict(pool_count=-1), "pool_count=-1"),
        (dict(coast_margin_m=5.0, coast_distance_m=3.0), "coast_margin_m=5.0"),
        (dict(coast_distance_m=20.0, coast_ramp_m=15.0), "coast_distance_m=20.0"),
        (dict(size_m=4000.0, points_per_m=4.0), "points_per_m=4.0"),
    ],
)
def test_bad_config_values_are_named(overrides, names):
    with pytest.raises(ValueError, match=names.replace("(", r"\(").replace(")", r"\)")):
        WorldConfig(**overrides)


def test_unknown_size_name():
    with pytest.raises(ValueError, match="'gigantic'"):
        WorldConfig.for_size("gigantic")


# --- HeightMap ------------------------------------------------------------------------------------


def test_grid_and_world_coordinates_round_trip():
    hm = _flat(size_m=20.0, points_per_m=2.0)
    assert hm.cell_size_m == 0.5
    row, col = hm.world_to_grid(-10.0, 10.0)
    assert (float(row), float(col)) == (40.0, 0.0)  # z = +10 is the last row, x = -10 the first column
    x, z = hm.grid_to_world(np.array([3.0, 17.5]), np.array([8.0, 1.0]))
    back_row, back_col = hm.world_to_grid(x, z)
    np.testing.assert_allclose(back_row, [3.0, 17.5])
    np.testing.assert_allclose(back_col, [8.0, 1.0])


def test_height_at_is_bilinear():
    size = 10.0
    n = 11
    x, z = np.meshgrid(np.linspace(-5, 5, n), np.linspace(-5, 5, n))
    heights = 2.0 * x - 0.5 * z + 0.1 * x * z  # bilinear within every cell
    hm = HeightMap(heights=heights, size_m=size)
    assert hm.height_at(-5.0, -5.0) == pytest.approx(heights[0, 0], abs=1e-5)
    for px, pz in [(0.3, -2.7), (4.99, 4.2), (-1.5, 0.5), (5.0, 5.0)]:
        assert hm.height_at(px, pz) == pytest.approx(2 * px - 0.5 * pz + 0.1 * px * pz, abs=1e-4)
    values = hm.height_at(np.array([0.0, 1.0]), np.array([0.0, 1.0]))
    np.testing.assert_allclose(values, [0.0, 1.6], atol=1e-5)


def test_height_at_outside_the_world_is_an_error():
    hm = _flat()
    with pytest.raises(ValueError, match="outside the world"):
        hm.height_at(10.5, 0.0)


def test_slope_of_a_plane():
    n = 41
    x, _ = np.meshgrid(np.linspace(-20, 20, n), np.linspace(-20, 20, n))
    hm = HeightMap(heights=math.tan(math.radians(30.0)) * x, size_m=40.0)
    np.testing.assert_allclose(hm.slope_deg(), 30.0, atol=1e-3)


def test_water_masks_and_distances():
    heights = np.full((21, 21), 1.0)
    heights[:, :3] = -1.0  # ocean strip along the x = -10 edge (columns 0..2)
    heights[10, 15] = -0.5  # a one-cell pool
    hm = HeightMap(heights=heights, size_m=20.0, water_height_m=0.0)
    assert hm.is_water().sum() == 3 * 21 + 1
    assert hm.ocean_mask()[:, :3].all() and not hm.ocean_mask()[10, 15]
    assert hm.fresh_water_mask().sum() == 1
    distance = hm.distance_to_water_m()
    assert distance[0, 3] == pytest.approx(1.0) and distance[0, 8] == pytest.approx(6.0)
    assert hm.distance_to_ocean_m()[10, 14] == pytest.approx(12.0)
    assert hm.distance_to_fresh_water_m()[10, 12] == pytest.approx(3.0)
    assert np.isinf(_flat().distance_to_water_m()).all()


def test_heightmap_is_read_only_and_validated():
    hm = _flat()
    with pytest.raises(ValueError):
        hm.heights[0, 0] = 3.0
    with pytest.raises(ValueError, match="non-finite"):
        HeightMap(heights=np.array([[0.0, np.nan], [0.0, 0.0]]), size_m=1.0)
    with pytest.raises(ValueError, match="square"):
        HeightMap(heights=np.zeros((3, 4)), size_m=1.0)
    with pytest.raises(ValueError, match="shape"):
        hm.with_heights(np.zeros((5, 5)))
    changed = hm.with_heights(hm.heights + 1.0)
    assert changed.size_m == hm.size_m and changed.height_at(0.0, 0.0) == pytest.approx(2.0)
    assert changed.digest() != hm.digest()
