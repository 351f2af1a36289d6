"""A building as boxes: what is drawn and what collides, in world metres.

Walls are one tile of the grid wide but ``wall_thickness_m`` thick, centred in their tile. Each
tile is cut into three bands per axis (``(1 - t) / 2``, ``t``, ``(1 - t) / 2`` of a tile, ``t``
the thickness in tiles), a wall tile fills its centre cell and the arms towards neighbouring wall
tiles, and each kind of wall (full, with a window, over a doorway) is merged greedily into as few
boxes as cover it, then extruded over its heights. Floors merge whole tiles of equal height. So a
building of a few hundred tiles is a few hundred boxes: one merged mesh and one compound collider
each in the simulator.
"""

from __future__ import annotations

import enum
import math

import attr
import numpy as np

from avalon.datagen.buildings.appearance import TILE_SIZE_M
from avalon.datagen.buildings.spec import WALL_KINDS, Building, LinkKind, TileKind

#: Thickness of a ramp's slab, metres.
RAMP_THICKNESS_M = 0.2
#: A ladder: the depth of its climbable collider, the rails' and rungs' thickness, the rungs'
#: spacing and how far its rails rise above the floor it leads to, metres.
LADDER_DEPTH_M = 0.1
LADDER_BAR_M = 0.06
LADDER_RUNG_SPACING_M = 0.4
LADDER_OVERHANG_M = 1.0
#: Boxes thinner than this along any axis (the bands beside a wall nearly a tile thick) are left
#: out, metres: they show nothing, and the simulator refuses half extents under 0.1 mm.
MIN_BOX_SIZE_M = 1e-3


class Role(enum.Enum):
    """What a box is, which decides its colours and whether it is drawn, collides or is climbed."""

    FLOOR = "floor"
    ROOF = "roof"
    WALL = "wall"  # between rooms
    OUTER_WALL = "outer_wall"
    TRIM = "trim"  # sills and lintels of the outline's openings, the roof rail
    RAMP = "ramp"
    LADDER = "ladder"  # rails and rungs: drawn only
    LADDER_GRIP = "ladder_grip"  # the ladder's climbable collider: not drawn
    WINDOW_PANE = "window_pane"  # fills a window's opening: collides, not drawn


INVISIBLE = frozenset({Role.LADDER_GRIP, Role.WINDOW_PANE})
NOT_COLLIDING = frozenset({Role.LADDER})
OUTER_ROLES = frozenset({Role.OUTER_WALL, Role.TRIM})


@attr.s(frozen=True, auto_attribs=True)
class Box:
    """A box: centre and half extents (metres), rotation about x then z (radians, one of them 0)."""

    role: Role
    centre: tuple[float, float, float]
    extents: tuple[float, float, float]
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)


