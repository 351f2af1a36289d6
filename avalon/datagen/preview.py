"""Top-down pictures of generated worlds: shaded relief times biome colours, with markers on top.

North (-z) is up and +x is right, so image rows follow height-map rows. Water is blue (ocean deep
blue, pools teal), scenery is drawn as dots coloured by kind (see the legend), food as red
markers, the spawn point as a magenta disc with an arrow showing where the agent faces,
obstacle rings as outlines with the passable gap in yellow, footprints (static boxes, tools)
as outlined rectangles in their own colours, animals as dots in their colours inside a thin
circle of their activation radius, and buildings as their roof with the ground floor's walls
drawn over it and its doorways marked. :func:`building_plan` draws a building's stories side by
side, tile by tile: an outline per story, rooms, walls, doorways, windows, ramps and ladders.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.buildings import Building, LinkKind, TileKind
from avalon.datagen.obstacles import RingOutline, RingResult
from avalon.datagen.scenery import SceneryInstance, SceneryKind
from avalon.datagen.terrain import HeightMap
from avalon.errors import check_int

SPAWN_COLOR = (255, 0, 255)
#: Tools and movable items on the map.
FOOD_COLOR = (230, 20, 20)
RING_COLOR = (255, 255, 255)
GAP_COLOR = (255, 220, 0)
#: A building's tiles in previews: walls, doorways (where doors go), windows, links between stories.
TILE_COLORS: dict[int, tuple[int, int, int]] = {
    TileKind.VOID: (40, 40, 40),
    TileKind.ROOM: (225, 215, 190),
    TileKind.WALL: (90, 80, 70),
    TileKind.OUTER_WALL: (20, 20, 20),
    TileKind.DOORWAY: (255, 140, 0),
    TileKind.ENTRANCE: (255, 40, 40),
    TileKind.WINDOW: (80, 170, 255),
}
LINK_COLORS = {LinkKind.RAMP: (70, 160, 70), LinkKind.LADDER: (150, 60, 200)}
HOLE_COLOR = (120, 120, 120)
OCEAN_SHALLOW = np.array([0.25, 0.50, 0.78])
OCEAN_DEEP = np.array([0.07, 0.18, 0.45])
POOL_COLOR = np.array([0.20, 0.55, 0.66])

#: Marker colour and canopy radius (metres at scale 1) for each scenery kind.
SCENERY_STYLE: dict[SceneryKind, tuple[tuple[int, int, int], float]] = {
    SceneryKind.MAPLE: ((205, 95, 35), 2.0),
    SceneryKind.ACACIA: ((175, 165, 45), 2.5),
    SceneryKind.FIR: ((10, 70, 40), 1.3),
    SceneryKind.PALM: ((60, 190, 80), 1.8),
    SceneryKind.FRUIT_TREE: ((255, 150, 0), 3.0),
    SceneryKind.BUSH: ((25, 100, 25), 0.8),
    SceneryKind.FLOWER: ((250, 170, 220), 0.25),
    SceneryKind.MUSHROOM: ((150, 60, 40), 0.25),
}

#: A rectangle seen from above: centre x, centre z, width, depth (metres), yaw (radians), RGB in [0, 1].
Footprint = tuple[float, float, float, float, float, tuple[float, float, float]]
#: An animal seen from above: x, z, activation radius (metres; drawn as a thin circle), RGB in [0, 1].
AnimalMark = tuple[float, float, float, tuple[float, float, float]]

#: A door seen from above: x, z of its opening's centre, its yaw (radians, Godot's: its front faces
#: +z turned by it), the opening's width (metres) and its lock count (0-3).
DoorMark = tuple[float, float, float, float, int]
#: A door's bar across its opening, by lock count (0 green, 1 cyan, 2 violet, 3 crimson: apart
#: from the doorways' orange and the entrance's red); a tick marks its front.
DOOR_LOCK_COLORS = ((40, 200, 60), (0, 200, 220), (150, 60, 220), (200, 0, 110))

#: Sun direction for the hillshade: from the upper left (-x, -z) and 45 degrees up.
_LIGHT = np.array([-1.0, math.sqrt(2.0), -1.0]) / 2.0


def _hillshade(heightmap: HeightMap) -> np.ndarray:
    """Brightness factor per grid point, 1.0 on flat ground."""
    d_row, d_col = np.gradient(heightmap.heights.astype(np.float64), heightmap.cell_size_m)
    # Surface normal of y = h(x, z) is (-dh/dx, 1, -dh/dz); columns are x, rows are z.
    norm = np.sqrt(d_col**2 + d_row**2 + 1.0)
    lit = (-d_col * _LIGHT[0] + _LIGHT[1] - d_row * _LIGHT[2]) / norm
    return np.clip(lit, 0.0, None) / _LIGHT[1]


def _pixel_grid(heightmap: HeightMap, pixels: int) -> tuple[np.ndarray, np.ndarray]:
    """Fractional grid (row, col) of each pixel centre."""
    centres = (np.arange(pixels) + 0.5) * (heightmap.size_m / pixels) - heightmap.half_size_m
    rows, cols = heightmap.world_to_grid(centres, centres)
    last = heightmap.shape[0] - 1
    rows = np.clip(rows, 0, last)
    cols = np.clip(cols, 0, last)
    return np.meshgrid(rows, cols, indexing="ij")


def _xy(heightmap: HeightMap, pixels: int, x: float, z: float) -> tuple[float, float]:
    """Pixel coordinates (PIL x = column, y = row) of a world point."""
    scale = pixels / heightmap.size_m
    return (x + heightmap.half_size_m) * scale, (z + heightmap.half_size_m) * scale


def _terrain_image(heightmap: HeightMap, biome_map: BiomeMap, pixels: int) -> np.ndarray:
    rows, cols = _pixel_grid(heightmap, pixels)
    coords = np.stack([rows, cols])
    heights = ndimage.map_coordinates(heightmap.heights.astype(np.float64), coords, order=1)
    shade = ndimage.map_coordinates(_hillshade(heightmap), coords, order=1)
    rgb = np.stack(
        [ndimage.map_coordinates(biome_map.colors[..., c].astype(np.float64), coords, order=1) for c in range(3)],
        axis=-1,
    )
    rgb = rgb * (0.25 + 0.75 * shade)[..., None]

    ids = biome_map.biome_ids[np.rint(rows).astype(int), np.rint(cols).astype(int)]
    depth = heightmap.water_height_m - heights
    water = depth > 0
    deep = np.clip(depth / 4.0, 0.0, 1.0)[..., None]
    ocean = OCEAN_SHALLOW * (1.0 - deep) + OCEAN_DEEP * deep
    pool = POOL_COLOR * (1.0 - 0.5 * deep)
    water_rgb = np.where((ids == Biome.FRESH_WATER)[..., None], pool, ocean)
    rgb = np.where(water[..., None], water_rgb, rgb)
    return (np.clip(rgb, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


def _draw_ring(draw: ImageDraw.ImageDraw, heightmap: HeightMap, pixels: int, outline: RingOutline) -> None:
    width = max(1, pixels // 256)
    for radii, colour in ((outline.inner_radius_m, RING_COLOR), (outline.outer_radius_m, (200, 200, 200))):
        points = [
            _xy(heightmap, pixels, outline.centre_x_m + r * math.cos(a), outline.centre_z_m + r * math.sin(a))
            for a, r in zip(outline.angles_rad, radii)
        ]
        points.append(points[0])
        draw.line(points, fill=colour, width=width)
        gap_points = [p for p, g in zip(points, np.append(outline.gap, outline.gap[0])) if g]
        for p in gap_points:
            draw.ellipse([p[0] - width, p[1] - width, p[0] + width, p[1] + width], fill=GAP_COLOR)


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has no size argument
        return ImageFont.load_default()


def _draw_scale_bar(draw: ImageDraw.ImageDraw, heightmap: HeightMap, pixels: int) -> None:
    target = heightmap.size_m / 5.0
    length_m = max(v for v in (1, 2, 5, 10, 20, 50, 100, 200, 500) if v <= max(target, 1))
    scale = pixels / heightmap.size_m
    x0, y0 = pixels * 0.04, pixels * 0.95
    x1 = x0 + length_m * scale
    thickness = max(2, pixels // 128)
    draw.rectangle([x0 - 1, y0 - 1, x1 + 1, y0 + thickness + 1], fill=(0, 0, 0))
    draw.rectangle([x0, y0, x1, y0 + thickness], fill=(255, 255, 255))
    font = _font(max(10, pixels // 40))
    draw.text((x0, y0 - max(12, pixels // 32)), f"{length_m} m   (north = -z)", fill=(255, 255, 255), font=font,
              stroke_width=1, stroke_fill=(0, 0, 0))


def _draw_legend(draw: ImageDraw.ImageDraw, kinds: Iterable[SceneryKind], pixels: int) -> None:
    present = set(kinds)
    kinds = [k for k in SceneryKind if k in present]
    if not kinds:
        return
    font = _font(max(10, pixels // 45))
    line = max(12, pixels // 36)
    x0 = pixels - max(90, pixels // 5)
    y0 = pixels * 0.03
    draw.rectangle([x0 - 6, y0 - 4, pixels - 4, y0 + line * len(kinds) + 2], fill=(0, 0, 0))
    for i, kind in enumerate(kinds):
        colour, _ = SCENERY_STYLE[kind]
        y = y0 + i * line
        draw.ellipse([x0, y + 2, x0 + line - 6, y + line - 4], fill=colour)
        draw.text((x0 + line, y), kind.value.replace("_", " "), fill=(255, 255, 255), font=font)


def top_down_preview(
    heightmap: HeightMap,
    biome_map: BiomeMap,
    scenery: Sequence[SceneryInstance] = (),
    food: Sequence[Sequence[float]] = (),
    spawn: Sequence[float] | None = None,
    rings: Sequence[RingOutline | RingResult] = (),
    pixels: int = 512,
    footprints: Sequence[Footprint] = (),
    animals: Sequence[AnimalMark] = (),
    buildings: Sequence[Building] = (),
    doors: Sequence[DoorMark] = (),
) -> Image.Image:
    """A ``pixels`` x ``pixels`` RGB picture of the whole world, north (-z) up.

    ``food`` holds world positions, either (x, y, z) or (x, z), metres. ``spawn`` is
    ``(x_m, z_m, yaw_rad)``; yaw 0 faces -z (up in the picture), as in Godot. ``rings`` are the
    outlines from :mod:`avalon.datagen.obstacles` (or the results that carry them).
    ``footprints`` are rectangles seen from above: (centre x, centre z, width along the local x,
    depth along the local z, yaw (radians, Godot's), RGB colour in [0, 1]), metres. ``animals``
    are (x, z, activation radius, RGB in [0, 1]): a dot in the animal's colour, outlined black,
    inside a thin circle of its activation radius. ``buildings`` are drawn from above: the ground
    floor's tiles over the roof colour, its doorways and entrance marked (see :func:`building_plan`
    for every story). ``doors`` (:data:`DoorMark`) are bars across their openings coloured by their
    lock count (:data:`DOOR_LOCK_COLORS`), with a tick on the front, the side the agent opens them from.
    """
    pixels = check_int(pixels, "pixels", low=16, high=8192)
    if biome_map.heightmap.shape != heightmap.shape:
        raise ValueError(
            f"biome map shape {biome_map.heightmap.shape} does not match height map shape {heightmap.shape}"
        )
    image = Image.fromarray(_terrain_image(heightmap, biome_map, pixels), mode="RGB")
    draw = ImageDraw.Draw(image)
    scale = pixels / heightmap.size_m

    for item in rings:
        for outline in item.outlines if isinstance(item, RingResult) else (item,):
            _draw_ring(draw, heightmap, pixels, outline)

    # Small plants first so trees are drawn over them.
    for instance in sorted(scenery, key=lambda s: SceneryKind(s.kind).is_tree):
        colour, radius_m = SCENERY_STYLE[SceneryKind(instance.kind)]
        px, py = _xy(heightmap, pixels, instance.position[0], instance.position[2])
        r = max(0.6, radius_m * instance.scale * scale)
        if SceneryKind(instance.kind).is_tree:
            outline = tuple(int(c * 0.5) for c in colour)
            draw.ellipse([px - r, py - r, px + r, py + r], fill=colour, outline=outline)
        else:
            draw.ellipse([px - r, py - r, px + r, py + r], fill=colour)

    for footprint in footprints:
        if len(footprint) != 6:
            raise ValueError(f"footprint {footprint!r}: expected (x_m, z_m, width_m, depth_m, yaw_rad, (r, g, b))")
        cx, cz, width, depth, yaw, colour = footprint
        c, s = math.cos(yaw), math.sin(yaw)
        corners = [(cx + c * u + s * v, cz - s * u + c * v)
                   for u, v in ((-width / 2, -depth / 2), (width / 2, -depth / 2), (width / 2, depth / 2), (-width / 2, depth / 2))]
        fill = tuple(int(round(255 * float(v))) for v in colour)
        draw.polygon([_xy(heightmap, pixels, x, z) for x, z in corners], fill=fill, outline=(255, 255, 255))

    for building in buildings:
        _draw_building(draw, heightmap, pixels, building)
    for mark in doors:
        _draw_door(draw, heightmap, pixels, mark)

    for mark in animals:
        if len(mark) != 4:
            raise ValueError(f"animal {mark!r}: expected (x_m, z_m, activation_radius_m, (r, g, b))")
        ax, az, radius_m, colour = mark
        px, py = _xy(heightmap, pixels, ax, az)
        fill = tuple(int(round(255 * float(v))) for v in colour)
        reach = float(radius_m) * scale
        draw.ellipse([px - reach, py - reach, px + reach, py + reach], outline=fill, width=max(1, pixels // 256))
        r = max(3.0, 0.6 * scale)
        draw.ellipse([px - r - 1, py - r - 1, px + r + 1, py + r + 1], fill=(0, 0, 0))
        draw.ellipse([px - r, py - r, px + r, py + r], fill=fill)

    for position in food:
        if len(position) == 3:
            fx, fz = position[0], position[2]
        elif len(position) == 2:
            fx, fz = position
        else:
            raise ValueError(f"food position {position!r}: expected (x, y, z) or (x, z)")
        px, py = _xy(heightmap, pixels, fx, fz)
        r = max(3.0, 0.5 * scale)
        draw.ellipse([px - r - 1, py - r - 1, px + r + 1, py + r + 1], fill=(255, 255, 255))
        draw.ellipse([px - r, py - r, px + r, py + r], fill=FOOD_COLOR)

    if spawn is not None:
        if len(spawn) != 3:
            raise ValueError(f"spawn={spawn!r}: expected (x_m, z_m, yaw_rad)")
        sx, sz, yaw = (float(v) for v in spawn)
        px, py = _xy(heightmap, pixels, sx, sz)
        r = max(4.0, 0.8 * scale)
        length = max(4.0 * r, 4.0 * scale)
        # Godot yaw rotates -z (forward at yaw 0) about +y: forward = (-sin yaw, -cos yaw) in (x, z).
        tip = (px - math.sin(yaw) * length, py - math.cos(yaw) * length)
        draw.line([(px, py), tip], fill=SPAWN_COLOR, width=max(2, int(r / 2)))
        draw.ellipse([px - r - 1, py - r - 1, px + r + 1, py + r + 1], fill=(255, 255, 255))
        draw.ellipse([px - r, py - r, px + r, py + r], fill=SPAWN_COLOR)

    _draw_scale_bar(draw, heightmap, pixels)
    _draw_legend(draw, (SceneryKind(s.kind) for s in scenery), pixels)
    return image


def _tile_image(building: Building, story: int) -> np.ndarray:
    """RGB (rows, cols, 3) uint8 of one story's tiles, its links and the holes above links below."""
    kinds = building.stories[story].kinds
    rgb = np.zeros((*kinds.shape, 3), np.uint8)
    for kind, colour in TILE_COLORS.items():
        rgb[kinds == kind] = colour
    rgb[building.holes(story)] = HOLE_COLOR
    for link in building.links:
        if link.lower_story == story:
            for tile in link.rect.tiles():
                rgb[tile] = LINK_COLORS[link.kind]
    return rgb


def _draw_building(draw: ImageDraw.ImageDraw, heightmap: HeightMap, pixels: int, building: Building) -> None:
    rgb = _tile_image(building, 0)
    scale = pixels / heightmap.size_m
    x0, _, z0 = building.origin
    for (row, col), kind in np.ndenumerate(building.stories[0].kinds):
        if kind == TileKind.VOID:
            continue
        px0, py0 = _xy(heightmap, pixels, x0 + col, z0 + row)
        draw.rectangle([px0, py0, px0 + scale, py0 + scale], fill=tuple(int(v) for v in rgb[row, col]))


def _draw_door(draw: ImageDraw.ImageDraw, heightmap: HeightMap, pixels: int, mark: DoorMark) -> None:
    if len(mark) != 5 or not 0 <= int(mark[4]) < len(DOOR_LOCK_COLORS):
        raise ValueError(f"door {mark!r}: expected (x_m, z_m, yaw_rad, width_m, lock count 0-3)")
    x, z, yaw, width, locks = mark
    across = (math.cos(yaw) * width / 2.0, -math.sin(yaw) * width / 2.0)  # the door's local x
    front = (math.sin(yaw) * 0.6, math.cos(yaw) * 0.6)  # its local +z, 0.6 m
    colour = DOOR_LOCK_COLORS[int(locks)]
    line = max(2, int(pixels / heightmap.size_m / 3))
    ends = [_xy(heightmap, pixels, x - across[0], z - across[1]), _xy(heightmap, pixels, x + across[0], z + across[1])]
    draw.line(ends, fill=colour, width=line)
    draw.line([_xy(heightmap, pixels, x, z), _xy(heightmap, pixels, x + front[0], z + front[1])], fill=colour, width=line)


def building_plan(building: Building, tile_pixels: int = 12) -> Image.Image:
    """Every story of ``building`` side by side (story 0 on the left), north (-z) up, a tile
    ``tile_pixels`` wide: rooms, inner walls, the outline, doorways (orange; the entrance red),
    windows (blue), ramps (green) or ladders (purple) on the story they start from and the hole
    they leave in the floor above (grey); each story's number above it."""
    tile_pixels = check_int(tile_pixels, "tile_pixels", low=2, high=64)
    rows, cols = building.shape
    gap, label = tile_pixels, max(12, tile_pixels + 4)
    stories = len(building.stories)
    image = Image.new("RGB", (stories * cols * tile_pixels + (stories + 1) * gap, rows * tile_pixels + label + 2 * gap),
                      (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = _font(max(10, tile_pixels))
    for story in range(stories):
        left = gap + story * (cols * tile_pixels + gap)
        tiles = Image.fromarray(_tile_image(building, story), mode="RGB").resize(
            (cols * tile_pixels, rows * tile_pixels), Image.NEAREST)
        image.paste(tiles, (left, label + gap))
        draw.text((left, gap // 2), f"story {story}", fill=(0, 0, 0), font=font)
    return image
