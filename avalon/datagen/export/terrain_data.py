"""Terrain, water and scenery → the static world the Godot terrain node draws, and its colliders.

Under software rendering every draw call has a large fixed cost, so all static geometry of a
region (terrain surface, water over its wet cells, the scenery standing on it) is one mesh with
one unshaded vertex-colour material. The grid is cut into at most ``max_chunks_per_side`` squared
chunks (the renderer culls chunks outside the view). Each chunk has one mesh per level of
detail: every ``step`` grid points, ``step`` starting from ``LOD_STEPS`` and doubled while the
surface stays within the level's tolerances (``HEIGHT_TOLERANCE_M``, ``COLOR_TOLERANCE``), with
fewer and simpler plants (``scenery_data.KINDS_AT_LEVEL``, ``SEGMENT_SHARE_AT_LEVEL``); the
simulator shows the level whose distance band (``LOD_DISTANCES_M``) holds the distance of the
chunk's nearest point from the camera. Coarser meshes hang a skirt from their edges, deep
enough to cover any crack against a finer neighbour. Every cell is split into two triangles along
the diagonal from (col + 1, row) to (col, row + 1), the diagonal Bullet's height field uses, so
at full detail the surface the agent stands on is the surface it sees, within 1 cm; the collider
always has full detail. Lighting is baked into vertex colours (:mod:`avalon.datagen.lighting`);
the terrain is drawn unshaded.

Two encodings of the same world (:class:`MeshEncoding`): ``SHIPPED``, what the folder holds, and
``CANONICAL`` (format 4: fixed steps, a quad per wet cell, full plants, 8x8 chunks), which the
content hash is defined over, so that it names the world's content whatever encoding ships it.
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.export import marshal
from avalon.datagen.export.scenery_data import KINDS_AT_LEVEL, scenery_geometry, tree_colliders
from avalon.datagen.lighting import lit_colors
from avalon.datagen.world import Lighting, Terrain

MAX_CHUNKS_PER_SIDE = 8
MIN_CHUNK_CELLS = 16
LOD_STEPS = (1, 2, 4)
#: A chunk whose nearest point is nearer than LOD_DISTANCES_M[i] (metres, horizontally) uses
#: LOD_STEPS[i] (the canonical encoding: whose centre is).
LOD_DISTANCES_M = (12.0, 32.0)
#: A level's step doubles (up to MAX_STEP) while the coarser surface stays within these of the
#: full grid at every grid point of the chunk: heights in metres, colours in [0, 1] per channel.
#: Flat, evenly coloured ground (a yard, a beach, the sea floor) is drawn with few triangles, and
#: at full detail the picture differs from the full grid's by at most about one colour level.
HEIGHT_TOLERANCE_M = (0.01, 0.05, 0.2)
COLOR_TOLERANCE = (1.5 / 255, 4.0 / 255, 8.0 / 255)
MAX_STEP = 16
TERRAIN_FORMAT_VERSION = 5


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class MeshEncoding:
    """How the meshes of ``terrain.bin`` are built from the same world."""

    format_version: int
    #: Each level's step coarsened while the surface stays within its tolerances (_coarsest_step).
    adaptive_steps: bool
    #: Wet cells merged into rectangles (_merged_runs) rather than a quad each.
    merged_water: bool
    #: Plants with fewer segments, and trees without trunks, at coarser levels.
    plant_levels: bool
    #: Each chunk's horizontal half size ("half_size": x, 0, z), so that its level follows its
    #: nearest point's distance: whatever stands within LOD_DISTANCES_M[0] is drawn at full detail.
    chunk_sizes: bool
    #: Chunks per side at most (each at least MIN_CHUNK_CELLS cells wide): smaller chunks let the
    #: levels follow the distance more closely, at one draw call per chunk in view.
    max_chunks_per_side: int = MAX_CHUNKS_PER_SIDE
    #: And each chunk at least this wide (metres; 0: MIN_CHUNK_CELLS cells only): a fine grid
    #: (stack's 0.25 m) must not multiply the draw calls.
    min_chunk_m: float = 0.0


#: What the exporter ships (read by godot/world/terrain.gd).
SHIPPED = MeshEncoding(format_version=TERRAIN_FORMAT_VERSION, adaptive_steps=True, merged_water=True, plant_levels=True,
                       chunk_sizes=True, max_chunks_per_side=16, min_chunk_m=8.0)
#: The encoding a world's content hash is defined over (terrain.bin format 4, every level at its
#: fixed step, a quad per wet cell, full plants): the world's content, whatever the shipped
#: encoding, so that evaluation sets' manifests pin the same hashes across encodings.
CANONICAL = MeshEncoding(format_version=4, adaptive_steps=False, merged_water=False, plant_levels=False,
                         chunk_sizes=False)


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


def _lod_points(start: int, end: int, step: int) -> np.ndarray:
    """Grid indices from start to end every ``step``, always including both ends."""
    points = list(range(start, end, step)) + [end]
    return np.array(points)


def _interpolated(values: np.ndarray, rr: np.ndarray, cc: np.ndarray) -> np.ndarray:
    """``values`` (rows, cols, channels) at every grid point as drawn from only the points ``rr`` x
    ``cc`` (relative indices, both ends included): planar over each coarse cell's two triangles,
    split along the diagonal the meshes use."""
    rows, cols = values.shape[:2]
    k = np.clip(np.searchsorted(rr, np.arange(rows), side="right") - 1, 0, len(rr) - 2)
    m = np.clip(np.searchsorted(cc, np.arange(cols), side="right") - 1, 0, len(cc) - 2)
    v = ((np.arange(rows) - rr[k]) / (rr[k + 1] - rr[k]))[:, None, None]
    u = ((np.arange(cols) - cc[m]) / (cc[m + 1] - cc[m]))[None, :, None]
    top_left, top_right = values[np.ix_(rr[k], cc[m])], values[np.ix_(rr[k], cc[m + 1])]
    bottom_left, bottom_right = values[np.ix_(rr[k + 1], cc[m])], values[np.ix_(rr[k + 1], cc[m + 1])]
    first = top_left + u * (top_right - top_left) + v * (bottom_left - top_left)
    second = bottom_right + (1 - u) * (bottom_left - bottom_right) + (1 - v) * (top_right - bottom_right)
    return np.where(u + v <= 1, first, second)


def _coarsest_step(heights: np.ndarray, colors: np.ndarray, step: int, level: int) -> int:
    """The largest of ``step``, 2 ``step``, 4 ``step`` ... (at most MAX_STEP) whose surface over
    this chunk's ``heights`` and ``colors`` stays within the level's tolerances."""
    rows, cols = heights.shape
    while step * 2 <= MAX_STEP and step * 2 < max(rows, cols):
        coarser = step * 2
        rr, cc = _lod_points(0, rows - 1, coarser), _lod_points(0, cols - 1, coarser)
        if np.abs(_interpolated(heights[:, :, None], rr, cc)[:, :, 0] - heights).max() > HEIGHT_TOLERANCE_M[level]:
            break
        if np.abs(_interpolated(colors, rr, cc) - colors).max() > COLOR_TOLERANCE[level]:
            break
        step = coarser
    return step


def _skirt(vertices: np.ndarray, colors: np.ndarray, rows: int, cols: int, depth_m: float):
    """Vertical strips hanging ``depth_m`` below the chunk's four edges, facing outwards (from
    inside the chunk they are always under its surface)."""
    grid = np.arange(rows * cols).reshape(rows, cols)
    edges = [grid[0, :], grid[:, -1], grid[-1, ::-1], grid[::-1, 0]]  # a loop around the chunk
    loop = np.concatenate([edge[:-1] for edge in edges] + [edges[0][:1]])
    top = vertices[loop]
    bottom = top - np.array([0.0, depth_m, 0.0])
    base = len(vertices)
    new_vertices = np.concatenate([vertices, bottom])
    new_colors = np.concatenate([colors, colors[loop]])
    quads = []
    for i in range(len(loop) - 1):
        a, b, c, d = loop[i], loop[i + 1], base + i, base + i + 1
        quads += [a, c, b, b, c, d]  # clockwise seen from outside the chunk
    return new_vertices, new_colors, np.array(quads)


WATER_COLOR = (0.16, 0.36, 0.55)
#: The open sea reaches this many world sizes across (centred on the island).
SEA_EXTENT = 3.0


def _quads(corners: np.ndarray, height_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Flat quads (n, 4, 2) of x, z corners at ``height_m``: vertices and clockwise indices."""
    vertices = np.insert(corners.reshape(-1, 2), 1, height_m, axis=1)
    base = np.arange(len(corners))[:, None] * 4
    return vertices, (base + np.array([0, 1, 3, 1, 2, 3])).reshape(-1)


