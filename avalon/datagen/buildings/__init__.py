"""Buildings: generated from a seed and a :class:`BuildingConfig` (``generator.py``) into a
frozen :class:`Building` (``spec.py``: stories of tiles, rooms with floor height maps, doorways,
ramps or ladders, windows), levelled onto the ground (``site.py``), asked which rooms are
reachable and where food may lie (``queries.py``), and cut into boxes for export
(``geometry.py``). See docs/worldgen.md, "Buildings"."""

from avalon.datagen.buildings.appearance import TILE_SIZE_M, BuildingAppearance
from avalon.datagen.buildings.generator import BuildingConfig, generate_building
from avalon.datagen.buildings.queries import free_floor_positions, reachable_rooms, reachable_tiles
from avalon.datagen.buildings.site import add_building, check_fits, level_site, levelled_heightmap, site_height
from avalon.datagen.buildings.spec import (
    OUTSIDE,
    Building,
    Doorway,
    LinkKind,
    Room,
    Story,
    StoryLink,
    TileKind,
    TileRect,
    Window,
)

__all__ = [
    "OUTSIDE",
    "TILE_SIZE_M",
    "Building",
    "BuildingAppearance",
    "BuildingConfig",
    "Doorway",
    "LinkKind",
    "Room",
    "Story",
    "StoryLink",
    "TileKind",
    "TileRect",
    "Window",
    "add_building",
    "check_fits",
    "free_floor_positions",
    "generate_building",
    "level_site",
    "levelled_heightmap",
    "reachable_rooms",
    "reachable_tiles",
    "site_height",
]
