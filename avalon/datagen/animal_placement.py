"""Placing animals in a world: one entity per animal, scattered at random or clustered near food.

An animal is an :class:`~avalon.datagen.world.Entity` whose ``kind`` is a species of
:mod:`avalon.rules.animals`; its params override that species' behaviour for this instance
(``activation_radius_m``, ``hits_to_ko``, ...). Placement is deterministic for a given numpy
``Generator``. Air animals start at their flying height; ground animals never start in water.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from avalon.datagen.world import Entity, FlatGround, Vector3, World
from avalon.rules.animals import OVERRIDABLE, animal_spec, check_behaviour

#: Animals start at least this far from the agent's spawn point, so none is active at frame 0
#: unless a generator places it nearer on purpose (with ``animal_entity``).
MIN_SPAWN_DISTANCE_M = 10.0
#: Clustered animals are placed within this of a piece of food.
CLUSTER_RADIUS_M = 8.0
_MAX_TRIES = 200


def animal_entity(species: str, name: str, ground_position: Vector3, yaw_rad: float = 0.0, **overrides: object) -> Entity:
    """An animal of ``species`` standing on the ground at ``ground_position`` (flying its
    species' height above it for air animals), facing ``yaw_rad``; ``overrides`` change any
    behaviour property of ``avalon.rules.animals.OVERRIDABLE`` for this instance."""
    spec = animal_spec(species)
    params: dict[str, object] = {}
    for key, value in overrides.items():
        if key not in OVERRIDABLE:
            raise ValueError(f"{species} {name!r}: unknown animal property {key!r}; overridable: {sorted(OVERRIDABLE)}")
        kind = OVERRIDABLE[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is tuple and isinstance(value, list):
            value = tuple(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{species} {name!r}: {key} {value!r} must be a {kind.__name__}")
        params[key] = value
    check_behaviour(species, **params)
    x, y, z = (float(v) for v in ground_position)
    fly = float(params.get("fly_height_m", spec.fly_height_m)) if spec.domain == "air" else 0.0
    return Entity(kind=species, name=name, position=(x, y + fly + spec.size_m[1] / 2.0, z), yaw_rad=yaw_rad, params=params)


def _ground(world: World, x: float, z: float, species: str) -> float | None:
    """Ground height at (x, z), or None where the species cannot start (outside, or water)."""
    ground = world.ground
    if isinstance(ground, FlatGround):
        half = ground.size_m / 2.0 - 1.0
        return 0.0 if abs(x) <= half and abs(z) <= half else None
    heightmap = ground.heightmap
    spec = animal_spec(species)
    # The highest ground under its footprint (it drops onto a slope instead of starting inside it).
    reach = max(spec.size_m[0], spec.size_m[2]) / 2.0
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    xs = np.concatenate([[x], x + reach * np.cos(angles)])
    zs = np.concatenate([[z], z + reach * np.sin(angles)])
    if not bool(np.all(heightmap.contains(xs, zs))):
        return None
    heights = np.asarray(heightmap.height_at(xs, zs), dtype=float)
    if spec.domain != "air" and float(heights.min()) <= heightmap.water_height_m:
        return None
    return float(heights.max())


def place_animals(world: World, rng: np.random.Generator, species: Sequence[str], *, near_food: bool = False,
                  cluster_radius_m: float = CLUSTER_RADIUS_M, min_spawn_distance_m: float = MIN_SPAWN_DISTANCE_M,
                  name_prefix: str = "animal") -> World:
    """``world`` with one animal of each of ``species`` added, named ``<name_prefix>_<i>_<species>``.

    At random over the whole ground, or (``near_food``) each within ``cluster_radius_m`` of a
    randomly chosen piece of food; never within ``min_spawn_distance_m`` of the spawn point, never
    in water (ground animals). Raises ValueError when a species cannot be placed.
    """
    for value, label in ((cluster_radius_m, "cluster_radius_m"), (min_spawn_distance_m, "min_spawn_distance_m")):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{label} {value!r} must be a finite number >= 0")
    food = [entity.position for entity in world.food]
    if near_food and not food:
        raise ValueError("near_food=True but the world has no food to cluster animals around")
    half = world.ground.size_m / 2.0
    spawn = np.array(world.spawn_position)[[0, 2]]
    for index, name in enumerate(species):
        animal_spec(name)
        for _ in range(_MAX_TRIES):
            if near_food:
                centre = food[int(rng.integers(len(food)))]
                angle, radius = rng.uniform(0.0, 2.0 * math.pi), cluster_radius_m * math.sqrt(rng.uniform())
                x, z = centre[0] + radius * math.cos(angle), centre[2] + radius * math.sin(angle)
            else:
                x, z = rng.uniform(-half, half, 2)
            if math.hypot(x - spawn[0], z - spawn[1]) < min_spawn_distance_m:
                continue
            height = _ground(world, float(x), float(z), name)
            if height is not None:
                break
        else:
            raise ValueError(f"could not place a {name} in {_MAX_TRIES} tries (near_food={near_food})")
        yaw = float(rng.uniform(-math.pi, math.pi))
        world = world.add_animal(animal_entity(name, f"{name_prefix}_{index}_{name}", (float(x), height, float(z)), yaw))
    return world
