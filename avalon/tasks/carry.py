"""The ``carry`` task: another task's world whose items lie away from where they are used.

Paper, Appendix F.1: "carry spawns a task world that requires objects from one of throw, fight,
stack, or bridge, and then moves the objects a distance away from where they would normally spawn.
Thus, the agent must carry the object to the location where it will be used. As difficulty
increases, objects spawn farther away and must be found and carried a longer distance."

The base tasks are a table (:data:`VARIANTS`, one :class:`CarryVariant` each: the base task's
name, how to build its layout, which items move and where they are used, how they are laid out
at a distance, and the base task's own certificate); a world draws its variant from its rng
(``Forcing("base_task", ...)`` pins it). Difficulty sets, through :data:`KNOBS`, only how far the
items lie from their place of use (``carry_distance_m``); the base task is built at its own
``base_difficulty`` (0: its easiest world, where its items already stand in place), so the
carrying is what gets harder.

- ``bridge``: the 9 m log lies along the ring of level ground beyond the chasm on the spawn's side
  (where a bridge world's log lies when it is not in place), at ``carry_distance_m`` from the
  place across the trench where it is laid; the piers stay there and show where it goes.
- ``stack``: every stone of the two-layer staircase lies at ``carry_distance_m`` from its place
  in the staircase, on ground that varies by at most ``STONE_RELIEF_M`` under it (off the yard at
  the longer distances), clear of the plateau, the staircase, the other stones and the spawn.
- ``throw`` and ``fight`` (:func:`relocate_tools`): the tools the base task laid by the spawn
  (throw's rocks; fight's stick and rocks) move together, each keeping its place in the group,
  ``carry_distance_m`` in a direction where each lands on ground no steeper than throw lays its
  kind (``TOOL_MAX_SLOPE_DEG``: a rock rolls off a steeper triangle) that the spawn walks to; in a
  fight world outside every predator's reach, and reached from the spawn without entering it
  (``CarryVariant.keep_out``). They are used where the base task laid them: thrown at the prey
  (the agent walks to its start), swung or thrown at the predators guarding the food.

Every world is certified at generation (:func:`check_carry`): the base task's certificate holds
on the world as it is (its item halves burn the items in at their place of use: bridge's log across
the trench, stack's staircase; throw's and fight's only ask that the tools are there, reached on
foot), and every moved item is at least the knob's distance from its
place, on ground the spawn walks to, with room to walk round it to both its ends, and from it the
agent walks to where it is used. A bridge log also lies only where the way round the ring to the
trench is level for a log held out ahead (:func:`carry_sweep_rise_m`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Optional

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.scenery import SceneryKind
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks import bridge, fight, stack, throw
from avalon.tasks.kit import ImpossibleWorldError, log as kit_log
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES, resolve_config
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.chasm import ChasmRing
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.geometry import (
    component_labels,
    ground_height,
    is_dry_land,
    triangle_centroids,
    triangle_index,
    triangle_slopes_deg,
    walkable_grid,
)
from avalon.tasks.kit.predators import GuardLayout, keep_out_discs
from avalon.tasks.kit.prey import TOOL_MAX_SLOPE_DEG, PreyLayout, footprint_top_m, prey_certificate, tool_reach_m
from avalon.tasks.kit.sight import OCCLUDER_PARTS
from avalon.tasks.kit.sites import corridor_discs
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CarryKnobs:
    """Every factor of a carry world that the difficulty d in [0, 1] sets (docs/tasks/carry.md quotes it).
    Bands are drawn from uniformly."""

    #: The base task's world is built at this difficulty (0: its easiest, where its items stand in
    #: place; carrying them there is what gets harder).
    base_difficulty: Ramp = Ramp(0.0)
    #: Horizontal distance from each moved item's centre to its centre at its place of use, metres
    #: (10-12 m at d = 0, 20-24 m at 1: the far side of bridge's ring).
    carry_distance_m: Band = Band(Ramp(10.0, 10.0), Ramp(12.0, 12.0))
    #: Training episodes are truncated after this many seconds (60 s at d = 0, 240 s at 1): a few
    #: times fetching the items, carrying them up to 24 m and using them take.
    training_time_limit_s: Ramp = Ramp(60.0, 180.0)


#: The carry task's difficulty curves.
KNOBS = CarryKnobs()
#: A carry world's own time limit: ten minutes (paper, Appendix G.3).
CARRY_TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND
#: Places drawn for a moved item before the world is given up.
PLACE_ATTEMPTS = 60
#: Plants keep this far from a moved item's footprint (beyond their trunk's radius), metres.
PLANT_CLEARANCE_M = 0.5
#: Keep-clear corridor from a moved item to where it is used (half width, metres).
CORRIDOR_HALF_WIDTH_M = 1.0
#: A stone lies where the ground under its footprint varies by at most this, metres (on the yard it
#: is level; beyond it, the gentle island's ground).
STONE_RELIEF_M = 0.15
#: Directions round its place a moved stone's is drawn among (those where the ground is level enough).
STONE_DIRECTIONS = 720
#: A moved stone keeps this far from water, metres.
STONE_WATER_CLEARANCE_M = 1.5
#: Walking round a moved item, the centres of the walkable triangles the body crosses keep this
#: far from its footprint, metres...
WALK_ROUND_CLEARANCE_M = mechanics.BODY_RADIUS_M + 0.1
#: ...to points this far beyond each end of it, on its axis, metres (where the hand takes a log),
#: within this of its footprint (round it, not round the whole chasm), metres.
BESIDE_END_M = WALK_ROUND_CLEARANCE_M + 0.5
WALK_ROUND_WINDOW_M = 3.0
#: A moved tool (throw's rocks, fight's sticks and rocks) keeps this far from the spawn, the food
#: and every animal's start, metres, and this far from water.
TOOL_CLEARANCE_M = 2.0
TOOL_WATER_CLEARANCE_M = 1.0
#: Directions round their places the moved tools' are screened in (those where every tool lies on
#: gentle ground the spawn walks to are drawn from).
TOOL_DIRECTIONS = 180
#: A log carried round the ring (at its own distance from the chasm's centre, held out ahead
#: along the ring's tangent, the way it goes) sweeps ground that rises at most this above the
#: ground where it lay, metres (a held log's far end is about 0.2 m above the ground; ground rising
#: beyond the levelled disc catches it and the hand loses it).
CARRY_SWEEP_RISE_M = 0.15
#: ...sampled every this many degrees of the ring, and every this many metres along the log.
CARRY_SWEEP_STEP_DEG = 2.0
CARRY_SWEEP_SPACING_M = 0.5


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ItemUse:
    """One item a carry world moved: its entity's name, the item where it is used (the base task's
    solved place), and the ground point (x, y, z) the agent walks to to use it there."""

    name: str
    place: Entity
    approach: tuple[float, float, float]


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CarryVariant:
    """One base task of carry (see the module doc)."""

    #: The base task's name (``Forcing("base_task", ...)`` values).
    base_task: str
    #: Kinds of the items it moves (a world holding them names its variant).
    item_kinds: tuple[str, ...]
    #: ``(rng, difficulty, config) -> layout``: the base task's layout builder (its layout has ``world``).
    build_layout: Callable[[np.random.Generator, float, Any], Any]
    #: ``layout -> uses``: the items that move and where they are used.
    uses: Callable[[Any], tuple[ItemUse, ...]]
    #: ``(rng, layout, uses, distance band) -> {name: entity}``: the items laid out at a distance
    #: from their places (``ImpossibleWorldError`` when they do not fit).
    relocate: Callable[[np.random.Generator, Any, tuple[ItemUse, ...], tuple[float, float]], dict[str, Entity]]
    #: ``(layout, moved) -> discs``: keep-clear discs (x, z, radius) for the way the items are carried.
    carry_corridor: Callable[[Any, dict[str, Entity]], list[tuple[float, float, float]]]
    #: ``(world, layout) -> Certificate``: the base task's certificate of the world as it is.
    certify: Callable[[World, Any], Certificate]
    #: ``world -> discs``: (x, z, radius) discs the walk from the spawn to each moved item keeps out
    #: of (fight's predators' reach); none by default.
    keep_out: Callable[[World], list[tuple[float, float, float]]] = lambda world: []


# --- footprints --------------------------------------------------------------------------------------


def footprint(entity: Entity) -> kit_log.LogFootprint:
    """The footprint (and top) of a tool or box entity lying flat."""
    if entity.kind == "box":
        width, height, length = (float(v) for v in entity.param("size"))
    else:
        scale = float(entity.param("safe_scale", 1.0) or 1.0)
        width, height, length = (v * scale for v in TOOL_SIZE_M[entity.kind])
    return kit_log.LogFootprint(centre=(entity.position[0], entity.position[2]), width_m=width, length_m=length,
                               yaw_rad=entity.yaw_rad, top_m=entity.position[1] + height / 2.0)


def footprint_gap_m(a: kit_log.LogFootprint, b: kit_log.LogFootprint) -> float:
    """The smallest horizontal distance between two footprints (0 where they overlap), metres:
    over points 5 cm apart on each, measured in the other's frame."""
    gaps = []
    for one, other in ((a, b), (b, a)):
        points = one.points(0.05)
        across, along = other.local(points[:, 0], points[:, 1])
        gaps.append(float(np.hypot(np.maximum(np.abs(across) - other.width_m / 2.0, 0.0),
                                   np.maximum(np.abs(along) - other.length_m / 2.0, 0.0)).min()))
    return min(gaps)