def merge_rects(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Greedy cover of a boolean grid by rectangles (r0, c0, r1, c1), ends exclusive: each
    unused cell in reading order grows as far as it can along its row, then down while the whole
    row segment below is set and unused."""
    free = np.array(mask, bool)
    rows, cols = free.shape
    rects = []
    for r in range(rows):
        row = free[r]
        if not row.any():
            continue
        c = 0
        while c < cols:
            if not row[c]:
                c += 1
                continue
            end = c
            while end < cols and row[end]:
                end += 1
            bottom = r + 1
            while bottom < rows and free[bottom, c:end].all():
                bottom += 1
            free[r:bottom, c:end] = False
            rects.append((r, c, bottom, end))
            c = end
    return rects


def _band_edges(count: int, thickness: float) -> np.ndarray:
    """Edges (3 count + 1) of the bands across ``count`` tiles, relative to the grid's corner."""
    side = (1.0 - thickness) / 2.0
    edges = [[c, c + side, c + side + thickness] for c in range(count)]
    return np.append(np.ravel(edges), count) * TILE_SIZE_M


def _wall_cells(kinds: np.ndarray, selected: frozenset) -> np.ndarray:
    """The band cells (3 rows x 3 cols per tile) of the tiles of kinds ``selected``: the centre,
    and an arm towards each neighbour (of four) that is a wall of any kind."""
    rows, cols = kinds.shape
    wall = np.isin(kinds, list(WALL_KINDS))
    mine = np.isin(kinds, list(selected))
    cells = np.zeros((3 * rows, 3 * cols), bool)
    cells[1::3, 1::3] = mine
    cells[1::3, 0::3][:, 1:] = mine[:, 1:] & wall[:, :-1]
    cells[1::3, 2::3][:, :-1] = mine[:, :-1] & wall[:, 1:]
    cells[0::3, 1::3][1:] = mine[1:] & wall[:-1]
    cells[2::3, 1::3][:-1] = mine[:-1] & wall[1:]
    return cells


def _extruded(role: Role, rects, x_edges, z_edges, origin, y0: float, y1: float) -> list[Box]:
    boxes = []
    if y1 - y0 < MIN_BOX_SIZE_M:
        return boxes
    for r0, c0, r1, c1 in rects:
        x0, x1 = origin[0] + x_edges[c0], origin[0] + x_edges[c1]
        z0, z1 = origin[2] + z_edges[r0], origin[2] + z_edges[r1]
        if x1 - x0 >= MIN_BOX_SIZE_M and z1 - z0 >= MIN_BOX_SIZE_M:
            boxes.append(Box(role, ((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2), ((x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2)))
    return boxes


def _floors(building: Building, story: int) -> list[Box]:
    """The story's slab: whole tiles merged by equal top height, none over the holes."""
    appearance = building.appearance
    top = building.floor_top_m(story)
    bottom = building.origin[1] - appearance.foundation_depth_m if story == 0 else top - appearance.floor_thickness_m
    heights = np.where(building.footprint & ~building.holes(story), top, np.nan)
    for room in building.stories[story].rooms:
        rect = room.rect
        area = (slice(rect.row, rect.row + rect.rows), slice(rect.col, rect.col + rect.cols))
        heights[area] = np.where(np.isnan(heights[area]), np.nan, top + room.floor_offsets_m)
    rows, cols = building.shape
    x_edges, z_edges = np.arange(cols + 1) * TILE_SIZE_M, np.arange(rows + 1) * TILE_SIZE_M
    boxes = []
    for level in np.unique(heights[~np.isnan(heights)]):
        if level > bottom:
            boxes += _extruded(Role.FLOOR, merge_rects(heights == level), x_edges, z_edges, building.origin, bottom, float(level))
    return boxes


def _walls(building: Building, story: int) -> list[Box]:
    appearance = building.appearance
    kinds = building.stories[story].kinds
    rows, cols = kinds.shape
    x_edges, z_edges = _band_edges(cols, appearance.wall_thickness_m), _band_edges(rows, appearance.wall_thickness_m)
    floor, clear = building.floor_top_m(story), appearance.story_clear_height_m
    sill = floor + appearance.window_sill_height_m
    lintel = sill + appearance.window_height_m
    door = floor + appearance.doorway_height_m

    def extrude(role, selected, y0, y1):
        return _extruded(role, merge_rects(_wall_cells(kinds, selected)), x_edges, z_edges, building.origin, y0, y1)

    return (
        extrude(Role.WALL, frozenset({TileKind.WALL}), floor, floor + clear)
        + extrude(Role.OUTER_WALL, frozenset({TileKind.OUTER_WALL}), floor, floor + clear)
        + extrude(Role.WALL, frozenset({TileKind.DOORWAY}), door, floor + clear)
        + extrude(Role.TRIM, frozenset({TileKind.ENTRANCE}), door, floor + clear)
        + extrude(Role.TRIM, frozenset({TileKind.WINDOW}), floor, sill)
        + extrude(Role.TRIM, frozenset({TileKind.WINDOW}), lintel, floor + clear)
        + extrude(Role.WINDOW_PANE, frozenset({TileKind.WINDOW}), sill, lintel)
    )


def _roof(building: Building) -> list[Box]:
    appearance = building.appearance
    top = building.floor_top_m(len(building.stories))
    rows, cols = building.shape
    whole = _extruded(Role.ROOF, merge_rects(building.footprint), np.arange(cols + 1) * TILE_SIZE_M,
                      np.arange(rows + 1) * TILE_SIZE_M, building.origin, top - appearance.floor_thickness_m, top)
    if appearance.roof_rail_height_m <= 0.0:
        return whole
    outline = np.where(np.isin(building.stories[-1].kinds, [TileKind.OUTER_WALL, TileKind.WINDOW, TileKind.ENTRANCE]),
                       TileKind.OUTER_WALL, TileKind.VOID)
    x_edges, z_edges = _band_edges(cols, appearance.wall_thickness_m), _band_edges(rows, appearance.wall_thickness_m)
    rail = merge_rects(_wall_cells(outline, frozenset({TileKind.OUTER_WALL})))
    return whole + _extruded(Role.TRIM, rail, x_edges, z_edges, building.origin, top, top + appearance.roof_rail_height_m)


def _ramp(building: Building, link) -> list[Box]:
    rect, (dr, dc) = link.rect, link.direction
    rise = building.appearance.story_height_m
    run = (rect.rows if dr else rect.cols) * TILE_SIZE_M
    width = (rect.cols if dr else rect.rows) * TILE_SIZE_M
    slope = math.atan2(rise, run)
    length = math.hypot(rise, run)
    x = building.origin[0] + (rect.col + rect.cols / 2.0) * TILE_SIZE_M
    z = building.origin[2] + (rect.row + rect.rows / 2.0) * TILE_SIZE_M
    y = building.floor_top_m(link.lower_story) + rise / 2.0
    half = RAMP_THICKNESS_M / 2.0
    # The top surface runs from one floor's top to the next; the slab hangs below it.
    normal = (-dc * math.sin(slope), math.cos(slope), -dr * math.sin(slope))
    centre = (x - normal[0] * half, y - normal[1] * half, z - normal[2] * half)
    if dc:
        return [Box(Role.RAMP, centre, (length / 2, half, width / 2), (0.0, 0.0, dc * slope))]
    return [Box(Role.RAMP, centre, (width / 2, half, length / 2), (-dr * slope, 0.0, 0.0))]


def _ladder(building: Building, link) -> list[Box]:
    """Rails and rungs against the wall behind the ladder's tile, and its climbable collider."""
    appearance = building.appearance
    (r, c), (dr, dc) = (link.rect.row, link.rect.col), link.direction
    x, y0, z = building.tile_centre(link.lower_story, r, c)
    y1 = building.floor_top_m(link.lower_story + 1) + LADDER_OVERHANG_M
    # The wall's face behind the tile: half a tile back, less the band outside the wall.
    back = TILE_SIZE_M / 2.0 - (1.0 - appearance.wall_thickness_m) / 2.0 * TILE_SIZE_M
    gx, gz = x - dc * (back - LADDER_DEPTH_M / 2), z - dr * (back - LADDER_DEPTH_M / 2)
    across = (abs(dr), abs(dc))  # (x, z) of the direction along the rungs
    half_width = 0.4 * TILE_SIZE_M
    ym = (y0 + y1) / 2
    depth = LADDER_DEPTH_M / 2
    grip_extents = (half_width * across[0] + depth * abs(dc), (y1 - y0) / 2, half_width * across[1] + depth * abs(dr))
    boxes = [Box(Role.LADDER_GRIP, (gx, ym, gz), grip_extents)]
    bar = LADDER_BAR_M / 2
    for side in (-1, 1):
        px, pz = gx + side * half_width * across[0], gz + side * half_width * across[1]
        boxes.append(Box(Role.LADDER, (px, ym, pz), (bar, (y1 - y0) / 2, bar)))
    rungs = int((y1 - y0) / LADDER_RUNG_SPACING_M)
    for i in range(1, rungs + 1):
        boxes.append(Box(Role.LADDER, (gx, y0 + i * LADDER_RUNG_SPACING_M, gz),
                         (half_width * across[0] + bar * abs(dc), bar, half_width * across[1] + bar * abs(dr))))
    return boxes


def building_boxes(building: Building) -> list[Box]:
    """Every box of ``building``: floors, walls, openings' pieces, roof, ramps and ladders."""
    boxes = []
    for story in range(len(building.stories)):
        boxes += _floors(building, story) + _walls(building, story)
    boxes += _roof(building)
    for link in building.links:
        boxes += _ramp(building, link) if link.kind is LinkKind.RAMP else _ladder(building, link)
    return boxes


def rotation_matrix(rotation: tuple[float, float, float]) -> np.ndarray:
    """Godot's ``Basis(Vector3(x, y, z))`` (Y, then X, then Z: ``Ry Rx Rz``)."""
    ax, ay, az = rotation
    cx, sx, cy, sy, cz, sz = math.cos(ax), math.sin(ax), math.cos(ay), math.sin(ay), math.cos(az), math.sin(az)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return ry @ rx @ rz
