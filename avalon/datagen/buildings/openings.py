"""Openings through the outline: the entrance (a doorway from outside into a ground-floor room)
and windows (evenly spaced along each straight run of outline wall in front of a room)."""

from __future__ import annotations

import numpy as np

from avalon.datagen.buildings.spec import TileKind, TileRect, Window
from avalon.errors import BuildingFitError

#: Sides of the outline by the way out through them, (drow, dcol): north is -z.
SIDES: dict[str, tuple[int, int]] = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


def _kind(kinds: np.ndarray, row: int, col: int) -> int:
    rows, cols = kinds.shape
    return int(kinds[row, col]) if 0 <= row < rows and 0 <= col < cols else int(TileKind.VOID)


def _outline_runs(kinds: np.ndarray, room_ids: np.ndarray, outward: tuple[int, int]):
    """Maximal straight runs of outline wall with the outside beyond them (``outward``) and one
    room's floor behind them: (first tile, along (drow, dcol), length, room) each."""
    dr, dc = outward
    along = (abs(dc), abs(dr))
    rows, cols = kinds.shape
    runs = []
    starts = [(r, c) for r in range(rows) for c in range(cols)]
    seen = set()
    for r, c in starts:
        if (r, c) in seen:
            continue
        length, room = 0, None
        while True:
            rr, cc = r + along[0] * length, c + along[1] * length
            ok = (_kind(kinds, rr, cc) == TileKind.OUTER_WALL and _kind(kinds, rr + dr, cc + dc) == TileKind.VOID
                  and _kind(kinds, rr - dr, cc - dc) == TileKind.ROOM)
            behind = int(room_ids[rr - dr, cc - dc]) if ok else None
            if not ok or (room is not None and behind != room):
                break
            room = behind
            seen.add((rr, cc))
            length += 1
        if length:
            runs.append(((r, c), along, length, room))
    return runs


def place_entrance(kinds: np.ndarray, room_ids: np.ndarray, side: str, width: int, rng: np.random.Generator) -> None:
    """Turns ``width`` tiles of outline on ``side`` ("any": one drawn) into the entrance, in place."""
    sides = list(SIDES) if side == "any" else [side]
    candidates = []
    for name in sides:
        for (r, c), along, length, _ in _outline_runs(kinds, room_ids, SIDES[name]):
            candidates += [(r + along[0] * i, c + along[1] * i, along) for i in range(length - width + 1)]
    if not candidates:
        raise BuildingFitError(
            f"no straight run of {width} outline tiles on the {side} side has one room behind it for the entrance; "
            "expected a wider room along that side or a narrower hallway_width_tiles"
        )
    r, c, along = candidates[int(rng.integers(len(candidates)))]
    for i in range(width):
        kinds[r + along[0] * i, c + along[1] * i] = TileKind.ENTRANCE


def place_windows(kinds: np.ndarray, room_ids: np.ndarray, story: int, width: int, gap: int) -> list[Window]:
    """Windows ``width`` tiles wide and ``gap`` tiles apart, as many as fit, centred on every
    outline run in front of a room; marks them in ``kinds``."""
    windows = []
    for outward in SIDES.values():
        for (r, c), along, length, _ in _outline_runs(kinds, room_ids, outward):
            count = (length + gap) // (width + gap)
            first = (length - count * width - (count - 1) * gap) // 2
            for i in range(count):
                start = first + i * (width + gap)
                rr, cc = r + along[0] * start, c + along[1] * start
                rect = TileRect(row=rr, col=cc, rows=width if along[0] else 1, cols=width if along[1] else 1)
                for tr, tc in rect.tiles():
                    kinds[tr, tc] = TileKind.WINDOW
                windows.append(Window(story=story, rect=rect, outward=outward))
    return windows
