"""The causeway builder (avalon/tasks/kit/causeway.py) on its own: a zigzag's shape, and a
causeway cut across a chasm ring on a flat field restoring the ground with steep sides."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.obstacles import ObstacleRing, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit import causeway
from avalon.tasks.kit.geometry import component_labels, triangle_index, walkable_grid
from tests.tasks.helpers import surface_height


def test_zigzag_causeway_shape():
    rng = np.random.default_rng(0)
    path = causeway.zigzag_causeway(rng, (0.0, 0.0), (12.0, 0.0), segment_count=3, turn_deg=30.0, width_m=1.5)
    assert path.points[0] == (0.0, 0.0) and path.points[-1] == pytest.approx((12.0, 0.0))
    assert path.segment_count == 3
    xs = [p[0] for p in path.points]
    assert xs == pytest.approx([0.0, 4.0, 8.0, 12.0])
    lateral = [p[1] for p in path.points]
    assert abs(lateral[1]) == pytest.approx(4.0 * math.tan(math.radians(30.0)))
    assert lateral[2] == pytest.approx(-lateral[1])
    assert path.distance_m(-2.0, 0.0) == pytest.approx(2.0)
    assert path.distance_m(*path.points[1]) == pytest.approx(0.0)
    assert path.length_m > 12.0
    straight = causeway.zigzag_causeway(rng, (0.0, 0.0), (0.0, 5.0), segment_count=1, turn_deg=30.0, width_m=2.0)
    assert straight.points == ((0.0, 0.0), (0.0, 5.0)) and straight.turn_angles_deg() == ()


def test_cut_causeway_restores_the_ground_with_steep_sides():
    n, size = 81, 40.0
    before = HeightMap(heights=np.full((n, n), 5.0), size_m=size)
    ring = ObstacleRing(kind="chasm", centre_x_m=0.0, centre_z_m=0.0, inner_radius_m=6.0, width_m=8.0, height_m=4.0)
    after = apply_ring(np.random.default_rng(1), before, ring).heightmap
    path = causeway.Causeway(points=[(0.0, 3.0), (0.0, 17.0)], width_m=2.0)
    cut, top = causeway.cut_causeway(before, after, path, wall_slope_deg=75.0)
    assert top.any() and np.allclose(cut.heights[top], 5.0)
    assert surface_height(cut, 0.0, 10.0) == pytest.approx(5.0)
    assert surface_height(cut, 3.0, 10.0) == pytest.approx(1.0)  # chasm floor beside the causeway
    # Elsewhere the chasm is untouched.
    assert surface_height(cut, 0.0, -10.0) == pytest.approx(surface_height(after, 0.0, -10.0))
    # Only the causeway links the plateau to the outside now.
    walk = walkable_grid(cut, allow_water=True)
    labels = component_labels(walk)
    assert labels[triangle_index(cut, 0.0, 0.0)] == labels[triangle_index(cut, 0.0, 18.0)]
    ring_only = component_labels(walkable_grid(after, allow_water=True))
    assert ring_only[triangle_index(after, 0.0, 0.0)] != ring_only[triangle_index(after, 0.0, 18.0)]
