import numpy as np
import pytest

from avalon.datagen.biomes import (
    DEFAULT_STYLES,
    MOUNTAIN_BIOMES,
    NATURAL_BIOMES,
    Biome,
    BiomeConfig,
    BiomeStyle,
    assign_biomes,
)
from avalon.datagen.terrain import HeightMap, WorldConfig, build_heightmap

MOUNTAINOUS = WorldConfig.for_size("medium", mountain_count=3, mountain_height_range_m=(20.0, 28.0))


@pytest.fixture(scope="module")
def world():
    hm = build_heightmap(np.random.default_rng(3), MOUNTAINOUS)
    return hm, assign_biomes(np.random.default_rng(30), hm)


def test_same_seed_same_biomes_different_seed_differs(world):
    hm, bm = world
    again = assign_biomes(np.random.default_rng(30), hm)
    assert again.digest() == bm.digest()
    other = assign_biomes(np.random.default_rng(31), hm)
    assert not np.array_equal(other.colors, bm.colors)


def test_ids_valid_and_colours_in_range(world):
    _, bm = world
    assert bm.biome_ids.dtype == np.uint8
    assert set(np.unique(bm.biome_ids)) <= {int(b) for b in Biome}
    assert bm.colors.dtype == np.float32 and bm.colors.shape == (*bm.heightmap.shape, 3)
    assert bm.colors.min() >= 0.0 and bm.colors.max() <= 1.0
    present = set(bm.fractions())
    assert {Biome.WATER, Biome.COASTAL, Biome.BARE_MOUNTAIN} <= present
    assert len(present & set(NATURAL_BIOMES)) >= 3


def test_water_biomes_exactly_where_water_is(world):
    hm, bm = world
    eroded = bm.heightmap
    np.testing.assert_array_equal(bm.mask(Biome.WATER, Biome.FRESH_WATER), eroded.is_water())
    np.testing.assert_array_equal(bm.mask(Biome.WATER), eroded.ocean_mask())
    np.testing.assert_array_equal(eroded.is_water(), hm.is_water())  # erosion never floods land


def test_steep_land_is_mountain_or_cliff(world):
    _, bm = world
    config = BiomeConfig()
    land = ~bm.heightmap.is_water()
    slope = bm.heightmap.slope_deg()
    steep = land & (slope >= config.bare_slope_min_deg + config.slope_noise_deg)
    very_steep = land & (slope >= config.cliff_slope_min_deg + config.slope_noise_deg)
    assert steep.sum() > 20 and very_steep.sum() > 0, "the mountainous world must have steep ground to test"
    assert np.isin(bm.biome_ids[steep], [int(b) for b in MOUNTAIN_BIOMES]).all()
    assert (bm.biome_ids[very_steep] == Biome.UNCLIMBABLE_MOUNTAIN).all()
    gentle = land & (slope < config.bare_slope_min_deg - config.slope_noise_deg)
    low = bm.heightmap.heights - bm.heightmap.water_height_m < config.mountain_elevation_min_m
    assert not np.isin(bm.biome_ids[gentle & low], [int(b) for b in MOUNTAIN_BIOMES]).any()


def test_climbable_follows_the_biome(world):
    _, bm = world
    np.testing.assert_array_equal(bm.climbable, bm.mask(Biome.BARE_MOUNTAIN))
    assert not bm.climbable[bm.mask(Biome.UNCLIMBABLE_MOUNTAIN)].any()
    custom = assign_biomes(
        np.random.default_rng(30), world[0], BiomeConfig(climbable_biomes={Biome.BARE_MOUNTAIN, Biome.GRASSLAND})
    )
    np.testing.assert_array_equal(custom.climbable, custom.mask(Biome.BARE_MOUNTAIN, Biome.GRASSLAND))


def test_beach_erosion_only_lowers_gentle_shore(world):
    hm, bm = world
    before = hm.heights.astype(np.float64)
    after = bm.heightmap.heights.astype(np.float64)
    assert (after <= before + 1e-6).all()
    lowered = after < before - 0.05
    assert lowered.any()
    assert (hm.distance_to_ocean_m()[lowered] <= BiomeConfig().beach_width_m).all()
    no_beach = assign_biomes(np.random.default_rng(30), hm, BiomeConfig(beach_width_m=0.0))
    assert no_beach.heightmap.digest() == hm.digest()
    assert not no_beach.mask(Biome.COASTAL).any()


