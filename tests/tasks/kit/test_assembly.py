"""The kit's world assembly: lighting, the outdoor task config, random streams, and plants that
would hide the food."""

from __future__ import annotations

import attr
import numpy as np
import pytest

from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.environment import random_lighting
from avalon.datagen.scenery import SceneryKind, place_scenery
from avalon.datagen.world import Lighting
from avalon.tasks import eat
from avalon.tasks.kit.assembly import (
    FoodPlacement,
    OutdoorTaskConfig,
    assemble_outdoor_world,
    scaled_scenery,
    split_streams,
)
from avalon.tasks.kit.sight import scenery_occluders
from avalon.tasks.kit.sites import corridor_discs
from tests.tasks.helpers import world_digest
from tests.tasks.kit.maps import height_map

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
        eat.build_layout(np.random.default_rng(0), 0.0, {"world_size": "small"})


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
    hm = height_map(1.0 + 5.0 * np.minimum(1.0, np.abs(x) / 20.0), size_m=64.0, water=-10.0)
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
