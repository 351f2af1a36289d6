"""Ramps (or, where no ramp fits, ladders) from each story up to the next.

A ramp is ``hallway`` tiles wide and ``ceil(rise / tan(max slope))`` long, laid along one side of
a room, with a landing tile inside the room at each end: the bottom one on its story, the top one
on the story above, where the floor over the ramp is left open. Neither it nor its landings may
touch a doorway, or the openings and landings of the link below. A ladder is one tile against a
room's wall with the floor above it open.
"""

from __future__ import annotations

import math

import numpy as np

from avalon.datagen.buildings.appearance import TILE_SIZE_M
from avalon.datagen.buildings.spec import LinkKind, StoryLink, TileKind, TileRect
from avalon.errors import BuildingFitError

_DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def ramp_run_tiles(rise_m: float, max_slope_deg: float) -> int:
    """Tiles a ramp needs to rise ``rise_m`` no steeper than ``max_slope_deg``."""
    return math.ceil(rise_m / (math.tan(math.radians(max_slope_deg)) * TILE_SIZE_M) - 1e-9)


def _near_doorway(kinds: np.ndarray) -> np.ndarray:
    """Tiles that are, or touch (of four neighbours), a doorway or the entrance."""
    doors = np.isin(kinds, [TileKind.DOORWAY, TileKind.ENTRANCE])
    near = doors.copy()
    near[1:] |= doors[:-1]
    near[:-1] |= doors[1:]
    near[:, 1:] |= doors[:, :-1]
    near[:, :-1] |= doors[:, 1:]
    return near


def _ramp_options(room: TileRect, index: int, run: int, width: int, free_below: np.ndarray, free_above: np.ndarray):
    """Every ramp in ``room`` that fits: along a side, a landing at each end, on free tiles."""
    options = []
    for dr, dc in _DIRECTIONS:
        along_rows = dr != 0
        length, across = (room.rows, room.cols) if along_rows else (room.cols, room.rows)
        if length < run + 2 or across < width + 1:
            continue
        for side in (0, across - width):
            for start in range(1, length - run):
                # In the room's frame: a = along the run (rising with the direction), b = across.
                a0 = start if (dr + dc) > 0 else length - start - run
                cells = [(a, b) for a in range(a0, a0 + run) for b in range(side, side + width)]
                bottom_a = a0 - 1 if (dr + dc) > 0 else a0 + run
                top_a = a0 + run if (dr + dc) > 0 else a0 - 1
                to_grid = (lambda a, b: (room.row + a, room.col + b)) if along_rows else (lambda a, b: (room.row + b, room.col + a))
                ramp = [to_grid(a, b) for a, b in cells]
                bottom = [to_grid(bottom_a, b) for b in range(side, side + width)]
                top = [to_grid(top_a, b) for b in range(side, side + width)]
                if all(free_below[t] for t in ramp + bottom) and all(free_above[t] for t in ramp + top):
                    rows = sorted({r for r, _ in ramp})
                    cols = sorted({c for _, c in ramp})
                    rect = TileRect(row=rows[0], col=cols[0], rows=len(rows), cols=len(cols))
                    options.append((index, rect, (dr, dc), bottom, top))
    return options


def _ladder_options(room: TileRect, index: int, kinds: np.ndarray, free_below: np.ndarray, free_above: np.ndarray):
    """Tiles of ``room`` against a wall whose inward neighbour is free on both stories."""
    options = []
    for r, c in room.tiles():
        for dr, dc in _DIRECTIONS:
            behind, front = (r - dr, c - dc), (r + dr, c + dc)
            if kinds[behind] == TileKind.ROOM or not room.contains(*front):
                continue
            if free_below[r, c] and free_below[front] and free_above[r, c] and free_above[front]:
                options.append((index, TileRect(row=r, col=c, rows=1, cols=1), (dr, dc), [front], [front]))
    return options


def place_links(kinds_by_story, room_ids: np.ndarray, rooms: list[TileRect], rise_m: float, max_slope_deg: float,
                width: int, rng: np.random.Generator) -> list[StoryLink]:
    """A ramp or ladder from every story to the next (``kinds_by_story``: each story's tile kinds)."""
    run = ramp_run_tiles(rise_m, max_slope_deg)
    slope = math.degrees(math.atan2(rise_m, run * TILE_SIZE_M))
    taken = [np.zeros(room_ids.shape, bool) for _ in kinds_by_story]  # holes and landings so far
    links = []
    for story in range(len(kinds_by_story) - 1):
        free_below = (kinds_by_story[story] == TileKind.ROOM) & ~_near_doorway(kinds_by_story[story]) & ~taken[story]
        free_above = (kinds_by_story[story + 1] == TileKind.ROOM) & ~_near_doorway(kinds_by_story[story + 1]) & ~taken[story + 1]
        options = [o for i, room in enumerate(rooms) for o in _ramp_options(room, i, run, width, free_below, free_above)]
        kind, link_slope = LinkKind.RAMP, slope
        if not options:
            options = [o for i, room in enumerate(rooms) for o in _ladder_options(room, i, kinds_by_story[story], free_below, free_above)]
            kind, link_slope = LinkKind.LADDER, 90.0
        if not options:
            raise BuildingFitError(
                f"no room of story {story} has space for a ramp ({width} x {run + 2} free tiles along a side) "
                f"or a ladder, away from doorways and the link below"
            )
        index, rect, direction, bottom, top = options[int(rng.integers(len(options)))]
        for r, c in rect.tiles() + bottom:
            taken[story][r, c] = True
        for r, c in rect.tiles() + top:
            taken[story + 1][r, c] = True
        links.append(StoryLink(kind=kind, lower_story=story, room=index, rect=rect, direction=direction,
                               bottom=bottom[0] if kind is LinkKind.LADDER else _middle(bottom),
                               top=_middle(top), slope_deg=link_slope))
    return links


def _middle(tiles: list[tuple[int, int]]) -> tuple[int, int]:
    return tiles[len(tiles) // 2]
