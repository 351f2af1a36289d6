"""The static-world data the Godot terrain node draws: chunks, levels of detail, water, plants."""

import numpy as np
import pytest

from avalon.datagen.export import terrain_data as td
from avalon.datagen.export.scenery_data import SHAPES, _primitive
from avalon.tasks import build_world


@pytest.fixture(scope="module")
def world():
    return build_world("move", 0.0, 0)


@pytest.fixture(scope="module")
def data(world):
    return td.terrain_data(world.ground, world.scenery, world.lighting)


def _arrays(mesh):
    return mesh["vertices"].values, mesh["colors"].values, mesh["indices"].values


def test_chunks_levels_and_indices(data):
    assert 1 <= len(data["chunks"]) <= td.MAX_CHUNKS_PER_SIDE**2
    for chunk in data["chunks"]:
        assert len(chunk["levels"]) == len(td.LOD_STEPS)
        counts = []
        for level in chunk["levels"]:
            vertices, colors, indices = _arrays(level)
            assert len(vertices) == len(colors) and len(indices) % 3 == 0
            assert indices.min() >= 0 and indices.max() < len(vertices)
            assert np.all((colors >= 0) & (colors <= 1))
            counts.append(len(indices) // 3)
        assert counts[0] > counts[1] > counts[2]  # coarser levels have fewer triangles


def test_full_detail_surface_is_exactly_the_height_grid(world, data):
    heightmap = world.ground.heightmap
    vertices = np.concatenate([_arrays(chunk["levels"][0])[0] for chunk in data["chunks"]])
    rows, cols = heightmap.shape
    on_grid = np.isclose(vertices[:, 0][:, None], heightmap.x_coords_m[None, :]).any(axis=1)
    grid = vertices[on_grid]
    c = np.rint((grid[:, 0] - heightmap.x_coords_m[0]) / heightmap.cell_size_m).astype(int)
    r = np.rint((grid[:, 2] - heightmap.z_coords_m[0]) / heightmap.cell_size_m).astype(int)
    inside = (r >= 0) & (r < rows) & (c >= 0) & (c < cols)
    terrain_like = np.isclose(grid[inside, 1], heightmap.heights[r[inside], c[inside]], atol=1e-4)
    assert terrain_like.sum() >= rows * cols  # every grid point appears at its exact height
    np.testing.assert_array_equal(data["heights"].values, heightmap.heights.reshape(-1).astype(np.float32))


def test_water_only_over_cells_with_water(world):
    heightmap = world.ground.heightmap
    heights = heightmap.heights
    corners = td._wet_cells(heights, heightmap.x_coords_m, heightmap.z_coords_m, heightmap.water_height_m)
    wet = heights < heightmap.water_height_m
    expected = (wet[:-1, :-1] | wet[1:, :-1] | wet[:-1, 1:] | wet[1:, 1:]).sum()
    assert len(corners) == expected and 0 < expected < heights.size  # an island: some water, not all
    dry = np.zeros_like(heights)
    assert len(td._wet_cells(dry + 5.0, heightmap.x_coords_m, heightmap.z_coords_m, 0.0)) == 0


def test_every_plant_is_drawn_in_exactly_one_chunk(world, data):
    heightmap = world.ground.heightmap
    heights = heightmap.heights
    per_instance = {kind: sum(len(_primitive(part)[0]) for part in parts) for kind, parts in SHAPES.items()}
    plant_vertices = sum(per_instance[item.kind] for item in world.scenery)
    bounds = td.chunk_bounds(*heights.shape)
    assert len(bounds) == len(data["chunks"])
    terrain_and_water = 0
    for r0, r1, c0, c1 in bounds:
        full = heights[r0 : r1 + 1, c0 : c1 + 1]
        wet = td._wet_cells(full, heightmap.x_coords_m[c0 : c1 + 1], heightmap.z_coords_m[r0 : r1 + 1], heightmap.water_height_m)
        terrain_and_water += full.size + 4 * len(wet)
    drawn = sum(len(_arrays(chunk["levels"][0])[0]) for chunk in data["chunks"])
    assert drawn - terrain_and_water == plant_vertices > 0


def test_tree_colliders_cover_every_tree(world, data):
    trees = [item for item in world.scenery if item.kind.is_tree]
    assert sum(len(c["bases"].values) for c in data["tree_colliders"]) == len(trees) > 0
