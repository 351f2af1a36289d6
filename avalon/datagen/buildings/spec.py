"""The frozen description of a building: its tile grid per story, rooms, doorways, story links
and windows, placed in the world.

A building is laid out on a grid of ``TILE_SIZE_M`` tiles: rows along +z, columns along +x,
tile (0, 0) at ``origin`` (the grid's corner with the least x and z; ``origin``'s y is the site's
ground height). Every story has the same footprint and rooms; story ``k``'s floor top is
``floor_top_m(k)``. A tile's kind (``TileKind``) says what stands on it; walls are one tile
wide (their thickness is the appearance's ``wall_thickness_m``, centred in the tile).
"""

from __future__ import annotations

import enum
import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.buildings.appearance import TILE_SIZE_M, BuildingAppearance

#: A building's ground floor stands this far above its site, metres (its top face never meets
#: the ground's, which would flicker where they overlap).
FLOOR_RAISE_M = 0.1
#: The room index of the outside, in a doorway's ``rooms``.
OUTSIDE = -1


class TileKind(enum.IntEnum):
    VOID = 0  # outside the footprint
    ROOM = 1  # floor inside a room
    WALL = 2  # a wall between rooms
    OUTER_WALL = 3  # the building's outline
    DOORWAY = 4  # an opening through a wall between two rooms (a hallway through the wall)
    ENTRANCE = 5  # an opening through the outline, from outside into a room
    WINDOW = 6  # outline wall with a window (seen through, not passed)


WALL_KINDS = frozenset({TileKind.WALL, TileKind.OUTER_WALL, TileKind.DOORWAY, TileKind.ENTRANCE, TileKind.WINDOW})


def _read_only(values, dtype) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class TileRect:
    """A rectangle of tiles: first row and column, and how many of each."""

    row: int
    col: int
    rows: int
    cols: int

    def tiles(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.row, self.row + self.rows) for c in range(self.col, self.col + self.cols)]

    def contains(self, row: int, col: int) -> bool:
        return self.row <= row < self.row + self.rows and self.col <= col < self.col + self.cols


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Room:
    """A rectangle of floor tiles in one story, with its floor height map: one offset per tile
    from the story's floor top, metres (0 floor, > 0 a raised platform or, reaching the ceiling, a
    dividing wall; < 0 a chasm; below ``-floor_thickness_m`` on upper stories, a hole)."""

    story: int
    index: int
    rect: TileRect
    floor_offsets_m: np.ndarray = attr.ib(converter=lambda v: _read_only(v, np.float32), repr=False)

    def __attrs_post_init__(self) -> None:
        if self.floor_offsets_m.shape != (self.rect.rows, self.rect.cols):
            raise ValueError(
                f"Room {self.index} of story {self.story}: floor_offsets_m has shape {self.floor_offsets_m.shape}, "
                f"expected {(self.rect.rows, self.rect.cols)} (one offset per tile)"
            )
        if not np.isfinite(self.floor_offsets_m).all():
            raise ValueError(f"Room {self.index} of story {self.story}: floor_offsets_m holds a value that is not finite")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Doorway:
    """An opening through a wall where a task may put a door (``rooms[1] == OUTSIDE`` for the
    entrance). ``position`` is the centre of the opening's bottom edge (world metres, y the
    floor's top); ``yaw_rad`` the heading of the way through, from ``rooms[0]`` to ``rooms[1]``
    (yaw 0 faces -z)."""

    story: int
    rect: TileRect
    rooms: tuple[int, int]
    position: tuple[float, float, float]
    yaw_rad: float
    width_m: float
    height_m: float
    wall_thickness_m: float

    @property
    def is_entrance(self) -> bool:
        return OUTSIDE in self.rooms


