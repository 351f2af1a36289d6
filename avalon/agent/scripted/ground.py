"""The ground a scripted agent moves over, read from the ``World`` spec: what the feet stand on at
any point (the terrain's triangles or flat ground, and the tops of static boxes) and what the body
should not walk into (tree trunks, and food lying on the ground, which it would shove away).

Heights are exact on the terrain's triangle mesh (``avalon.tasks.kit.geometry.ground_height``, the
surface Godot renders and collides with); a box's top counts wherever its (turned) footprint covers
the point. Tools light enough to lift are loose items: neither ground nor obstacles here. Items too
heavy to lift (``mechanics.MAX_LIFT_MASS_KG``: the boulder) stay where they are unless pushed, so
they count as boxes of their size (their bounding box at their scale) where the spec puts them:
the feet stand on their tops; a primitive that moves one says where it went (``Ground.moved``).
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.export.scenery_data import TRUNKS
from avalon.datagen.world import Entity, Terrain, World
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_MASS_KG, TOOL_SIZE_M
from avalon.tasks.kit.geometry import ground_height, to_local

#: Food whose bottom is less than this above the ground (or an altar's top) lies in the body's way, metres.
FOOD_UNDERFOOT_M = 0.5


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StaticBox:
    """A static ``box`` entity: centre (metres), size (x, y, z, metres), yaw (radians)."""

    centre: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw_rad: float
    climbable: bool

    @property
    def top_y_m(self) -> float:
        return self.centre[1] + self.size[1] / 2.0

    @property
    def bottom_y_m(self) -> float:
        return self.centre[1] - self.size[1] / 2.0

    def local(self, x, z) -> tuple[np.ndarray, np.ndarray]:
        """World (x, z) (arrays broadcast) in the box's frame: (right, back) from its centre."""
        return to_local(x, z, (self.centre[0], self.centre[2]), self.yaw_rad)

    def footprint_distance_m(self, x, z) -> np.ndarray:
        """Horizontal distance from (x, z) to the footprint (0 inside it)."""
        u, v = self.local(x, z)
        du = np.maximum(np.abs(u) - self.size[0] / 2.0, 0.0)
        dv = np.maximum(np.abs(v) - self.size[2] / 2.0, 0.0)
        return np.hypot(du, dv)


def is_pushed_only(entity: Entity) -> bool:
    """Whether ``entity`` is a tool too heavy to lift (it moves only when pushed)."""
    return entity.kind in TOOL_MASS_KG and float(entity.param("mass", TOOL_MASS_KG[entity.kind])) > mechanics.MAX_LIFT_MASS_KG


def _static_boxes(world: World) -> tuple[StaticBox, ...]:
    boxes = []
    for entity in world.entities:
        if entity.kind == "box":
            size = tuple(float(v) for v in entity.param("size", (1.0, 1.0, 1.0)))
            boxes.append(StaticBox(centre=entity.position, size=size, yaw_rad=float(entity.yaw_rad),
                                   climbable=bool(entity.param("climbable", False))))
        elif is_pushed_only(entity):
            scale = float(entity.param("safe_scale", 1.0))
            size = tuple(float(v) * scale for v in TOOL_SIZE_M[entity.kind])
            boxes.append(StaticBox(centre=entity.position, size=size, yaw_rad=float(entity.yaw_rad), climbable=False))
    return tuple(boxes)


def _trunks(world: World) -> np.ndarray:
    """(x, z, radius) of every tree trunk, metres: shape (n, 3)."""
    rows = [(item.position[0], item.position[2], TRUNKS[item.kind].radius_m * item.scale)
            for item in world.scenery if item.kind.is_tree]
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def _food_underfoot(world: World, height) -> np.ndarray:
    """(x, z, radius) of every food lying where the body walks (not hanging above it), metres:
    walking into food shoves it away from where the spec says it is."""
    rows = []
    for food in world.food:
        x, y, z = food.position
        radius = float(food.param("radius", 0.1))
        if y - radius < height(x, z) + FOOD_UNDERFOOT_M:
            rows.append((x, z, radius))
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


