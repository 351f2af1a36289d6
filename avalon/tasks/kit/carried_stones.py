"""Carry's variant of a staircase of stones (stack): every stone lies away from its place in it.

The base layout (stack's) holds ``world``, ``staircase`` (the
:class:`~avalon.tasks.kit.staircase.Staircase`) and ``certificate`` (the certificate it was
accepted with). Each stone lies at the drawn distance from its place in the staircase, in a
direction drawn among those where the ground round it varies little enough, on dry ground that
varies by at most ``STONE_RELIEF_M`` under it, clear of the plateau, the staircase, the other
stones and the spawn. Lengths are metres.
"""

from __future__ import annotations

import math
from typing import Any

import attr
import numpy as np
from scipy import ndimage

from avalon.datagen.world import Entity, World, tool_entity
from avalon.tasks.kit import ImpossibleWorldError, log, staircase
from avalon.tasks.kit.carrying import CORRIDOR_HALF_WIDTH_M, PLACE_ATTEMPTS, CarryVariant, Disc, ItemUse, walk_round_reasons
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.geometry import is_dry_land
from avalon.tasks.kit.sites import corridor_discs

#: A stone lies where the ground under its footprint varies by at most this (on the yard it is
#: level; beyond it, the gentle island's ground).
STONE_RELIEF_M = 0.15
#: Directions round its place a moved stone's is drawn among (those where the ground is level enough).
STONE_DIRECTIONS = 720
#: A moved stone keeps this far from water.
STONE_WATER_CLEARANCE_M = 1.5


def stone_uses(layout: Any) -> tuple[ItemUse, ...]:
    """Every stone, used where the base world has it (standing in the staircase at the base task's
    easiest); the agent walks to the staircase's foot."""
    foot = layout.staircase.foot_xz
    approach = (foot[0], layout.staircase.base_m, foot[1])
    stones = {entity.name: entity for entity in layout.world.entities if staircase.is_stone(entity)}
    return tuple(ItemUse(name=name, place=stones[name], approach=approach) for name in sorted(stones))