class LinkKind(enum.Enum):
    RAMP = "ramp"
    LADDER = "ladder"


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StoryLink:
    """A ramp or ladder from ``lower_story`` up to the next, in room ``room`` (same index on both
    stories). ``rect`` is the tiles it stands on (the hole in the floor above); it rises towards
    ``direction`` (drow, dcol); ``bottom`` is the tile one steps on from, ``top`` the tile of the
    story above one steps off onto."""

    kind: LinkKind
    lower_story: int
    room: int
    rect: TileRect
    direction: tuple[int, int]
    bottom: tuple[int, int]
    top: tuple[int, int]
    slope_deg: float


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Window:
    """A window through the outline: ``rect`` tiles of story ``story``; ``outward`` (drow, dcol)."""

    story: int
    rect: TileRect
    outward: tuple[int, int]


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Story:
    """One story's tile kinds (rows x cols, ``TileKind`` values) and rooms."""

    index: int
    kinds: np.ndarray = attr.ib(converter=lambda v: _read_only(v, np.uint8), repr=False)
    rooms: tuple[Room, ...] = attr.ib(converter=tuple)


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class Building:
    """A generated building (see the module's docstring); ``seed`` and ``appearance`` made it."""

    name: str
    seed: int
    origin: tuple[float, float, float]
    appearance: BuildingAppearance
    stories: tuple[Story, ...] = attr.ib(converter=tuple)
    doorways: tuple[Doorway, ...] = attr.ib(converter=tuple)
    links: tuple[StoryLink, ...] = attr.ib(converter=tuple)
    windows: tuple[Window, ...] = attr.ib(converter=tuple)
    climbable_exterior: bool = False

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, cols) of the grid: the footprint's extent along z and x, in tiles."""
        return self.stories[0].kinds.shape  # type: ignore[return-value]

    @property
    def footprint(self) -> np.ndarray:
        return self.stories[0].kinds != TileKind.VOID

    @property
    def size_m(self) -> tuple[float, float]:
        """(x, z) extent of the grid, metres."""
        rows, cols = self.shape
        return (cols * TILE_SIZE_M, rows * TILE_SIZE_M)

    @property
    def centre(self) -> tuple[float, float]:
        """(x, z) of the grid's centre, metres."""
        width, length = self.size_m
        return (self.origin[0] + width / 2.0, self.origin[2] + length / 2.0)

    @property
    def height_m(self) -> float:
        """From the site to the roof's top, metres (without the rail)."""
        return self.floor_top_m(len(self.stories)) - self.origin[1]

    @property
    def entrance(self) -> Doorway:
        return next(doorway for doorway in self.doorways if doorway.is_entrance)

    def floor_top_m(self, story: int) -> float:
        """World height of story ``story``'s floor top (``len(stories)``: the roof's top), metres."""
        return self.origin[1] + FLOOR_RAISE_M + story * self.appearance.story_height_m

    def tile_centre(self, story: int, row: int, col: int) -> tuple[float, float, float]:
        """World position of a tile's centre on its story's floor top (without the room's offset)."""
        return (self.origin[0] + (col + 0.5) * TILE_SIZE_M, self.floor_top_m(story), self.origin[2] + (row + 0.5) * TILE_SIZE_M)

    def tile_at(self, x: float, z: float) -> Optional[tuple[int, int]]:
        """(row, col) of the tile under world (x, z), or None outside the grid."""
        row, col = math.floor((z - self.origin[2]) / TILE_SIZE_M), math.floor((x - self.origin[0]) / TILE_SIZE_M)
        rows, cols = self.shape
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    def room_ids(self, story: int) -> np.ndarray:
        """Room index of every tile of a story (-1 where there is no room)."""
        ids = np.full(self.shape, -1, np.int32)
        for room in self.stories[story].rooms:
            ids[room.rect.row : room.rect.row + room.rect.rows, room.rect.col : room.rect.col + room.rect.cols] = room.index
        return ids

    def holes(self, story: int) -> np.ndarray:
        """Tiles of a story without floor: the openings above the links from the story below."""
        holes = np.zeros(self.shape, bool)
        for link in self.links:
            if link.lower_story + 1 == story:
                rect = link.rect
                holes[rect.row : rect.row + rect.rows, rect.col : rect.col + rect.cols] = True
        return holes

    def with_room_floor(self, story: int, room: int, floor_offsets_m) -> "Building":
        """A copy whose room ``room`` of story ``story`` has the floor height map ``floor_offsets_m``
        (metres from the floor top, one per tile): a task's platform, chasm or dividing wall."""
        old = self.stories[story].rooms[room]
        rooms = list(self.stories[story].rooms)
        rooms[room] = attr.evolve(old, floor_offsets_m=floor_offsets_m)
        stories = list(self.stories)
        stories[story] = attr.evolve(self.stories[story], rooms=rooms)
        return attr.evolve(self, stories=stories)

    def moved_to(self, origin: tuple[float, float, float]) -> "Building":
        """The same building with its grid corner at ``origin`` (doorway positions follow)."""
        shift = np.subtract(origin, self.origin)
        doorways = [attr.evolve(d, position=tuple(float(v) for v in np.add(d.position, shift))) for d in self.doorways]
        return attr.evolve(self, origin=tuple(float(v) for v in origin), doorways=doorways)
