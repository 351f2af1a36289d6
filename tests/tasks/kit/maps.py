"""Small synthetic height maps for the kit's tests."""

from __future__ import annotations

import numpy as np

from avalon.datagen.terrain import HeightMap


def flat_heights(n: int = 21, size_m: float = 20.0, height: float = 1.0, water: float = 0.0) -> np.ndarray:
    return np.full((n, n), height, dtype=np.float64)


def height_map(heights: np.ndarray, size_m: float = 20.0, water: float = 0.0) -> HeightMap:
    return HeightMap(heights=heights, size_m=size_m, water_height_m=water)


def terrain_world(heights: np.ndarray, size_m: float, spawn_xz: tuple[float, float], *, climbable=None,
                  water: float = -10.0, entities=(), scenery=()):
    """A World on the given heights (rows along z, columns along x; grass, or bare mountain where
    ``climbable``), the agent standing on the surface at ``spawn_xz``."""
    from avalon.datagen.biomes import Biome, BiomeMap
    from avalon.datagen.world import Terrain, World
    from avalon.tasks.kit.geometry import ground_height

    n = heights.shape[0]
    heightmap = height_map(heights, size_m, water)
    climbable = np.zeros((n, n), dtype=bool) if climbable is None else np.asarray(climbable, dtype=bool)
    biome_map = BiomeMap(biome_ids=np.where(climbable, int(Biome.BARE_MOUNTAIN), int(Biome.GRASSLAND)), climbable=climbable,
                         colors=np.full((n, n, 3), 0.5), heightmap=heightmap)
    x, z = spawn_xz
    return World(task="routes", difficulty=0.0, seed=0, ground=Terrain(biome_map=biome_map), entities=tuple(entities),
                 scenery=tuple(scenery), spawn_position=(x, ground_height(heightmap, x, z), z), spawn_yaw_rad=0.0,
                 time_limit_frames=100)
