"""The animal benchmark's worlds: a Small ``eat`` island without animals, and the same island with
ten animals kept active around the spawn (``avalon benchmark animals``; the golden animal
trajectories in ``tests/game/entities/animals/test_animals.py``).

The ten (7 predators, 3 prey) stand 5-10 m around the spawn; their attacks do no damage (so the
episode goes on) and only a knock-out deactivates them, so every step each one chases or flees,
checks its attack and sight conditions and moves.
"""

from __future__ import annotations

import math

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.world import World
from avalon.tasks import build_world, task_for
from avalon.tasks.kit.assembly import OutdoorTaskConfig

ANIMALS = ("wolf", "bear", "hippo", "alligator", "jaguar", "hawk", "eagle", "rabbit", "deer", "squirrel")


def animal_bench_worlds(seed: int) -> tuple[World, World]:
    """The island without animals, and with the 10 animals around its spawn."""
    plain = build_world(task_for("first"), 0.5, seed, OutdoorTaskConfig(world_size="small"))
    heightmap = plain.ground.heightmap
    sx, _, sz = plain.spawn_position
    with_animals = plain
    placed = 0
    for k in range(200):
        if placed == len(ANIMALS):
            break
        angle = 2.0 * math.pi * k / 10.0 + 0.37 * (k // 10)
        radius = 5.0 + (k % 6)
        x, z = sx + radius * math.cos(angle), sz + radius * math.sin(angle)
        if not heightmap.contains(x, z) or float(heightmap.height_at(x, z)) <= heightmap.water_height_m + 0.1:
            continue
        species = ANIMALS[placed]
        animal = animal_entity(species, f"bench_{placed}_{species}", (x, float(heightmap.height_at(x, z)) + 0.5, z),
                               attack_damage=0.0, deactivation=("ko",))
        with_animals = with_animals.add_animal(animal)
        placed += 1
    if placed < len(ANIMALS):
        raise RuntimeError(f"could only place {placed} animals near the spawn of seed {seed}")
    return plain, with_animals
