"""The building generator: rooms joined by doorways and all reachable from the entrance, ramps no
steeper than 45 degrees, windows inside outline walls, doorways exposed for doors, floor height
maps, site levelling, determinism, and clear errors for bad configs and sites."""

from __future__ import annotations

import hashlib
import math

import attr
import numpy as np
import pytest

from avalon.datagen.buildings import (
    OUTSIDE,
    BuildingAppearance,
    BuildingConfig,
    LinkKind,
    TileKind,
    check_fits,
    free_floor_positions,
    generate_building,
    level_site,
    reachable_rooms,
    reachable_tiles,
    site_height,
)
from avalon.datagen.buildings.appearance import appearance_ranges
from avalon.datagen.buildings.geometry import Role, building_boxes, merge_rects
from avalon.datagen.export import export_world
from avalon.datagen.world import FlatGround, World
from avalon.errors import BuildingFitError

SHAPES = ("rectangle", "l", "t")
CONFIGS = [
    BuildingConfig(width_tiles=12, length_tiles=10, story_count=2, footprint="rectangle"),
    BuildingConfig(width_tiles=24, length_tiles=20, story_count=3, footprint="l", max_rooms=8),
    BuildingConfig(width_tiles=22, length_tiles=26, story_count=2, footprint="t", max_rooms=10),
    BuildingConfig(width_tiles=30, length_tiles=30, story_count=4, footprint="any", max_rooms=12,
                   appearance=BuildingAppearance(hallway_width_tiles=1, min_room_side_tiles=4)),
]
CASES = [(config, seed) for config in CONFIGS for seed in range(6)]


def _id(case):
    config, seed = case
    return f"{config.footprint}-{config.story_count}-{seed}"


@pytest.fixture(params=CASES, ids=[_id(case) for case in CASES])
def building(request):
    config, seed = request.param
    return generate_building(config, seed)


def test_every_room_is_reachable_from_the_entrance(building):
    everyone = {(k, room.index) for k, story in enumerate(building.stories) for room in story.rooms}
    assert reachable_rooms(building) == everyone


def test_rooms_are_rectangles_of_floor_separated_by_walls(building):
    for story in building.stories:
        ids = building.room_ids(story.index)
        assert (np.isin(story.kinds[ids >= 0], [TileKind.ROOM])).all()
        assert ((ids >= 0) == (story.kinds == TileKind.ROOM)).all()  # every floor tile is in a room
        minimum = building.appearance.min_room_side_tiles
        assert all(min(room.rect.rows, room.rect.cols) >= minimum for room in story.rooms)
        # No two rooms touch: between them is always a wall (or a doorway).
        assert not ((ids[1:] >= 0) & (ids[:-1] >= 0) & (ids[1:] != ids[:-1])).any()
        assert not ((ids[:, 1:] >= 0) & (ids[:, :-1] >= 0) & (ids[:, 1:] != ids[:, :-1])).any()


def test_doorways_join_two_rooms_or_a_room_and_the_outside_and_say_how_to_put_a_door_in(building):
    appearance = building.appearance
    assert sum(doorway.is_entrance for doorway in building.doorways) == 1
    assert building.entrance.story == 0
    for doorway in building.doorways:
        a, b = doorway.rooms
        assert a != OUTSIDE and a != b
        assert doorway.width_m == appearance.hallway_width_tiles
        assert doorway.height_m == appearance.doorway_height_m and doorway.wall_thickness_m == appearance.wall_thickness_m
        # Stepping half a tile from the opening's centre along its yaw leads from rooms[0] to rooms[1].
        x, y, z = doorway.position
        assert y == pytest.approx(building.floor_top_m(doorway.story))
        ahead = (-math.sin(doorway.yaw_rad), -math.cos(doorway.yaw_rad))
        ids = building.room_ids(doorway.story)
        for sign, room in ((-1.0, a), (1.0, b)):
            tile = building.tile_at(x + sign * ahead[0], z + sign * ahead[1])
            assert (OUTSIDE if tile is None else int(ids[tile])) == room
    # Each takes a door entity as it stands (avalon.datagen.doors: within the door table's ranges).
    from avalon.datagen.doors import door_entity
    from avalon.rules.doors import MECHANISM_NAMES

    for i, doorway in enumerate(building.doorways):
        door_entity(f"door{i}", doorway.position, doorway.yaw_rad, doorway.width_m, doorway.height_m,
                    mechanism=MECHANISM_NAMES[0], wall_thickness_m=doorway.wall_thickness_m)
    # A story with n rooms has n - 1 doorways between rooms: a tree, each wall one doorway.
    for story in building.stories:
        inner = [d for d in building.doorways if d.story == story.index and not d.is_entrance]
        assert len(inner) == len(story.rooms) - 1


