"""Shared helpers for the task tests: cached layouts (built exactly as ``build_world`` builds them),
a digest of a world's content, an independent terrain surface, and the guarantees every basic
outdoor task world must keep."""

from __future__ import annotations

import functools
import hashlib
import math

import numpy as np
import pytest

from avalon.datagen.biomes import Biome
from avalon.datagen.world import Terrain, World
from avalon.rules.foods import FOOD_RADIUS_M, HANGING_FOOD_CLEARANCE_M
from avalon.tasks import eat, move, with_retries
from avalon.tasks.kit.certificate import certify
from avalon.tasks.kit.geometry import component_labels, triangle_index, walkable_grid
from avalon.tasks.kit.sight import EYE_HEIGHT_M, scenery_occluders

LAYOUT_BUILDERS = {"eat": eat.build_layout, "move": move.build_layout}


@functools.lru_cache(maxsize=None)
def layout(task: str, difficulty: float, seed: int):
    """The task's layout for (difficulty, seed), with the same retries as ``build_world``."""
    builder = LAYOUT_BUILDERS[task]
    return with_retries(lambda rng: builder(rng, difficulty, None), task, difficulty, seed)


def world_digest(world: World) -> str:
    """SHA-256 over everything a world holds: heights, biomes, colours, entities, scenery, spawn, lighting."""
    sha = hashlib.sha256()
    if isinstance(world.ground, Terrain):
        sha.update(world.ground.biome_map.digest().encode())
        for outline in world.ground.ring_outlines:
            for array in (outline.angles_rad, outline.inner_radius_m, outline.outer_radius_m, outline.gap):
                sha.update(np.ascontiguousarray(array).tobytes())
    else:
        sha.update(repr(world.ground).encode())
    sha.update(repr(world.entities).encode())
    sha.update(repr([(s.kind.value, s.position, s.yaw_rad, s.scale, s.color) for s in world.scenery]).encode())
    sha.update(repr((world.spawn_position, world.spawn_yaw_rad, world.time_limit_frames, world.lighting)).encode())
    sha.update(repr((world.task, world.difficulty, world.seed)).encode())
    return sha.hexdigest()


def surface_height(heightmap, x: float, z: float) -> float:
    """The collider's surface height at (x, z), computed independently of the code under test: the
    plane through the three corners of the triangle that holds the point (cells are split along
    the diagonal from (row, col + 1) to (row + 1, col))."""
    cell = heightmap.cell_size_m
    half = heightmap.half_size_m
    last = heightmap.shape[0] - 2
    col = min(int((x + half) // cell), last)
    row = min(int((z + half) // cell), last)
    fx = (x + half) / cell - col
    fz = (z + half) / cell - row
    corners = [(row, col + 1), (row + 1, col), (row, col) if fx + fz <= 1 else (row + 1, col + 1)]
    a = np.array([[c * cell - half, r * cell - half, 1.0] for r, c in corners])
    b = np.array([float(heightmap.heights[r, c]) for r, c in corners])
    plane = np.linalg.solve(a, b)
    return float(plane @ np.array([x, z, 1.0]))


def terrain_hides(heightmap, eye, target, step_m: float = 0.05) -> bool:
    """Whether the ground rises above the straight segment anywhere between its ends (dense samples)."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    length = float(np.hypot(*(target - eye)[[0, 2]]))
    count = max(2, int(length / step_m))
    for t in np.arange(1, count) / count:
        point = eye + t * (target - eye)
        if surface_height(heightmap, point[0], point[2]) > point[1]:
            return True
    return False


def check_basic_guarantees(world: World) -> None:
    heightmap = world.ground.heightmap
    biomes = world.ground.biome_map
    water = heightmap.water_height_m
    sx, sy, sz = world.spawn_position

    # The spawn: feet on the surface, on dry land, not on a cliff, not inside a tree trunk.
    assert sy == pytest.approx(surface_height(heightmap, sx, sz), abs=1e-6)
    assert sy >= water + 0.05
    assert not biomes.biome_at(sx, sz).is_water and biomes.biome_at(sx, sz) is not Biome.UNCLIMBABLE_MOUNTAIN
    for plant in world.scenery:
        if plant.kind.is_tree:
            assert math.hypot(plant.position[0] - sx, plant.position[2] - sz) > 1.0

    assert world.food, "a basic task world holds food"
    eye = (sx, sy + EYE_HEIGHT_M, sz)
    occluders = scenery_occluders(world.scenery)
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, sx, sz)]
    assert start >= 0, "the spawn is on walkable ground"
    altars = [entity for entity in world.entities if entity.name == "altar"]
    for food in world.food:
        fx, fy, fz = food.position
        # Resting on the ground or on an altar's top (see check_altar_guarantees), on dry land; or
        # hanging in the fruit tree over dry land, its lowest point HANGING_FOOD_CLEARANCE_M above
        # the surface.
        radius = FOOD_RADIUS_M[food.kind]
        assert food.param("radius") == radius
        ground = surface_height(heightmap, fx, fz)
        if food.param("hanging"):
            assert fy == pytest.approx(ground + HANGING_FOOD_CLEARANCE_M + radius, abs=1e-6)
        else:
            rest = altars[0].position[1] + altars[0].param("size")[1] / 2 if altars else ground
            assert fy == pytest.approx(rest + radius, abs=1e-6)
        assert ground >= water + 0.05
        # Visible from the spawn's eye height once the agent turns towards it.
        assert not terrain_hides(heightmap, eye, food.position), f"terrain hides {food.name}"
        assert not occluders.blocking(eye, food.position).any(), f"a plant hides {food.name}"
        # Reachable on foot, and certified so: a walking route with margins a scripted agent can follow.
        assert labels[triangle_index(heightmap, fx, fz)] == start, f"{food.name} cannot be reached"
        certificate = certify(world, food, frozenset(), frozenset({"walk"}))
        assert certificate.ok and certificate.route.skills() <= {"walk"}, certificate.reason