def _trunk_radius_m(plant) -> float:
    return max(radius for radius, base, _ in OCCLUDER_PARTS[plant.kind] if base == 0.0) * plant.scale


def clear_plants(world: World, discs: list[tuple[float, float, float]]) -> World:
    """``world`` without the plants whose trunk reaches into one of ``discs`` (x, z, radius)."""
    if not discs:
        return world
    centres = np.asarray([(x, z) for x, z, _ in discs])
    radii = np.asarray([r for _, _, r in discs])

    def clear(plant) -> bool:
        distance = np.hypot(centres[:, 0] - plant.position[0], centres[:, 1] - plant.position[2])
        return bool((distance >= radii + _trunk_radius_m(plant)).all())

    return attr.evolve(world, scenery=tuple(plant for plant in world.scenery if clear(plant)))


def _footprint_discs(entity: Entity) -> list[tuple[float, float, float]]:
    """Discs covering an item's footprint and ``PLANT_CLEARANCE_M`` round it: one per square of its
    width along its length."""
    block = footprint(entity)
    count = max(1, int(math.ceil(block.length_m / block.width_m)))
    piece = block.length_m / count
    radius = math.hypot(block.width_m / 2.0, piece / 2.0) + PLANT_CLEARANCE_M
    ax, az = block.axis
    offsets = (np.arange(count) + 0.5) * piece - block.length_m / 2.0
    return [(block.centre[0] + t * ax, block.centre[1] + t * az, radius) for t in offsets]


