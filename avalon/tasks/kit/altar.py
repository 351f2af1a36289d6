"""Altars: static stone blocks that hold food right in front of the agent.

The eat task's easiest worlds put the food on an altar (see ``avalon/tasks/eat.py`` for the
numbers and why), so that even a random agent sometimes grasps and eats it. This module holds
the altar's geometry and its guarantees, independent of any one task:

- :class:`AltarCurves`: how a task's difficulty sets the altar (the task's table holds the
  numbers), and :func:`draw_altar_factors`, which draws the altar's top height (above the
  spawn's feet), top width, extra distance and bearing from them;
- :func:`nearest_food_distance_m` is the closest the food may be to the spawn's axis: the altar
  clear of the body capsule and of the resting hands, the food within the camera's view;
- :func:`altar_for_food` builds the :class:`Altar` under a food (or cluster) centre on a terrain,
  or says why the ground there cannot hold one (wet, too steep, too uneven);
- :func:`spawn_problem`: the checks at the spawn (body, hands, the food's wake range, view);
- :func:`tree_behind_altar`: a fruit tree site behind the altar, its trunk clear of it;
- :func:`put_food_on_altar`: moves the food of an assembled world onto the altar's top, adds the
  altar, and checks the food can still be seen.

Geometry is Godot's (metres, y up, yaw 0 faces -z, positive yaw turns left). An altar is a box
with a square top, turned so that one face looks straight at the spawn; its bottom is sunk below
the lowest ground under it, so it never floats.
"""

from __future__ import annotations

import math
from typing import Optional, Union

import attr
import numpy as np

from avalon.datagen.scenery import FruitTreeConfig
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_KINDS
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import SPAWN_CLEAR_RADIUS_M, OutdoorLayout
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import (
    DRY_MARGIN_M,
    XZ,
    KeepClear,
    facing_direction,
    ground_height,
    triangle_index,
    triangle_slopes_deg,
    yaw_towards,
)
from avalon.tasks.kit.sight import eye_position, line_of_sight, scenery_occluders

#: Entity name of the altar in a world.
ALTAR_NAME = "altar"
#: Weathered stone: a grey a little warmer and darker than bare rock, so it does not outshine food.
ALTAR_COLOR = (0.47, 0.45, 0.42)
#: Height of the top above the spawn's feet at difficulty 0, metres: food on it (an apple's centre
#: at 1.55 m) is at chin height, well above the resting hands (1.2 m), so a sleeping food is never
#: woken by them (see WAKE_GAP_M) and is 0.62 m from the head.
TOP_HEIGHT_M = 1.4
#: Side of the (square) top at difficulty 0, metres: a post narrow enough to stand between the
#: resting hands (0.4 m apart between their inner surfaces). Never narrower than the food's
#: footprint.
TOP_WIDTH_M = 0.3
#: Gap between the body capsule and the altar's near face at spawn, metres.
BODY_GAP_M = 0.05
#: Gap between a resting hand's sphere and the altar at spawn, metres.
HAND_GAP_M = 0.05
#: Bullet pairs two bodies whose axis-aligned boxes, each grown by its contact threshold (0.02 m),
#: overlap, and an active kinematic body (a hand: it is moved every step) wakes every sleeping
#: body it is paired with; awake food on an altar creeps and can roll off (seen with the apple
#: 0.05 m from a hand). So at spawn the food's box stays clear of each hand's by this much more,
#: whatever the yaw: vertically, or horizontally by sqrt(2) times the sum (boxes turned 45 degrees).
BROADPHASE_MARGIN_M = 0.02
WAKE_GAP_M = 0.05
#: The food's footprint keeps this far from the near edge (and, where the top is wide enough, from
#: every edge), metres.
EDGE_MARGIN_M = 0.1
#: Food centres lie within this angle of the camera's axis at spawn (its half field of view is
#: CAMERA_FOV_DEG / 2 = 45 degrees), degrees.
MAX_VIEW_ANGLE_DEG = 40.0
#: The bottom is sunk this far below the lowest ground under the altar, metres.
SINK_M = 0.15
#: The top stands at least this far above the highest ground under it, metres.
MIN_VISIBLE_HEIGHT_M = 0.25
#: The top stands at most this far above the lowest ground under it, metres (food on it is then
#: within reach of an agent standing beside it: shoulders 1.45 m, arm's reach 1 m).
MAX_HEIGHT_M = 2.0
#: Ground under the altar is no steeper than this, degrees.
MAX_GROUND_SLOPE_DEG = 25.0
#: A tree trunk's surface stays this far from the altar, metres.
TREE_CLEARANCE_M = 0.3
#: Plants keep this far beyond the altar's corners, metres.
PLANT_CLEARANCE_M = 0.5
#: Resolution of the search for the nearest food distance, metres.
DISTANCE_STEP_M = 0.01
#: The search gives up this far out (it never gets there: beyond the hands everything is clear).
MAX_NEAREST_DISTANCE_M = 4.0
#: Ground samples per side of the top when checking the ground under the altar.
GROUND_SAMPLES_PER_SIDE = 9

