"""Small synthetic height maps for the kit's tests."""

from __future__ import annotations

import numpy as np

from avalon.datagen.terrain import HeightMap


def flat_heights(n: int = 21, size_m: float = 20.0, height: float = 1.0, water: float = 0.0) -> np.ndarray:
    return np.full((n, n), height, dtype=np.float64)


def height_map(heights: np.ndarray, size_m: float = 20.0, water: float = 0.0) -> HeightMap:
    return HeightMap(heights=heights, size_m=size_m, water_height_m=water)
