"""A building from a seed and a :class:`BuildingConfig`: the plan (footprint, rooms, doorways,
shared by every story), the entrance on the ground floor, ramps or ladders between stories, and
windows on every story. Everything is drawn from one ``numpy`` generator seeded with ``seed``,
so the same (config, seed, origin) gives the same building."""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.buildings.appearance import TILE_SIZE_M, BuildingAppearance
from avalon.datagen.buildings.layout import story_plan
from avalon.datagen.buildings.links import place_links
from avalon.datagen.buildings.openings import SIDES, place_entrance, place_windows
from avalon.datagen.buildings.spec import OUTSIDE, Building, Doorway, Room, Story, TileKind, TileRect
from avalon.errors import bool_field, choice_field, int_between

FOOTPRINTS = ("rectangle", "l", "t", "any")
#: With footprint "any": buildings with fewer tiles than this are rectangles; larger ones are a
#: rectangle, an L or a T, one in three each.
SHAPED_FROM_TILES = 200


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BuildingConfig:
    """What to build: size in tiles (``TILE_SIZE_M`` each), stories, footprint shape, room budget,
    the entrance's side, climbability and windows; ``appearance`` the sizes and colours."""

    #: Extent along x, tiles [5, 64].
    width_tiles: int = attr.ib(default=12, validator=int_between(5, 64))
    #: Extent along z, tiles [5, 64].
    length_tiles: int = attr.ib(default=12, validator=int_between(5, 64))
    #: Stories [1, 6].
    story_count: int = attr.ib(default=2, validator=int_between(1, 6))
    #: "rectangle", "l", "t", or "any" (drawn by size: see SHAPED_FROM_TILES).
    footprint: str = choice_field("any", choices=FOOTPRINTS)
    #: Most rooms per story [1, 64].
    max_rooms: int = attr.ib(default=4, validator=int_between(1, 64))
    #: The outline side of the entrance ("north" is -z) or "any".
    entrance_side: str = choice_field("any", choices=(*SIDES, "any"))
    #: Whether the outside walls can be climbed (their colliders join the group "climbable").
    climbable_exterior: bool = bool_field(False)
    #: Whether the outline has windows.
    windows: bool = bool_field(True)
    appearance: BuildingAppearance = attr.ib(factory=BuildingAppearance)


def _shape(config: BuildingConfig, rng: np.random.Generator) -> str:
    if config.footprint != "any":
        return config.footprint
    if config.width_tiles * config.length_tiles < SHAPED_FROM_TILES:
        return "rectangle"
    return ("rectangle", "l", "t")[int(rng.integers(3))]


def _room_rects(room_ids: np.ndarray) -> list[TileRect]:
    rects = []
    for index in range(int(room_ids.max()) + 1):
        rows, cols = np.nonzero(room_ids == index)
        rects.append(TileRect(row=int(rows.min()), col=int(cols.min()), rows=int(np.ptp(rows)) + 1, cols=int(np.ptp(cols)) + 1))
    return rects


