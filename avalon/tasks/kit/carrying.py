"""Carry variants: a base task's world whose items lie away from where they are used.

The ``carry`` task takes the layout a base task's generator returns, asks the base task's
:class:`CarryVariant` which items move and where they are used (:class:`ItemUse`), has it lay them
out at a distance, clears the plants from their footprints and their way back, and certifies the
world. A task offers a variant by naming it in its spec (``TaskSpec.carry_variant``, a lazy
``"module:attribute"`` reference); the variants themselves live beside the geometry they move
(:mod:`~avalon.tasks.kit.carried_log`, :mod:`~avalon.tasks.kit.carried_stones`,
:mod:`~avalon.tasks.kit.carried_tools`) and import no task module.

This module holds what every variant shares: the variant's shape, the items' footprints, clearing
plants round them, and the checks of a moved item (:func:`walk_round_reasons`,
:func:`carry_reasons`). Lengths are metres, angles radians.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import attr
import numpy as np

from avalon.datagen.world import Entity, World
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.geometry import (
    component_labels,
    ground_height,
    triangle_centroids,
    triangle_index,
    walkable_grid,
)
from avalon.tasks.kit.log import LogFootprint
from avalon.tasks.kit.sight import OCCLUDER_PARTS

#: A keep-clear or keep-out disc: (x, z, radius).
Disc = tuple[float, float, float]

#: Places drawn for a moved item before the world is given up.
PLACE_ATTEMPTS = 60
#: Plants keep this far from a moved item's footprint (beyond their trunk's radius).
PLANT_CLEARANCE_M = 0.5
#: Keep-clear corridor from a moved item to where it is used (half width).
CORRIDOR_HALF_WIDTH_M = 1.0
#: Walking round a moved item, the centres of the walkable triangles the body crosses keep this
#: far from its footprint...
WALK_ROUND_CLEARANCE_M = mechanics.BODY_RADIUS_M + 0.1
#: ...to points this far beyond each end of it, on its axis (where the hand takes a log), within
#: this of its footprint (round it, not round the whole chasm).
BESIDE_END_M = WALK_ROUND_CLEARANCE_M + 0.5
WALK_ROUND_WINDOW_M = 3.0


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ItemUse:
    """One item a carry world moves: its entity's name, the item where it is used (the base task's
    solved place), and the ground point (x, y, z) the agent walks to to use it there."""

    name: str
    place: Entity
    approach: tuple[float, float, float]


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CarryVariant:
    """A task's variant in carry: how the items of its layout (what its generator returns) move.

    Every function takes the base task's layout as its generator returns it; none imports the
    base task's module."""

    #: Where the variant stands in carry's draw (0, 1, ...): a carry world draws
    #: ``rng.integers(count)`` and takes the variant at that position, so every carry world depends
    #: on these positions (bridge's 0, stack's 1, throw's 2, fight's 3). They must be distinct and
    #: run from 0; a new variant takes the next one, and changes every carry world (the draw's count).
    draw_position: int = attr.ib(validator=attr.validators.instance_of(int))
    #: Kinds of the items it moves (a carry world holding them all names its variant).
    item_kinds: tuple[str, ...]
    #: ``layout -> uses``: the items that move and where they are used.
    uses: Callable[[Any], tuple[ItemUse, ...]]
    #: ``(rng, layout, uses, distance band) -> {name: entity}``: the items laid out at a distance
    #: from their places (``ImpossibleWorldError`` when they do not fit).
    relocate: Callable[[np.random.Generator, Any, tuple[ItemUse, ...], tuple[float, float]], dict[str, Entity]]
    #: ``(layout, moved) -> discs``: keep-clear discs (x, z, radius) for the way the items are carried.
    carry_corridor: Callable[[Any, dict[str, Entity]], list[Disc]]
    #: ``(world, layout) -> Certificate``: the base task's certificate of the world as it is, its
    #: item halves with the items at their place of use. None: the base task's own certificate
    #: (``TaskSpec.certificate``), which reads the world alone.
    certify: Optional[Callable[[World, Any], Certificate]] = None
    #: ``world -> discs``: (x, z, radius) discs the walk from the spawn to each moved item keeps out
    #: of (a guarded world's predators' reach); none by default.
    keep_out: Callable[[World], list[Disc]] = lambda world: []