def test_ramps_are_no_steeper_than_45_degrees_and_rise_one_story(building):
    assert len(building.links) == len(building.stories) - 1
    for link in building.links:
        if link.kind is LinkKind.LADDER:
            assert link.slope_deg == 90.0 and link.rect.rows == link.rect.cols == 1
        else:
            assert link.slope_deg <= min(45.0, building.appearance.max_ramp_slope_deg) + 1e-9
            run = (link.rect.rows if link.direction[0] else link.rect.cols)
            assert math.tan(math.radians(link.slope_deg)) * run == pytest.approx(building.appearance.story_height_m)
    for box in building_boxes(building):
        if box.role is Role.RAMP:
            assert max(abs(a) for a in box.rotation) <= math.radians(45.0) + 1e-9


def test_windows_are_inside_outline_walls_below_the_ceiling(building):
    appearance = building.appearance
    assert appearance.window_sill_height_m + appearance.window_height_m <= appearance.story_clear_height_m
    for window in building.windows:
        kinds = building.stories[window.story].kinds
        for r, c in window.rect.tiles():
            assert kinds[r, c] == TileKind.WINDOW
            behind = (r - window.outward[0], c - window.outward[1])
            beyond = (r + window.outward[0], c + window.outward[1])
            assert kinds[behind] == TileKind.ROOM
            assert not (0 <= beyond[0] < kinds.shape[0] and 0 <= beyond[1] < kinds.shape[1]) or kinds[beyond] == TileKind.VOID
    panes = [box for box in building_boxes(building) if box.role is Role.WINDOW_PANE]
    assert len(panes) >= 1 or not building.windows


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_building(tmp_path):
    config = CONFIGS[1]

    def digest(seed, name):
        world = World(task="buildings", difficulty=0.0, seed=0, ground=FlatGround(), entities=(), spawn_position=(0, 0, 0),
                      time_limit_frames=10, buildings=(generate_building(config, seed, origin=(-12.0, 0.0, -10.0)),))
        folder = export_world(world, tmp_path / name)
        return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}

    assert digest(5, "a") == digest(5, "b")
    assert digest(5, "a")["buildings.bin"] != digest(6, "c")["buildings.bin"]


def test_a_world_without_buildings_writes_no_buildings_file(tmp_path):
    world = World(task="trivial", difficulty=0.0, seed=0, ground=FlatGround(), entities=(), spawn_position=(0, 0, 0),
                  time_limit_frames=10)
    folder = export_world(world, tmp_path / "w")
    assert sorted(path.name for path in folder.iterdir()) == ["world.json", "world.tscn"]
    assert "Buildings" not in (folder / "world.tscn").read_text()


@pytest.mark.parametrize("shape", SHAPES)
def test_footprints_have_their_shape(shape):
    building = generate_building(BuildingConfig(width_tiles=24, length_tiles=22, footprint=shape), 1)
    missing = (~building.footprint).sum()
    assert (missing == 0) == (shape == "rectangle")
    corners = [building.footprint[0, 0], building.footprint[0, -1], building.footprint[-1, 0], building.footprint[-1, -1]]
    assert sum(not corner for corner in corners) == {"rectangle": 0, "l": 1, "t": 2}[shape]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("window_width_tiles", 9, r"BuildingAppearance.window_width_tiles=9: expected an integer in \[1, 4\]"),
        ("wall_thickness_m", 0.05, r"BuildingAppearance.wall_thickness_m=0.05: expected a number in \[0.2, 1.0\]"),
        ("max_ramp_slope_deg", 60.0, r"BuildingAppearance.max_ramp_slope_deg=60.0: expected a number in \[20.0, 45.0\]"),
        ("trim_color", (1.5, 0.0, 0.0), r"BuildingAppearance.trim_color=\(1.5, 0.0, 0.0\): expected three numbers in \[0, 1\]"),
        ("doorway_height_m", 4.0, r"doorway_height_m=4.0: expected at most story_clear_height_m=3.0"),
    ],
)
def test_out_of_range_appearance_values_are_refused_naming_attribute_value_and_range(field, value, message):
    with pytest.raises(ValueError, match=message):
        BuildingAppearance(**{field: value})