def _components(mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """4-connected groups of True tiles, in reading order."""
    seen = np.zeros_like(mask)
    groups = []
    for start in zip(*np.nonzero(mask)):
        if seen[start]:
            continue
        stack, group = [start], []
        seen[start] = True
        while stack:
            r, c = stack.pop()
            group.append((int(r), int(c)))
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nr < mask.shape[0] and 0 <= nc < mask.shape[1] and mask[nr, nc] and not seen[nr, nc]:
                    seen[nr, nc] = True
                    stack.append((nr, nc))
        groups.append(sorted(group))
    return groups


def _doorways(story: int, kinds: np.ndarray, room_ids: np.ndarray, origin, floor_top_m: float,
              appearance: BuildingAppearance) -> list[Doorway]:
    doorways = []
    for tiles in _components(np.isin(kinds, [TileKind.DOORWAY, TileKind.ENTRANCE])):
        rows = [r for r, _ in tiles]
        cols = [c for _, c in tiles]
        rect = TileRect(row=min(rows), col=min(cols), rows=max(rows) - min(rows) + 1, cols=max(cols) - min(cols) + 1)
        # The way through runs across the doorway's long side (a one-tile doorway: where rooms are).
        r, c = tiles[0]
        across_rows = rect.cols > 1 or (rect.rows == 1 and _room_or_void(kinds, r - 1, c) and _room_or_void(kinds, r + 1, c))
        step = (1, 0) if across_rows else (0, 1)
        before = _room_at(room_ids, r - step[0], c - step[1])
        after = _room_at(room_ids, r + step[0], c + step[1])
        if before == OUTSIDE:  # the entrance leads in from outside: rooms (inside, outside)
            before, after, step = after, before, (-step[0], -step[1])
        x = origin[0] + (rect.col + rect.cols / 2.0) * TILE_SIZE_M
        z = origin[2] + (rect.row + rect.rows / 2.0) * TILE_SIZE_M
        doorways.append(Doorway(
            story=story, rect=rect, rooms=(before, after), position=(x, floor_top_m, z),
            yaw_rad=math.atan2(-step[1], -step[0]) + 0.0,
            width_m=max(rect.rows, rect.cols) * TILE_SIZE_M,
            height_m=appearance.doorway_height_m, wall_thickness_m=appearance.wall_thickness_m,
        ))
    return doorways


def _room_or_void(kinds: np.ndarray, row: int, col: int) -> bool:
    if not (0 <= row < kinds.shape[0] and 0 <= col < kinds.shape[1]):
        return True
    return kinds[row, col] in (TileKind.ROOM, TileKind.VOID)


def _room_at(room_ids: np.ndarray, row: int, col: int) -> int:
    if not (0 <= row < room_ids.shape[0] and 0 <= col < room_ids.shape[1]):
        return OUTSIDE
    return int(room_ids[row, col])


def generate_building(config: BuildingConfig, seed: int, origin: tuple[float, float, float] = (0.0, 0.0, 0.0),
                      name: str = "building") -> Building:
    """The building ``config`` describes, drawn from ``seed``, its grid corner at ``origin``
    (x, site height, z; metres). Raises :class:`~avalon.errors.BuildingFitError` naming why when
    the config's rooms, entrance or links cannot be laid out."""
    rng = np.random.default_rng(seed)
    appearance = config.appearance
    hallway = appearance.hallway_width_tiles
    plan = story_plan(config.length_tiles, config.width_tiles, _shape(config, rng), config.max_rooms,
                      appearance.min_room_side_tiles, hallway, rng)
    story_kinds = [plan.kinds.copy() for _ in range(config.story_count)]
    place_entrance(story_kinds[0], plan.room_ids, config.entrance_side, hallway, rng)
    rooms = _room_rects(plan.room_ids)
    links = place_links(story_kinds, plan.room_ids, rooms, appearance.story_height_m, appearance.max_ramp_slope_deg,
                        hallway, rng)
    windows = []
    if config.windows:
        for story, kinds in enumerate(story_kinds):
            windows += place_windows(kinds, plan.room_ids, story, appearance.window_width_tiles, appearance.window_gap_tiles)
    building = Building(
        name=name, seed=seed, origin=tuple(float(v) for v in origin), appearance=appearance,
        stories=[
            Story(index=k, kinds=kinds, rooms=[
                Room(story=k, index=i, rect=rect, floor_offsets_m=np.zeros((rect.rows, rect.cols)))
                for i, rect in enumerate(rooms)
            ])
            for k, kinds in enumerate(story_kinds)
        ],
        doorways=[], links=links, windows=windows, climbable_exterior=config.climbable_exterior,
    )
    doorways = [d for k, kinds in enumerate(story_kinds)
                for d in _doorways(k, kinds, plan.room_ids, building.origin, building.floor_top_m(k), appearance)]
    return attr.evolve(building, doorways=doorways)
