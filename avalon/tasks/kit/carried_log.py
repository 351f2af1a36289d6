"""Carry's variant of a chasm bridged by a log (bridge): the log lies along the ring beyond the chasm.

The base layout (bridge's) holds ``world``, ``chasm`` (the :class:`~avalon.tasks.kit.chasm.ChasmRing`)
and ``solved_log`` (the log laid across the trench). The log moves along the ring of levelled
ground beyond the chasm on the spawn's side, where a bridge world lays a log that is not in place
(its axis ``LOG_BEYOND_CHASM_M`` beyond the chasm's noisy edge), at the first place round the ring
at least the drawn distance from the solved log; the piers stay at the stretch and show where it
goes. It lies only where the ground under it is level, clear of the spawn and the food, not hiding
the food, with room to walk round it, and where the way round the ring to the trench is level for
a log held out ahead (:func:`carry_sweep_rise_m`). Lengths are metres.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from avalon.datagen.world import Entity, World
from avalon.tasks.kit import ImpossibleWorldError, log
from avalon.tasks.kit.carrying import PLACE_ATTEMPTS, CarryVariant, Disc, ItemUse, footprint_gap_m, walk_round_reasons
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.chasm import ChasmRing
from avalon.tasks.kit.geometry import ground_height

#: A log carried round the ring (at its own distance from the chasm's centre, held out ahead
#: along the ring's tangent, the way it goes) sweeps ground that rises at most this above the
#: ground where it lay (a held log's far end is about 0.2 m above the ground; ground rising beyond
#: the levelled disc catches it and the hand loses it).
CARRY_SWEEP_RISE_M = 0.15
#: ...sampled every this many degrees of the ring, and every this many metres along the log.
CARRY_SWEEP_STEP_DEG = 2.0
CARRY_SWEEP_SPACING_M = 0.5
#: Places round the ring a log is tried at, every this many degrees from the stretch.
RING_STEP_DEG = 0.25


def log_uses(layout: Any) -> tuple[ItemUse, ...]:
    """The world's log, used across the trench where ``layout.solved_log`` lies; the agent walks to
    the first step of the crossing over it."""
    the_log = next(entity for entity in layout.world.entities if entity.kind == "log")
    food = layout.world.food[0].position
    first = log.crossing_steps(layout.world.ground.heightmap, layout.solved_log, (food[0], food[2]))[0]
    return (ItemUse(name=the_log.name, place=layout.solved_log, approach=tuple(float(v) for v in first.target)),)


def _ring_yaw(angle_rad: float) -> float:
    """The entity yaw whose axis (sin yaw, cos yaw) runs along the ring at direction ``angle_rad``
    from its centre (the tangent)."""
    return math.atan2(math.sin(angle_rad), -math.cos(angle_rad))


def relocate_log(rng: np.random.Generator, layout: Any, uses: tuple[ItemUse, ...],
                 distance_band: tuple[float, float]) -> dict[str, Entity]:
    """The log along the ring beyond the chasm (as bridge lays a log not in place: its axis
    ``LOG_BEYOND_CHASM_M`` beyond the chasm's noisy edge), at the drawn distance from the solved
    log, either way round (drawn); up to ``PLACE_ATTEMPTS`` draws."""
    (use,) = uses
    world, chasm = layout.world, layout.chasm
    heightmap = world.ground.heightmap
    outline = world.ground.ring_outlines[0]
    centre = np.asarray(chasm.centre)
    stretch = math.radians(chasm.stretch_angle_deg)
    solved = np.asarray(log.log_footprint(layout.solved_log).centre)
    spawn = (world.spawn_position[0], world.spawn_position[2])
    food = (world.food[0].position[0], world.food[0].position[2])
    length = log.LOG_SIZE_M[2]

    def edge(angle):
        return np.interp(angle, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi)

    turns = np.radians(np.arange(0.0, 180.0, RING_STEP_DEG))
    reason = "no place drawn"
    for _ in range(PLACE_ATTEMPTS):
        distance = float(rng.uniform(*distance_band))
        side = 1.0 if rng.uniform() < 0.5 else -1.0
        angles = stretch + side * turns
        # The noisy edge where the log lies, the whole log's length either side (as bridge does).
        radii = np.max([edge(angles + k * length / (2 * chasm.width_m)) for k in (-1, 0, 1)], axis=0) + \
            chasm.width_m + log.LOG_BEYOND_CHASM_M
        points = centre + radii[:, None] * np.column_stack([np.cos(angles), np.sin(angles)])
        far = np.nonzero(np.hypot(*(points - solved).T) >= distance)[0]
        if far.size == 0:
            reason = f"no place on the ring lies {distance:.1f} m from the solved log"
            continue
        k = int(far[0])
        moved = log.resting_log(heightmap, tuple(points[k]), _ring_yaw(float(angles[k])), name=use.name)
        block = log.log_footprint(moved)
        heights = log.footprint_ground_m(heightmap, block)
        if heights.max() - heights.min() > log.REST_TOLERANCE_M:
            reason = f"the ground under the log at {moved.position} is not level"
            continue
        near = [name for name, point in (("spawn", spawn), ("food", food))
                if footprint_gap_m(block, log.LogFootprint(centre=point, width_m=0.01, length_m=0.01, yaw_rad=0.0,
                                                          top_m=0.0)) < log.LOG_CLEARANCE_M]
        if near:
            reason = f"the log at {moved.position} would lie by the {near[0]}"
            continue
        if log.log_hides(heightmap, block, spawn, food):
            reason = f"the log at {moved.position} would hide the food from the spawn"
            continue
        cramped = walk_round_reasons(world, moved)
        if cramped:
            reason = cramped[0]
            continue
        rise = carry_sweep_rise_m(heightmap, chasm, moved)
        if rise > CARRY_SWEEP_RISE_M:
            reason = f"the ground the log at {moved.position} sweeps carried round the ring rises {rise:.2f} m"
            continue
        return {use.name: moved}
    raise ImpossibleWorldError(reason)


def carry_sweep_rise_m(heightmap, chasm: ChasmRing, item: Entity) -> float:
    """How far the ground rises above where the log ``item`` lies under it carried round the ring
    to the bridgeable stretch: at the log's distance from the centre, its near end at the body,
    held out ahead along the ring's tangent (a held log's length and a metre more)."""
    block = log.log_footprint(item)
    centre = np.asarray(chasm.centre)
    offset = np.asarray(block.centre) - centre
    radius = float(np.hypot(*offset))
    start = math.atan2(offset[1], offset[0])
    turn = math.remainder(math.radians(chasm.stretch_angle_deg) - start, 2 * math.pi)
    angles = start + np.linspace(0.0, turn, max(2, int(abs(math.degrees(turn)) / CARRY_SWEEP_STEP_DEG) + 1))
    ahead = np.arange(0.0, block.length_m + 1.0, CARRY_SWEEP_SPACING_M)
    way = math.copysign(1.0, turn)
    body = centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])
    tangent = way * np.column_stack([-np.sin(angles), np.cos(angles)])
    points = body[:, None, :] + ahead[None, :, None] * tangent[:, None, :]
    inside = heightmap.contains(points[..., 0], points[..., 1])
    heights = np.asarray(ground_height(heightmap, points[..., 0][inside], points[..., 1][inside]))
    bottom = item.position[1] - log.LOG_SIZE_M[1] / 2.0
    return float(heights.max() - bottom) if heights.size else 0.0


def log_corridor(layout: Any, moved: dict[str, Entity]) -> list[Disc]:
    """The way the log is carried round the ring to the stretch (:func:`~avalon.tasks.kit.log.carry_corridor`)."""
    (item,) = moved.values()
    radius = float(np.hypot(*(np.asarray(log.log_footprint(item).centre) - np.asarray(layout.chasm.centre))))
    return log.carry_corridor(layout.chasm, radius, log.log_footprint(item).centre)


def certify_log(world: World, layout: Any) -> Certificate:
    """The bridged chasm's certificate (:func:`~avalon.tasks.kit.log.check_bridge`) with the solved log."""
    return log.check_bridge(world, layout.solved_log, layout.chasm)


#: The variant (bridge's ``carry_variant``): first in carry's draw.
VARIANT = CarryVariant(draw_position=0, item_kinds=("log",), uses=log_uses, relocate=relocate_log,
                       carry_corridor=log_corridor, certify=certify_log)