def test_every_appearance_attribute_has_a_unit_and_a_range_and_the_docs_show_them():
    from pathlib import Path

    rows = appearance_ranges()
    assert [name for name, *_ in rows] == [field.name for field in attr.fields(BuildingAppearance)]
    assert len(rows) >= 20 and all("[" in unit_and_range for _, _, unit_and_range, _ in rows)
    docs = (Path(__file__).parents[2] / "docs" / "worldgen.md").read_text()
    for name, default, unit_and_range, meaning in rows:
        assert f"| `{name}` | {default} | {unit_and_range} | {meaning} |" in docs


def test_config_values_are_checked():
    with pytest.raises(ValueError, match=r"BuildingConfig.story_count=0: expected an integer in \[1, 6\]"):
        BuildingConfig(story_count=0)
    with pytest.raises(ValueError, match="footprint"):
        BuildingConfig(footprint="circle")


def test_a_building_that_cannot_be_laid_out_says_why():
    with pytest.raises(BuildingFitError, match=r"cannot hold a room of 5 x 5 tiles inside its outline"):
        generate_building(BuildingConfig(width_tiles=6, length_tiles=12, appearance=BuildingAppearance(min_room_side_tiles=5)), 0)
    with pytest.raises(BuildingFitError, match="too small for an L shape"):
        generate_building(BuildingConfig(width_tiles=8, length_tiles=8, footprint="l"), 0)


def test_a_site_off_the_ground_or_under_water_is_refused_naming_why(island_terrain):
    building = generate_building(CONFIGS[0], 0, origin=(45.0, 0.0, 0.0))
    with pytest.raises(BuildingFitError, match=r"reaches beyond the ground's edge at \+-50.0 m"):
        check_fits(FlatGround(size_m=100.0), building)
    under = generate_building(CONFIGS[0], 0, origin=(-6.0, island_terrain.heightmap.water_height_m - 1.0, -5.0))
    with pytest.raises(BuildingFitError, match="is under the water"):
        check_fits(island_terrain, under)


@pytest.fixture(scope="module")
def island_terrain():
    from avalon.datagen.biomes import Biome, BiomeMap
    from avalon.datagen.terrain import HeightMap
    from avalon.datagen.world import Terrain

    points = 81
    x = np.linspace(-20.0, 20.0, points)
    heights = 2.0 + 0.1 * x[None, :] + 0.05 * x[:, None]  # a gentle slope, 0 to 4 m
    heightmap = HeightMap(heights=heights, size_m=40.0, water_height_m=0.0)
    return Terrain(biome_map=BiomeMap(biome_ids=np.full((points, points), int(Biome.GRASSLAND)),
                                      climbable=np.zeros((points, points), bool),
                                      colors=np.full((points, points, 3), 0.4), heightmap=heightmap))


def test_levelling_flattens_the_site_and_its_margin_and_leaves_the_far_ground(island_terrain):
    width, length = 12, 10
    y = site_height(island_terrain, 0.0, 0.0, width, length)
    assert y == pytest.approx(2.0, abs=0.05)
    building = generate_building(CONFIGS[0], 0, origin=(-width / 2, y, -length / 2))
    levelled = level_site(island_terrain, building, margin_m=2.0)
    heightmap = levelled.heightmap
    xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
    beyond_x = np.maximum(np.abs(xs) - width / 2, 0.0)[None, :]
    beyond_z = np.maximum(np.abs(zs) - length / 2, 0.0)[:, None]
    near = np.hypot(beyond_x, beyond_z) <= 2.0
    assert np.allclose(heightmap.heights[near], y)
    far = (np.abs(xs)[None, :] > width / 2 + 6.5) | (np.abs(zs)[:, None] > length / 2 + 6.5)
    assert np.allclose(heightmap.heights[far], island_terrain.heightmap.heights[far])
    assert np.array_equal(levelled.biome_map.colors, island_terrain.biome_map.colors)


