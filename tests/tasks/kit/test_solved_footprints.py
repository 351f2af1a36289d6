"""Items' solved geometry burned into a generated world's height map (``avalon/tasks/kit/solved.py``):
turned footprints, never lowering, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.tasks import build_world
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.solved import Block, with_blocks


@pytest.fixture(scope="module")
def world():
    return build_world("jump", 0.0, 0)


def test_a_block_raises_its_footprint_to_its_top_and_nothing_else(world):
    heightmap = world.ground.heightmap
    x, z = world.spawn_position[0], world.spawn_position[2]
    top = float(heightmap.heights.max()) + 1.0
    block = Block(centre=(x, z), width_m=3.0, depth_m=6.0, top_m=top, yaw_rad=math.radians(30.0))
    raised = with_blocks(world, [block]).ground.heightmap
    gx, gz = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    inside = block.covers(gx, gz)
    assert inside.sum() >= 3 * 6 - 6  # about the footprint's area on the 1 m grid
    assert np.all(raised.heights[inside] == pytest.approx(top))
    assert np.array_equal(raised.heights[~inside], heightmap.heights[~inside])
    # Along its turned depth (its own z: (sin yaw, cos yaw)) it reaches 3 m out, across only 1.5 m.
    along = (x + 2.5 * math.sin(block.yaw_rad), z + 2.5 * math.cos(block.yaw_rad))
    across = (x + 2.5 * math.cos(block.yaw_rad), z - 2.5 * math.sin(block.yaw_rad))
    assert ground_height(raised, *along) == pytest.approx(top) and ground_height(raised, *across) < top
    assert world.ground.heightmap is heightmap  # the world given is untouched


def test_a_block_never_lowers_the_ground(world):
    heightmap = world.ground.heightmap
    x, z = world.spawn_position[0], world.spawn_position[2]
    low = Block(centre=(x, z), width_m=2.0, depth_m=2.0, top_m=float(heightmap.heights.min()) - 5.0)
    assert np.array_equal(with_blocks(world, [low]).ground.heightmap.heights, heightmap.heights)


def test_bad_input_is_refused_by_name(world):
    with pytest.raises(ValueError, match="width_m"):
        Block(centre=(0.0, 0.0), width_m=0.0, depth_m=1.0, top_m=0.0)
    with pytest.raises(ValueError, match="blocks"):
        with_blocks(world, [(0.0, 0.0, 1.0, 1.0, 0.0, 1.0)])