# --- the bridge variant ---------------------------------------------------------------------------------


def _bridge_uses(layout: bridge.BridgeLayout) -> tuple[ItemUse, ...]:
    log = next(entity for entity in layout.world.entities if entity.kind == "log")
    food = layout.world.food[0].position
    first = kit_log.crossing_steps(layout.world.ground.heightmap, layout.solved_log, (food[0], food[2]))[0]
    return (ItemUse(name=log.name, place=layout.solved_log, approach=tuple(float(v) for v in first.target)),)


def _ring_yaw(angle_rad: float) -> float:
    """The entity yaw whose axis (sin yaw, cos yaw) runs along the ring at direction ``angle_rad``
    from its centre (the tangent)."""
    return math.atan2(math.sin(angle_rad), -math.cos(angle_rad))


def _bridge_relocate(rng: np.random.Generator, layout: bridge.BridgeLayout, uses: tuple[ItemUse, ...],
                     distance_band: tuple[float, float]) -> dict[str, Entity]:
    """The log along the ring beyond the chasm (as bridge lays a log not in place: its axis
    ``LOG_BEYOND_CHASM_M`` beyond the chasm's noisy edge), at the drawn distance from the solved log."""
    (use,) = uses
    world, chasm = layout.world, layout.chasm
    heightmap = world.ground.heightmap
    outline = world.ground.ring_outlines[0]
    centre = np.asarray(chasm.centre)
    stretch = math.radians(chasm.stretch_angle_deg)
    solved = np.asarray(kit_log.log_footprint(layout.solved_log).centre)
    spawn = (world.spawn_position[0], world.spawn_position[2])
    food = (world.food[0].position[0], world.food[0].position[2])
    length = kit_log.LOG_SIZE_M[2]

    def edge(angle):
        return np.interp(angle, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi)

    turns = np.radians(np.arange(0.0, 180.0, 0.25))
    reason = "no place drawn"
    for _ in range(PLACE_ATTEMPTS):
        distance = float(rng.uniform(*distance_band))
        side = 1.0 if rng.uniform() < 0.5 else -1.0
        angles = stretch + side * turns
        # The noisy edge where the log lies, the whole log's length either side (as bridge does).
        radii = np.max([edge(angles + k * length / (2 * chasm.width_m)) for k in (-1, 0, 1)], axis=0) + \
            chasm.width_m + kit_log.LOG_BEYOND_CHASM_M
        points = centre + radii[:, None] * np.column_stack([np.cos(angles), np.sin(angles)])
        far = np.nonzero(np.hypot(*(points - solved).T) >= distance)[0]
        if far.size == 0:
            reason = f"no place on the ring lies {distance:.1f} m from the solved log"
            continue
        k = int(far[0])
        log = kit_log.resting_log(heightmap, tuple(points[k]), _ring_yaw(float(angles[k])), name=use.name)
        block = kit_log.log_footprint(log)
        heights = kit_log.footprint_ground_m(heightmap, block)
        if heights.max() - heights.min() > kit_log.REST_TOLERANCE_M:
            reason = f"the ground under the log at {log.position} is not level"
            continue
        near = [name for name, point in (("spawn", spawn), ("food", food))
                if footprint_gap_m(block, kit_log.LogFootprint(centre=point, width_m=0.01, length_m=0.01, yaw_rad=0.0,
                                                              top_m=0.0)) < kit_log.LOG_CLEARANCE_M]
        if near:
            reason = f"the log at {log.position} would lie by the {near[0]}"
            continue
        if kit_log.log_hides(heightmap, block, spawn, food):
            reason = f"the log at {log.position} would hide the food from the spawn"
            continue
        cramped = walk_round_reasons(world, log)
        if cramped:
            reason = cramped[0]
            continue
        rise = carry_sweep_rise_m(heightmap, chasm, log)
        if rise > CARRY_SWEEP_RISE_M:
            reason = f"the ground the log at {log.position} sweeps carried round the ring rises {rise:.2f} m"
            continue
        return {use.name: log}
    raise ImpossibleWorldError(f"carry (bridge): {reason}")


