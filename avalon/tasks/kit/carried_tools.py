"""Carry's variants of worlds whose tools lie by the spawn: prey worlds (throw's rocks) and guarded
food (fight's sticks and rocks).

The tools the base task laid move together (:func:`relocate_tools`), each keeping its place in the
group and its yaw, by the drawn distance in a direction where each lands on ground no steeper than
a prey task lays its kind (``TOOL_MAX_SLOPE_DEG``: a rock rolls off a steeper triangle) that the
spawn walks to; in a guarded world outside every predator's reach, and reached from the spawn
without entering it (``CarryVariant.keep_out``). They are used where the base task laid them:
thrown at the prey (the agent walks to its start), swung or thrown at the predators guarding the
food (the agent walks to the food). Lengths are metres, angles radians.
"""

from __future__ import annotations

import math
from typing import Sequence

import attr
import numpy as np

from avalon.datagen.scenery import SceneryKind
from avalon.datagen.world import Entity, World
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.carrying import (
    CORRIDOR_HALF_WIDTH_M,
    PLACE_ATTEMPTS,
    CarryVariant,
    Disc,
    ItemUse,
    footprint_discs,
    ground_point,
    safe_spawn_component,
    trunk_radius_m,
    walk_round_reasons,
)
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.geometry import is_dry_land, triangle_index, triangle_slopes_deg
from avalon.tasks.kit.predators import GuardLayout, keep_out_discs
from avalon.tasks.kit.prey import TOOL_MAX_SLOPE_DEG, PreyLayout, footprint_top_m, prey_certificate, tool_reach_m
from avalon.tasks.kit.sites import corridor_discs

#: A moved tool keeps this far from the spawn, the food and every animal's start, and this far
#: from water.
TOOL_CLEARANCE_M = 2.0
TOOL_WATER_CLEARANCE_M = 1.0
#: Directions round their places the moved tools' are screened in (those where every tool lies on
#: gentle ground the spawn walks to are drawn from).
TOOL_DIRECTIONS = 180


def tool_place_problem(world: World, tool: Entity, slopes: np.ndarray, labels: np.ndarray, start: int,
                       keep_out: Sequence[Disc]) -> str:
    """Why ``tool`` cannot lie where it is, or nothing: it lies on dry land no steeper than prey
    tasks lay its kind (``TOOL_MAX_SLOPE_DEG``), ``TOOL_CLEARANCE_M`` from the spawn, the food and
    the animals, outside every ``keep_out`` disc and on ground the spawn walks to keeping out of
    them (``labels``, ``start``), with room to walk round it, and no fruit tree's trunk in its
    footprint's clearance."""
    heightmap = world.ground.heightmap
    x, z = tool.position[0], tool.position[2]
    if not bool(heightmap.contains(x, z)) or not is_dry_land(heightmap, x, z, min_water_distance_m=TOOL_WATER_CLEARANCE_M):
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would not lie on dry land"
    if slopes[triangle_index(heightmap, x, z)] > TOOL_MAX_SLOPE_DEG[tool.kind]:
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie on ground steeper than {TOOL_MAX_SLOPE_DEG[tool.kind]} degrees"
    others = [world.spawn_position] + [entity.position for entity in world.food + world.animals]
    if any(math.hypot(x - p[0], z - p[2]) < TOOL_CLEARANCE_M for p in others):
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie by the spawn, the food or an animal"
    if any(math.hypot(x - cx, z - cz) < radius for cx, cz, radius in keep_out):
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie within a predator's reach"
    if start < 0 or labels[triangle_index(heightmap, x, z)] != start:
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie where the spawn does not walk to out of the predators' reach"
    fruit_trees = [plant for plant in world.scenery if plant.kind == SceneryKind.FRUIT_TREE]
    if any(math.hypot(cx - plant.position[0], cz - plant.position[2]) < radius + trunk_radius_m(plant)
           for cx, cz, radius in footprint_discs(tool) for plant in fruit_trees):
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie by the fruit tree"
    cramped = walk_round_reasons(world, tool)
    return cramped[0] if cramped else ""