_HAND_RESTS_M = (mechanics.LEFT_HAND_REST_M, mechanics.RIGHT_HAND_REST_M)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class AltarCurves:
    """How a task's difficulty sets an altar: each factor is drawn uniformly from its band (a
    task's table of difficulty curves holds one of these)."""

    #: Height of the top above the spawn's feet, metres (below the eyes, 1.7 m, at every difficulty).
    top_above_spawn_m: Band = attr.ib(validator=attr.validators.instance_of(Band))
    #: Side of the square top as drawn, metres (then widened to fit the food: :func:`top_width_m`).
    top_width_m: Band = attr.ib(validator=attr.validators.instance_of(Band))
    #: Added to the nearest food distance the altar allows, metres.
    extra_distance_m: Band = attr.ib(validator=attr.validators.instance_of(Band))
    #: The food lies within this angle of the facing direction, either side, degrees (always well
    #: inside the camera's 45-degree half field of view).
    bearing_limit_deg: Ramp = attr.ib(validator=attr.validators.instance_of(Ramp))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class AltarFactors:
    """What difficulty chose for an altar, before any terrain is seen."""

    #: Height of the top above the spawn's feet, metres.
    top_above_spawn_m: float
    #: Side of the square top as drawn, metres (widened to fit the food: :func:`top_width_m`).
    top_width_m: float
    #: Added to the nearest allowed food distance, metres.
    extra_distance_m: float
    #: Angle from the facing direction to the food, radians (positive: to the left).
    bearing_rad: float


def draw_altar_factors(rng: np.random.Generator, difficulty: float, curves: AltarCurves) -> AltarFactors:
    """The altar's factors at ``difficulty``: always exactly four uniform draws from ``rng``."""
    top = float(rng.uniform(*curves.top_above_spawn_m.at(difficulty)))
    width = float(rng.uniform(*curves.top_width_m.at(difficulty)))
    extra = float(rng.uniform(*curves.extra_distance_m.at(difficulty)))
    bearing = math.radians(float(rng.uniform(-1.0, 1.0)) * curves.bearing_limit_deg.at(difficulty))
    return AltarFactors(top_above_spawn_m=top, top_width_m=width, extra_distance_m=extra, bearing_rad=bearing)


def top_width_m(factors: AltarFactors, footprint_radius_m: float) -> float:
    """The top's side: as drawn, but at least the food's footprint across."""
    return max(factors.top_width_m, 2.0 * footprint_radius_m)


