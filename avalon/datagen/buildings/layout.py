"""A story's plan: the footprint (a rectangle, an L or a T), its outline wall, and the rooms
split from what is inside by walls one tile wide, each wall with a doorway (a hallway through it)
joining the rooms on its two sides.

Rooms come from a binary partition: the largest part still wide enough is split by a wall across
its longer side, with a doorway placed at once, and no later wall may meet that doorway (its
tiles are forbidden positions for walls across the parts on either side). So every wall of the
partition has exactly one doorway, every doorway joins two rooms, and the rooms form a tree
joined by doorways: every room is reachable from every other.

L and T footprints are built with their arm (or stem) along the low rows, then flipped or
transposed into the drawn orientation; everything is derived from the final grids.
"""

from __future__ import annotations

import attr
import numpy as np

from avalon.datagen.buildings.spec import TileKind
from avalon.errors import BuildingFitError


@attr.s(auto_attribs=True)
class _Part:
    """A rectangle of room tiles still to split, and the rows and columns no wall may run along
    (those of the doorways in its boundary)."""

    row: int
    col: int
    rows: int
    cols: int
    no_wall_rows: frozenset = frozenset()
    no_wall_cols: frozenset = frozenset()


@attr.s(frozen=True, auto_attribs=True)
class Plan:
    """A story's tile kinds (no entrance or windows yet) and room index per tile (-1: none)."""

    kinds: np.ndarray
    room_ids: np.ndarray


