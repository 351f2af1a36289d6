import math

import numpy as np
import pytest
from PIL import Image

from avalon.datagen.biomes import assign_biomes
from avalon.datagen.obstacles import ObstacleRing, apply_ring
from avalon.datagen.preview import DOOR_LOCK_COLORS, FOOD_COLOR, GAP_COLOR, SPAWN_COLOR, top_down_preview
from avalon.datagen.scenery import place_scenery
from avalon.datagen.terrain import HeightMap, WorldConfig, build_heightmap


@pytest.fixture(scope="module")
def half_sea():
    """64 m square: sea for x < 0, land 2 m high for x >= 1."""
    n = 65
    x, _ = np.meshgrid(np.linspace(-32, 32, n), np.linspace(-32, 32, n))
    hm = HeightMap(heights=np.where(x < 0, -2.0, 2.0), size_m=64.0)
    return assign_biomes(np.random.default_rng(0), hm)


def _pixel(image, hm, x, z):
    scale = image.width / hm.size_m
    return image.getpixel((int((x + hm.half_size_m) * scale), int((z + hm.half_size_m) * scale)))


def test_size_and_water_versus_land(half_sea, tmp_path):
    bm = half_sea
    image = top_down_preview(bm.heightmap, bm, pixels=128)
    assert image.size == (128, 128) and image.mode == "RGB"
    sea = np.asarray(image)[40:90, 5:50].reshape(-1, 3).mean(axis=0)
    land = np.asarray(image)[40:90, 80:120].reshape(-1, 3).mean(axis=0)
    assert sea[2] > sea[0] + 60 and sea[2] > sea[1], f"sea should be blue, got {sea}"
    assert np.abs(sea - land).max() > 40
    path = tmp_path / "preview.png"
    image.save(path)
    assert Image.open(path).size == (128, 128)


def test_spawn_marker_and_facing_arrow(half_sea):
    bm = half_sea
    hm = bm.heightmap
    image = top_down_preview(hm, bm, spawn=(10.0, 5.0, 0.0), pixels=256)
    assert _pixel(image, hm, 10.0, 5.0) == SPAWN_COLOR
    # Yaw 0 faces -z, which is up in the picture: the arrow runs up, not down.
    assert _pixel(image, hm, 10.0, 5.0 - 3.0) == SPAWN_COLOR
    assert _pixel(image, hm, 10.0, 5.0 + 3.0) != SPAWN_COLOR
    turned = top_down_preview(hm, bm, spawn=(10.0, 5.0, math.pi / 2), pixels=256)
    assert _pixel(turned, hm, 10.0 - 3.0, 5.0) == SPAWN_COLOR  # yaw +90 degrees faces -x
    assert _pixel(turned, hm, 10.0, 5.0 - 3.0) != SPAWN_COLOR


def test_food_markers(half_sea):
    bm = half_sea
    image = top_down_preview(bm.heightmap, bm, food=[(20.0, 2.0, -10.0), (15.0, 20.0)], pixels=256)
    assert _pixel(image, bm.heightmap, 20.0, -10.0) == FOOD_COLOR
    assert _pixel(image, bm.heightmap, 15.0, 20.0) == FOOD_COLOR
    with pytest.raises(ValueError, match="food position"):
        top_down_preview(bm.heightmap, bm, food=[(1.0,)], pixels=64)


def test_item_footprints_are_drawn_turned_by_their_yaw(half_sea):
    bm = half_sea
    hm = bm.heightmap
    # 6 m wide (its own x) and 1 m deep, turned 90 degrees: it lies along z.
    colour = (0.5, 0.25, 1.0)
    image = top_down_preview(hm, bm, footprints=[(10.0, 0.0, 6.0, 1.0, math.pi / 2, colour)], pixels=256)
    drawn = (128, 64, 255)
    assert _pixel(image, hm, 10.0, 2.0) == drawn and _pixel(image, hm, 10.0, -2.0) == drawn
    assert _pixel(image, hm, 12.0, 0.0) != drawn
    with pytest.raises(ValueError, match="footprint"):
        top_down_preview(hm, bm, footprints=[(1.0, 2.0)], pixels=64)


def test_animals_are_dots_in_their_colour_inside_their_activation_radius(half_sea):
    bm = half_sea
    hm = bm.heightmap
    colour = (0.25, 0.5, 1.0)
    image = top_down_preview(hm, bm, animals=[(10.0, 0.0, 8.0, colour)], pixels=256)
    drawn = (64, 128, 255)
    assert _pixel(image, hm, 10.0, 0.0) == drawn
    ring = [_pixel(image, hm, 10.0 + 8.0 * math.cos(a), 8.0 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 16)]
    assert sum(p == drawn for p in ring) >= 8  # the circle of its radius, a pixel or two wide
    assert _pixel(image, hm, 14.0, 0.0) != drawn
    with pytest.raises(ValueError, match="animal"):
        top_down_preview(hm, bm, animals=[(1.0, 2.0)], pixels=64)


def test_doors_are_bars_across_their_openings_coloured_by_their_locks_with_a_tick_on_the_front(half_sea):
    bm = half_sea
    hm = bm.heightmap
    # A 4 m door turned 90 degrees: its opening runs along z, its front faces +x; two locks.
    image = top_down_preview(hm, bm, doors=[(10.0, 0.0, math.pi / 2, 4.0, 2)], pixels=256)
    drawn = DOOR_LOCK_COLORS[2]
    assert _pixel(image, hm, 10.0, 1.5) == drawn and _pixel(image, hm, 10.0, -1.5) == drawn
    assert _pixel(image, hm, 10.5, 0.0) == drawn and _pixel(image, hm, 9.5, 0.0) != drawn  # the front tick
    with pytest.raises(ValueError, match="door"):
        top_down_preview(hm, bm, doors=[(1.0, 2.0, 0.0, 1.0, 4)], pixels=64)


def test_full_world_with_scenery_and_rings():
    hm = build_heightmap(np.random.default_rng(2), WorldConfig())
    ring = ObstacleRing(kind="cliff", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=6.0, width_m=1.0,
                        height_m=3.0, gap_angle_deg=0.0, gap_width_m=3.0)
    result = apply_ring(np.random.default_rng(3), hm, ring)
    bm = assign_biomes(np.random.default_rng(4), result.heightmap)
    scenery = place_scenery(np.random.default_rng(5), bm.heightmap, bm)
    plain = np.asarray(top_down_preview(bm.heightmap, bm, pixels=256))
    full = np.asarray(top_down_preview(bm.heightmap, bm, scenery=scenery, rings=[result], pixels=256))
    assert (plain != full).any(axis=-1).mean() > 0.02, "scenery and rings must be drawn"
    assert (full.reshape(-1, 3) == GAP_COLOR).all(axis=1).any(), "the ring gap is highlighted"


def test_bad_pixels(half_sea):
    with pytest.raises(ValueError, match="pixels=8"):
        top_down_preview(half_sea.heightmap, half_sea, pixels=8)
