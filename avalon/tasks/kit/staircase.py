"""A staircase of stones up a sheer wall: the square plateau (or pit) whose wall it climbs, the
level yard round it, where each stone of the solved staircase stands, and whether a world's
stones suffice to build it (:func:`stones_suffice`; stack's piece; carry moves its stones away).

The wall rises between two neighbouring grid points round a square centred on a grid point: round
the goal the square is a plateau standing on a level yard, round the start a pit sunk into a
level rim. Either way the wall is ``LEDGE_RISE_M`` higher than the top of a staircase of
``layers`` stones standing against it on the lower side, whose columns step down away from the
wall, one stone fewer each layer up. Lengths are metres.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, Terrain, World
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M, tool_spec
from avalon.tasks.kit.geometry import XZ, component_labels, ground_height, triangle_index, walkable_grid
from avalon.tasks.kit.solved import Block

#: The stones' uniform scale: 1.33 x 1.0 x 1.33 m, each layer of the staircase 1 m high (a jump
#: onto it rises 1 m: the route search allows 1.2 m, a running jump lands on 1.9 m) and each step
#: 1.33 m deep (on the 0.25 m grid, at least three points across stand on its top).
STONE_SCALE = 1.0 / TOOL_SIZE_M["stone"][1]
STONE_HEIGHT_M = TOOL_SIZE_M["stone"][1] * STONE_SCALE
STONE_WIDTH_M = TOOL_SIZE_M["stone"][0] * STONE_SCALE
#: The wall stands this much above the staircase's top, metres: within the route search's jump
#: (1.2 m). The wall is then at least 3.1 m high, which neither a jump (2.0 m onto a ledge, 2.8 m
#: slid up the face, with the bypass search's margins) nor a reach gets up; one layer fewer leaves
#: 2.1 m, which the face lets a jump slide up (why the easiest world needs two layers, not one).
LEDGE_RISE_M = 1.1
#: Half the side of the square plateau round the goal, at least, metres.
PLATEAU_HALF_SIDE_M = 3.0
#: The staircase's first column stands this far out from the wall's foot (the grid point where the
#: wall rises lies 0.25 m out from the square's edge), metres; its columns this far apart.
STAIR_GAP_M = 0.3
COLUMN_GAP_M = 0.02
#: The way up starts this far beyond the staircase's outer face, metres.
FOOT_OUT_M = 0.6
#: The ground is level within this of the plateau's centre (the yard: where the staircase stands
#: and the stones lie), blending back to the natural ground over the next ``YARD_BLEND_M``, metres;
#: a larger square's yard reaches as far beyond its corners.
YARD_RADIUS_M = 11.0
YARD_BLEND_M = 4.0
#: Loose stones keep this far from each other, the staircase and the plateau (footprints as
#: discs round their corners), and their centres this far from the spawn, metres.
STONE_CLEARANCE_M = 0.4
STONE_SPAWN_CLEARANCE_M = 2.0


def stone_count(layers: int) -> int:
    """Stones in a staircase of ``layers`` (one column fewer each layer up)."""
    return layers * (layers + 1) // 2


def cliff_height_m(layers: int) -> float:
    """Height of the wall above the staircase's ground for a staircase of ``layers``, metres."""
    return layers * STONE_HEIGHT_M + LEDGE_RISE_M