def carry_sweep_rise_m(heightmap, chasm: ChasmRing, log: Entity) -> float:
    """How far the ground rises above where ``log`` lies under it carried round the ring to the
    bridgeable stretch: at the log's distance from the centre, its near end at the body, held out
    ahead along the ring's tangent (a held log's length and a metre more), metres."""
    block = kit_log.log_footprint(log)
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
    bottom = log.position[1] - kit_log.LOG_SIZE_M[1] / 2.0
    return float(heights.max() - bottom) if heights.size else 0.0


def _bridge_corridor(layout: bridge.BridgeLayout, moved: dict[str, Entity]) -> list[tuple[float, float, float]]:
    (log,) = moved.values()
    radius = float(np.hypot(*(np.asarray(kit_log.log_footprint(log).centre) - np.asarray(layout.chasm.centre))))
    return kit_log.carry_corridor(layout.chasm, radius, kit_log.log_footprint(log).centre)


def _bridge_certify(world: World, layout: bridge.BridgeLayout) -> Certificate:
    return bridge.check_bridge(world, layout.solved_log, layout.chasm)


# --- the stack variant ----------------------------------------------------------------------------------


def _stack_uses(layout: stack.StackLayout) -> tuple[ItemUse, ...]:
    foot = layout.staircase.foot_xz
    approach = (foot[0], layout.staircase.base_m, foot[1])
    stones = {entity.name: entity for entity in layout.world.entities if stack.is_stone(entity)}
    return tuple(ItemUse(name=name, place=stones[name], approach=approach) for name in sorted(stones))


