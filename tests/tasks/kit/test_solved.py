"""Items' solved geometry burned into the height map (``avalon/tasks/kit/solved.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.tasks import build_world
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.solved import Block, block_mask, footprint_ground_m, with_blocks


@pytest.fixture(scope="module")
def world():
    return build_world("jump", 0.0, 0)


def test_a_block_raises_its_footprint_to_its_top_and_nothing_else(world):
    heightmap = world.ground.heightmap
    x, z = world.spawn_position[0], world.spawn_position[2]
    top = float(heightmap.heights.max()) + 1.0
    block = Block(centre=(x, z), width_m=3.0, length_m=6.0, yaw_rad=math.radians(30.0), top_m=top)
    raised = with_blocks(world, [block]).ground.heightmap
    inside = block_mask(heightmap, block)
    assert inside.sum() >= 3 * 6 - 6  # about the footprint's area on the 1 m grid
    assert np.all(raised.heights[inside] == pytest.approx(top))
    assert np.array_equal(raised.heights[~inside], heightmap.heights[~inside])
    assert ground_height(raised, x, z) == pytest.approx(top)
    # Along its turned length (local z: (sin yaw, cos yaw)) it reaches 3 m out, across only 1.5 m.
    along = (x + 2.5 * math.sin(block.yaw_rad), z + 2.5 * math.cos(block.yaw_rad))
    across = (x + 2.5 * math.cos(block.yaw_rad), z - 2.5 * math.sin(block.yaw_rad))
    assert ground_height(raised, *along) == pytest.approx(top) and ground_height(raised, *across) < top
    # The world is otherwise the same, and the original is untouched.
    assert world.ground.heightmap is heightmap and raised.shape == heightmap.shape


def test_a_block_never_lowers_the_ground_and_a_thin_one_is_widened_to_two_cells(world):
    heightmap = world.ground.heightmap
    x, z = world.spawn_position[0], world.spawn_position[2]
    low = Block(centre=(x, z), width_m=2.0, length_m=2.0, yaw_rad=0.0, top_m=float(heightmap.heights.min()) - 5.0)
    assert np.array_equal(with_blocks(world, [low]).ground.heightmap.heights, heightmap.heights)
    thin = Block(centre=(x, z), width_m=0.3, length_m=4.0, yaw_rad=0.0, top_m=0.0)
    assert block_mask(heightmap, thin, widen=False).sum() <= 5 < block_mask(heightmap, thin).sum()
    assert (block_mask(heightmap, thin).sum(axis=1) >= 2).any()  # two grid points across: floor triangles


def test_footprint_points_cover_the_footprint():
    block = Block(centre=(1.0, -2.0), width_m=0.9, length_m=9.0, yaw_rad=math.pi / 2, top_m=0.0)
    points = block.footprint_points(0.1)
    across, along = block.local(points[:, 0], points[:, 1])
    assert np.abs(across).max() == pytest.approx(0.45) and np.abs(along).max() == pytest.approx(4.5)
    assert points[:, 0].max() - points[:, 0].min() == pytest.approx(9.0)  # yaw 90 degrees: along x
    assert block.end(1.0) == pytest.approx((5.5, -2.0))


def test_bad_input_is_refused_by_name(world):
    with pytest.raises(ValueError, match="width_m"):
        Block(centre=(0.0, 0.0), width_m=0.0, length_m=1.0, yaw_rad=0.0, top_m=0.0)
    with pytest.raises(ValueError, match="blocks"):
        with_blocks(world, [(0.0, 0.0, 1.0, 1.0, 0.0, 1.0)])
    assert footprint_ground_m(world.ground.heightmap, Block(centre=(0.0, 0.0), width_m=1.0, length_m=1.0,
                                                            yaw_rad=0.0, top_m=0.0)).size > 0