def test_forced_climbability_overrides_land_only(world):
    hm, _ = world
    water = hm.is_water()
    climb = np.zeros(hm.shape, dtype=bool)
    climb[60:64, :] = True  # a horizontal strip crossing land and sea
    cliff = np.zeros(hm.shape, dtype=bool)
    cliff[:, 60:64] = True
    cliff[60:64, 60:64] = False
    bm = assign_biomes(np.random.default_rng(1), hm, climbable_mask=climb, unclimbable_mask=cliff)
    land = ~bm.heightmap.is_water()
    assert (bm.biome_ids[climb & land] == Biome.BARE_MOUNTAIN).all() and bm.climbable[climb & land].all()
    assert (bm.biome_ids[cliff & land] == Biome.UNCLIMBABLE_MOUNTAIN).all() and not bm.climbable[cliff].any()
    assert np.isin(bm.biome_ids[climb & water], [Biome.WATER, Biome.FRESH_WATER]).all()
    with pytest.raises(ValueError, match="climbable_mask"):
        assign_biomes(np.random.default_rng(1), hm, climbable_mask=np.zeros((3, 3), dtype=bool))


def test_natural_biomes_follow_elevation_and_water_distance():
    # A flat 120 m plain with the ocean along the x = -60 edge; no noise, no beach.
    n = 121
    heights = np.full((n, n), 1.0)
    heights[:, :3] = -2.0
    quiet = BiomeConfig(moisture_noise_m=0.0, elevation_noise_m=0.0, slope_noise_deg=0.0, beach_width_m=0.0)

    def biome_at_distance(hm, bm, distance_m):
        return bm.biome_at(-58.0 + distance_m, 0.0)

    warm = HeightMap(heights=heights, size_m=120.0)
    bm = assign_biomes(np.random.default_rng(0), warm, quiet)
    assert biome_at_distance(warm, bm, 6) == Biome.TROPICAL_RAIN_FOREST
    assert biome_at_distance(warm, bm, 18) == Biome.TROPICAL_SEASONAL_FOREST
    assert biome_at_distance(warm, bm, 60) == Biome.SUBTROPICAL_DESERT

    cool = HeightMap(heights=np.where(heights > 0, 8.0, heights), size_m=120.0)
    bm = assign_biomes(np.random.default_rng(0), cool, quiet)
    assert biome_at_distance(cool, bm, 6) == Biome.TEMPERATE_RAIN_FOREST
    assert biome_at_distance(cool, bm, 18) == Biome.TEMPERATE_DECIDUOUS_FOREST
    assert biome_at_distance(cool, bm, 40) == Biome.GRASSLAND
    assert biome_at_distance(cool, bm, 70) == Biome.TEMPERATE_DESERT


def test_pool_shores_are_swamp_or_dark_shore():
    n = 61
    heights = np.full((n, n), 0.5)
    heights[:2, :] = heights[-2:, :] = heights[:, :2] = heights[:, -2:] = -1.0
    heights[28:33, 28:33] = -1.0  # a pool in the middle
    hm = HeightMap(heights=heights, size_m=60.0)
    bm = assign_biomes(np.random.default_rng(0), hm, BiomeConfig(slope_noise_deg=0.0))
    assert bm.mask(Biome.FRESH_WATER).sum() == 25
    assert bm.biome_at(0.0, 4.0) in (Biome.SWAMP, Biome.DARK_SHORE)
    assert bm.biome_at(0.0, 20.0) not in (Biome.SWAMP, Biome.DARK_SHORE)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(bare_slope_min_deg=50.0, cliff_slope_min_deg=40.0), "cliff_slope_min_deg=40.0"),
        (dict(wet_distance_max_m=30.0, moist_distance_max_m=20.0), "wet=30.0"),
        (dict(beach_slope_cutoff_deg=120.0), "beach_slope_cutoff_deg=120.0"),
        (dict(styles={Biome.WATER: DEFAULT_STYLES[Biome.WATER]}), "missing"),
        (dict(climbable_biomes={Biome.WATER}), "climbable_biomes"),
    ],
)
def test_bad_biome_config(overrides, message):
    with pytest.raises(ValueError, match=message):
        BiomeConfig(**overrides)


def test_bad_style_colour():
    with pytest.raises(ValueError, match="color"):
        BiomeStyle(color=(1.2, 0.0, 0.0))
