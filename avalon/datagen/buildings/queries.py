"""Questions a task asks of a building: which rooms the agent can walk to from the entrance (the
floor graph), and where food can lie in a room."""

from __future__ import annotations

from collections import deque

import numpy as np

from avalon.datagen.buildings.spec import OUTSIDE, Building, TileKind
from avalon.rules.mechanics import STEP_UP_M

_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _walkable(building: Building, story: int) -> np.ndarray:
    """Floor height (from the floor's top, metres) of every tile one can stand on; NaN elsewhere:
    room tiles over a floor, doorways and the entrance; not the holes, nor tiles of a ramp (the
    ramp is an edge of the graph)."""
    kinds = building.stories[story].kinds
    heights = np.where(np.isin(kinds, [TileKind.ROOM, TileKind.DOORWAY, TileKind.ENTRANCE]), 0.0, np.nan)
    for room in building.stories[story].rooms:
        rect = room.rect
        heights[rect.row : rect.row + rect.rows, rect.col : rect.col + rect.cols] += room.floor_offsets_m
    heights[building.holes(story)] = np.nan
    for link in building.links:
        if link.lower_story == story:
            for tile in link.rect.tiles():
                heights[tile] = np.nan
    return heights


def reachable_tiles(building: Building) -> set[tuple[int, int, int]]:
    """(story, row, col) of every tile reached walking in from the entrance: between neighbouring
    tiles one steps up at most ``STEP_UP_M`` (and down any height), and a link joins its bottom
    tile to its top tile on the story above (ramps are walked, ladders climbed)."""
    heights = [_walkable(building, k) for k in range(len(building.stories))]
    links = {(link.lower_story, *link.bottom): (link.lower_story + 1, *link.top) for link in building.links}
    entrance = building.entrance
    start = [(0, r, c) for r, c in entrance.rect.tiles()]
    seen = set(start)
    queue = deque(start)
    while queue:
        story, r, c = queue.popleft()
        here = heights[story][r, c]
        nexts = [(story, r + dr, c + dc) for dr, dc in _NEIGHBOURS]
        if (story, r, c) in links:
            nexts.append(links[(story, r, c)])
        for tile in nexts:
            k, nr, nc = tile
            if tile in seen or not (0 <= nr < building.shape[0] and 0 <= nc < building.shape[1]):
                continue
            there = heights[k][nr, nc]
            if np.isnan(there) or (k == story and there - here > STEP_UP_M):
                continue
            seen.add(tile)
            queue.append(tile)
    return seen


def reachable_rooms(building: Building) -> set[tuple[int, int]]:
    """(story, room) of every room with a tile in :func:`reachable_tiles`."""
    rooms = set()
    for story, r, c in reachable_tiles(building):
        room = int(building.room_ids(story)[r, c])
        if room != OUTSIDE:
            rooms.add((story, room))
    return rooms


def free_floor_positions(building: Building, story: int, room: int) -> list[tuple[float, float, float]]:
    """World positions (tile centres on the floor, metres) in a room where food may lie: the
    room's tiles at floor level, clear of links, their landings and the tiles next to doorways."""
    heights = _walkable(building, story)
    kinds = building.stories[story].kinds
    blocked = np.zeros(building.shape, bool)
    for link in building.links:
        if link.lower_story == story:
            blocked[link.bottom] = True
        if link.lower_story + 1 == story:
            blocked[link.top] = True
    doors = np.isin(kinds, [TileKind.DOORWAY, TileKind.ENTRANCE])
    rect = building.stories[story].rooms[room].rect
    positions = []
    for r, c in rect.tiles():
        near_door = any(
            0 <= r + dr < building.shape[0] and 0 <= c + dc < building.shape[1] and doors[r + dr, c + dc]
            for dr, dc in _NEIGHBOURS
        )
        if heights[r, c] == 0.0 and not blocked[r, c] and not near_door:
            positions.append(building.tile_centre(story, r, c))
    return positions
