"""The open task: over many seeds and difficulties, the spawn and the food in different rooms of a
one-story building, a door in every doorway between rooms facing the side nearer the spawn, the
walk-through door at d = 0, harder doors and more rooms with difficulty, the certificate (checked
here against the building's tile graph, independently of the generator), and golden worlds."""

from __future__ import annotations

import functools
from collections import deque

import attr
import numpy as np
import pytest

from avalon.datagen.buildings import TileKind
from avalon.tasks import build_world, open as open_task, with_retries
from avalon.tasks.kit import indoor
from tests.tasks.helpers import world_digest

DIFFICULTIES = (0.0, 0.25, 0.5, 0.75, 1.0)
SEEDS = range(6)
CASES = [(d, seed) for d in DIFFICULTIES for seed in SEEDS]

GOLDEN = {
    (0.0, 3): "58b3976804467d11404d7e9f2bfc83eb2839bf3a8c9b8e293ebe1bc7865b530e",
    (0.5, 3): "bc473e90f3d5e936cb5e8ad93e296c4f8cad0fdcde97e1b350f3ee65fe9a5107",
    (1.0, 3): "56c5ad26ce4e288f38ec93fae8a172f9fa3c5f944cf2156e865a737fccfdc364",
}


@functools.lru_cache(maxsize=None)
def _layout(difficulty: float, seed: int) -> open_task.OpenLayout:
    return with_retries(lambda rng: open_task.build_layout(rng, difficulty, None), "open", difficulty, seed)


def _doors(world):
    return [entity for entity in world.entities if entity.kind == "door"]


def _tiles_reached(building, start_tile, passable_doorways) -> set:
    """Floor tiles reached from ``start_tile`` over room tiles and the tiles of the given doorways."""
    kinds = building.stories[0].kinds
    open_tiles = {tile for k in passable_doorways for tile in building.doorways[k].rect.tiles()}
    seen, queue = {start_tile}, deque([start_tile])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (nr, nc) in seen or not (0 <= nr < kinds.shape[0] and 0 <= nc < kinds.shape[1]):
                continue
            if kinds[nr, nc] == TileKind.ROOM or (nr, nc) in open_tiles:
                seen.add((nr, nc))
                queue.append((nr, nc))
    return seen


@pytest.mark.parametrize("difficulty, seed", CASES)
def test_the_doors_stand_between_the_spawn_and_the_food(difficulty, seed):
    layout = _layout(difficulty, seed)
    world, building = layout.world, layout.building
    spawn_tile = building.tile_at(world.spawn_position[0], world.spawn_position[2])
    food_tile = building.tile_at(world.food[0].position[0], world.food[0].position[2])
    assert spawn_tile and food_tile and layout.spawn_room != layout.food_room
    interior = indoor.interior_doorways(building)
    assert len(_doors(world)) == len(interior) >= 1
    # With every doorway open the food's tile is reached over the floor; with the doors shut it is not.
    assert food_tile in _tiles_reached(building, spawn_tile, interior)
    assert food_tile not in _tiles_reached(building, spawn_tile, [])
    certificate = open_task.certificate(world)
    assert certificate.ok, certificate.reason
    # Each door on the way faces the room the agent arrives from: its front stand point is nearer the spawn.
    for k, entered_from in layout.route_doorways:
        door = indoor.doors_by_doorway(world, building)[k]
        front = np.array([np.sin(door.yaw_rad), np.cos(door.yaw_rad)])
        point = np.array([door.position[0], door.position[2]]) + 1.5 * front
        assert building.room_ids(0)[building.tile_at(*point)] == entered_from


def test_the_first_difficulty_has_only_walk_through_doors_and_harder_ones_more_rooms_and_locks():
    easy = [door for seed in SEEDS for door in _doors(_layout(0.0, seed).world)]
    assert {(d.param("mechanism"), d.param("latch"), tuple(d.param("locks"))) for d in easy} == {("hinged_both", "none", ())}
    hard = [_layout(1.0, seed) for seed in SEEDS]
    assert np.mean([len(layout.building.stories[0].rooms) for layout in hard]) > 3.5
    hard_doors = [door for layout in hard for door in _doors(layout.world)]
    assert np.mean([len(door.param("locks")) for door in hard_doors]) > 1.0
    assert {door.param("mechanism") for door in hard_doors} & {"sliding", "hinged_pull"}


def test_a_door_turned_the_wrong_way_or_missing_breaks_the_certificate():
    world = _layout(0.5, 1).world
    door = _doors(world)[0]
    turned = attr.evolve(world, entities=[attr.evolve(e, yaw_rad=e.yaw_rad + np.pi) if e is door else e
                                          for e in world.entities])
    assert not open_task.certificate(turned).ok
    removed = attr.evolve(world, entities=[e for e in world.entities if e is not door])
    certificate = open_task.certificate(removed)
    assert not certificate.ok and ("no door" in certificate.reason or "every door closed" in certificate.reason)


@pytest.mark.parametrize("difficulty, seed", sorted(GOLDEN))
def test_golden_worlds_do_not_change_by_accident(difficulty, seed):
    assert world_digest(build_world("open", difficulty, seed)) == GOLDEN[(difficulty, seed)]