def _stack_relocate(rng: np.random.Generator, layout: stack.StackLayout, uses: tuple[ItemUse, ...],
                    distance_band: tuple[float, float]) -> dict[str, Entity]:
    """Each stone at the drawn distance from its place, in a direction drawn among those where the
    ground varies little enough round it, on dry ground that varies by at most ``STONE_RELIEF_M``
    under it (it rests on its highest point, ``kit_log.REST_CLEARANCE_M`` above it), clear of the
    plateau, the staircase, the other stones and the spawn."""
    world, staircase = layout.world, layout.staircase
    heightmap = world.ground.heightmap
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    # The relief of the square round each grid point that holds a stone however it is turned: a
    # cheap screen of the directions (a stone 20 m out lies on natural ground, mostly too steep).
    side = int(math.ceil(stack.STONE_WIDTH_M * math.sqrt(2.0) / heightmap.cell_size_m)) + 1
    heights = heightmap.heights.astype(np.float64)
    relief = ndimage.maximum_filter(heights, size=side) - ndimage.minimum_filter(heights, size=side)
    directions = np.linspace(-math.pi, math.pi, STONE_DIRECTIONS, endpoint=False)
    spawn = (world.spawn_position[0], world.spawn_position[2])
    reach = stack.STONE_WIDTH_M / math.sqrt(2.0)
    stair = [staircase.column_xz(k) for k in range(staircase.layers)]
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
            if max(abs(point[0] - staircase.centre[0]), abs(point[1] - staircase.centre[1])) < \
                    stack.PLATEAU_HALF_SIDE_M + reach + stack.STONE_CLEARANCE_M or \
                    any(math.dist(point, column) < 2 * reach + stack.STONE_CLEARANCE_M for column in stair):
                reason = f"{use.name} at {point} would lie by the plateau or the staircase"
                continue
            others = [(e.position[0], e.position[2]) for e in moved.values()]
            if any(math.dist(point, other) < 2 * reach + stack.STONE_CLEARANCE_M for other in others) or \
                    math.dist(point, spawn) < stack.STONE_SPAWN_CLEARANCE_M:
                reason = f"{use.name} at {point} would lie by another stone or the spawn"
                continue
            if not is_dry_land(heightmap, *point, min_water_distance_m=STONE_WATER_CLEARANCE_M):
                reason = f"{use.name} at {point} would not lie on dry land"
                continue
            block = kit_log.LogFootprint(centre=point, width_m=stack.STONE_WIDTH_M, length_m=stack.STONE_WIDTH_M,
                                        yaw_rad=yaw, top_m=0.0)
            inside = block.block().covers(x, z)
            heights = kit_log.footprint_ground_m(heightmap, block, spacing_m=0.05)
            highest = max(float(heights.max()), float(heightmap.heights[inside].max()) if inside.any() else -np.inf)
            if highest - float(heights.min()) > STONE_RELIEF_M:
                reason = f"the ground under {use.name} at {point} varies by more than {STONE_RELIEF_M} m"
                continue
            # A few millimetres above its highest ground (as bridge puts its log): the outline's
            # samples can miss a crest between them.
            bottom = highest + kit_log.REST_CLEARANCE_M
            stone = tool_entity("stone", use.name, (point[0], bottom, point[1]), yaw_rad=yaw,
                                safe_scale=stack.STONE_SCALE, mass=float(use.place.param("mass")))
            cramped = walk_round_reasons(world, stone)
            if cramped:
                reason = cramped[0]
                continue
            moved[use.name] = stone
            break
        else:
            raise ImpossibleWorldError(f"carry (stack): {reason}")
    return moved


def _stack_corridor(layout: stack.StackLayout, moved: dict[str, Entity]) -> list[tuple[float, float, float]]:
    foot = layout.staircase.foot_xz
    return [disc for stone in moved.values()
            for disc in corridor_discs((stone.position[0], stone.position[2]), foot, CORRIDOR_HALF_WIDTH_M)]


