"""Sight: whether the agent can see a point from its eyes, past the terrain and the plants.

Plants are bounded by vertical cylinders (:data:`OCCLUDER_PARTS`, checked by a test to enclose the
shapes the exporter draws), so a sight line that misses every cylinder misses the plant; the
terrain is sampled on its triangle mesh (:func:`~avalon.tasks.kit.geometry.ground_height`).
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import attr
import numpy as np

from avalon.datagen.scenery import SceneryInstance, SceneryKind
from avalon.datagen.terrain import HeightMap
from avalon.rules import mechanics
from avalon.tasks.kit.geometry import ground_height

#: Height of the agent's eyes above its feet, metres.
EYE_HEIGHT_M = mechanics.HEAD_DEFAULT_HEIGHT_M
#: Bounding vertical cylinders (radius, base height, height) of each scenery kind's parts at scale 1,
#: metres. They enclose the shapes the exporter draws (a test checks it), so a sight line that
#: misses every cylinder misses the plant.
OCCLUDER_PARTS: dict[SceneryKind, tuple[tuple[float, float, float], ...]] = {
    SceneryKind.MAPLE: ((0.2, 0.0, 2.6), (1.9, 2.2, 3.4)),
    SceneryKind.ACACIA: ((0.18, 0.0, 3.4), (2.6, 3.2, 1.1)),
    SceneryKind.FIR: ((0.22, 0.0, 1.6), (1.6, 1.0, 5.4)),
    SceneryKind.PALM: ((0.16, 0.0, 5.2), (2.2, 4.8, 0.9)),
    SceneryKind.BUSH: ((0.75, 0.0, 1.1),),
    SceneryKind.FLOWER: ((0.1, 0.0, 0.45),),
    SceneryKind.MUSHROOM: ((0.14, 0.0, 0.24),),
    SceneryKind.FRUIT_TREE: ((0.45, 0.0, 5.0), (3.0, 4.5, 4.5)),
}
#: Trees sink a few centimetres into the ground when exported; start their cylinders lower.
_OCCLUDER_SINK_M = 0.1


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Occluders:
    """Vertical cylinders that block sight, as parallel arrays; ``owner`` is the index of the scenery
    instance each cylinder belongs to."""

    x: np.ndarray
    z: np.ndarray
    radius: np.ndarray
    bottom: np.ndarray
    top: np.ndarray
    owner: np.ndarray

    def blocking(self, eye, target) -> np.ndarray:
        """True for each cylinder the segment from ``eye`` to ``target`` (x, y, z) passes through."""
        e = np.asarray(eye, dtype=np.float64)
        d = np.asarray(target, dtype=np.float64) - e
        if self.x.size == 0:
            return np.zeros(0, dtype=bool)
        # Part of the segment (parameter t in [t0, t1]) within each cylinder's height range.
        if abs(d[1]) < 1e-12:
            inside = (self.bottom <= e[1]) & (e[1] <= self.top)
            t0 = np.where(inside, 0.0, 1.0)
            t1 = np.where(inside, 1.0, 0.0)
        else:
            ta = (self.bottom - e[1]) / d[1]
            tb = (self.top - e[1]) / d[1]
            t0 = np.maximum(0.0, np.minimum(ta, tb))
            t1 = np.minimum(1.0, np.maximum(ta, tb))
        horizontal = d[0] ** 2 + d[2] ** 2
        if horizontal > 1e-12:
            t_near = ((self.x - e[0]) * d[0] + (self.z - e[2]) * d[2]) / horizontal
        else:
            t_near = t0
        t = np.clip(t_near, t0, np.maximum(t0, t1))
        distance = np.hypot(e[0] + t * d[0] - self.x, e[2] + t * d[2] - self.z)
        return (t0 <= t1) & (distance < self.radius)


def scenery_occluders(instances: Sequence[SceneryInstance]) -> Occluders:
    """The bounding cylinders of every part of every instance (see ``OCCLUDER_PARTS``)."""
    columns: list[list[float]] = [[], [], [], [], [], []]
    for index, item in enumerate(instances):
        x, y, z = item.position
        for radius, base, height in OCCLUDER_PARTS[SceneryKind(item.kind)]:
            bottom = y + base * item.scale - (_OCCLUDER_SINK_M if base == 0.0 else 0.0)
            for column, value in zip(columns, (x, z, radius * item.scale, bottom, y + (base + height) * item.scale, index)):
                column.append(value)
    x, z, radius, bottom, top, owner = (np.asarray(c, dtype=np.float64) for c in columns)
    return Occluders(x=x, z=z, radius=radius, bottom=bottom, top=top, owner=owner.astype(np.intp))


def terrain_clear(heightmap: HeightMap, eye, target, margin_m: float = 0.02) -> bool:
    """Whether the terrain stays at least ``margin_m`` below the segment from ``eye`` to ``target``.

    The segment is sampled every quarter grid cell (end points excluded) on the triangle mesh.
    """
    e = np.asarray(eye, dtype=np.float64)
    d = np.asarray(target, dtype=np.float64) - e
    length = math.hypot(d[0], d[2])
    samples = max(2, int(math.ceil(length / (0.25 * heightmap.cell_size_m))))
    t = np.arange(1, samples) / samples
    ground = ground_height(heightmap, e[0] + t * d[0], e[2] + t * d[2])
    return bool(np.all(ground <= e[1] + t * d[1] - margin_m))


def line_of_sight(heightmap: HeightMap, eye, target, occluders: Optional[Occluders] = None, margin_m: float = 0.02) -> bool:
    """Whether ``target`` (x, y, z) can be seen from ``eye``: neither terrain nor any occluder cylinder
    (trunk or canopy, see :func:`scenery_occluders`) is in the way."""
    if not terrain_clear(heightmap, eye, target, margin_m):
        return False
    return occluders is None or not occluders.blocking(eye, target).any()


def eye_position(spawn) -> tuple[float, float, float]:
    """The agent's eyes (x, y, z) when its feet are at ``spawn`` (x, y, z)."""
    x, y, z = (float(v) for v in spawn)
    return (x, y + EYE_HEIGHT_M, z)