def food_inset_m(width_m: float, footprint_radius_m: float) -> float:
    """Distance from the near edge to the food's centre: its footprint plus EDGE_MARGIN_M, or the
    middle of a top too small for that."""
    return min(footprint_radius_m + EDGE_MARGIN_M, width_m / 2.0)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Altar:
    """A box with a square top whose near face looks at the spawn, and the spot on its top where
    the food (a cluster's centre) rests. Metres, radians."""

    centre_x: float
    centre_z: float
    #: Yaw of the box: its local -z axis points from the spawn towards the food.
    yaw_rad: float
    top_width_m: float
    top_y_m: float
    bottom_y_m: float
    food_x: float
    food_z: float
    #: Radius of one food item (its centre rests this far above the top).
    food_radius_m: float
    #: Radius of the disc that holds the food seen from above (a cluster's, or one item's radius).
    footprint_radius_m: float

    @property
    def height_m(self) -> float:
        return self.top_y_m - self.bottom_y_m

    @property
    def food_position(self) -> tuple[float, float, float]:
        """Centre of the food (a cluster's centre) at rest on the top."""
        return (self.food_x, self.top_y_m + self.food_radius_m, self.food_z)

    def entity(self, color: tuple[float, float, float] = ALTAR_COLOR) -> Entity:
        """The static ``box`` entity (``godot/entities/box.gd``)."""
        w = self.top_width_m
        return Entity(
            kind="box",
            name=ALTAR_NAME,
            position=(self.centre_x, (self.top_y_m + self.bottom_y_m) / 2.0, self.centre_z),
            yaw_rad=self.yaw_rad,
            params={"size": (w, self.height_m, w), "color": color},
        )

    def to_local(self, x, z):
        """World (x, z) in the box's frame: (right, back) from its centre (Godot's basis, transposed)."""
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        dx, dz = np.asarray(x, dtype=np.float64) - self.centre_x, np.asarray(z, dtype=np.float64) - self.centre_z
        return c * dx - s * dz, s * dx + c * dz

    def to_world(self, right, back):
        """Box-frame (right, back) offsets from its centre to world (x, z)."""
        c, s = math.cos(self.yaw_rad), math.sin(self.yaw_rad)
        right, back = np.asarray(right, dtype=np.float64), np.asarray(back, dtype=np.float64)
        return self.centre_x + c * right + s * back, self.centre_z - s * right + c * back

    def horizontal_distance_m(self, x: float, z: float) -> float:
        """Distance from (x, z) to the box's footprint (0 inside it)."""
        u, v = self.to_local(x, z)
        half = self.top_width_m / 2.0
        return float(math.hypot(max(abs(float(u)) - half, 0.0), max(abs(float(v)) - half, 0.0)))

    def distance_m(self, point) -> float:
        """Distance from a world point (x, y, z) to the box (0 inside it)."""
        x, y, z = (float(v) for v in point)
        flat = self.horizontal_distance_m(x, z)
        vertical = max(self.bottom_y_m - y, y - self.top_y_m, 0.0)
        return math.hypot(flat, vertical)

    def inset_m(self, x: float, z: float) -> float:
        """How far (x, z) lies inside the top's edges (negative outside)."""
        u, v = self.to_local(x, z)
        return self.top_width_m / 2.0 - max(abs(float(u)), abs(float(v)))

    def footprint_samples(self, per_side: int = GROUND_SAMPLES_PER_SIDE) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) of a ``per_side`` x ``per_side`` grid over the footprint, edges included."""
        t = np.linspace(-0.5, 0.5, per_side) * self.top_width_m
        right, back = np.meshgrid(t, t)
        return self.to_world(right.ravel(), back.ravel())

    @property
    def keep_clear(self) -> KeepClear:
        """Disc (x, z, radius) that keeps plants PLANT_CLEARANCE_M beyond the corners."""
        return (self.centre_x, self.centre_z, self.top_width_m / math.sqrt(2.0) + PLANT_CLEARANCE_M)


def altar_geometry(spawn_position, food_centre: XZ, food_radius_m: float, footprint_radius_m: float,
                   factors: AltarFactors) -> Altar:
    """The altar (before the ground is seen: its bottom MIN_VISIBLE_HEIGHT_M below the top) whose
    top holds the food centred at ``food_centre``: the top ``factors.top_above_spawn_m`` above the
    spawn's feet, the food :func:`food_inset_m` inside the near edge and centred across."""
    sx, sy, sz = (float(v) for v in spawn_position)
    fx, fz = (float(v) for v in food_centre)
    yaw = yaw_towards((sx, sz), (fx, fz))
    width = top_width_m(factors, footprint_radius_m)
    ux, uz = facing_direction(yaw)  # from the spawn towards the food
    behind = width / 2.0 - food_inset_m(width, footprint_radius_m)
    top_y = sy + factors.top_above_spawn_m
    return Altar(
        centre_x=fx + behind * ux, centre_z=fz + behind * uz, yaw_rad=yaw, top_width_m=width, top_y_m=top_y,
        bottom_y_m=top_y - MIN_VISIBLE_HEIGHT_M, food_x=fx, food_z=fz, food_radius_m=food_radius_m,
        footprint_radius_m=footprint_radius_m,
    )


def nearest_food_distance_m(factors: AltarFactors, food_radius_m: float, footprint_radius_m: float) -> float:
    """The smallest horizontal distance from the spawn's axis to the food's (cluster's) centre, in
    steps of DISTANCE_STEP_M, at which the altar keeps every spawn guarantee
    (:func:`spawn_problem`): clear of the body and the resting hands, the food clear of the hands'
    wake range and within the camera's view. ``footprint_radius_m`` bounds the food seen from
    above (one item: its radius; a cluster: the cluster's radius plus an item's radius)."""
    width = top_width_m(factors, footprint_radius_m)
    distance = mechanics.BODY_RADIUS_M + BODY_GAP_M + food_inset_m(width, footprint_radius_m)
    direction = facing_direction(factors.bearing_rad)  # the spawn at the origin, facing yaw 0
    while distance <= MAX_NEAREST_DISTANCE_M:
        food = (distance * direction[0], distance * direction[1])
        altar = altar_geometry((0.0, 0.0, 0.0), food, food_radius_m, footprint_radius_m, factors)
        if spawn_problem(altar, (0.0, 0.0, 0.0), 0.0) is None:
            return distance
        distance += DISTANCE_STEP_M
    raise ValueError(f"no food distance up to {MAX_NEAREST_DISTANCE_M} m keeps the altar's guarantees for {factors}")