def _stack_certify(world: World, layout: stack.StackLayout) -> Certificate:
    """Stack's certificate of the base world with its stones check (``stack.stones_suffice``) run
    again on ``world``: its two searches do not see loose stones, the bypass search ignores plants
    and the route search only meets fewer trunks where carry cleared plants, so they stand as
    the base world's (running them again cost about 1.7 s a world)."""
    why = stack.stones_suffice(world, layout.staircase)
    base = layout.certificate
    if why is None:
        return base
    return attr.evolve(base, solvable=False, route=None, reason="; ".join(filter(None, [base.reason, why])))


# --- the throw and fight variants: tools moved together ---------------------------------------------


def _ground_point(world: World, xz: tuple[float, float]) -> tuple[float, float, float]:
    return (float(xz[0]), float(ground_height(world.ground.heightmap, xz[0], xz[1])), float(xz[1]))


def _throw_uses(layout: PreyLayout) -> tuple[ItemUse, ...]:
    """Throw's rocks: each is used where throw laid it, thrown from there at the prey (the agent
    walks to the prey's start)."""
    approach = _ground_point(layout.world, layout.prey_sites[0])
    return tuple(ItemUse(name=rock.name, place=rock, approach=approach) for rock in layout.tools)


def _fight_uses(layout: GuardLayout) -> tuple[ItemUse, ...]:
    """Fight's sticks and rocks: each is used where fight laid it, by the spawn, on the predators
    guarding the food (the agent walks to the food)."""
    food = layout.food.position
    approach = _ground_point(layout.world, (food[0], food[2]))
    return tuple(ItemUse(name=tool.name, place=tool, approach=approach) for tool in layout.tools)


def _safe_spawn_component(world: World, keep_out: list[tuple[float, float, float]]) -> tuple[np.ndarray, int]:
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


def _tool_place_problem(world: World, tool: Entity, slopes: np.ndarray, labels: np.ndarray, start: int,
                        keep_out: list[tuple[float, float, float]]) -> str:
    """Why ``tool`` cannot lie where it is, or nothing: it lies on dry land no steeper than prey
    tasks lay its kind (``TOOL_MAX_SLOPE_DEG``), ``TOOL_CLEARANCE_M`` from the spawn, the food and
    the animals, outside every ``keep_out`` disc and on ground the spawn walks to keeping out of
    them, with room to walk round it, and no fruit tree's trunk in its footprint's clearance."""
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
    if any(math.hypot(cx - plant.position[0], cz - plant.position[2]) < radius + _trunk_radius_m(plant)
           for cx, cz, radius in _footprint_discs(tool) for plant in fruit_trees):
        return f"{tool.name} at ({x:.1f}, {z:.1f}) would lie by the fruit tree"
    cramped = walk_round_reasons(world, tool)
    return cramped[0] if cramped else ""


def relocate_tools(rng: np.random.Generator, world: World, uses: tuple[ItemUse, ...], distance_band: tuple[float, float],
                   keep_out: list[tuple[float, float, float]]) -> dict[str, Entity]:
    """The tools of ``uses`` moved together (each keeps its place in the group and its yaw) by a
    distance drawn from ``distance_band`` in a direction drawn among those (of ``TOOL_DIRECTIONS``)
    where each lies on gentle ground the spawn walks to, each resting on the highest ground under
    its footprint, where :func:`_tool_place_problem` finds nothing against it."""
    heightmap = world.ground.heightmap
    slopes = triangle_slopes_deg(heightmap)
    labels, start = _safe_spawn_component(world, keep_out)

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
            reason = _tool_place_problem(world, tool, slopes, labels, start, keep_out)
            if reason:
                break
            moved[use.name] = tool
        else:
            return moved
    raise ImpossibleWorldError(f"carry: {reason}")


def _throw_relocate(rng: np.random.Generator, layout: PreyLayout, uses: tuple[ItemUse, ...],
                    distance_band: tuple[float, float]) -> dict[str, Entity]:
    return relocate_tools(rng, layout.world, uses, distance_band, keep_out=[])


def _fight_relocate(rng: np.random.Generator, layout: GuardLayout, uses: tuple[ItemUse, ...],
                    distance_band: tuple[float, float]) -> dict[str, Entity]:
    return relocate_tools(rng, layout.world, uses, distance_band, keep_out=keep_out_discs(layout.world))