def yard_radius_m(half_side_m: float) -> float:
    """Radius of the level ground round a square of ``half_side_m`` (``YARD_RADIUS_M`` round the
    smallest plateau, as far beyond the corners of a larger square), metres."""
    return YARD_RADIUS_M + (half_side_m - PLATEAU_HALF_SIDE_M) * math.sqrt(2.0)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Staircase:
    """Where the solved staircase stands: against the wall of the square centred on ``centre``,
    stepping down along ``outward`` (a unit grid axis) from it, on ground at ``base_m``. The wall
    lies ``wall_offset_m`` from the centre along ``outward``: positive for a plateau's wall (the
    staircase steps away from the centre), negative for a pit's (it steps towards it)."""

    centre: XZ
    outward: XZ
    base_m: float
    layers: int = attr.ib(validator=check.int_between(1, 16))
    wall_offset_m: float = PLATEAU_HALF_SIDE_M

    def column_xz(self, column: int) -> XZ:
        """Centre of column ``column`` (0 against the wall)."""
        out = self.wall_offset_m + STAIR_GAP_M + STONE_WIDTH_M / 2 + column * (STONE_WIDTH_M + COLUMN_GAP_M)
        return self.centre[0] + out * self.outward[0], self.centre[1] + out * self.outward[1]

    def places(self) -> list[tuple[int, int]]:
        """(column, layer) of every stone, lowest layer first."""
        return [(column, layer) for layer in range(self.layers) for column in range(self.layers - layer)]

    def ground_position(self, column: int, layer: int) -> tuple[float, float, float]:
        """Where the stone at (column, layer) rests: the middle of its bottom face."""
        x, z = self.column_xz(column)
        return x, self.base_m + layer * STONE_HEIGHT_M, z

    def blocks(self) -> tuple[Block, ...]:
        """The staircase's columns as blocks on the terrain (for ``with_blocks``). They tile the way
        from the wall out, the gaps left between the stones (``STAIR_GAP_M`` at the wall,
        ``COLUMN_GAP_M`` between columns) included: a body, 0.8 m wide, stands over them."""
        pitch = STONE_WIDTH_M + COLUMN_GAP_M
        blocks = []
        for k in range(self.layers):
            near = self.wall_offset_m + (0.0 if k == 0 else STAIR_GAP_M + k * pitch)
            far = self.wall_offset_m + STAIR_GAP_M + (k + 1) * pitch
            middle = (near + far) / 2
            blocks.append(Block(centre=(self.centre[0] + middle * self.outward[0],
                                        self.centre[1] + middle * self.outward[1]),
                                width_m=STONE_WIDTH_M if self.outward[0] == 0 else far - near,
                                depth_m=far - near if self.outward[0] == 0 else STONE_WIDTH_M,
                                top_m=self.base_m + (self.layers - k) * STONE_HEIGHT_M))
        return tuple(blocks)

    @property
    def foot_xz(self) -> XZ:
        """Where the way up starts: ``FOOT_OUT_M`` beyond the staircase's outer face."""
        out = self.outer_end_m + FOOT_OUT_M
        return self.centre[0] + out * self.outward[0], self.centre[1] + out * self.outward[1]

    @property
    def outer_end_m(self) -> float:
        """Distance along ``outward`` from the square's centre to the staircase's outer face."""
        return self.wall_offset_m + STAIR_GAP_M + self.layers * (STONE_WIDTH_M + COLUMN_GAP_M)

    @property
    def direction(self) -> XZ:
        """The unit (x, z) from the square's centre towards the staircase's wall."""
        sign = 1.0 if self.wall_offset_m > 0 else -1.0
        return sign * self.outward[0], sign * self.outward[1]


def staircase_of(world: World) -> Staircase:
    """The staircase that solves a world with its food on the smallest square plateau (a stack
    world's), read from its terrain: the plateau is the flat top the food lies on; the staircase
    stands against the wall nearest the food, on the ground at its foot, with as many layers as
    leave ``LEDGE_RISE_M`` to the top. ``ValueError`` for a world that holds no such plateau."""
    if not isinstance(world, World) or not world.food or not isinstance(world.ground, Terrain):
        check.refuse("world", world, "a World on terrain with food on a square plateau")
    heightmap = world.ground.heightmap
    fx, _, fz = world.food[0].position
    top = float(ground_height(heightmap, fx, fz))
    labels, _ = ndimage.label(np.abs(heightmap.heights - top) < 1e-3)
    row, col = (int(v) for v in heightmap.nearest_index(fx, fz))
    if labels[row, col] == 0:
        raise ValueError(f"staircase_of: the food at ({fx:.2f}, {fz:.2f}) does not lie on a flat plateau")
    rows, cols = np.nonzero(labels == labels[row, col])
    x0, z0 = heightmap.grid_to_world(rows.min(), cols.min())
    x1, z1 = heightmap.grid_to_world(rows.max(), cols.max())
    centre = (float(x0 + x1) / 2, float(z0 + z1) / 2)
    faces = {(1.0, 0.0): float(x1) - fx, (-1.0, 0.0): fx - float(x0), (0.0, 1.0): float(z1) - fz, (0.0, -1.0): fz - float(z0)}
    outward = min(faces, key=faces.get)
    foot = (centre[0] + outward[0] * (PLATEAU_HALF_SIDE_M + STAIR_GAP_M + 0.5),
            centre[1] + outward[1] * (PLATEAU_HALF_SIDE_M + STAIR_GAP_M + 0.5))
    base = float(ground_height(heightmap, *foot))
    layers = int(round((top - base - LEDGE_RISE_M) / STONE_HEIGHT_M))
    if layers < 1:
        raise ValueError(f"staircase_of: the plateau at {centre} stands {top - base:.2f} m high: no staircase fits")
    return Staircase(centre=centre, outward=outward, base_m=base, layers=layers)