def altar_for_food(ground: HeightMap, spawn_position, food_centre: XZ, food_radius_m: float,
                   footprint_radius_m: float, factors: AltarFactors) -> Union[Altar, str]:
    """The altar of :func:`altar_geometry` on the terrain (its bottom SINK_M below the lowest ground
    under it), or why the ground there cannot hold one: it must be inside the world, dry, no steeper
    than MAX_GROUND_SLOPE_DEG, at least MIN_VISIBLE_HEIGHT_M below the top and at most MAX_HEIGHT_M.
    """
    altar = altar_geometry(spawn_position, food_centre, food_radius_m, footprint_radius_m, factors)
    top_y = altar.top_y_m
    xs, zs = altar.footprint_samples()
    if not np.all(ground.contains(xs, zs)):
        return "the altar does not fit inside the world"
    heights = ground_height(ground, xs, zs)
    if float(heights.min()) < ground.water_height_m + DRY_MARGIN_M:
        return "the ground under the altar is wet"
    slopes = triangle_slopes_deg(ground)
    steepest = max(float(slopes[triangle_index(ground, float(x), float(z))]) for x, z in zip(xs, zs))
    if steepest > MAX_GROUND_SLOPE_DEG:
        return f"the ground under the altar is {steepest:.0f} degrees steep"
    if top_y - float(heights.max()) < MIN_VISIBLE_HEIGHT_M:
        return "the ground under the altar rises too close to its top"
    if top_y - float(heights.min()) > MAX_HEIGHT_M:
        return "the ground under the altar falls too far below its top"
    return attr.evolve(altar, bottom_y_m=float(heights.min()) - SINK_M)


def hand_rest_positions(spawn_position, spawn_yaw_rad: float) -> tuple[tuple[float, float, float], ...]:
    """World positions of both resting hands at the spawn (body frame x right, z back)."""
    sx, sy, sz = (float(v) for v in spawn_position)
    c, s = math.cos(spawn_yaw_rad), math.sin(spawn_yaw_rad)
    return tuple((sx + c * x + s * z, sy + y, sz - s * x + c * z) for x, y, z in _HAND_RESTS_M)


def spawn_problem(altar: Altar, spawn_position, spawn_yaw_rad: float) -> Optional[str]:
    """Why the altar breaks a guarantee at the spawn (None when it keeps them all).

    - The body capsule (radius BODY_RADIUS_M, taller than any altar) stays BODY_GAP_M from the
      footprint, and each resting hand's sphere HAND_GAP_M from the box.
    - The food's bounding box stays out of each resting hand's Bullet pairing range (see
      WAKE_GAP_M), so the sleeping food is not woken before the agent reaches for it.
    - The food (a cluster's nearest item too) lies within MAX_VIEW_ANGLE_DEG of the camera's axis.
    - The top is below the eyes, so the altar never hides its own food.
    """
    sx, sy, sz = (float(v) for v in spawn_position)
    gap = altar.horizontal_distance_m(sx, sz) - mechanics.BODY_RADIUS_M
    if gap < BODY_GAP_M - 1e-9:
        return f"the altar is {gap:.2f} m from the body"
    food = altar.food_position
    for hand in hand_rest_positions(spawn_position, spawn_yaw_rad):
        gap = altar.distance_m(hand) - mechanics.HAND_RADIUS_M
        if gap < HAND_GAP_M - 1e-9:
            return f"the altar is {gap:.2f} m from a resting hand"
        if not _out_of_wake_range(hand, food, altar.food_radius_m, altar.footprint_radius_m):
            return "the food is within a resting hand's wake range"
    eye = eye_position(spawn_position)
    if altar.top_y_m >= eye[1]:
        return "the altar's top is not below the eyes"
    nearest = altar.footprint_radius_m - altar.food_radius_m  # a cluster's nearest item, towards the spawn
    ux, uz = facing_direction(altar.yaw_rad)
    for point in (food, (food[0] - nearest * ux, food[1], food[2] - nearest * uz)):
        if not in_view_at_spawn(spawn_position, spawn_yaw_rad, point):
            return "the food is out of the camera's view at spawn"
    return None