def _group_centre(moved: dict[str, Entity]) -> tuple[float, float]:
    return (float(np.mean([t.position[0] for t in moved.values()])), float(np.mean([t.position[2] for t in moved.values()])))


def _throw_corridor(layout: PreyLayout, moved: dict[str, Entity]) -> list[tuple[float, float, float]]:
    """The ways from the spawn to the rocks and from the rocks to the prey, clear of plants."""
    spawn = (layout.world.spawn_position[0], layout.world.spawn_position[2])
    centre = _group_centre(moved)
    return corridor_discs(spawn, centre, CORRIDOR_HALF_WIDTH_M) + corridor_discs(centre, layout.prey_sites[0],
                                                                                 CORRIDOR_HALF_WIDTH_M)


def _fight_corridor(layout: GuardLayout, moved: dict[str, Entity]) -> list[tuple[float, float, float]]:
    """No corridor: a way cleared towards the food could take its fruit tree (the tools' own
    footprints are cleared, away from it)."""
    return []


def _throw_certify(world: World, layout: PreyLayout) -> Certificate:
    """Throw's certificate with the base world's rocks and prey (``throw.certificate`` counts the
    rocks of the carry world's difficulty)."""
    return prey_certificate(world, tuple(tool.kind for tool in layout.tools), len(layout.prey))


def _fight_certify(world: World, layout: GuardLayout) -> Certificate:
    return fight.certificate(world)


def _predator_keep_out(world: World) -> list[tuple[float, float, float]]:
    return keep_out_discs(world)



# --- the table ------------------------------------------------------------------------------------------

#: Carry's base tasks (drawn in this order; ``BASE_TASKS`` lists them by name).
VARIANTS: tuple[CarryVariant, ...] = (
    CarryVariant(base_task="bridge", item_kinds=("log",), build_layout=bridge.build_layout, uses=_bridge_uses,
                 relocate=_bridge_relocate, carry_corridor=_bridge_corridor, certify=_bridge_certify),
    CarryVariant(base_task="stack", item_kinds=("stone",), build_layout=stack.build_layout, uses=_stack_uses,
                 relocate=_stack_relocate, carry_corridor=_stack_corridor, certify=_stack_certify),
    CarryVariant(base_task="throw", item_kinds=("rock",), build_layout=throw.build_layout, uses=_throw_uses,
                 relocate=_throw_relocate, carry_corridor=_throw_corridor, certify=_throw_certify),
    CarryVariant(base_task="fight", item_kinds=("rock", "stick"), build_layout=fight.build_layout, uses=_fight_uses,
                 relocate=_fight_relocate, carry_corridor=_fight_corridor, certify=_fight_certify,
                 keep_out=_predator_keep_out),
)
BASE_TASKS = tuple(sorted(variant.base_task for variant in VARIANTS))


def variant_named(base_task: str) -> CarryVariant:
    """The variant of ``base_task``; ``ValueError`` listing the base tasks if there is none."""
    for variant in VARIANTS:
        if variant.base_task == base_task:
            return variant
    return check.refuse("base_task", base_task, f"one of {', '.join(BASE_TASKS)}")


# --- the certificate ------------------------------------------------------------------------------------


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


def carry_reasons(world: World, uses: tuple[ItemUse, ...], min_distance_m: float,
                  keep_out: tuple[tuple[float, float, float], ...] | list[tuple[float, float, float]] = ()) -> list[str]:
    """Why the moved items of ``world`` break carry's guarantee (empty when they keep it): each is
    in the world, of its place's kind, at least ``min_distance_m`` from its place of use, on ground
    the spawn walks to (keeping out of the ``keep_out`` discs, x, z, radius), with room to walk
    round it to both its ends (:func:`walk_round_reasons`), and the agent walks from it to where
    it is used."""
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    safe, safe_start = _safe_spawn_component(world, list(keep_out)) if keep_out else (labels, start)
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