def relocate_stones(rng: np.random.Generator, layout: Any, uses: tuple[ItemUse, ...],
                    distance_band: tuple[float, float]) -> dict[str, Entity]:
    """Each stone at the drawn distance from its place, in a direction drawn among those where the
    ground varies little enough round it, on dry ground that varies by at most ``STONE_RELIEF_M``
    under it (it rests on its highest point, ``log.REST_CLEARANCE_M`` above it), clear of the
    plateau, the staircase, the other stones and the spawn; up to ``PLACE_ATTEMPTS`` draws each."""
    world, stair = layout.world, layout.staircase
    heightmap = world.ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    # The relief of the square round each grid point that holds a stone however it is turned: a
    # cheap screen of the directions (a stone 20 m out lies on natural ground, mostly too steep).
    side = int(math.ceil(staircase.STONE_WIDTH_M * math.sqrt(2.0) / heightmap.cell_size_m)) + 1
    heights = heightmap.heights.astype(np.float64)
    relief = ndimage.maximum_filter(heights, size=side) - ndimage.minimum_filter(heights, size=side)
    directions = np.linspace(-math.pi, math.pi, STONE_DIRECTIONS, endpoint=False)
    spawn = (world.spawn_position[0], world.spawn_position[2])
    reach = staircase.STONE_WIDTH_M / math.sqrt(2.0)
    apart = 2 * reach + staircase.STONE_CLEARANCE_M
    columns = [stair.column_xz(k) for k in range(stair.layers)]
    moved: dict[str, Entity] = {}
    for use in uses:
        place = (use.place.position[0], use.place.position[2])
        reason = "no place drawn"
        for _ in range(PLACE_ATTEMPTS):
            distance = float(rng.uniform(*distance_band))
            yaw = float(rng.uniform(-math.pi, math.pi))
            px, pz = place[0] + distance * np.cos(directions), place[1] + distance * np.sin(directions)
            fits = heightmap.contains(px, pz)
            fits[fits] = heightmap.sample(relief, px[fits], pz[fits]) <= STONE_RELIEF_M
            if not fits.any():
                reason = f"the ground {distance:.1f} m from {use.name}'s place varies too much everywhere"
                continue
            angle = float(rng.choice(directions[fits]))
            point = (place[0] + distance * math.cos(angle), place[1] + distance * math.sin(angle))
            margin = reach + 1.0
            if not (heightmap.contains(point[0] - margin, point[1] - margin) and
                    heightmap.contains(point[0] + margin, point[1] + margin)):
                reason = f"{use.name} at {point} would lie off the island"
                continue
            if max(abs(point[0] - stair.centre[0]), abs(point[1] - stair.centre[1])) < \
                    staircase.PLATEAU_HALF_SIDE_M + reach + staircase.STONE_CLEARANCE_M or \
                    any(math.dist(point, column) < apart for column in columns):
                reason = f"{use.name} at {point} would lie by the plateau or the staircase"
                continue
            others = [(e.position[0], e.position[2]) for e in moved.values()]
            if any(math.dist(point, other) < apart for other in others) or \
                    math.dist(point, spawn) < staircase.STONE_SPAWN_CLEARANCE_M:
                reason = f"{use.name} at {point} would lie by another stone or the spawn"
                continue
            if not is_dry_land(heightmap, *point, min_water_distance_m=STONE_WATER_CLEARANCE_M):
                reason = f"{use.name} at {point} would not lie on dry land"
                continue
            block = log.LogFootprint(centre=point, width_m=staircase.STONE_WIDTH_M, length_m=staircase.STONE_WIDTH_M,
                                     yaw_rad=yaw, top_m=0.0)
            inside = block.block().covers(x, z)
            heights = log.footprint_ground_m(heightmap, block, spacing_m=0.05)
            highest = max(float(heights.max()), float(heightmap.heights[inside].max()) if inside.any() else -np.inf)
            if highest - float(heights.min()) > STONE_RELIEF_M:
                reason = f"the ground under {use.name} at {point} varies by more than {STONE_RELIEF_M} m"
                continue
            # A few millimetres above its highest ground (as a log is put): the outline's samples
            # can miss a crest between them.
            bottom = highest + log.REST_CLEARANCE_M
            stone = tool_entity("stone", use.name, (point[0], bottom, point[1]), yaw_rad=yaw,
                                safe_scale=staircase.STONE_SCALE, mass=float(use.place.param("mass")))
            cramped = walk_round_reasons(world, stone)
            if cramped:
                reason = cramped[0]
                continue
            moved[use.name] = stone
            break
        else:
            raise ImpossibleWorldError(reason)
    return moved


def stones_corridor(layout: Any, moved: dict[str, Entity]) -> list[Disc]:
    """The ways from each stone straight to the staircase's foot."""
    foot = layout.staircase.foot_xz
    return [disc for stone in moved.values()
            for disc in corridor_discs((stone.position[0], stone.position[2]), foot, CORRIDOR_HALF_WIDTH_M)]


def certify_stones(world: World, layout: Any) -> Certificate:
    """The base world's certificate with its stones check (:func:`~avalon.tasks.kit.staircase.stones_suffice`)
    run again on ``world``: its two searches do not see loose stones, the bypass search ignores
    plants and the route search only meets fewer trunks where carry cleared plants, so they stand
    as the base world's (running them again cost about 1.7 s a world)."""
    why = staircase.stones_suffice(world, layout.staircase)
    base = layout.certificate
    if why is None:
        return base
    return attr.evolve(base, solvable=False, route=None, reason="; ".join(filter(None, [base.reason, why])))


#: The variant (stack's ``carry_variant``): second in carry's draw.
VARIANT = CarryVariant(draw_position=1, item_kinds=("stone",), uses=stone_uses, relocate=relocate_stones,
                       carry_corridor=stones_corridor, certify=certify_stones)
