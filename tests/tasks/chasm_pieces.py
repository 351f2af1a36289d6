"""Helpers for the tests of the chasm pieces (jump, bridge, move) in constraints other than their
own task's: a raised island, a band round a point with the path coming in from a side, the piece
built into a draft of it, and a world assembled on that draft with the spawn at the crossing's
start and an apple at its end."""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.tasks.kit import assembly, chasm
from avalon.tasks.kit.geometry import XZ
from avalon.tasks.kit.obstacle import Constraint, Draft, Obstacle

#: No plants: the pieces' tests are about the terrain and the items.
BARE = assembly.OutdoorTaskConfig(scenery_density_scale=0.0)


def raised_island(seed: int, depth_m: float, points_per_m: float = 1.0) -> HeightMap:
    """A Medium island (128 m) raised for a chasm ``depth_m`` deep."""
    return chasm.dry_island(np.random.default_rng(seed), "medium", points_per_m, depth_m)


def band(centre: XZ, inner_m: float, outer_m: float, from_deg: float, inverted: bool) -> Constraint:
    """The band between ``inner_m`` and ``outer_m`` round ``centre``, the path crossing it along the
    direction ``from_deg`` (ring degrees) from the centre: in from beyond it, or (``inverted``, the
    goal outside) out from the centre."""
    angle = math.radians(from_deg)
    far = (centre[0] + (outer_m + 6.0) * math.cos(angle), centre[1] + (outer_m + 6.0) * math.sin(angle))
    path = (centre, far) if inverted else (far, centre)
    return Constraint(centre=centre, inner_radius_m=inner_m, outer_radius_m=outer_m, path=path, heights_inverted=inverted)


def built_piece(obstacle, island: HeightMap, constraint: Constraint, difficulty: float,
                seed: int = 0) -> tuple[Obstacle, assembly.Streams]:
    """The piece ``obstacle`` (a task's obstacle function) planned and built into a bare draft of
    ``island``, and the streams it drew from."""
    streams = assembly.split_streams(np.random.default_rng(seed))
    draft = Draft.of_island(island)
    return obstacle(draft, streams, difficulty, constraint).build(draft), streams


def assembled(piece: Obstacle, streams: assembly.Streams, difficulty: float) -> World:
    """A world on the piece's draft (biomes, no plants) with the piece's items, the spawn at its
    crossing's start facing its end, an apple at the end."""
    draft, crossing = piece.draft, piece.crossing
    biome_map = assembly.make_biomes(streams.biomes, draft.heightmap, BARE, draft.climbable, draft.unclimbable)
    items = piece.items(biome_map.heightmap)
    apple = assembly.FoodPlacement(kind="apple", x=crossing.end[0], z=crossing.end[1])
    outdoor = assembly.assemble_outdoor_world(
        streams, BARE, biome_map, task="piece", difficulty=difficulty, spawn=crossing.start, spawn_yaw_rad=0.0,
        foods=[apple], tree_site=None, keep_clear=draft.keep_clear, exclude_mask=draft.no_scenery,
        ring_outlines=draft.ring_outlines, food_in_sight=False, food_on_foot=False,
    )
    return attr.evolve(outdoor.world, entities=outdoor.world.entities + tuple(items))


def radius_m(constraint: Constraint, point: XZ) -> float:
    return math.dist(constraint.centre, point)


def unchanged_outside(island: HeightMap, piece: Obstacle, constraint: Constraint, margin_m: float) -> bool:
    """Whether the piece left the terrain as it was inside the band's inner radius and beyond its
    outer radius plus ``margin_m``."""
    x, z = np.meshgrid(island.x_coords_m - constraint.centre[0], island.z_coords_m - constraint.centre[1])
    radius = np.hypot(x, z)
    outside = (radius < constraint.inner_radius_m) | (radius > constraint.outer_radius_m + margin_m)
    return bool(np.array_equal(piece.draft.heightmap.heights[outside], island.heights[outside]))