def relocate_tools(rng: np.random.Generator, world: World, uses: tuple[ItemUse, ...], distance_band: tuple[float, float],
                   keep_out: Sequence[Disc]) -> dict[str, Entity]:
    """The tools of ``uses`` moved together (each keeps its place in the group and its yaw) by a
    distance drawn from ``distance_band`` in a direction drawn among those (of ``TOOL_DIRECTIONS``)
    where each lies on gentle ground the spawn walks to, each resting on the highest ground under
    its footprint, where :func:`tool_place_problem` finds nothing against it; up to
    ``PLACE_ATTEMPTS`` draws."""
    heightmap = world.ground.heightmap
    slopes = triangle_slopes_deg(heightmap)
    labels, start = safe_spawn_component(world, keep_out)

    def gentle(x: float, z: float, kind: str) -> bool:
        # The cheap screen of a direction: on the island, gentle enough, the spawn walks there.
        if not bool(heightmap.contains(x, z)):
            return False
        index = triangle_index(heightmap, x, z)
        return bool(slopes[index] <= TOOL_MAX_SLOPE_DEG[kind] and labels[index] == start >= 0)

    reason = "no place drawn"
    for _ in range(PLACE_ATTEMPTS):
        distance = float(rng.uniform(*distance_band))
        turn = float(rng.uniform(0.0, 2.0 * math.pi / TOOL_DIRECTIONS))
        directions = [turn + 2.0 * math.pi * k / TOOL_DIRECTIONS for k in range(TOOL_DIRECTIONS)]
        fits = [angle for angle in directions
                if all(gentle(use.place.position[0] + distance * math.cos(angle),
                              use.place.position[2] + distance * math.sin(angle), use.place.kind) for use in uses)]
        if not fits:
            reason = f"no direction {distance:.1f} m from the tools' places keeps every one on gentle ground the spawn walks to"
            continue
        angle = float(fits[int(rng.integers(len(fits)))])
        dx, dz = distance * math.cos(angle), distance * math.sin(angle)
        moved: dict[str, Entity] = {}
        for use in uses:
            x, z = use.place.position[0] + dx, use.place.position[2] + dz
            y = footprint_top_m(heightmap, x, z, tool_reach_m(use.place.kind)) if heightmap.contains(x, z) else 0.0
            tool = attr.evolve(use.place, position=(x, y, z))
            reason = tool_place_problem(world, tool, slopes, labels, start, keep_out)
            if reason:
                break
            moved[use.name] = tool
        else:
            return moved
    raise ImpossibleWorldError(reason)


def _group_centre(moved: dict[str, Entity]) -> tuple[float, float]:
    return (float(np.mean([t.position[0] for t in moved.values()])), float(np.mean([t.position[2] for t in moved.values()])))


# --- prey worlds (throw) --------------------------------------------------------------------------


def prey_tool_uses(layout: PreyLayout) -> tuple[ItemUse, ...]:
    """The rocks: each is used where the prey task laid it, thrown from there at the prey (the
    agent walks to the prey's start)."""
    approach = ground_point(layout.world, layout.prey_sites[0])
    return tuple(ItemUse(name=rock.name, place=rock, approach=approach) for rock in layout.tools)


def relocate_prey_tools(rng: np.random.Generator, layout: PreyLayout, uses: tuple[ItemUse, ...],
                        distance_band: tuple[float, float]) -> dict[str, Entity]:
    return relocate_tools(rng, layout.world, uses, distance_band, keep_out=[])


def prey_tools_corridor(layout: PreyLayout, moved: dict[str, Entity]) -> list[Disc]:
    """The ways from the spawn to the rocks and from the rocks to the prey, clear of plants."""
    spawn = (layout.world.spawn_position[0], layout.world.spawn_position[2])
    centre = _group_centre(moved)
    return corridor_discs(spawn, centre, CORRIDOR_HALF_WIDTH_M) + corridor_discs(centre, layout.prey_sites[0],
                                                                                 CORRIDOR_HALF_WIDTH_M)


def certify_prey_tools(world: World, layout: PreyLayout) -> Certificate:
    """The prey certificate with the base world's tools and prey (the base task's own certificate
    would count the tools of the carry world's difficulty)."""
    return prey_certificate(world, tuple(tool.kind for tool in layout.tools), len(layout.prey))


#: Throw's ``carry_variant``: third in carry's draw.
PREY_VARIANT = CarryVariant(draw_position=2, item_kinds=("rock",), uses=prey_tool_uses, relocate=relocate_prey_tools,
                            carry_corridor=prey_tools_corridor, certify=certify_prey_tools)


# --- guarded food (fight) -------------------------------------------------------------------------


def guard_tool_uses(layout: GuardLayout) -> tuple[ItemUse, ...]:
    """The sticks and rocks: each is used where the task laid it, by the spawn, on the predators
    guarding the food (the agent walks to the food)."""
    food = layout.food.position
    approach = ground_point(layout.world, (food[0], food[2]))
    return tuple(ItemUse(name=tool.name, place=tool, approach=approach) for tool in layout.tools)


def relocate_guard_tools(rng: np.random.Generator, layout: GuardLayout, uses: tuple[ItemUse, ...],
                         distance_band: tuple[float, float]) -> dict[str, Entity]:
    return relocate_tools(rng, layout.world, uses, distance_band, keep_out=keep_out_discs(layout.world))


def no_corridor(layout: GuardLayout, moved: dict[str, Entity]) -> list[Disc]:
    """No corridor: a way cleared towards the food could take its fruit tree (the tools' own
    footprints are cleared, away from it)."""
    return []


#: Fight's ``carry_variant``: fourth in carry's draw; the base task's own certificate (which reads
#: the world alone) certifies it.
GUARD_VARIANT = CarryVariant(draw_position=3, item_kinds=("rock", "stick"), uses=guard_tool_uses,
                             relocate=relocate_guard_tools, carry_corridor=no_corridor, keep_out=keep_out_discs)
