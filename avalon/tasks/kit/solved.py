"""Solid blocks burned into a world's height map: static boxes and items in their solved places,
for the solvability certificates of object tasks.

The certificate's searches (:mod:`avalon.tasks.kit.certificate`) know only the height map. An object
task's world holds static boxes (a ledge) and loose items (a boulder, stones, a log) that the
searches do not see; :func:`with_blocks` raises the grid to each :class:`Block`'s top over its
footprint (a ledge as it stands, an item where the task's solution puts it), and
:func:`block_faces` says which height-map triangles stand for a block's side: a box's face is
vertical, while on the grid it slopes over one cell, so a search must treat those triangles as
vertical faces (``sheer_triangles`` of :func:`~avalon.tasks.kit.certificate.certify`). A block smaller
than a few cells (a boulder's top on a 1 m grid is one grid point) needs a finer grid:
:func:`refined` gives the same surface on one (exactly: each new triangle lies in one old one).
:func:`window` cuts the terrain round a place into a world of its own, so a certificate's search
costs as the part it needs does.
"""

from __future__ import annotations

import math
from typing import Iterable

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, Terrain, World
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit.geometry import ground_height, to_local, triangle_corner_heights

#: A triangle whose corners span more than this (some inside a block, some outside) is a block's side, metres.
FACE_MIN_RISE_M = 0.05


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Block:
    """A solid upright block: its footprint's centre (x, z), its width along its local x and depth
    along its local z, its yaw (Godot's: about +y) and the height of its flat top. Metres, radians."""

    centre: tuple[float, float] = attr.ib(converter=lambda c: (float(c[0]), float(c[1])))
    width_m: float = attr.ib(validator=check.positive())
    depth_m: float = attr.ib(validator=check.positive())
    yaw_rad: float = attr.ib(default=0.0, validator=check.finite())
    top_m: float = attr.ib(validator=check.finite())

    @classmethod
    def of_entity(cls, entity: Entity) -> "Block":
        """The block of a static ``box`` (its ``size``) or of a tool resting where it is (its
        bounding box at its ``safe_scale``)."""
        if entity.kind == "box":
            width, height, depth = (float(v) for v in entity.param("size"))
        elif entity.kind in TOOL_SIZE_M:
            scale = float(entity.param("safe_scale", 1.0))
            width, height, depth = (float(v) * scale for v in TOOL_SIZE_M[entity.kind])
        else:
            raise ValueError(f"Block.of_entity: {entity.name} is a {entity.kind!r}: expected a 'box' or a tool")
        x, y, z = entity.position
        return cls(centre=(x, z), width_m=width, depth_m=depth, yaw_rad=entity.yaw_rad, top_m=y + height / 2.0)

    def local(self, x, z) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) (arrays broadcast) in the block's frame: (right, back) from its centre."""
        return to_local(x, z, self.centre, self.yaw_rad)

    def covers(self, x, z) -> np.ndarray:
        """Whether (x, z) (arrays broadcast) lies on the footprint (edges included)."""
        right, back = self.local(x, z)
        return (np.abs(right) <= self.width_m / 2.0 + 1e-9) & (np.abs(back) <= self.depth_m / 2.0 + 1e-9)


def refined(world: World, factor: int) -> World:
    """``world`` on a grid ``factor`` times finer: the same terrain surface (heights sampled on the
    collider's triangles: each new triangle lies within one old one, so the surface is unchanged);
    biome and colour from the nearest old point; a new point climbable where an old point next to
    it is (a search for a bypass must not miss a hold; the object tasks' routes do not climb)."""
    if not isinstance(world, World) or not isinstance(world.ground, Terrain):
        check.refuse("world", type(world.ground).__name__ if isinstance(world, World) else world,
                     "a World on Terrain (a height map)")
    factor = check.check_int(factor, "factor", low=1, high=8)
    if factor == 1:
        return world
    biome_map = world.ground.biome_map
    coarse = biome_map.heightmap
    n = (coarse.shape[0] - 1) * factor + 1
    coords = np.linspace(-coarse.half_size_m, coarse.half_size_m, n)
    x, z = np.meshgrid(coords, coords)
    heights = ground_height(coarse, x, z)
    fine = HeightMap(heights=heights.astype(coarse.heights.dtype), size_m=coarse.size_m, water_height_m=coarse.water_height_m)
    nearest = np.rint(np.arange(n) / factor).astype(np.int64)
    below, above = np.arange(n) // factor, -(-np.arange(n) // factor)
    climbable = np.zeros((n, n), dtype=bool)
    for rows in (below, above):
        for cols in (below, above):
            climbable |= biome_map.climbable[np.ix_(rows, cols)]
    refined_map = attr.evolve(biome_map, heightmap=fine, biome_ids=biome_map.biome_ids[np.ix_(nearest, nearest)],
                              climbable=climbable, colors=biome_map.colors[np.ix_(nearest, nearest)])
    return attr.evolve(world, ground=attr.evolve(world.ground, biome_map=refined_map))


