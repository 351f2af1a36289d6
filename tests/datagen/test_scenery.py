import math

import numpy as np
import pytest

from avalon.datagen.biomes import Biome, BiomeMap, assign_biomes
from avalon.datagen.flora import FloraConfig, SceneryKind
from avalon.datagen.scenery import (
    FruitTreeConfig,
    SceneryConfig,
    place_fruit_tree,
    place_scenery,
)
from avalon.datagen.terrain import HeightMap, WorldConfig, build_heightmap


@pytest.fixture(scope="module")
def world():
    hm = build_heightmap(np.random.default_rng(11), WorldConfig.for_size("medium"))
    return assign_biomes(np.random.default_rng(12), hm)


@pytest.fixture(scope="module")
def scenery(world):
    return place_scenery(np.random.default_rng(13), world.heightmap, world)


def _synthetic_map(ids: np.ndarray, height: float = 2.0, size_m: float | None = None) -> BiomeMap:
    n = ids.shape[0]
    hm = HeightMap(heights=np.full((n, n), height), size_m=size_m or float(n - 1))
    return BiomeMap(
        biome_ids=ids,
        climbable=np.zeros(ids.shape, dtype=bool),
        colors=np.zeros((*ids.shape, 3), dtype=np.float32),
        heightmap=hm,
    )


def test_deterministic(world, scenery):
    again = place_scenery(np.random.default_rng(13), world.heightmap, world)
    assert again == scenery
    other = place_scenery(np.random.default_rng(14), world.heightmap, world)
    assert other != scenery


def test_every_kind_appears_and_nothing_stands_in_water(world, scenery):
    kinds = {s.kind for s in scenery}
    assert kinds == {k for k in SceneryKind if k is not SceneryKind.FRUIT_TREE}
    hm = world.heightmap
    for item in scenery:
        x, y, z = item.position
        assert y >= hm.water_height_m + 0.05
        assert not world.biome_at(x, z).is_water
        if item.kind.is_tree:
            assert world.biome_at(x, z) is not Biome.UNCLIMBABLE_MOUNTAIN


def test_positions_lie_on_the_terrain(world, scenery):
    hm = world.heightmap
    xs = np.array([s.position[0] for s in scenery])
    ys = np.array([s.position[1] for s in scenery])
    zs = np.array([s.position[2] for s in scenery])
    np.testing.assert_allclose(ys, hm.height_at(xs, zs), atol=1e-4)


def test_per_instance_variation(scenery):
    config = SceneryConfig()
    for kind in (SceneryKind.PALM, SceneryKind.FLOWER):
        items = [s for s in scenery if s.kind is kind]
        low, high = config.flora_for(kind).scale_range
        scales = np.array([s.scale for s in items])
        assert scales.min() >= low and scales.max() <= high and scales.std() > 0.05
        colours = np.array([s.color for s in items])
        assert colours.min() >= 0.0 and colours.max() <= 1.0 and colours.std(axis=0).max() > 0.01
        assert np.ptp([s.yaw_rad for s in items]) > math.pi


def test_trees_keep_their_spacing(scenery):
    config = SceneryConfig()
    trees = [s for s in scenery if s.kind.is_tree]
    xz = np.array([(s.position[0], s.position[2]) for s in trees])
    spacing = np.array([config.flora_for(s.kind).min_spacing_m for s in trees])
    d = np.hypot(xz[:, None, 0] - xz[None, :, 0], xz[:, None, 1] - xz[None, :, 1])
    needed = np.maximum(spacing[:, None], spacing[None, :])
    np.fill_diagonal(d, np.inf)
    assert len(trees) > 30
    assert (d >= needed - 1e-9).all()


def test_keep_clear_discs_stay_empty(world, scenery):
    # Discs centred on plants that the unconstrained run placed: they must now be empty.
    trees = [s for s in scenery if s.kind.is_tree][:5]
    flowers = [s for s in scenery if s.kind is SceneryKind.FLOWER][:5]
    discs = [(s.position[0], s.position[2], 3.0) for s in trees + flowers]
    placed = place_scenery(np.random.default_rng(13), world.heightmap, world, keep_clear=discs)
    assert len(placed) > 0.8 * len(scenery)
    for item in placed:
        for cx, cz, radius in discs:
            assert math.hypot(item.position[0] - cx, item.position[2] - cz) >= radius