def test_a_room_floor_height_map_raises_a_platform_digs_a_chasm_and_walls_a_room():
    building = generate_building(CONFIGS[0], 2)
    room = max(building.stories[0].rooms, key=lambda room: room.rect.rows * room.rect.cols)
    offsets = np.zeros((room.rect.rows, room.rect.cols))
    offsets[0, 0] = 1.0  # a platform
    offsets[-1, -1] = -0.5  # a chasm
    offsets[:, room.rect.cols // 2] = building.appearance.story_clear_height_m  # a dividing wall
    changed = building.with_room_floor(0, room.index, offsets)
    tops = sorted({round(box.centre[1] + box.extents[1], 3) for box in building_boxes(changed) if box.role is Role.FLOOR})
    floor = changed.floor_top_m(0)
    for expected in (floor - 0.5, floor + 1.0, floor + building.appearance.story_clear_height_m):
        assert round(expected, 3) in tops
    assert building.stories[0].rooms[room.index].floor_offsets_m.max() == 0.0  # the original is unchanged
    # The wall cuts the room in two: the far half is no longer reached from the entrance side.
    assert len(reachable_tiles(changed)) < len(reachable_tiles(building))
    with pytest.raises(ValueError, match="floor_offsets_m has shape"):
        building.with_room_floor(0, room.index, np.zeros((1, 1)))


def test_free_floor_positions_lie_in_the_room_away_from_doorways_and_links(building):
    for story in building.stories:
        for room in story.rooms:
            positions = free_floor_positions(building, story.index, room.index)
            assert positions, f"room {room.index} of story {story.index} has no free floor"
            for x, y, z in positions:
                tile = building.tile_at(x, z)
                assert building.room_ids(story.index)[tile] == room.index
                assert not building.holes(story.index)[tile]
                assert y == pytest.approx(building.floor_top_m(story.index))


def test_merge_rects_covers_the_mask_exactly_without_overlap():
    rng = np.random.default_rng(0)
    mask = rng.random((30, 40)) < 0.6
    cover = np.zeros(mask.shape, int)
    rects = merge_rects(mask)
    for r0, c0, r1, c1 in rects:
        cover[r0:r1, c0:c1] += 1
    assert (cover == mask).all()
    assert len(rects) < mask.sum()


def test_fewer_than_one_layout_in_100_does_not_fit():
    config = BuildingConfig(width_tiles=16, length_tiles=14, story_count=2, max_rooms=5)
    failures = 0
    for seed in range(200):
        try:
            generate_building(config, seed)
        except BuildingFitError:
            failures += 1
    assert failures < 2


def test_the_plan_preview_draws_every_story_with_its_doorways_and_links(island_terrain):
    from avalon.datagen.preview import LINK_COLORS, TILE_COLORS, building_plan, top_down_preview

    building = generate_building(CONFIGS[1], 0)
    image = np.asarray(building_plan(building, tile_pixels=4))
    rows, cols = building.shape
    assert image.shape[1] == 3 * cols * 4 + 4 * 4
    colours = {tuple(int(v) for v in pixel) for pixel in image.reshape(-1, 3)}
    for kind in (TileKind.DOORWAY, TileKind.ENTRANCE, TileKind.WINDOW, TileKind.OUTER_WALL):
        assert TILE_COLORS[kind] in colours
    assert {LINK_COLORS[link.kind] for link in building.links} <= colours
    terrain = island_terrain
    picture = np.asarray(top_down_preview(terrain.heightmap, terrain.biome_map, pixels=240,
                                          buildings=[building.moved_to((-12.0, 0.0, -10.0))]))
    drawn = {tuple(int(v) for v in pixel) for pixel in picture.reshape(-1, 3)}
    assert TILE_COLORS[TileKind.ENTRANCE] in drawn and TILE_COLORS[TileKind.DOORWAY] in drawn