class Ground:
    """What the feet stand on and what the body bumps into, in one world."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._terrain = world.ground.heightmap if isinstance(world.ground, Terrain) else None
        self.boxes = _static_boxes(world)
        #: (x, z, radius) of every tree trunk, metres.
        self.trunks = _trunks(world)
        #: Points with |x| and |z| up to this lie inside the world, metres.
        self.half_size_m = float(world.ground.size_m) / 2.0
        #: The water plane (y, metres); None on flat ground.
        self.water_height_m = None if self._terrain is None else float(self._terrain.water_height_m)
        #: (x, z, radius) of every food the body could walk into, metres.
        self.food_underfoot = _food_underfoot(world, self.height)

    def moved(self, name: str, ground_xz: tuple[float, float]) -> "Ground":
        """The ground of this world with entity ``name`` (an item) resting at ``ground_xz`` (x, z,
        metres) instead: a primitive that pushed it there says so."""
        entity = self.world.entity(name)
        half_height = entity.position[1] - float(self.terrain_height(entity.position[0], entity.position[2]))
        x, z = (float(v) for v in ground_xz)
        moved = attr.evolve(entity, position=(x, float(self.terrain_height(x, z)) + half_height, z))
        return Ground(attr.evolve(self.world, entities=tuple(moved if e.name == name else e for e in self.world.entities)))

    def contains(self, x, z) -> np.ndarray:
        """Whether (x, z) (arrays broadcast) lies inside the world."""
        limit = self.half_size_m * (1.0 - 1e-9)
        return (np.abs(np.asarray(x)) <= limit) & (np.abs(np.asarray(z)) <= limit)

    def terrain_height(self, x, z):
        """The terrain's (or flat ground's) surface height at (x, z), boxes aside; clipped to the world."""
        x = np.clip(np.asarray(x, dtype=np.float64), -self.half_size_m, self.half_size_m)
        z = np.clip(np.asarray(z, dtype=np.float64), -self.half_size_m, self.half_size_m)
        if self._terrain is None:
            heights = np.zeros(np.broadcast(x, z).shape)
        else:
            heights = np.asarray(ground_height(self._terrain, x, z), dtype=np.float64)
        return float(heights) if heights.ndim == 0 else heights

    def height(self, x, z):
        """The height the feet stand on at (x, z): the terrain's, or a static box's top over it."""
        heights = np.asarray(self.terrain_height(x, z), dtype=np.float64)
        for box in self.boxes:
            inside = box.footprint_distance_m(x, z) <= 0.0
            heights = np.where(inside, np.maximum(heights, box.top_y_m), heights)
        return float(heights) if heights.ndim == 0 else heights

    def obstacle_clearance_m(self, x, z) -> np.ndarray:
        """Horizontal distance from (x, z) to the nearest tree trunk's or food's surface (inf if none)."""
        x = np.asarray(x, dtype=np.float64)
        z = np.asarray(z, dtype=np.float64)
        best = np.full(np.broadcast(x, z).shape, np.inf)
        for tx, tz, radius in (*self.trunks, *self.food_underfoot):
            best = np.minimum(best, np.hypot(x - tx, z - tz) - radius)
        return best

    def profile(self, start, end, spacing_m: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
        """Distances along the straight line from ``start`` to ``end`` ((x, z) or (x, y, z)) every
        ``spacing_m``, and the height the feet would stand on at each."""
        sx, sz = float(start[0]), float(start[-1])
        ex, ez = float(end[0]), float(end[-1])
        length = math.hypot(ex - sx, ez - sz)
        count = max(2, int(math.ceil(length / spacing_m)) + 1)
        t = np.linspace(0.0, 1.0, count)
        return t * length, np.asarray(self.height(sx + t * (ex - sx), sz + t * (ez - sz)), dtype=np.float64)
