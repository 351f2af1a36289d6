"""Blocks burned into a height map (avalon/tasks/kit/solved.py) and the certificate searches that
take a block's sides as vertical (``sheer_triangles``), on a hand-made flat field: a box ledge
that a jump cannot get onto, a box step it can, and one more step (a box in its solved place)
that makes the ledge reachable."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.world import Entity, FlatGround, World, tool_entity
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit.certificate import certify, reaches
from avalon.tasks.kit.geometry import ground_height
from avalon.tasks.kit.route import SKILLS
from avalon.tasks.kit.solved import Block, block_faces, refined, with_blocks
from tests.tasks.kit.maps import terrain_world

SIZE_M, POINTS = 30.0, 61  # 0.5 m between grid points
ALL = frozenset(SKILLS)


def _field(climbable=None):
    return terrain_world(np.ones((POINTS, POINTS)), SIZE_M, (0.0, 8.0), climbable=climbable)


def _apple_on(block: Block) -> Entity:
    return Entity(kind="apple", name="apple", position=(block.centre[0], block.top_m + 0.1, block.centre[1]),
                  params={"radius": 0.1})


def test_a_block_raises_the_grid_points_on_its_footprint_and_makes_them_unclimbable():
    world = _field(climbable=np.ones((POINTS, POINTS), dtype=bool))
    block = Block(centre=(0.0, -5.0), width_m=4.0, depth_m=5.0, yaw_rad=0.3, top_m=3.25)
    raised = with_blocks(world, [block])
    heightmap = raised.ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    on = block.covers(x, z)
    assert on.sum() > 60
    assert np.all(heightmap.heights[on] == pytest.approx(3.25)) and np.all(heightmap.heights[~on] == 1.0)
    assert not raised.ground.biome_map.climbable[on].any() and raised.ground.biome_map.climbable[~on].all()
    assert raised.entities == world.entities and raised.spawn_position == world.spawn_position
    # A block lower than the ground under it changes nothing there.
    assert np.all(with_blocks(world, [Block(centre=(0.0, 0.0), width_m=2.0, depth_m=2.0, top_m=0.5)]).ground.heightmap.heights == 1.0)


def test_block_faces_are_the_triangles_across_a_blocks_edge():
    block = Block(centre=(0.0, 0.0), width_m=4.0, depth_m=4.0, top_m=3.0)
    heightmap = with_blocks(_field(), [block]).ground.heightmap
    faces = block_faces(heightmap, [block])
    corners_on = block.covers(*np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m))
    cells = np.stack([corners_on[:-1, :-1], corners_on[:-1, 1:], corners_on[1:, :-1], corners_on[1:, 1:]])
    crossing = cells.any(axis=0) & ~cells.all(axis=0)
    assert faces.any(axis=-1).sum() == crossing.sum() and not faces[~crossing].any()


def test_an_entity_becomes_the_block_it_stands_for():
    boulder = tool_entity("boulder", "boulder", (1.0, 2.0, -3.0), yaw_rad=0.5, safe_scale=1.2)
    block = Block.of_entity(boulder)
    width, height, depth = (v * 1.2 for v in TOOL_SIZE_M["boulder"])
    assert (block.width_m, block.depth_m, block.top_m, block.yaw_rad) == pytest.approx((width, depth, 2.0 + height, 0.5))
    box = Entity(kind="box", name="box", position=(0.0, 1.0, 0.0), params={"size": (2.0, 2.0, 3.0)})
    assert Block.of_entity(box) == Block(centre=(0.0, 0.0), width_m=2.0, depth_m=3.0, top_m=2.0)
    with pytest.raises(ValueError, match="'apple'"):
        Block.of_entity(Entity(kind="apple", name="a", position=(0.0, 0.0, 0.0)))


def test_a_box_ledge_too_high_to_jump_onto_is_bypassed_only_when_its_sides_are_taken_as_slopes():
    # 2.25 m above the field on a 0.5 m grid: its sides slope 77 degrees there, which a body
    # walks up; as the vertical faces of a box they stop every jump (1.95 m is missed).
    ledge = Block(centre=(0.0, -4.0), width_m=4.0, depth_m=5.0, top_m=1.0 + 2.25)
    world = with_blocks(_field(), [ledge])
    food = _apple_on(ledge)
    assert reaches(world, food, ALL, bypass=True)
    sheer = block_faces(world.ground.heightmap, [ledge])
    assert not reaches(world, food, ALL, bypass=True, sheer_triangles=sheer)
    assert not reaches(world, food, ALL, bypass=False, sheer_triangles=sheer)
    # A box 1.8 m high is jumped onto even with vertical sides (bypass limits).
    low = Block(centre=(0.0, -4.0), width_m=4.0, depth_m=5.0, top_m=1.0 + 1.8)
    low_world = with_blocks(_field(), [low])
    assert reaches(low_world, _apple_on(low), ALL, bypass=True, sheer_triangles=block_faces(low_world.ground.heightmap, [low]))


def test_a_step_at_the_ledges_foot_gives_a_route_that_jumps_twice():
    ledge = Block(centre=(0.0, -4.0), width_m=4.0, depth_m=5.0, top_m=1.0 + 2.25)
    step = Block(centre=(0.0, -4.0 + 2.5 + 0.05 + 0.66), width_m=1.44, depth_m=1.32, top_m=1.0 + 1.08)
    world = with_blocks(_field(), [ledge, step])
    food = _apple_on(ledge)
    certificate = certify(world, food, frozenset({"jump"}), ALL, sheer_triangles=block_faces(world.ground.heightmap, [ledge, step]))
    assert certificate.ok, certificate.reason
    jumps = [s.target for s in certificate.route.steps if s.skill == "jump"]
    assert len(jumps) == 2 and jumps[0][1] == pytest.approx(step.top_m) and jumps[1][1] == pytest.approx(ledge.top_m)
    assert math.dist(certificate.route.steps[-1].target, food.position) < 2.0


def test_bad_input_is_refused_by_name():
    flat = World(task="t", difficulty=0.0, seed=0, ground=FlatGround(size_m=20.0), entities=(), spawn_position=(0, 0, 0),
                 time_limit_frames=10)
    with pytest.raises(ValueError, match="a World on Terrain"):
        with_blocks(flat, [])
    with pytest.raises(ValueError, match="Block instances"):
        with_blocks(_field(), [(0.0, 0.0)])
    with pytest.raises(ValueError, match="width_m"):
        Block(centre=(0.0, 0.0), width_m=-1.0, depth_m=1.0, top_m=1.0)
    world = _field()
    with pytest.raises(ValueError, match="sheer_triangles"):
        reaches(world, (0.0, 1.1, -4.0), ALL, bypass=True, sheer_triangles=np.zeros((3, 3), dtype=bool))
    with pytest.raises(ValueError, match="skills"):
        reaches(world, (0.0, 1.1, -4.0), frozenset({"fly"}), bypass=True)


def test_a_refined_world_has_the_same_surface_on_a_finer_grid():
    rng = np.random.default_rng(0)
    climbable = np.zeros((POINTS, POINTS), dtype=bool)
    climbable[10, 20] = True
    world = terrain_world(rng.uniform(0.0, 3.0, (POINTS, POINTS)), SIZE_M, (0.0, 8.0), climbable=climbable)
    fine = refined(world, 2)
    coarse_map, fine_map = world.ground.heightmap, fine.ground.heightmap
    assert fine_map.shape == (2 * POINTS - 1, 2 * POINTS - 1) and fine_map.size_m == coarse_map.size_m
    assert np.array_equal(fine_map.heights[::2, ::2], coarse_map.heights)
    x, z = rng.uniform(-SIZE_M / 2, SIZE_M / 2, (2, 500))
    assert np.allclose(ground_height(fine_map, x, z), ground_height(coarse_map, x, z), atol=1e-5)
    # A hold is kept, and every new point beside it may be held (a bypass must not miss one).
    assert fine.ground.biome_map.climbable[20, 40] and fine.ground.biome_map.climbable[19:22, 39:42].all()
    assert fine.ground.biome_map.climbable.sum() == 9
    assert refined(world, 1) is world
    with pytest.raises(ValueError, match="factor"):
        refined(world, 0)
