"""The shared outdoor builder's geometry (on small synthetic maps) and configuration."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.environment import random_lighting
from avalon.datagen.export.scenery_data import SHAPES
from avalon.datagen.scenery import SceneryInstance, SceneryKind, place_scenery
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Lighting
from avalon.tasks import eat
from avalon.tasks.outdoor import (
    OCCLUDER_PARTS,
    FoodPlacement,
    OutdoorTaskConfig,
    assemble_outdoor_world,
    component_labels,
    corridor_discs,
    facing_direction,
    ground_height,
    line_of_sight,
    path_exists,
    reachable_mask,
    scaled_scenery,
    scenery_occluders,
    split_streams,
    terrain_clear,
    triangle_slopes_deg,
    walkable_grid,
    yaw_towards,
)

from tests.tasks.helpers import world_digest


def _flat(n: int = 21, size_m: float = 20.0, height: float = 1.0, water: float = 0.0) -> np.ndarray:
    return np.full((n, n), height, dtype=np.float64)


def _map(heights: np.ndarray, size_m: float = 20.0, water: float = 0.0) -> HeightMap:
    return HeightMap(heights=heights, size_m=size_m, water_height_m=water)


# --- terrain surface ---------------------------------------------------------------------------


def test_ground_height_reproduces_planes_exactly():
    n, size = 21, 20.0
    coords = np.linspace(-10, 10, n)
    x, z = np.meshgrid(coords, coords)
    hm = _map(0.3 * x - 0.2 * z + 2.0, size)
    rng = np.random.default_rng(0)
    px, pz = rng.uniform(-10, 10, 200), rng.uniform(-10, 10, 200)
    np.testing.assert_allclose(ground_height(hm, px, pz), 0.3 * px - 0.2 * pz + 2.0, atol=1e-5)


def test_ground_height_follows_the_colliders_diagonal_not_bilinear():
    # One raised corner: the bottom-left corner (row 1, col 0) of cell (0, 0).
    heights = np.zeros((3, 3))
    heights[1, 0] = 1.0
    hm = _map(heights, size_m=2.0)  # cell size 1 m; cell (0, 0) spans x in [-1, 0], z in [-1, 0]
    centre = (-0.5, -0.5)  # on the diagonal from (row 0, col 1) to (row 1, col 0)
    assert ground_height(hm, *centre) == pytest.approx(0.5)  # mean of the diagonal's two ends
    assert hm.height_at(*centre) == pytest.approx(0.25)  # bilinear would average all four corners
    # Off the diagonal, on the side of the raised corner and the other side.
    assert ground_height(hm, -0.75, -0.25) == pytest.approx(0.75)  # plane through TL=0, TR=0, BL=1
    assert ground_height(hm, -0.25, -0.25) == pytest.approx(0.25)  # plane through TR=0, BR=0, BL=1
    with pytest.raises(ValueError, match="outside the world"):
        ground_height(hm, 1.5, 0.0)


def test_triangle_slopes_and_walkability():
    n, size = 21, 20.0
    coords = np.linspace(-10, 10, n)
    x, _ = np.meshgrid(coords, coords)
    for degrees, walkable in ((30.0, True), (45.0, False)):
        hm = _map(5.0 + math.tan(math.radians(degrees)) * x, size, water=-100.0)
        np.testing.assert_allclose(triangle_slopes_deg(hm), degrees, atol=1e-3)
        assert walkable_grid(hm).all() == walkable
        assert not walkable_grid(hm).any() != walkable
    # A flat map half under water: only the dry half is walkable, unless water is allowed.
    heights = _flat(height=0.3)
    heights[:, :10] = -0.5  # the step between is 0.8 m over 1 m: 38.7 degrees, walkable
    hm = _map(heights)
    walk = walkable_grid(hm)
    assert not walk[:, :10].any() and walk[:, 10:].all()
    assert walkable_grid(hm, allow_water=True).all()


def test_path_exists_needs_a_gap_in_a_wall():
    heights = _flat()
    heights[:, 10] = 6.0  # a wall across the whole map (x = 0), far too steep to walk
    hm = _map(heights)
    west, east = (-6.0, 0.3), (6.0, -2.7)
    assert not path_exists(hm, walkable_grid(hm), west, east)
    assert path_exists(hm, walkable_grid(hm), west, (-3.0, 4.0))
    heights[12:15, 9:12] = 1.0  # a gap three points wide
    hm = _map(heights)
    assert path_exists(hm, walkable_grid(hm), west, east)
    reach = reachable_mask(hm, walkable_grid(hm), west)
    assert reach.sum() == (component_labels(walkable_grid(hm)) >= 0).sum()  # one region now
    # A start on an unwalkable triangle reaches nothing.
    assert not reachable_mask(hm, walkable_grid(hm), (0.0, -8.0)).any()


def test_line_of_sight_terrain_and_occluders():
    heights = _flat()
    hm = _map(heights)
    eye, target = (-8.0, 2.7, 0.0), (8.0, 1.15, 0.0)
    assert line_of_sight(hm, eye, target)
    hill = heights.copy()
    hill[9:12, 9:12] = 3.0  # a bump 2 m high halfway
    assert not terrain_clear(_map(hill), eye, target)

    def tree(kind, x, z, scale=1.0):
        return SceneryInstance(kind=kind, position=(x, 1.0, z), yaw_rad=0.0, scale=scale, color=(0.2, 0.5, 0.2))

    # A trunk on the line blocks; the same trunk 0.5 m to the side does not (radius 0.2 m).
    assert not line_of_sight(hm, eye, target, scenery_occluders([tree("maple", 0.0, 0.0)]))
    assert line_of_sight(hm, eye, target, scenery_occluders([tree("palm", 0.0, 0.5)]))
    # The maple's crown (radius 1.9 m, from 2.2 m up) hangs over the line but above it near the target.
    assert line_of_sight(hm, eye, target, scenery_occluders([tree("maple", 7.0, 1.0)]))
    # The same crown near the eye, where the line is higher, blocks.
    assert not line_of_sight(hm, (-8.0, 4.0, 0.0), target, scenery_occluders([tree("maple", -6.0, 1.0)]))
    occluders = scenery_occluders([tree("maple", 0.0, 0.0), tree("bush", 3.0, 0.0), tree("bush", 3.0, 5.0)])
    assert sorted(set(occluders.owner[occluders.blocking(eye, target)].tolist())) == [0, 1]


def test_occluders_bound_the_exported_plant_shapes():
    assert set(OCCLUDER_PARTS) == set(SceneryKind)
    for kind, parts in SHAPES.items():
        cylinders = OCCLUDER_PARTS[SceneryKind(kind)]
        for part in parts:
            bottom, top = part.base_y_m, part.base_y_m + part.height_m
            assert any(
                r >= part.radius_m - 1e-9 and base <= bottom + 1e-9 and base + height >= top - 1e-9
                for r, base, height in cylinders
            ), f"{kind} {part.name} is not inside any occluder cylinder"


def test_facing_and_yaw_follow_godot_conventions():
    assert facing_direction(0.0) == pytest.approx((0.0, -1.0))
    assert facing_direction(math.pi / 2) == pytest.approx((-1.0, 0.0))  # positive yaw turns left
    for yaw in np.linspace(-3.0, 3.0, 7):
        dx, dz = facing_direction(yaw)
        assert yaw_towards((1.0, 2.0), (1.0 + dx, 2.0 + dz)) == pytest.approx(yaw)


# --- lighting ----------------------------------------------------------------------------------


def test_fixed_lighting_draws_nothing_and_varied_lighting_stays_natural():
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    assert random_lighting(rng, vary=False) == Lighting()
    assert rng.bit_generator.state == state

    varied = [random_lighting(np.random.default_rng(seed), vary=True) for seed in range(60)]
    assert random_lighting(np.random.default_rng(3), vary=True) == varied[3]
    assert len({(v.sun_yaw_deg, v.sun_pitch_deg) for v in varied}) == 60
    assert all(-75.0 <= v.sun_pitch_deg <= -20.0 for v in varied)
    assert all(0.5 <= v.sun_energy <= 1.5 and 0.3 <= v.ambient_energy <= 1.0 for v in varied)
    assert all(v.fog_depth_begin_m < v.fog_depth_end_m for v in varied)
    assert 5 <= sum(v.fog_enabled for v in varied) <= 35
    # The sky is blue: blue above red at the zenith, the horizon paler than the zenith.
    assert all(v.sky_zenith_color[2] > v.sky_zenith_color[0] for v in varied)
    assert all(sum(v.sky_horizon_color) > sum(v.sky_zenith_color) for v in varied)


# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, value",
    [("world_size", "tiny"), ("world_size", -5.0), ("points_per_m", 0.0), ("scenery_density_scale", -1.0),
     ("vary_lighting", 1), ("time_limit_frames", 0)],
)
def test_config_rejects_bad_values_by_name(field, value):
    with pytest.raises((ValueError, TypeError), match=field):
        OutdoorTaskConfig(**{field: value})


def test_generators_reject_a_foreign_config():
    with pytest.raises(TypeError, match="OutdoorTaskConfig"):
        eat.generate(np.random.default_rng(0), 0.0, {"world_size": "small"})


def test_streams_are_deterministic_and_independent():
    a = split_streams(np.random.default_rng(7))
    b = split_streams(np.random.default_rng(7))
    assert a.terrain.uniform() == b.terrain.uniform()
    draws = {name: getattr(split_streams(np.random.default_rng(7)), name).uniform() for name in attr.fields_dict(type(a))}
    assert len(set(draws.values())) == len(draws)


def test_lighting_and_scenery_options_change_only_their_part():
    rng = lambda: np.random.default_rng(11)  # noqa: E731
    base = eat.build_layout(rng(), 0.3)
    lit = eat.build_layout(rng(), 0.3, OutdoorTaskConfig(vary_lighting=True))
    assert lit.world.lighting != Lighting() and base.world.lighting == Lighting()
    assert lit.world.ground.biome_map.digest() == base.world.ground.biome_map.digest()
    assert lit.world.entities == base.world.entities and lit.world.scenery == base.world.scenery
    assert world_digest(lit.world) != world_digest(base.world)

    bare = eat.build_layout(rng(), 0.3, OutdoorTaskConfig(scenery_density_scale=0.0))
    assert [s.kind for s in bare.world.scenery] == [SceneryKind.FRUIT_TREE]
    dense = eat.build_layout(rng(), 0.3, OutdoorTaskConfig(scenery_density_scale=2.0))
    assert len(dense.world.scenery) > 1.4 * len(base.world.scenery)
    # The terrain and the food do not depend on the plants.
    assert bare.world.entities == base.world.entities == dense.world.entities


def test_plants_that_hide_the_food_are_removed():
    # Two hills with a wooded valley between: the sight line from one hilltop to the other runs
    # through the maples' crowns, which the corridor's keep-clear discs (trunks only) leave.
    coords = np.linspace(-32, 32, 65)
    x, _ = np.meshgrid(coords, coords)
    hm = _map(1.0 + 5.0 * np.minimum(1.0, np.abs(x) / 20.0), size_m=64.0, water=-10.0)
    shape = hm.shape
    biomes = BiomeMap(
        biome_ids=np.full(shape, Biome.TEMPERATE_DECIDUOUS_FOREST, np.uint8),
        climbable=np.zeros(shape, bool),
        colors=np.zeros((*shape, 3), np.float32),
        heightmap=hm,
    )
    config = OutdoorTaskConfig(scenery_density_scale=5.0)
    spawn, food = (-25.0, 0.0), FoodPlacement(kind="apple", x=25.0, z=0.0)

    def build():
        return assemble_outdoor_world(
            split_streams(np.random.default_rng(0)), config, biomes, task="test", difficulty=0.5,
            spawn=spawn, spawn_yaw_rad=0.0, foods=[food], tree_site=None,
        )

    layout = build()
    assert layout.removed_occluders > 0
    world = layout.world
    eye = (spawn[0], world.spawn_position[1] + 1.7, spawn[1])
    assert not scenery_occluders(world.scenery).blocking(eye, world.food[0].position).any()
    assert sum(s.kind is SceneryKind.MAPLE for s in world.scenery) > 50  # the valley is still wooded
    # Without the removal, the same scenery would hide the food.
    plants = place_scenery(
        split_streams(np.random.default_rng(0)).scenery, hm, biomes, scaled_scenery(config),
        [(spawn[0], spawn[1], 1.5), (food.x, food.z, 1.0), *corridor_discs(spawn, (food.x, food.z), 1.0)],
    )
    assert len(plants) == len(world.scenery) + layout.removed_occluders
    assert scenery_occluders(plants).blocking(eye, world.food[0].position).any()