# --- footprints and plants ------------------------------------------------------------------------


def footprint(entity: Entity) -> LogFootprint:
    """The footprint (and top) of a tool or box entity lying flat."""
    if entity.kind == "box":
        width, height, length = (float(v) for v in entity.param("size"))
    else:
        scale = float(entity.param("safe_scale", 1.0) or 1.0)
        width, height, length = (v * scale for v in TOOL_SIZE_M[entity.kind])
    return LogFootprint(centre=(entity.position[0], entity.position[2]), width_m=width, length_m=length,
                        yaw_rad=entity.yaw_rad, top_m=entity.position[1] + height / 2.0)


def footprint_gap_m(a: LogFootprint, b: LogFootprint) -> float:
    """The smallest horizontal distance between two footprints (0 where they overlap): over points
    5 cm apart on each, measured in the other's frame."""
    gaps = []
    for one, other in ((a, b), (b, a)):
        points = one.points(0.05)
        across, along = other.local(points[:, 0], points[:, 1])
        gaps.append(float(np.hypot(np.maximum(np.abs(across) - other.width_m / 2.0, 0.0),
                                   np.maximum(np.abs(along) - other.length_m / 2.0, 0.0)).min()))
    return min(gaps)


def trunk_radius_m(plant) -> float:
    """The radius of a plant's trunk (its occluder parts standing on the ground)."""
    return max(radius for radius, base, _ in OCCLUDER_PARTS[plant.kind] if base == 0.0) * plant.scale


def clear_plants(world: World, discs: Sequence[Disc]) -> World:
    """``world`` without the plants whose trunk reaches into one of ``discs`` (x, z, radius)."""
    if not discs:
        return world
    centres = np.asarray([(x, z) for x, z, _ in discs])
    radii = np.asarray([r for _, _, r in discs])

    def clear(plant) -> bool:
        distance = np.hypot(centres[:, 0] - plant.position[0], centres[:, 1] - plant.position[2])
        return bool((distance >= radii + trunk_radius_m(plant)).all())

    return attr.evolve(world, scenery=tuple(plant for plant in world.scenery if clear(plant)))


def footprint_discs(entity: Entity) -> list[Disc]:
    """Discs covering an item's footprint and ``PLANT_CLEARANCE_M`` round it: one per square of its
    width along its length."""
    block = footprint(entity)
    count = max(1, int(math.ceil(block.length_m / block.width_m)))
    piece = block.length_m / count
    radius = math.hypot(block.width_m / 2.0, piece / 2.0) + PLANT_CLEARANCE_M
    ax, az = block.axis
    offsets = (np.arange(count) + 0.5) * piece - block.length_m / 2.0
    return [(block.centre[0] + t * ax, block.centre[1] + t * az, radius) for t in offsets]


def ground_point(world: World, xz: tuple[float, float]) -> tuple[float, float, float]:
    """(x, y, z) of the ground at ``xz``."""
    return (float(xz[0]), float(ground_height(world.ground.heightmap, xz[0], xz[1])), float(xz[1]))


# --- the checks of a moved item -------------------------------------------------------------------


def safe_spawn_component(world: World, keep_out: Sequence[Disc]) -> tuple[np.ndarray, int]:
    """Labels of the walkable triangles whose centres lie outside every ``keep_out`` disc (x, z,
    radius), and the label of the spawn's (-1 where the spawn is not on one)."""
    heightmap = world.ground.heightmap
    walkable = walkable_grid(heightmap)
    if keep_out:
        x, z = triangle_centroids(heightmap)
        for cx, cz, radius in keep_out:
            walkable = walkable & (np.hypot(x - cx, z - cz) >= radius)
    labels = component_labels(walkable)
    return labels, int(labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])])


