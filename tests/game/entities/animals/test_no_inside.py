"""Animals whose rule says they never go inside (the paper's Tables 3-4: hippo, bear;
``AnimalSpec.no_inside``) never step into a building's footprint, in the real simulator: a bear
chasing the agent, who stands inside a building in line with its entrance, stops outside, its
reach clear of the footprint; the same bear told it may go inside (the override) walks in through
the entrance to the agent. The footprint is the one the simulator takes from ``buildings.bin``
(``world/buildings.gd``), handed to the animal's native body at load."""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.biomes import Biome, BiomeMap
from avalon.datagen.buildings import BuildingAppearance, BuildingConfig, add_building, generate_building
from avalon.datagen.export import export_world
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Terrain, World
from avalon.rules import animals
from tests.game.entities.animals.test_animals import Run

pytestmark = [pytest.mark.godot, pytest.mark.slow]

#: A one-room building 10 x 10 tiles, its entrance 3 m wide on the south side (+z).
CONFIG = BuildingConfig(width_tiles=10, length_tiles=10, story_count=1, max_rooms=1, entrance_side="south",
                        windows=False, appearance=BuildingAppearance(hallway_width_tiles=3))
ORIGIN = (-5.0, 0.0, -15.0)


def _flat_terrain() -> Terrain:
    """A flat island 60 m square (grid points every 0.5 m) well above its water: animals step on
    its surface (native), not by physics, away from static obstacles (trunks; a building's walls
    are not among them)."""
    points = 121
    heightmap = HeightMap(heights=np.zeros((points, points)), size_m=60.0, water_height_m=-2.0)
    biome_map = BiomeMap(biome_ids=np.full((points, points), int(Biome.GRASSLAND)), climbable=np.zeros((points, points), bool),
                         colors=np.full((points, points, 3), 0.5), heightmap=heightmap)
    return Terrain(biome_map=biome_map)


def _building_world(species: str, **overrides):
    building = generate_building(CONFIG, 0, origin=ORIGIN)
    x, y, z = building.entrance.position
    # The agent 4 m inside, the animal 5 m outside, both in line with the entrance.
    animal = animal_entity(species, "a", (x, 0.0, z + 5.0), yaw_rad=0.0, **overrides)
    world = World(task="animals", difficulty=0.0, seed=0, ground=_flat_terrain(), entities=(animal,),
                  spawn_position=(x, y, z - 4.0), spawn_yaw_rad=0.0, time_limit_frames=5000)
    return add_building(world, building), building


def _chase(sim, tmp_path, name, species, **overrides):
    world, building = _building_world(species, **overrides)
    run = Run(sim, str(export_world(world, tmp_path / name)))
    positions = []
    for _ in range(80):
        run.step()
        positions.append(run.animal()[0])
    return run, building, np.array(positions)


def _depth_inside_m(building, points) -> np.ndarray:
    """How far each point (x, z) lies inside the footprint's rectangle (negative: outside), metres."""
    width, length = building.size_m
    x0, _, z0 = building.origin
    inside_x = np.minimum(points[:, 0] - x0, x0 + width - points[:, 0])
    inside_z = np.minimum(points[:, 2] - z0, z0 + length - points[:, 2])
    return np.minimum(inside_x, inside_z)


def test_a_bear_chasing_the_agent_stays_out_of_the_building_and_one_allowed_inside_walks_in(sim, tmp_path):
    spec = animals.ANIMALS["bear"]
    assert spec.no_inside and animals.ANIMALS["hippo"].no_inside
    run, building, positions = _chase(sim, tmp_path, "bear", "bear")
    assert run.state() == animals.STATE_ACTIVE
    # Its centre stays a reach (half its longest side) outside the footprint...
    reach = max(spec.size_m[0], spec.size_m[2]) / 2
    assert _depth_inside_m(building, positions).max() <= -reach + 0.05
    # ...having come up to it: it chased as far as the rule lets it.
    assert _depth_inside_m(building, positions[-1:])[0] > -reach - 0.6
    allowed, _, inside = _chase(sim, tmp_path, "bear-allowed", "bear", no_inside=False)
    assert allowed.state() == animals.STATE_ACTIVE
    assert _depth_inside_m(building, inside).max() > 1.5 and allowed.distance() < 2.5
    assert math.isfinite(allowed.distance())


def test_the_hippo_keeps_out_too(sim, tmp_path):
    spec = animals.ANIMALS["hippo"]
    run, building, positions = _chase(sim, tmp_path, "hippo", "hippo")
    reach = max(spec.size_m[0], spec.size_m[2]) / 2
    assert _depth_inside_m(building, positions).max() <= -reach + 0.05
    assert attr.has(type(spec))