def check_carry(world: World, variant: CarryVariant, base_layout: Any, uses: tuple[ItemUse, ...],
                min_distance_m: float) -> Certificate:
    """The base task's certificate of ``world`` (its item halves with the items at their place of
    use), failing too when :func:`carry_reasons` finds a moved item that breaks carry's guarantee."""
    base = variant.certify(world, base_layout)
    reasons = carry_reasons(world, uses, min_distance_m, variant.keep_out(world))
    if not reasons:
        return base
    return attr.evolve(base, solvable=False, route=None, reason="; ".join(([base.reason] if base.reason else []) + reasons))


# --- the task ------------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class CarryLayout:
    """A carry world and what was chosen for it."""

    world: World
    variant: CarryVariant
    #: The base task's layout (its world with the items in their base places).
    base: Any
    uses: tuple[ItemUse, ...]
    certificate: Certificate


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
                 base_task: Optional[str] = None) -> CarryLayout:
    """The carry world for ``difficulty`` and what was chosen; ``base_task`` pins the variant (it is
    drawn all the same). Raises ``ImpossibleWorldError`` when the draws cannot keep the guarantees."""
    config = resolve_config(config)
    if config.time_limit_frames == TIME_LIMIT_FRAMES:  # the config's default, the five-minute tasks' limit
        config = attr.evolve(config, time_limit_frames=CARRY_TIME_LIMIT_FRAMES)
    variant = VARIANTS[int(rng.integers(len(VARIANTS)))]  # drawn even when forced: the later draws stay
    if base_task is not None:
        variant = variant_named(base_task)
    carry_rng = np.random.default_rng(int(rng.integers(2**63)))
    base = variant.build_layout(rng, KNOBS.base_difficulty.at(difficulty), config)
    uses = variant.uses(base)
    band = KNOBS.carry_distance_m.at(difficulty)
    moved = variant.relocate(carry_rng, base, uses, band)
    world = attr.evolve(base.world, entities=tuple(moved.get(entity.name, entity) for entity in base.world.entities))
    discs = [disc for item in moved.values() for disc in _footprint_discs(item)] + variant.carry_corridor(base, moved)
    world = clear_plants(world, discs)
    certified = check_carry(world, variant, base, uses, band[0])
    if not certified.ok:
        raise ImpossibleWorldError(f"carry ({variant.base_task}): {certified.reason}")
    return CarryLayout(world=world, variant=variant, base=base, uses=uses, certificate=certified)


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
             forced: Optional[Mapping[str, str]] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``; ``forced`` may pin
    ``base_task``."""
    return build_layout(rng, difficulty, config, base_task=(forced or {}).get("base_task")).world


def layout_of(world: World) -> CarryLayout:
    """The layout of a carry world, rebuilt from its seed with ``build_world``'s retry rule and the
    default config: unforced, or else forced to the variant whose items it holds (a forced world
    may come from another attempt than the unforced one: an attempt that failed for the drawn
    variant may work for the forced one); ``ValueError`` for another task's world or one made with
    another config."""
    from avalon.tasks import with_retries  # the registry imports this module

    if world.task != "carry":
        check.refuse("world.task", world.task, "'carry'")
    kinds = {entity.kind for entity in world.entities}
    candidates = [None] + [variant.base_task for variant in VARIANTS if set(variant.item_kinds) <= kinds]
    for base_task in candidates:
        layout = with_retries(lambda rng, base=base_task: build_layout(rng, world.difficulty, base_task=base), "carry",
                              world.difficulty, world.seed)
        if layout.world.spawn_position == world.spawn_position and set(layout.variant.item_kinds) <= kinds:
            return layout
    raise ValueError(f"the carry world of difficulty {world.difficulty} and seed {world.seed} is not one its seed builds "
                     f"for any base task ({', '.join(BASE_TASKS)}): was it made with another config?")


def certificate(world: World) -> Certificate:
    """The solvability certificate of a carry world (see the module doc)."""
    layout = layout_of(world)
    return check_carry(world, layout.variant, layout.base, layout.uses, KNOBS.carry_distance_m.at(world.difficulty)[0])


TASK = TaskSpec(
    name="carry",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=CARRY_TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False,  # stack's plateau hides its food
    food_reachable_on_foot=False,
    certificate=certificate,
    forcing=(Forcing("base_task", BASE_TASKS),),
    table_row=16,
    in_sets_from_version=3,
    reference_agent="avalon.agent.scripted.carry_task:carry_follower",
)
