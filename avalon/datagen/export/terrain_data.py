"""Terrain → the data the Godot terrain node builds its meshes and collision from.

The grid is cut into square chunks of ``CHUNK_CELLS`` cells, each its own mesh, so the renderer
culls chunks outside the view. Every grid cell is split into two triangles along the diagonal
from (col + 1, row) to (col, row + 1): the diagonal Bullet's height field uses, so the surface
the agent stands on is exactly the surface it sees. Lighting is baked into vertex colours
(:mod:`avalon.datagen.lighting`); the terrain is drawn unshaded.
"""

from __future__ import annotations

import numpy as np

from avalon.datagen.export import marshal
from avalon.datagen.lighting import lit_colors
from avalon.datagen.world import Lighting, Terrain

CHUNK_CELLS = 32
TERRAIN_FORMAT_VERSION = 1


def vertex_normals(heights: np.ndarray, cell_size_m: float) -> np.ndarray:
    """Unit normals (rows, cols, 3) of a height grid from central differences."""
    dh_dz, dh_dx = np.gradient(heights.astype(np.float64), cell_size_m)
    normals = np.stack([-dh_dx, np.ones_like(dh_dx), -dh_dz], axis=-1)
    return normals / np.linalg.norm(normals, axis=-1, keepdims=True)


def _chunk_indices(rows: int, cols: int) -> np.ndarray:
    """Triangle indices for a grid of rows x cols vertices, two per cell, Bullet's diagonal."""
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(cols - 1), indexing="ij")
    top_left = (r * cols + c).reshape(-1)
    top_right, bottom_left, bottom_right = top_left + 1, top_left + cols, top_left + cols + 1
    # Clockwise seen from above (+y): Godot's front faces are clockwise.
    first = np.stack([top_left, top_right, bottom_left], axis=1)
    second = np.stack([top_right, bottom_right, bottom_left], axis=1)
    return np.concatenate([first, second], axis=1).reshape(-1)


def terrain_data(terrain: Terrain, lighting: Lighting) -> dict:
    """Everything ``godot/world/terrain.gd`` needs, as a dict for :func:`marshal.store_var`."""
    heightmap = terrain.heightmap
    heights = np.asarray(heightmap.heights, np.float32)
    rows, cols = heights.shape
    cell = heightmap.cell_size_m
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    colors = lit_colors(terrain.biome_map.colors, vertex_normals(heights, cell), lighting)
    chunks = []
    for r0 in range(0, rows - 1, CHUNK_CELLS):
        for c0 in range(0, cols - 1, CHUNK_CELLS):
            r1, c1 = min(r0 + CHUNK_CELLS, rows - 1), min(c0 + CHUNK_CELLS, cols - 1)
            grid_x, grid_z = np.meshgrid(xs[c0 : c1 + 1], zs[r0 : r1 + 1])
            vertices = np.stack([grid_x, heights[r0 : r1 + 1, c0 : c1 + 1], grid_z], axis=-1).reshape(-1, 3)
            chunks.append(
                {
                    "vertices": marshal.vector3_array(vertices),
                    "colors": marshal.color_array(colors[r0 : r1 + 1, c0 : c1 + 1].reshape(-1, 3)),
                    "indices": marshal.int_array(_chunk_indices(r1 - r0 + 1, c1 - c0 + 1)),
                }
            )
    return {
        "format_version": TERRAIN_FORMAT_VERSION,
        "rows": rows,
        "cols": cols,
        "cell_size_m": float(cell),
        "size_m": float(heightmap.size_m),
        "water_height_m": float(heightmap.water_height_m),
        "heights": marshal.real_array(heights),
        "climbable": marshal.byte_array(terrain.biome_map.climbable),
        "chunks": chunks,
    }
