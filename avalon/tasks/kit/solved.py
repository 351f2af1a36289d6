"""A world's terrain with loose items burned in where a solution puts them.

The solvability certificates search the height map only (:mod:`avalon.tasks.kit.routes`): loose
items are not modelled. An object task proves that its items suffice by burning their *solved*
geometry (stones stacked at a ledge's foot, a boulder pushed there, a log laid across a chasm)
into the terrain as :class:`Block` s and searching that: :func:`with_blocks` raises every grid
point under a block's footprint to the block's top.
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon import validation as check
from avalon.datagen.world import Terrain, World


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Block:
    """A box standing on the terrain: its footprint (centre, size along its own x and z, turned by
    ``yaw_rad`` about +y as a Godot node is) and the height of its top. Metres and radians."""

    centre_x_m: float = attr.ib(validator=check.finite())
    centre_z_m: float = attr.ib(validator=check.finite())
    #: Footprint width along the block's own x and depth along its own z.
    width_m: float = attr.ib(validator=check.positive())
    depth_m: float = attr.ib(validator=check.positive())
    #: World height of its top surface.
    top_m: float = attr.ib(validator=check.finite())
    yaw_rad: float = attr.ib(default=0.0, validator=check.finite())

    def covers(self, x, z) -> np.ndarray:
        """True where the points (x, z) lie on the footprint (edges included)."""
        dx = np.asarray(x, dtype=np.float64) - self.centre_x_m
        dz = np.asarray(z, dtype=np.float64) - self.centre_z_m
        cos, sin = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        # Into the block's own frame (a turn by yaw about +y maps its x axis to (cos, -sin) in x, z).
        along_x = dx * cos - dz * sin
        along_z = dx * sin + dz * cos
        return (np.abs(along_x) <= self.width_m / 2 + 1e-9) & (np.abs(along_z) <= self.depth_m / 2 + 1e-9)


def with_blocks(world: World, blocks) -> World:
    """``world`` with every terrain grid point under a block's footprint raised to its top (never
    lowered): what the certificate searches to prove a solution with the items in place. The
    biome map (climbability, colours) is kept. ``ValueError`` for a world without terrain or
    anything but :class:`Block` s."""
    if not isinstance(world, World) or not isinstance(world.ground, Terrain):
        check.refuse("world", type(world.ground).__name__ if isinstance(world, World) else world,
                     "a World on Terrain (a height map)")
    blocks = tuple(blocks)
    for block in blocks:
        if not isinstance(block, Block):
            check.refuse("blocks", block, "a sequence of Block")
    heightmap = world.ground.heightmap
    heights = heightmap.heights.astype(np.float64)
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    for block in blocks:
        heights = np.where(block.covers(x, z), np.maximum(heights, block.top_m), heights)
    biome_map = attr.evolve(world.ground.biome_map, heightmap=heightmap.with_heights(heights.astype(heightmap.heights.dtype)))
    return attr.evolve(world, ground=attr.evolve(world.ground, biome_map=biome_map))


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
