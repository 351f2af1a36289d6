"""Items in their solved places, as terrain: what an object task's certificate searches.

The certificates (:mod:`~avalon.tasks.kit.routes`) search the height map only; loose items are
not modelled. An object task proves that its items suffice by burning their *solved* geometry
(stones stacked at a ledge, a log across a chasm) into the height map as :class:`Block` s and
searching that: :func:`with_blocks` raises the grid to each block's top over its footprint.

A block narrower than two grid cells is widened to two across: the height map's triangles need two
raised points side by side to be floor, so a thin item (a log on a one-metre grid) would
otherwise leave no floor on its top. The certificate is that much more generous than the item;
the simulator tests prove the item itself (``docs/tasks.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import attr
import numpy as np

from avalon import validation as check
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Terrain, World
from avalon.tasks.kit.geometry import XZ, ground_height


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Block:
    """A solid box standing on or over the ground: footprint centre (x, z), footprint
    ``width_m`` (across, local x) and ``length_m`` (along, local z), metres, turned by ``yaw_rad``
    (an entity's yaw: local z points along (sin yaw, cos yaw)), and its top's height, metres."""

    centre: XZ = attr.ib(converter=lambda c: (float(c[0]), float(c[1])))
    width_m: float = attr.ib(validator=check.positive())
    length_m: float = attr.ib(validator=check.positive())
    yaw_rad: float = attr.ib(validator=check.finite())
    top_m: float = attr.ib(validator=check.finite())

    @property
    def axis(self) -> XZ:
        """Unit (x, z) direction of its length."""
        return math.sin(self.yaw_rad), math.cos(self.yaw_rad)

    def local(self, x, z) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) (arrays) as (across, along) from the centre, metres."""
        ax, az = self.axis
        dx = np.asarray(x, dtype=np.float64) - self.centre[0]
        dz = np.asarray(z, dtype=np.float64) - self.centre[1]
        return dx * az - dz * ax, dx * ax + dz * az

    def end(self, sign: float) -> XZ:
        """The middle of its end along +axis (``sign`` 1) or -axis (-1)."""
        ax, az = self.axis
        half = sign * self.length_m / 2.0
        return self.centre[0] + half * ax, self.centre[1] + half * az

    def footprint_points(self, spacing_m: float = 0.1) -> np.ndarray:
        """Points covering the footprint (its edges included) about ``spacing_m`` apart, (n, 2) (x, z)."""
        across = np.linspace(-self.width_m / 2.0, self.width_m / 2.0, max(2, int(math.ceil(self.width_m / spacing_m)) + 1))
        along = np.linspace(-self.length_m / 2.0, self.length_m / 2.0, max(2, int(math.ceil(self.length_m / spacing_m)) + 1))
        u, v = np.meshgrid(across, along)
        ax, az = self.axis
        return np.column_stack([self.centre[0] + u.ravel() * az + v.ravel() * ax,
                                self.centre[1] - u.ravel() * ax + v.ravel() * az])


def block_mask(heightmap: HeightMap, block: Block, widen: bool = True) -> np.ndarray:
    """The grid points inside ``block``'s footprint; with ``widen`` (what :func:`with_blocks`
    raises), the footprint widened to two grid cells across when it is narrower."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    across, along = block.local(x, z)
    half_width = max(block.width_m / 2.0, heightmap.cell_size_m) if widen else block.width_m / 2.0
    return (np.abs(across) <= half_width) & (np.abs(along) <= block.length_m / 2.0)


def with_blocks(world: World, blocks: Sequence[Block]) -> World:
    """``world`` with its terrain raised to each block's top over the block's footprint (never
    lowered): the solved geometry the route search sees. ``ValueError`` for a world without terrain."""
    if not isinstance(world.ground, Terrain):
        check.refuse("world", type(world.ground).__name__, "a World on Terrain (a height map)")
    biome_map = world.ground.biome_map
    heightmap = biome_map.heightmap
    heights = heightmap.heights.astype(np.float64)
    for block in blocks:
        if not isinstance(block, Block):
            check.refuse("blocks", block, "a sequence of Block")
        mask = block_mask(heightmap, block)
        heights[mask] = np.maximum(heights[mask], block.top_m)
    raised = attr.evolve(biome_map, heightmap=heightmap.with_heights(heights.astype(heightmap.heights.dtype)))
    return attr.evolve(world, ground=attr.evolve(world.ground, biome_map=raised))


def footprint_ground_m(heightmap: HeightMap, block: Block, spacing_m: float = 0.1) -> np.ndarray:
    """The terrain surface's height at :meth:`Block.footprint_points`, metres."""
    points = block.footprint_points(spacing_m)
    return np.asarray(ground_height(heightmap, points[:, 0], points[:, 1]), dtype=np.float64)