def _wet_cells(heights: np.ndarray, xs: np.ndarray, zs: np.ndarray, water_height_m: float, merged: bool = True) -> np.ndarray:
    """x, z corners (n, 4, 2) of rectangles that together cover exactly the grid cells with a
    corner below the water line. Water is drawn only there: a plane under the whole island would
    be shaded and then overdrawn. Neighbouring wet cells are merged (a row's runs of wet cells,
    then runs of the same columns in consecutive rows): the water is flat and of one colour, so
    the picture is the same with far fewer triangles. Unless ``merged``: a quad per cell."""
    wet = heights < water_height_m
    cells = wet[:-1, :-1] | wet[1:, :-1] | wet[:-1, 1:] | wet[1:, 1:]
    if merged:
        rectangles = np.array(_merged_runs(cells), np.int64).reshape(-1, 4)
    else:
        rows, cols = np.nonzero(cells)
        rectangles = np.stack([rows, rows + 1, cols, cols + 1], axis=1)
    r0, r1, c0, c1 = rectangles.T
    x0, x1, z0, z1 = xs[c0], xs[c1], zs[r0], zs[r1]
    return np.stack([x0, z0, x1, z0, x1, z1, x0, z1], axis=1).reshape(-1, 4, 2)


def _merged_runs(cells: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(r0, r1, c0, c1) cell ranges (end exclusive) covering the true cells once each: every row's
    runs, a run extended downwards while the next row has a run of the same columns."""
    rectangles, open_runs = [], {}  # open_runs: (c0, c1) -> first row
    padded = np.zeros((cells.shape[0] + 1, cells.shape[1] + 2), bool)
    padded[:-1, 1:-1] = cells
    for r in range(padded.shape[0]):
        edges = np.flatnonzero(np.diff(padded[r].astype(np.int8)))
        runs = set(zip(edges[0::2].tolist(), edges[1::2].tolist()))
        for run in [run for run in open_runs if run not in runs]:
            rectangles.append((open_runs.pop(run), r, *run))
        for run in sorted(runs - open_runs.keys()):
            open_runs[run] = r
    return sorted(rectangles)


def sea_ring(half_size_m: float, water_height_m: float) -> tuple[np.ndarray, np.ndarray]:
    """Four quads of open sea around the grid, out to SEA_EXTENT world sizes."""
    inner, outer = half_size_m, half_size_m * SEA_EXTENT
    ring = [(-outer, -outer, outer, -inner), (-outer, inner, outer, outer),
            (-outer, -inner, -inner, inner), (inner, -inner, outer, inner)]
    corners = np.array([[a, b, c, b, c, d, a, d] for a, b, c, d in ring], np.float64).reshape(-1, 4, 2)
    return _quads(corners, water_height_m)


def chunk_bounds(rows: int, cols: int, max_chunks_per_side: int = MAX_CHUNKS_PER_SIDE,
                 min_chunk_cells: int = MIN_CHUNK_CELLS) -> list[tuple[int, int, int, int]]:
    """(r0, r1, c0, c1) grid-point bounds (inclusive) of every chunk of a rows x cols grid."""
    chunk_cells = max(min_chunk_cells, math.ceil((max(rows, cols) - 1) / max_chunks_per_side))
    return [
        (r0, min(r0 + chunk_cells, rows - 1), c0, min(c0 + chunk_cells, cols - 1))
        for r0 in range(0, rows - 1, chunk_cells)
        for c0 in range(0, cols - 1, chunk_cells)
    ]


def max_slope(heights: np.ndarray, cell_size_m: float) -> float:
    """The steepest rise over run of the surface: the largest gradient of its triangles (each cell
    split along the diagonal from (row, col + 1) to (row + 1, col), as the collider and
    ``godot/entities/animals/animal.gd`` do). Between any two points the ground's height differs
    by at most this times their horizontal distance. Rounded up to the next 32-bit float."""
    h = np.asarray(heights, np.float64)
    lower = np.hypot(h[:-1, 1:] - h[:-1, :-1], h[1:, :-1] - h[:-1, :-1])  # corners (r, c), (r, c + 1), (r + 1, c)
    upper = np.hypot(h[1:, 1:] - h[1:, :-1], h[1:, 1:] - h[:-1, 1:])  # corners (r + 1, c + 1), (r + 1, c), (r, c + 1)
    steepest = max(float(lower.max()), float(upper.max())) / cell_size_m
    return float(np.nextafter(np.float32(steepest), np.float32(np.inf)))


def terrain_data(terrain: Terrain, scenery, lighting: Lighting, encoding: MeshEncoding = SHIPPED) -> dict:
    """Everything ``godot/world/terrain.gd`` needs, as a dict for :func:`marshal.store_var`, with
    its meshes built as ``encoding`` says."""
    heightmap = terrain.heightmap
    heights = np.asarray(heightmap.heights, np.float32)
    rows, cols = heights.shape
    cell = heightmap.cell_size_m
    water = heightmap.water_height_m
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    colors = lit_colors(terrain.biome_map.colors, vertex_normals(heights, cell), lighting)
    water_color = lit_colors(np.array(WATER_COLOR), np.array([0.0, 1.0, 0.0]), lighting)
    positions = np.array([item.position for item in scenery], np.float64).reshape(-1, 3)
    chunks = []
    min_chunk_cells = max(MIN_CHUNK_CELLS, math.ceil(encoding.min_chunk_m / cell - 1e-9))
    for r0, r1, c0, c1 in chunk_bounds(rows, cols, encoding.max_chunks_per_side, min_chunk_cells):
        full = heights[r0 : r1 + 1, c0 : c1 + 1]
        inside = _in_chunk(positions, xs, zs, r0, r1, c0, c1, last_row=r1 == rows - 1, last_col=c1 == cols - 1)
        here = [scenery[i] for i in np.flatnonzero(inside)]
        wet_vertices, wet_indices = _quads(_wet_cells(full, xs[c0 : c1 + 1], zs[r0 : r1 + 1], water, encoding.merged_water), water)
        levels = []
        full_colors = colors[r0 : r1 + 1, c0 : c1 + 1].astype(np.float64)
        step = 1
        for level, base_step in enumerate(LOD_STEPS):
            # (a finer level's step is within this level's looser tolerances too)
            if encoding.adaptive_steps:
                step = _coarsest_step(full.astype(np.float64), full_colors, max(base_step, step), level)
            else:
                step = base_step
            rr, cc = _lod_points(r0, r1, step), _lod_points(c0, c1, step)
            grid_x, grid_z = np.meshgrid(xs[cc], zs[rr])
            vertices = np.stack([grid_x, heights[np.ix_(rr, cc)], grid_z], axis=-1).reshape(-1, 3)
            level_colors = colors[np.ix_(rr, cc)].reshape(-1, 3)
            indices = _chunk_indices(len(rr), len(cc))
            if step > 1:
                # Deep enough to cover the coarse surface's largest departure from the full one.
                vertices, level_colors, skirt = _skirt(vertices, level_colors, len(rr), len(cc), float(np.ptp(full)) + 0.5)
                indices = np.concatenate([indices, skirt])
            kinds = KINDS_AT_LEVEL[level]
            plants, plant_colors = scenery_geometry([i for i in here if i.kind in kinds], lighting, level if encoding.plant_levels else 0)
            parts = [(vertices, level_colors, indices),
                     (wet_vertices, np.broadcast_to(water_color, wet_vertices.shape), wet_indices),
                     (plants, plant_colors, np.arange(len(plants)))]
            levels.append(_merge(parts))
        centre = marshal.vector3((xs[c0] + xs[c1]) / 2, float(full.mean()), (zs[r0] + zs[r1]) / 2)
        chunk = {"centre": centre, "levels": levels}
        if encoding.chunk_sizes:
            chunk["half_size"] = marshal.vector3((xs[c1] - xs[c0]) / 2, 0.0, (zs[r1] - zs[r0]) / 2)
        chunks.append(chunk)
    sea_vertices, sea_indices = sea_ring(float(xs[-1]), water)
    return {
        "format_version": encoding.format_version,
        "rows": rows,
        "cols": cols,
        "cell_size_m": float(cell),
        "size_m": float(heightmap.size_m),
        "water_height_m": float(water),
        "heights": marshal.real_array(heights),
        "max_slope": max_slope(heights, float(cell)),
        "climbable": marshal.byte_array(terrain.biome_map.climbable),
        "lod_distances_m": list(LOD_DISTANCES_M),
        "chunks": chunks,
        "sea": _merge([(sea_vertices, np.broadcast_to(water_color, sea_vertices.shape), sea_indices)]),
        "tree_colliders": tree_colliders(scenery),
    }


def _in_chunk(positions, xs, zs, r0, r1, c0, c1, last_row: bool, last_col: bool) -> np.ndarray:
    """Which positions lie in the chunk (half-open, closed on the grid's last row and column)."""
    x, z = positions[:, 0], positions[:, 2]
    in_x = (x >= xs[c0]) & ((x <= xs[c1]) if last_col else (x < xs[c1]))
    in_z = (z >= zs[r0]) & ((z <= zs[r1]) if last_row else (z < zs[r1]))
    return in_x & in_z


def _merge(parts) -> dict:
    """One mesh from several (vertices, colours, indices) parts."""
    vertices, colors, indices, offset = [], [], [], 0
    for part_vertices, part_colors, part_indices in parts:
        vertices.append(np.asarray(part_vertices, np.float64).reshape(-1, 3))
        colors.append(np.asarray(part_colors, np.float64).reshape(-1, 3))
        indices.append(np.asarray(part_indices, np.int64) + offset)
        offset += len(vertices[-1])
    return {
        "vertices": marshal.vector3_array(np.concatenate(vertices)),
        "colors": marshal.color_array(np.concatenate(colors)),
        "indices": marshal.int_array(np.concatenate(indices)),
    }