def _grid_cover(heightmap: HeightMap, blocks: Iterable[Block]) -> tuple[np.ndarray, np.ndarray]:
    """(heights with every block's top over its footprint's grid points, which points a block covers)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    heights = heightmap.heights.astype(np.float64)
    covered = np.zeros(heights.shape, dtype=bool)
    for block in blocks:
        inside = block.covers(x, z)
        heights = np.where(inside, np.maximum(heights, block.top_m), heights)
        covered |= inside
    return heights, covered


def with_blocks(world: World, blocks: Iterable[Block]) -> World:
    """``world`` with its height map raised to each block's top over the block's footprint (grid
    points on it) and those points not climbable (a block is neither terrain nor a hold). Its
    entities are kept: drop the ones the blocks stand for first (the route search keeps the body
    out of static boxes)."""
    if not isinstance(world, World) or not isinstance(world.ground, Terrain):
        check.refuse("world", type(world.ground).__name__ if isinstance(world, World) else world,
                     "a World on Terrain (a height map)")
    blocks = tuple(blocks)
    for block in blocks:
        if not isinstance(block, Block):
            check.refuse("blocks", block, "a sequence of Block instances")
    biome_map = world.ground.biome_map
    heights, covered = _grid_cover(biome_map.heightmap, blocks)
    raised = attr.evolve(biome_map, heightmap=biome_map.heightmap.with_heights(heights.astype(biome_map.heightmap.heights.dtype)),
                         climbable=biome_map.climbable & ~covered)
    return attr.evolve(world, ground=attr.evolve(world.ground, biome_map=raised))


def solved_world(world: World, blocks: Iterable[Block]) -> World:
    """``world`` with ``blocks`` burned in (:func:`with_blocks`) and without the static boxes whose
    centre a block covers (a ledge a block stands for, the piers under a laid log: the route
    search would take them for obstacles)."""
    blocks = tuple(blocks)
    kept = tuple(entity for entity in world.entities if entity.kind != "box" or
                 not any(bool(block.covers(entity.position[0], entity.position[2])) for block in blocks))
    return with_blocks(attr.evolve(world, entities=kept), blocks)


def block_faces(heightmap: HeightMap, blocks: Iterable[Block]) -> np.ndarray:
    """Per triangle of ``heightmap`` (bool [n-1, n-1, 2], as ``triangle_slopes_deg``): whether it
    joins grid points on a block to points off it and rises more than ``FACE_MIN_RISE_M`` (a
    block's vertical side, on the grid a slope over one cell). ``heightmap`` is the map the blocks
    were burned into."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    covered = np.zeros(heightmap.shape, dtype=bool)
    for block in blocks:
        covered |= block.covers(x, z)
    # The triangles' corners as triangle_corner_heights orders them: cell (r, c) triangle 0 is
    # (r, c), (r, c+1), (r+1, c); triangle 1 is (r+1, c+1), (r+1, c), (r, c+1).
    a, b, c, d = covered[:-1, :-1], covered[:-1, 1:], covered[1:, :-1], covered[1:, 1:]
    first = np.stack([a, b, c], axis=-1)
    second = np.stack([d, c, b], axis=-1)
    mixed = np.stack([first.any(-1) & ~first.all(-1), second.any(-1) & ~second.all(-1)], axis=-1)
    corners = triangle_corner_heights(heightmap)
    return mixed & (corners.max(axis=-1) - corners.min(axis=-1) > FACE_MIN_RISE_M)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Window:
    """A square part of a world's terrain as a world of its own, centred on its origin: ``world``
    holds the terrain round ``offset`` (world x, z of its origin), the foods moved with it, no
    scenery or other entities, and the spawn given."""

    world: World
    offset: tuple[float, float]

    def to_world(self, point) -> tuple[float, float, float]:
        """A point of the window (x, y, z) in the world it was cut from."""
        return float(point[0]) + self.offset[0], float(point[1]), float(point[2]) + self.offset[1]


def window(world: World, centre, half_side_m: float, spawn) -> Window:
    """The terrain of ``world`` within ``half_side_m`` of ``centre`` (x, z; snapped to the nearest
    grid point) as a :class:`Window`, its spawn at ``spawn`` (x, y, z world metres): a search's
    question made local (a certificate's searches cost as the grid's points do). Plants are left
    out: the caller keeps them out of the window. ``ValueError`` if the square or the spawn is not
    inside the world."""
    if not isinstance(world, World) or not isinstance(world.ground, Terrain):
        check.refuse("world", world, "a World on Terrain (a height map)")
    half_side_m = check.check_number(half_side_m, "half_side_m", above=0.0, unit="metres")
    biome_map = world.ground.biome_map
    heightmap = biome_map.heightmap
    row, col = (int(v) for v in heightmap.nearest_index(float(centre[0]), float(centre[1])))
    cells = int(math.ceil(half_side_m / heightmap.cell_size_m))
    if min(row, col) - cells < 0 or max(row, col) + cells >= heightmap.shape[0]:
        raise ValueError(f"window: {half_side_m} m round {tuple(centre)} reaches beyond the world's edge "
                         f"({heightmap.half_size_m} m from its origin)")
    rows, cols = slice(row - cells, row + cells + 1), slice(col - cells, col + cells + 1)
    ox, oz = (float(v) for v in heightmap.grid_to_world(row, col))
    local = type(heightmap)(heights=heightmap.heights[rows, cols], size_m=2 * cells * heightmap.cell_size_m,
                            water_height_m=heightmap.water_height_m)
    part = attr.evolve(biome_map, biome_ids=biome_map.biome_ids[rows, cols], climbable=biome_map.climbable[rows, cols],
                       colors=biome_map.colors[rows, cols], heightmap=local)
    foods = tuple(attr.evolve(f, position=(f.position[0] - ox, f.position[1], f.position[2] - oz)) for f in world.food)
    sx, sy, sz = (float(v) for v in spawn)
    if max(abs(sx - ox), abs(sz - oz)) > cells * heightmap.cell_size_m:
        raise ValueError(f"window: the spawn {tuple(spawn)} lies outside {half_side_m} m round {tuple(centre)}")
    cut = attr.evolve(world, ground=Terrain(biome_map=part), entities=foods, scenery=(),
                      spawn_position=(sx - ox, sy, sz - oz))
    return Window(world=cut, offset=(ox, oz))