def _out_of_wake_range(hand, food, food_radius_m: float, footprint_radius_m: float) -> bool:
    """Whether the axis-aligned boxes of a hand and of the food, each grown by BROADPHASE_MARGIN_M,
    stay WAKE_GAP_M apart whatever the agent's yaw."""
    margin = 2.0 * BROADPHASE_MARGIN_M + WAKE_GAP_M
    vertical = abs(food[1] - hand[1]) >= mechanics.HAND_RADIUS_M + food_radius_m + margin - 1e-9
    horizontal_gap = math.sqrt(2.0) * (mechanics.HAND_RADIUS_M + footprint_radius_m + margin)
    horizontal = math.hypot(food[0] - hand[0], food[2] - hand[2]) >= horizontal_gap
    return vertical or horizontal


def view_angles_deg(spawn_position, spawn_yaw_rad: float, point) -> tuple[float, float]:
    """(horizontal, vertical) angles of ``point`` from the camera's axis at spawn (level head),
    degrees, measured as the camera projects (against the depth along the axis); 180 behind it."""
    ex, ey, ez = eye_position(spawn_position)
    px, py, pz = (float(v) for v in point)
    fx, fz = facing_direction(spawn_yaw_rad)
    depth = (px - ex) * fx + (pz - ez) * fz
    if depth <= 0.0:
        return 180.0, 180.0
    lateral = (px - ex) * -fz + (pz - ez) * fx  # along the right-hand axis (cos yaw, -sin yaw)
    return math.degrees(math.atan2(abs(lateral), depth)), math.degrees(math.atan2(abs(py - ey), depth))


def in_view_at_spawn(spawn_position, spawn_yaw_rad: float, point, max_angle_deg: float = MAX_VIEW_ANGLE_DEG) -> bool:
    """Whether ``point`` lies within ``max_angle_deg`` of the camera's axis, across and up/down."""
    return max(view_angles_deg(spawn_position, spawn_yaw_rad, point)) <= max_angle_deg


def tree_behind_altar(rng: np.random.Generator, altar: Altar, food: XZ, spawn: XZ, config: FruitTreeConfig,
                      spread_deg: float = 45.0) -> XZ:
    """A fruit-tree trunk site behind the altar as seen from ``spawn`` (two draws from ``rng``):
    drawn like ``tree_behind_food`` and moved straight away from the food until the largest trunk
    stands TREE_CLEARANCE_M clear of the altar and SPAWN_CLEAR_RADIUS_M clear of the spawn."""
    away = math.atan2(food[1] - spawn[1], food[0] - spawn[0])
    angle = away + math.radians(rng.uniform(-spread_deg, spread_deg))
    distance = float(rng.uniform(*config.ground_food_distance_range_m))
    trunk = config.trunk_radius_m * config.scale_range[1]
    step = 0.05
    while True:
        site = (food[0] + distance * math.cos(angle), food[1] + distance * math.sin(angle))
        clear_of_altar = altar.horizontal_distance_m(*site) >= trunk + TREE_CLEARANCE_M
        if clear_of_altar and math.dist(site, spawn) >= SPAWN_CLEAR_RADIUS_M + trunk:
            return site
        distance += step


def put_food_on_altar(layout: OutdoorLayout, altar: Altar) -> OutdoorLayout:
    """``layout`` with every food resting on the altar's top (centre one radius above it) and the
    altar added (first among the entities).

    Raises :class:`ImpossibleWorldError` unless every food lies on the top (its footprint within the
    edges) and can be seen from the spawn's eye past terrain and plants.
    """
    world = layout.world
    entities = []
    for entity in world.entities:
        if entity.kind in FOOD_KINDS:
            radius = float(entity.param("radius"))
            x, _, z = entity.position
            if altar.inset_m(x, z) < radius - 1e-9:
                raise ImpossibleWorldError(f"{entity.name} would hang over the altar's edge")
            entity = attr.evolve(entity, position=(x, altar.top_y_m + radius, z))
        entities.append(entity)
    eye = eye_position(world.spawn_position)
    if eye[1] <= altar.top_y_m:
        raise ImpossibleWorldError("the altar's top is above the agent's eyes")
    occluders = scenery_occluders(world.scenery)
    for entity in entities:
        # Both ends of the sight line lie above the top, so the altar itself never hides the food.
        if entity.kind in FOOD_KINDS and not line_of_sight(layout.heightmap, eye, entity.position, occluders):
            raise ImpossibleWorldError(f"{entity.name} on the altar cannot be seen from the spawn")
    world = attr.evolve(world, entities=(altar.entity(), *entities))
    return attr.evolve(layout, world=world)