def test_exclude_mask(world):
    exclude = np.zeros(world.heightmap.shape, dtype=bool)
    exclude[:, : exclude.shape[1] // 2] = True  # west half (x < 0)
    placed = place_scenery(np.random.default_rng(13), world.heightmap, world, exclude_mask=exclude)
    assert placed and all(s.position[0] > -world.heightmap.cell_size_m for s in placed)


def test_density_follows_the_biome_table():
    ids = np.full((101, 101), Biome.GRASSLAND, dtype=np.uint8)
    ids[:, 51:] = Biome.TEMPERATE_DESERT  # x > 1 m is desert
    bm = _synthetic_map(ids)
    bush = FloraConfig(
        kind="bush",
        density_per_100m2={Biome.GRASSLAND: 8.0, Biome.TEMPERATE_DESERT: 1.0},
        color=(0.2, 0.4, 0.1),
        border_noise=0.0,
    )
    config = SceneryConfig(flora=(bush,), border_blend_m=0.0, clearing_fraction=0.0)
    placed = place_scenery(np.random.default_rng(0), bm.heightmap, bm, config)
    grass = sum(s.position[0] < -2 for s in placed)
    desert = sum(s.position[0] > 3 for s in placed)
    # Expected about 8 * 48 * 100 / 100 = 384 and 1 * 47 * 100 / 100 = 47.
    assert 300 < grass < 470
    assert 25 < desert < 75


def test_clearings_thin_out_trees():
    ids = np.full((101, 101), Biome.TEMPERATE_DECIDUOUS_FOREST, dtype=np.uint8)
    bm = _synthetic_map(ids)
    maple = SceneryConfig().flora_for(SceneryKind.MAPLE)
    open_forest = place_scenery(np.random.default_rng(0), bm.heightmap, bm, SceneryConfig(flora=(maple,), clearing_fraction=0.0))
    with_clearings = place_scenery(
        np.random.default_rng(0), bm.heightmap, bm, SceneryConfig(flora=(maple,), clearing_fraction=0.5)
    )
    assert len(with_clearings) < 0.75 * len(open_forest)


def test_tropical_forest_is_mostly_palms():
    ids = np.full((81, 81), Biome.TROPICAL_RAIN_FOREST, dtype=np.uint8)
    bm = _synthetic_map(ids)
    trees = [s for s in place_scenery(np.random.default_rng(0), bm.heightmap, bm) if s.kind.is_tree]
    palms = sum(s.kind is SceneryKind.PALM for s in trees)
    assert len(trees) > 20 and palms > 0.6 * len(trees)


def test_bad_inputs(world):
    with pytest.raises(ValueError, match="biome_map.heightmap"):
        place_scenery(np.random.default_rng(0), build_heightmap(np.random.default_rng(0), WorldConfig()), world)
    with pytest.raises(ValueError, match="keep_clear"):
        place_scenery(np.random.default_rng(0), world.heightmap, world, keep_clear=[(0.0, 0.0, -1.0)])
    with pytest.raises(ValueError, match="keep_clear"):
        place_scenery(np.random.default_rng(0), world.heightmap, world, keep_clear=[(0.0, 0.0)])
    with pytest.raises(ValueError, match="water biomes"):
        FloraConfig(kind="bush", density_per_100m2={Biome.WATER: 1.0}, color=(0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="density_per_100m2"):
        FloraConfig(kind="bush", density_per_100m2={Biome.GRASSLAND: -1.0}, color=(0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="distinct kinds"):
        maple = SceneryConfig().flora_for(SceneryKind.MAPLE)
        SceneryConfig(flora=(maple, maple))


def test_fruit_tree_and_its_food(world):
    hm = world.heightmap
    distance = hm.distance_to_water_m()
    row, col = np.unravel_index(np.argmax(np.where(hm.slope_deg() < 15, distance, 0)), hm.shape)
    x, z = (float(v) for v in hm.grid_to_world(row, col))
    config = FruitTreeConfig()
    placement = place_fruit_tree(np.random.default_rng(5), hm, x, z, config, food_count=3)
    tree = placement.tree
    assert tree.kind is SceneryKind.FRUIT_TREE and tree.position[1] == pytest.approx(hm.height_at(x, z))
    assert len(placement.on_tree) == 3 and len(placement.under_tree) == 3
    for fx, fy, fz in placement.on_tree:
        assert fy == pytest.approx(tree.position[1] + config.canopy_bottom_m * tree.scale)
        assert math.hypot(fx - x, fz - z) < config.canopy_radius_m * tree.scale
    for fx, fy, fz in placement.under_tree:
        distance_m = math.hypot(fx - x, fz - z)
        assert config.ground_food_distance_range_m[0] - 1e-9 <= distance_m <= config.ground_food_distance_range_m[1]
        assert fy == pytest.approx(hm.height_at(fx, fz))
    assert placement.keep_clear[2] > config.canopy_radius_m * tree.scale


def test_fruit_tree_refuses_water(world):
    hm = world.heightmap
    with pytest.raises(ValueError, match="from water"):
        place_fruit_tree(np.random.default_rng(0), hm, -hm.half_size_m + 1.0, 0.0)
    with pytest.raises(ValueError, match="food_count"):
        place_fruit_tree(np.random.default_rng(0), hm, 0.0, 0.0, food_count=-1)
