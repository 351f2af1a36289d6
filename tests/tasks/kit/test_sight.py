"""The kit's sight checks (on small synthetic maps): terrain and plant occluders."""

from __future__ import annotations

from avalon.datagen.export.scenery_data import SHAPES
from avalon.datagen.scenery import SceneryInstance, SceneryKind
from avalon.tasks.kit.sight import OCCLUDER_PARTS, line_of_sight, scenery_occluders, terrain_clear
from tests.tasks.kit.maps import flat_heights, height_map


def test_line_of_sight_terrain_and_occluders():
    heights = flat_heights()
    hm = height_map(heights)
    eye, target = (-8.0, 2.7, 0.0), (8.0, 1.15, 0.0)
    assert line_of_sight(hm, eye, target)
    hill = heights.copy()
    hill[9:12, 9:12] = 3.0  # a bump 2 m high halfway
    assert not terrain_clear(height_map(hill), eye, target)

    def tree(kind, x, z, scale=1.0):
        return SceneryInstance(kind=kind, position=(x, 1.0, z), yaw_rad=0.0, scale=scale, color=(0.2, 0.5, 0.2))

    # A trunk on the line blocks; the same trunk 0.5 m to the side does not (radius 0.2 m).
    assert not line_of_sight(hm, eye, target, scenery_occluders([tree("maple", 0.0, 0.0)]))
    assert line_of_sight(hm, eye, target, scenery_occluders([tree("palm", 0.0, 0.5)]))
    # The maple's crown (radius 1.9 m, from 2.2 m up) hangs over the line but above it near the target.
    assert line_of_sight(hm, eye, target, scenery_occluders([tree("maple", 7.0, 1.0)]))
    # The same crown near the eye, where the line is higher, blocks.
    assert not line_of_sight(hm, (-8.0, 4.0, 0.0), target, scenery_occluders([tree("maple", -6.0, 1.0)]))
    occluders = scenery_occluders([tree("maple", 0.0, 0.0), tree("bush", 3.0, 0.0), tree("bush", 3.0, 5.0)])
    assert sorted(set(occluders.owner[occluders.blocking(eye, target)].tolist())) == [0, 1]


def test_occluders_bound_the_exported_plant_shapes():
    assert set(OCCLUDER_PARTS) == set(SceneryKind)
    for kind, parts in SHAPES.items():
        cylinders = OCCLUDER_PARTS[SceneryKind(kind)]
        for part in parts:
            bottom, top = part.base_y_m, part.base_y_m + part.height_m
            assert any(
                r >= part.radius_m - 1e-9 and base <= bottom + 1e-9 and base + height >= top - 1e-9
                for r, base, height in cylinders
            ), f"{kind} {part.name} is not inside any occluder cylinder"

