"""Checks of an obstacle piece built for a constraint that is not its task's own: a band round a
point of a plain island, the path coming in from a side the task never draws, in either direction
of heights. The piece is built into ``Draft.of_island``; a world is assembled from that draft with
the spawn at the crossing's start and an apple at its end, and certified with the crossing's
requirement."""

from __future__ import annotations

import math
from typing import Callable, Optional

import attr
import numpy as np

from avalon.datagen.world import Entity, World
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit import assembly
from avalon.tasks.kit.certificate import Certificate, certify
from avalon.tasks.kit.geometry import ground_height, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Draft, Obstacle
from avalon.tasks.kit.solved import Block

#: The plain test island: a 96 m square at 2 grid points per metre, no mountains, hills or pools,
#: gentle noise; high enough for pits and drops round a point near its middle.
ISLAND_SIZE_M = 96.0
ISLAND_POINTS_PER_M = 2.0


def plain_island(seed: int, land_height_m: float = 8.0, points_per_m: float = ISLAND_POINTS_PER_M):
    """A gentle island for pieces to stand on."""
    return assembly.build_island(np.random.default_rng(seed), ISLAND_SIZE_M, points_per_m, mountain_count=0,
                                 hill_count=0, pool_count=0, initial_noise_scale_m=0.5, land_height_m=land_height_m)


def band(centre, inner_m: float, outer_m: float, from_angle_deg: float, inverted: bool) -> Constraint:
    """A constraint round ``centre``: the path comes from ``from_angle_deg`` (seen from the centre)
    to the centre, or, inverted, leaves the centre that way."""
    far = outer_m + 6.0
    out = (centre[0] + far * math.cos(math.radians(from_angle_deg)), centre[1] + far * math.sin(math.radians(from_angle_deg)))
    path = (tuple(centre), out) if inverted else (out, tuple(centre))
    return Constraint(centre=centre, inner_radius_m=inner_m, outer_radius_m=outer_m, path=path, heights_inverted=inverted)


def build_piece(obstacle, island, constraint: Constraint, difficulty: float, seed: int) -> tuple[Obstacle, assembly.Streams]:
    """The piece of ``obstacle`` (a task's obstacle function) built for ``constraint`` on ``island``."""
    streams = assembly.split_streams(np.random.default_rng(seed))
    draft = Draft.of_island(island)
    return obstacle(draft, streams, difficulty, constraint).build(draft), streams


def _item_top_m(entities, x: float, z: float) -> Optional[float]:
    """The highest top of the items (boxes and tools) standing over (x, z), or None."""
    blocks = [Block.of_entity(e) for e in entities if e.kind == "box" or e.kind in TOOL_SIZE_M]
    tops = [block.top_m for block in blocks if block.covers(x, z)]
    return max(tops) if tops else None


def assembled_world(piece: Obstacle, streams: assembly.Streams, task: str, difficulty: float) -> World:
    """The world of the piece's draft: biomes, plants kept off what the piece asks, the spawn at the
    crossing's start facing its end, an apple at its end (on the ground, or on an item standing
    there), the piece's items on the eroded ground."""
    config = assembly.OutdoorTaskConfig()
    draft, crossing = piece.draft, piece.crossing
    biome_map = assembly.make_biomes(streams.biomes, draft.heightmap, config, draft.climbable, draft.unclimbable)
    items = piece.items(biome_map.heightmap)
    outdoor = assembly.assemble_outdoor_world(
        streams, config, biome_map, task=task, difficulty=difficulty, spawn=crossing.start,
        spawn_yaw_rad=yaw_towards(crossing.start, crossing.end), foods=(), tree_site=None,
        keep_clear=draft.keep_clear, exclude_mask=draft.no_scenery, ring_outlines=draft.ring_outlines,
        food_in_sight=False, food_on_foot=False)
    x, z = crossing.end
    top = _item_top_m(items, x, z)
    y = (float(ground_height(biome_map.heightmap, x, z)) if top is None else top) + FOOD_RADIUS_M["apple"]
    apple = Entity(kind="apple", name="food_0", position=(x, y, z), params={"radius": FOOD_RADIUS_M["apple"]})
    return attr.evolve(outdoor.world, entities=(apple, *items))


def certified(world: World, piece: Obstacle) -> Certificate:
    """``certify`` of the world's apple with the crossing's requirement."""
    need = piece.crossing.requirement
    return certify(world, world.food[0], need.skills, need.allowed, max_fall_m=need.max_fall_m,
                   bypass_max_fall_m=need.bypass_max_fall_m, keep_out=need.keep_out)


def assert_crossing_in_band(piece: Obstacle, constraint: Constraint, slack_m: float, off_path_deg: float) -> None:
    """The crossing's start and end lie within ``slack_m`` of the band, start on the side the path
    comes from (outside round the goal, inside round the start), within ``off_path_deg`` of the
    path's direction seen from the centre."""
    cx, cz = constraint.centre
    path_angle = constraint.path_angle_rad()
    radii = {}
    for name, point in (("start", piece.crossing.start), ("end", piece.crossing.end)):
        radius = math.hypot(point[0] - cx, point[1] - cz)
        assert constraint.inner_radius_m - slack_m <= radius <= constraint.outer_radius_m + slack_m, (name, radius)
        off = abs(math.degrees(math.remainder(math.atan2(point[1] - cz, point[0] - cx) - path_angle, 2 * math.pi)))
        assert off <= off_path_deg, (name, off)
        radii[name] = radius
    assert (radii["start"] < radii["end"]) == constraint.heights_inverted, radii


def assert_unchanged_beyond(piece: Obstacle, constraint: Constraint, margin_m: float,
                            changed: Callable[[np.ndarray, np.ndarray], np.ndarray] = lambda a, b: a != b) -> float:
    """No height changed farther than the band's outer radius plus ``margin_m`` from its centre;
    returns the farthest changed point's distance (metres)."""
    before, after = piece.draft.natural, piece.draft.heightmap
    x, z = np.meshgrid(before.x_coords_m, before.z_coords_m)
    r = np.hypot(x - constraint.centre[0], z - constraint.centre[1])
    moved = changed(before.heights.astype(np.float64), after.heights.astype(np.float64))
    assert moved.any()
    farthest = float(r[moved].max())
    assert farthest <= constraint.outer_radius_m + margin_m, farthest
    return farthest
