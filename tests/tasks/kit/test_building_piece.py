"""The building as an obstacle piece: placed round the goal on an island's draft, its goal room
holds the constraint's centre, its entrance faces the path, a door faces the agent in the entrance
and in every doorway on the way in, the site is levelled, and the building and its doors stand in
a world that exports."""

from __future__ import annotations

import math

import numpy as np
import pytest

from avalon.datagen.biomes import assign_biomes
from avalon.datagen.buildings import add_building
from avalon.datagen.export import export_world
from avalon.datagen.world import Terrain, World
from avalon.tasks.kit import ImpossibleWorldError, indoor
from avalon.tasks.kit.assembly import build_island, split_streams
from avalon.tasks.kit.building_piece import building_obstacle
from avalon.tasks.kit.obstacle import Constraint, Draft


def _piece(difficulty: float, seed: int, angle: float = 0.3, outer: float = 24.0):
    island = build_island(np.random.default_rng(seed), "small", 1.0)
    draft = Draft.of_island(island)
    constraint = Constraint.round_goal((0.0, 0.0), 3.0, outer, angle)
    plan = building_obstacle(draft, split_streams(np.random.default_rng(seed)), difficulty, constraint)
    return constraint, plan.build(draft)


@pytest.mark.parametrize("difficulty", [0.0, 0.5, 1.0])
def test_the_goal_lies_in_the_goal_room_behind_doors_that_face_the_agent(difficulty):
    for seed in range(3):
        constraint, obstacle = _piece(difficulty, seed)
        piece = obstacle.detail
        building = piece.building
        tile = building.tile_at(*constraint.centre)
        assert int(building.room_ids(0)[tile]) == piece.goal_room
        doors = obstacle.items(obstacle.draft.heightmap)
        assert len(doors) == len(piece.route_doorways) >= 1
        assert building.doorways[piece.route_doorways[0][0]].is_entrance
        for door, (k, entered_from) in zip(doors, piece.route_doorways):
            assert indoor.door_problem(building, door, k, entered_from) is None
        # The entrance faces the path: its outside stand point is nearer the path's start than the goal is.
        start = np.array(obstacle.crossing.start)
        assert np.linalg.norm(start - constraint.path[0]) < np.linalg.norm(np.subtract(constraint.centre, constraint.path[0]))
        assert obstacle.crossing.end == constraint.centre and piece.route[-1].target[::2] == constraint.centre
        # The site is level under the footprint, at the building's height.
        heightmap = obstacle.draft.heightmap
        width, length = building.size_m
        xs, zs = heightmap.x_coords_m, heightmap.z_coords_m
        inside = np.ix_((zs >= building.origin[2]) & (zs <= building.origin[2] + length),
                        (xs >= building.origin[0]) & (xs <= building.origin[0] + width))
        assert np.allclose(heightmap.heights[inside], building.origin[1])


def test_a_band_too_narrow_for_the_building_is_refused_naming_why():
    with pytest.raises(ImpossibleWorldError, match="beyond the band"):
        _piece(0.0, 0, outer=6.0)


def test_the_building_and_its_doors_make_a_world_that_exports(tmp_path):
    constraint, obstacle = _piece(0.5, 1)
    terrain = Terrain(biome_map=assign_biomes(np.random.default_rng(0), obstacle.draft.heightmap))
    world = World(task="open", difficulty=0.5, seed=1, ground=terrain, entities=obstacle.items(obstacle.draft.heightmap),
                  spawn_position=(obstacle.crossing.start[0], obstacle.draft.heightmap.heights.max(), obstacle.crossing.start[1]),
                  time_limit_frames=100)
    world = add_building(world, obstacle.detail.building)
    folder = export_world(world, tmp_path / "piece")
    assert (folder / "buildings.bin").is_file()
    assert math.isclose(world.buildings[0].origin[1], obstacle.detail.building.origin[1])