def level_yard(heightmap: HeightMap, centre: XZ, radius_m: float = YARD_RADIUS_M) -> tuple[np.ndarray, float]:
    """Heights with the ground within ``radius_m`` of ``centre`` level at the natural ground's
    median there, blending back to the natural ground (smoothstep) over ``YARD_BLEND_M``; and that
    level, metres."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - centre[0], z - centre[1])
    natural = heightmap.heights.astype(np.float64)
    base = float(np.median(natural[r <= radius_m]))
    t = np.clip((r - radius_m) / YARD_BLEND_M, 0.0, 1.0)
    weight = 1.0 - t * t * (3.0 - 2.0 * t)
    return natural + (base - natural) * weight, base


def plateau_mask(heightmap: HeightMap, centre: XZ, half_side_m: float = PLATEAU_HALF_SIDE_M) -> np.ndarray:
    """Grid points on the square of ``half_side_m`` round ``centre`` (a grid point)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    half = half_side_m + 1e-6
    return (np.abs(x - centre[0]) <= half) & (np.abs(z - centre[1]) <= half)


def wall_mask(plateau: np.ndarray) -> np.ndarray:
    """The wall's grid points: the square's rim and the ring just outside it."""
    return ndimage.binary_dilation(plateau) & ~ndimage.binary_erosion(plateau)


# --- the stones a staircase needs ----------------------------------------------------------------


def is_stone(entity: Entity) -> bool:
    """Whether ``entity`` is a stone (a tool of kind ``stone``, whatever its scale)."""
    return entity.kind == "stone"


def stones_suffice(world: World, stair: Staircase) -> Optional[str]:
    """Why the stones of ``world`` cannot build ``stair``, or None: enough of them, each as tall
    as a layer and liftable, and each loose one (not standing in the staircase's place) on ground
    the spawn walks to."""
    stones = [e for e in world.entities if is_stone(e)]
    needed = stone_count(stair.layers)
    if len(stones) < needed:
        return f"{len(stones)} stones for a staircase of {needed}"
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    if start < 0 or labels[triangle_index(heightmap, *stair.foot_xz)] != start:
        return f"the spawn does not walk to the staircase's foot at {stair.foot_xz}"
    places = {stair.ground_position(k, j) for k, j in stair.places()}
    for stone in stones:
        scale = float(stone.param("safe_scale", 1.0))
        mass = float(stone.param("mass", tool_spec("stone").mass_kg))  # a scale leaves the mass as it is
        if TOOL_SIZE_M["stone"][1] * scale < STONE_HEIGHT_M - 1e-6:
            return f"{stone.name} is {TOOL_SIZE_M['stone'][1] * scale:.2f} m tall: a layer is {STONE_HEIGHT_M:.2f} m"
        if mass > mechanics.MAX_LIFT_MASS_KG:
            return f"{stone.name} weighs {mass:g} kg: more than a hand lifts ({mechanics.MAX_LIFT_MASS_KG:g} kg)"
        x, y, z = stone.position
        resting = (x, y - STONE_HEIGHT_M / 2, z)
        if any(math.dist(resting, place) < 1e-6 for place in places):
            continue
        if labels[triangle_index(heightmap, x, z)] != start:
            return f"{stone.name} at ({x:.2f}, {z:.2f}) lies where the spawn does not walk to"
    return None