def walk_round_reasons(world: World, item: Entity) -> list[str]:
    """Why the agent cannot walk round ``item`` from beside one end to beside the other
    (``BESIDE_END_M`` beyond them on its axis), or nothing: over walkable triangles whose centres
    lie ``WALK_ROUND_CLEARANCE_M`` to ``WALK_ROUND_WINDOW_M`` from its footprint (a long log on a
    narrow ledge may leave no way round it to its far end, but the long way round the chasm)."""
    heightmap = world.ground.heightmap
    walkable = walkable_grid(heightmap)
    block = footprint(item)
    x, z = triangle_centroids(heightmap)
    across, along = block.local(x, z)
    gap = np.hypot(np.maximum(np.abs(across) - block.width_m / 2.0, 0.0), np.maximum(np.abs(along) - block.length_m / 2.0, 0.0))
    room = walkable & (gap >= WALK_ROUND_CLEARANCE_M) & (gap <= WALK_ROUND_WINDOW_M)
    # Labelled on the rows and columns round the item only (a fine grid's whole island costs ~0.1 s).
    rows, cols = np.nonzero(room.any(axis=-1))
    if rows.size == 0:
        return [f"no walk round {item.name}: no walkable ground round it"]
    r0, c0 = rows.min(), cols.min()
    labels = component_labels(room[r0:rows.max() + 1, c0:cols.max() + 1])
    ax, az = block.axis
    ends = []
    for sign in (1.0, -1.0):
        end = block.end(sign)
        beside = (end[0] + sign * BESIDE_END_M * ax, end[1] + sign * BESIDE_END_M * az)
        if not heightmap.contains(*beside):
            ends.append(-1)
            continue
        row, col, k = triangle_index(heightmap, *beside)
        inside = 0 <= row - r0 < labels.shape[0] and 0 <= col - c0 < labels.shape[1]
        ends.append(labels[row - r0, col - c0, k] if inside else -1)
    if ends[0] < 0 or ends[0] != ends[1]:
        return [f"no walk round {item.name} from beside one end to beside the other"]
    return []


def carry_reasons(world: World, uses: tuple[ItemUse, ...], min_distance_m: float, keep_out: Sequence[Disc] = ()) -> list[str]:
    """Why the moved items of ``world`` break carry's guarantee (empty when they keep it): each is
    in the world, of its place's kind, at least ``min_distance_m`` from its place of use, on ground
    the spawn walks to (keeping out of the ``keep_out`` discs, x, z, radius), with room to walk
    round it to both its ends (:func:`walk_round_reasons`), and the agent walks from it to where
    it is used."""
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    safe, safe_start = safe_spawn_component(world, keep_out) if keep_out else (labels, start)
    entities = {entity.name: entity for entity in world.entities}
    reasons = []
    for use in uses:
        item = entities.get(use.name)
        if item is None or item.kind != use.place.kind:
            reasons.append(f"the world holds no {use.place.kind} named {use.name}")
            continue
        reasons.extend(walk_round_reasons(world, item))
        distance = math.hypot(item.position[0] - use.place.position[0], item.position[2] - use.place.position[2])
        if distance < min_distance_m - 1e-9:
            reasons.append(f"{use.name} lies {distance:.2f} m from where it is used: less than {min_distance_m:.2f} m")
        if start < 0 or labels[triangle_index(heightmap, item.position[0], item.position[2])] != start:
            reasons.append(f"{use.name} at ({item.position[0]:.2f}, {item.position[2]:.2f}) lies where the spawn does not walk to")
        elif keep_out and (safe_start < 0 or safe[triangle_index(heightmap, item.position[0], item.position[2])] != safe_start):
            reasons.append(f"{use.name} at ({item.position[0]:.2f}, {item.position[2]:.2f}) lies where the spawn does not "
                           "walk to out of the predators' reach")
        if labels[triangle_index(heightmap, use.approach[0], use.approach[2])] != \
                labels[triangle_index(heightmap, item.position[0], item.position[2])]:
            reasons.append(f"from {use.name} the agent does not walk to where it is used, {use.approach}")
    return reasons
