"""The kit's geometry and ground queries (on small synthetic maps): the terrain surface, slopes,
walkability, reachability, and Godot's headings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.tasks.kit.geometry import (
    component_labels,
    facing_direction,
    ground_height,
    path_exists,
    reachable_mask,
    triangle_slopes_deg,
    walkable_grid,
    yaw_towards,
)
from tests.tasks.kit.maps import flat_heights, height_map

# --- terrain surface ---------------------------------------------------------------------------


def test_ground_height_reproduces_planes_exactly():
    n, size = 21, 20.0
    coords = np.linspace(-10, 10, n)
    x, z = np.meshgrid(coords, coords)
    hm = height_map(0.3 * x - 0.2 * z + 2.0, size)
    rng = np.random.default_rng(0)
    px, pz = rng.uniform(-10, 10, 200), rng.uniform(-10, 10, 200)
    np.testing.assert_allclose(ground_height(hm, px, pz), 0.3 * px - 0.2 * pz + 2.0, atol=1e-5)


def test_ground_height_follows_the_colliders_diagonal_not_bilinear():
    # One raised corner: the bottom-left corner (row 1, col 0) of cell (0, 0).
    heights = np.zeros((3, 3))
    heights[1, 0] = 1.0
    hm = height_map(heights, size_m=2.0)  # cell size 1 m; cell (0, 0) spans x in [-1, 0], z in [-1, 0]
    centre = (-0.5, -0.5)  # on the diagonal from (row 0, col 1) to (row 1, col 0)
    assert ground_height(hm, *centre) == pytest.approx(0.5)  # mean of the diagonal's two ends
    assert hm.height_at(*centre) == pytest.approx(0.25)  # bilinear would average all four corners
    # Off the diagonal, on the side of the raised corner and the other side.
    assert ground_height(hm, -0.75, -0.25) == pytest.approx(0.75)  # plane through TL=0, TR=0, BL=1
    assert ground_height(hm, -0.25, -0.25) == pytest.approx(0.25)  # plane through TR=0, BR=0, BL=1
    with pytest.raises(ValueError, match="outside the world"):
        ground_height(hm, 1.5, 0.0)


def test_triangle_slopes_and_walkability():
    n, size = 21, 20.0
    coords = np.linspace(-10, 10, n)
    x, _ = np.meshgrid(coords, coords)
    for degrees, walkable in ((30.0, True), (45.0, False)):
        hm = height_map(5.0 + math.tan(math.radians(degrees)) * x, size, water=-100.0)
        np.testing.assert_allclose(triangle_slopes_deg(hm), degrees, atol=1e-3)
        assert walkable_grid(hm).all() == walkable
        assert not walkable_grid(hm).any() != walkable
    # A flat map half under water: only the dry half is walkable, unless water is allowed.
    heights = flat_heights(height=0.3)
    heights[:, :10] = -0.5  # the step between is 0.8 m over 1 m: 38.7 degrees, walkable
    hm = height_map(heights)
    walk = walkable_grid(hm)
    assert not walk[:, :10].any() and walk[:, 10:].all()
    assert walkable_grid(hm, allow_water=True).all()


def test_path_exists_needs_a_gap_in_a_wall():
    heights = flat_heights()
    heights[:, 10] = 6.0  # a wall across the whole map (x = 0), far too steep to walk
    hm = height_map(heights)
    west, east = (-6.0, 0.3), (6.0, -2.7)
    assert not path_exists(hm, walkable_grid(hm), west, east)
    assert path_exists(hm, walkable_grid(hm), west, (-3.0, 4.0))
    heights[12:15, 9:12] = 1.0  # a gap three points wide
    hm = height_map(heights)
    assert path_exists(hm, walkable_grid(hm), west, east)
    reach = reachable_mask(hm, walkable_grid(hm), west)
    assert reach.sum() == (component_labels(walkable_grid(hm)) >= 0).sum()  # one region now
    # A start on an unwalkable triangle reaches nothing.
    assert not reachable_mask(hm, walkable_grid(hm), (0.0, -8.0)).any()


def test_facing_and_yaw_follow_godot_conventions():
    assert facing_direction(0.0) == pytest.approx((0.0, -1.0))
    assert facing_direction(math.pi / 2) == pytest.approx((-1.0, 0.0))  # positive yaw turns left
    for yaw in np.linspace(-3.0, 3.0, 7):
        dx, dz = facing_direction(yaw)
        assert yaw_towards((1.0, 2.0), (1.0 + dx, 2.0 + dz)) == pytest.approx(yaw)