def _outline(footprint: np.ndarray) -> np.ndarray:
    """Footprint tiles with a neighbour (of eight) outside it or on the grid's edge."""
    padded = np.pad(footprint, 1, constant_values=False)
    rows, cols = footprint.shape
    outside_near = np.zeros_like(footprint)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            outside_near |= ~padded[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    return footprint & outside_near


def _shape_parts(rows: int, cols: int, shape: str, min_room: int, hallway: int, rng: np.random.Generator):
    """(footprint, first parts, first doorways) for ``shape`` with its arm along the low rows."""
    footprint = np.ones((rows, cols), bool)
    if shape == "rectangle":
        return footprint, [_Part(1, 1, rows - 2, cols - 2)], []
    # Arm rows 1..arm_rows, a wall along row arm_rows + 1, the body below it.
    arm_rows = int(rng.integers(min_room, rows - 2 - min_room - 1 + 1))
    arm_cols = int(round(cols * rng.uniform(0.4, 0.6)))
    arm_cols = max(min_room + 2, min(arm_cols, cols - 2))
    if shape == "l":
        left = cols - arm_cols
        right = cols
    else:  # "t": the stem centred
        left = (cols - arm_cols) // 2
        right = left + arm_cols
    footprint[: arm_rows + 1, :left] = False
    footprint[: arm_rows + 1, right:] = False
    line = arm_rows + 1
    arm = _Part(1, left + 1, arm_rows, right - left - 2)
    body = _Part(line + 1, 1, rows - 2 - line, cols - 2)
    door = int(rng.integers(arm.col, arm.col + arm.cols - hallway + 1))
    doors = set(range(door, door + hallway))
    arm.no_wall_cols = body.no_wall_cols = frozenset(doors)
    return footprint, [arm, body], [(line, c) for c in sorted(doors)]


def _split(part: _Part, min_room: int, hallway: int, rng: np.random.Generator, kinds: np.ndarray):
    """Splits ``part`` by one wall with a doorway; returns its two halves, or None if it cannot."""
    options = []
    # A wall along column c (splitting the columns) leaves min_room on each side and meets no doorway.
    across_cols = [c for c in range(part.col + min_room, part.col + part.cols - min_room) if c not in part.no_wall_cols]
    across_rows = [r for r in range(part.row + min_room, part.row + part.rows - min_room) if r not in part.no_wall_rows]
    if across_cols and part.rows >= hallway:
        options.append(("col", across_cols, part.cols))
    if across_rows and part.cols >= hallway:
        options.append(("row", across_rows, part.rows))
    if not options:
        return None
    # Split across the longer side (a coin toss when equal).
    longest = max(side for _, _, side in options)
    longer = [option for option in options if option[2] == longest]
    axis, positions, _ = longer[int(rng.integers(len(longer)))]
    at = positions[int(rng.integers(len(positions)))]
    if axis == "col":
        door = int(rng.integers(part.row, part.row + part.rows - hallway + 1))
        kinds[part.row : part.row + part.rows, at] = TileKind.WALL
        kinds[door : door + hallway, at] = TileKind.DOORWAY
        rows = part.no_wall_rows | frozenset(range(door, door + hallway))
        first = _Part(part.row, part.col, part.rows, at - part.col, rows, part.no_wall_cols)
        second = _Part(part.row, at + 1, part.rows, part.col + part.cols - at - 1, rows, part.no_wall_cols)
    else:
        door = int(rng.integers(part.col, part.col + part.cols - hallway + 1))
        kinds[at, part.col : part.col + part.cols] = TileKind.WALL
        kinds[at, door : door + hallway] = TileKind.DOORWAY
        cols = part.no_wall_cols | frozenset(range(door, door + hallway))
        first = _Part(part.row, part.col, at - part.row, part.cols, part.no_wall_rows, cols)
        second = _Part(at + 1, part.col, part.row + part.rows - at - 1, part.cols, part.no_wall_rows, cols)
    return first, second


def story_plan(rows: int, cols: int, shape: str, max_rooms: int, min_room: int, hallway: int,
               rng: np.random.Generator) -> Plan:
    """The plan of a ``rows`` x ``cols`` footprint of ``shape`` ("rectangle", "l" or "t") with up
    to ``max_rooms`` rooms, each side at least ``min_room`` tiles, doorways ``hallway`` tiles wide."""
    least = min_room + 2
    if rows < least or cols < least:
        raise BuildingFitError(
            f"a {cols} x {rows} tile footprint cannot hold a room of {min_room} x {min_room} tiles inside its outline: "
            f"expected each side at least {least} tiles"
        )
    transpose = shape != "rectangle" and bool(rng.integers(2))
    grid_rows, grid_cols = (cols, rows) if transpose else (rows, cols)
    if shape != "rectangle" and (grid_rows < 2 * min_room + 4 or grid_cols < min_room + 4):
        raise BuildingFitError(
            f"a {cols} x {rows} tile footprint is too small for an {shape.upper()} shape with rooms of at least "
            f"{min_room} tiles: expected at least {2 * min_room + 4} tiles along its arm and {min_room + 4} across"
        )
    footprint, parts, first_doors = _shape_parts(grid_rows, grid_cols, shape, min_room, hallway, rng)
    kinds = np.where(footprint, int(TileKind.ROOM), int(TileKind.VOID)).astype(np.uint8)
    kinds[_outline(footprint)] = TileKind.OUTER_WALL
    ids = np.full(kinds.shape, -1, np.int32)
    if len(parts) == 2:
        line = parts[1].row - 1
        kinds[line, parts[0].col : parts[0].col + parts[0].cols] = TileKind.WALL
        for r, c in first_doors:
            kinds[r, c] = TileKind.DOORWAY
    leaves, pending = [], list(parts)
    while pending:
        # The largest part is split first, so the room budget spreads over the whole footprint.
        pending.sort(key=lambda p: (-p.rows * p.cols, p.row, p.col))
        part = pending.pop(0)
        halves = None
        if len(leaves) + len(pending) + 1 < max_rooms:
            halves = _split(part, min_room, hallway, rng, kinds)
        if halves is None:
            leaves.append(part)
        else:
            pending.extend(halves)
    for part in leaves:
        ids[part.row : part.row + part.rows, part.col : part.col + part.cols] = 0
    if shape != "rectangle":
        flip_rows, flip_cols = bool(rng.integers(2)), bool(rng.integers(2))
        kinds, ids = _oriented(kinds, transpose, flip_rows, flip_cols), _oriented(ids, transpose, flip_rows, flip_cols)
    return Plan(kinds=kinds, room_ids=_number_rooms(ids))


def _oriented(grid: np.ndarray, transpose: bool, flip_rows: bool, flip_cols: bool) -> np.ndarray:
    grid = grid.T if transpose else grid
    grid = grid[::-1] if flip_rows else grid
    return np.ascontiguousarray(grid[:, ::-1] if flip_cols else grid)


def _number_rooms(ids: np.ndarray) -> np.ndarray:
    """Each room's rectangle (the connected room tiles, marked 0) numbered in reading order."""
    numbered = np.full(ids.shape, -1, np.int32)
    count = 0
    for r, c in zip(*np.nonzero(ids == 0)):
        if numbered[r, c] >= 0:
            continue
        cols = 0
        while c + cols < ids.shape[1] and ids[r, c + cols] == 0:
            cols += 1
        rows = 0
        while r + rows < ids.shape[0] and ids[r + rows, c] == 0:
            rows += 1
        numbered[r : r + rows, c : c + cols] = count
        count += 1
    return numbered
