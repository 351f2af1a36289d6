"""Causeways: paths of straight segments with a flat top, cut across an obstacle ring (move's
chasm), so that the only way over the ring is along them.

:func:`zigzag_causeway` lays one out, :func:`cut_causeway` restores the natural ground along it
in a shaped height map (any ring: a trench or a wall), and :func:`chasm_with_causeway` cuts a
chasm ring (:class:`~avalon.tasks.kit.chasm.ChasmRing`) with a causeway across it.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.obstacles import ObstacleRing, RingResult, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.chasm import ChasmRing
from avalon.tasks.kit.geometry import (
    BLOCKING_SLOPE_DEG,
    XZ,
    component_labels,
    triangle_centroids,
    triangle_index,
    walkable_grid,
)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Causeway:
    """A path of straight segments through ``points`` ((x, z), metres) with a flat top ``width_m`` wide."""

    points: tuple[XZ, ...] = attr.ib(converter=lambda ps: tuple((float(x), float(z)) for x, z in ps))
    width_m: float = attr.ib(validator=check.positive())

    def __attrs_post_init__(self) -> None:
        if len(self.points) < 2:
            raise ValueError(f"Causeway.points={self.points!r}: expected at least two points")

    @property
    def segment_count(self) -> int:
        return len(self.points) - 1

    @property
    def length_m(self) -> float:
        return float(sum(math.dist(a, b) for a, b in zip(self.points[:-1], self.points[1:])))

    def turn_angles_deg(self) -> tuple[float, ...]:
        """Change of heading at each inner point, degrees (0 = straight on)."""
        headings = [math.atan2(b[1] - a[1], b[0] - a[0]) for a, b in zip(self.points[:-1], self.points[1:])]
        return tuple(
            abs(math.degrees((h2 - h1 + math.pi) % (2 * math.pi) - math.pi)) for h1, h2 in zip(headings[:-1], headings[1:])
        )

    def distance_m(self, x, z) -> np.ndarray:
        """Horizontal distance from (x, z) (arrays broadcast) to the nearest point of the centre line."""
        x = np.asarray(x, dtype=np.float64)
        z = np.asarray(z, dtype=np.float64)
        best = np.full(np.broadcast(x, z).shape, np.inf)
        for (ax, az), (bx, bz) in zip(self.points[:-1], self.points[1:]):
            dx, dz = bx - ax, bz - az
            t = np.clip(((x - ax) * dx + (z - az) * dz) / max(dx * dx + dz * dz, 1e-12), 0.0, 1.0)
            best = np.minimum(best, np.hypot(x - ax - t * dx, z - az - t * dz))
        return best


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CausewayShape:
    """How a causeway across a ring is laid: its top's width (metres), its straight segments, and
    how far each turns off the straight line across (degrees)."""

    width_m: float = attr.ib(validator=check.positive())
    segment_count: int = attr.ib(validator=check.int_between(1, 8))
    turn_deg: float = attr.ib(validator=check.between(0.0, 60.0))


def zigzag_causeway(
    rng: np.random.Generator, start: XZ, end: XZ, *, segment_count: int, turn_deg: float, width_m: float
) -> Causeway:
    """A causeway from ``start`` to ``end`` in ``segment_count`` straight segments that zigzag.

    The inner points step evenly along the straight line and alternate sides of it, so the first
    segment leaves the line at ``turn_deg`` (the side is random) and later ones turn back across.
    """
    length = math.dist(start, end)
    if length <= 0:
        raise ValueError(f"causeway start {start} and end {end} coincide")
    ux, uz = (end[0] - start[0]) / length, (end[1] - start[1]) / length
    step = length / segment_count
    offset = step * math.tan(math.radians(turn_deg))
    side = 1.0 if rng.uniform() < 0.5 else -1.0
    points = []
    for i in range(segment_count + 1):
        lateral = 0.0 if i in (0, segment_count) else side * offset * (-1.0) ** (i - 1)
        along = step * i
        points.append((start[0] + along * ux - lateral * uz, start[1] + along * uz + lateral * ux))
    return Causeway(points=points, width_m=width_m)


def cut_causeway(before: HeightMap, after: HeightMap, causeway: Causeway, wall_slope_deg: float) -> tuple[HeightMap, np.ndarray]:
    """Restore the ground of ``before`` along ``causeway`` in the obstacle-shaped map ``after``.

    The obstacle's height offset (``after - before``, a trench or a wall) is removed on the
    causeway's flat top and grows back at ``wall_slope_deg`` on either side, so the causeway has
    steep sides and keeps the natural ground's heights along its top. Returns the new map and the
    grid points on the top.
    """
    if before.shape != after.shape or before.size_m != after.size_m:
        raise ValueError("cut_causeway: the two height maps must cover the same grid")
    x, z = np.meshgrid(before.x_coords_m, before.z_coords_m)
    distance = causeway.distance_m(x, z)
    offset = after.heights.astype(np.float64) - before.heights.astype(np.float64)
    limit = np.maximum(distance - causeway.width_m / 2.0, 0.0) * math.tan(math.radians(wall_slope_deg))
    heights = before.heights.astype(np.float64) + np.sign(offset) * np.minimum(np.abs(offset), limit)
    return after.with_heights(heights), distance <= causeway.width_m / 2.0


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class CausewayChasm:
    """A chasm ring whose only crossing is a causeway, ready for ``assign_biomes``."""

    ring: ObstacleRing
    #: Terrain and masks after the ring and the causeway (the causeway's top is not wall).
    result: RingResult
    causeway: Causeway
    #: Grid points on the causeway's flat top.
    top: np.ndarray = attr.ib(repr=False)
    #: Grid points of the chasm band as cut by the ring, causeway included (padded by one cell).
    band: np.ndarray = attr.ib(repr=False)

    def crossing_triangles(self, heightmap: HeightMap) -> np.ndarray:
        """Triangles of the causeway where it crosses the chasm: block them and the far side must be
        out of reach."""
        return causeway_triangles(heightmap, self.causeway) & triangles_touching(self.band)


def chasm_with_causeway(
    rng: np.random.Generator, heightmap: HeightMap, chasm: ChasmRing, approach_angle_deg: float, shape: CausewayShape
) -> CausewayChasm:
    """Cut ``chasm`` (no stretch) and a zigzag causeway across it; the noise and the zigzag's side
    come from ``rng``.

    The causeway starts 1 m outside the chasm in the direction ``approach_angle_deg`` (ring
    angles: degrees from +x towards +z) and ends 1 m inside its inner edge.
    """
    ring = chasm.ring()
    ringed = apply_ring(rng, heightmap, ring)
    angle = math.radians(approach_angle_deg)
    direction = (math.cos(angle), math.sin(angle))
    start_radius = chasm.outer_radius_m + 1.0
    end_radius = max(1.0, chasm.inner_radius_m - chasm.noise_m - 1.0)
    centre = chasm.centre
    start = (centre[0] + start_radius * direction[0], centre[1] + start_radius * direction[1])
    end = (centre[0] + end_radius * direction[0], centre[1] + end_radius * direction[1])
    causeway = zigzag_causeway(
        rng, start, end, segment_count=shape.segment_count, turn_deg=shape.turn_deg, width_m=shape.width_m
    )
    shaped, top = cut_causeway(heightmap, ringed.heightmap, causeway, chasm.wall_slope_deg)
    result = RingResult(
        heightmap=shaped,
        wall=ringed.wall & ~top,
        climbable=ringed.climbable & ~top,
        unclimbable=ringed.unclimbable & ~top,
        gap=ringed.gap | (ringed.wall & top),
        inside=ringed.inside,
        outlines=ringed.outlines,
    )
    return CausewayChasm(ring=ring, result=result, causeway=causeway, top=top, band=ringed.wall)


def causeway_triangles(heightmap: HeightMap, causeway: Causeway, margin_m: Optional[float] = None) -> np.ndarray:
    """Terrain triangles whose centroid lies within the causeway's half width + ``margin_m`` (one
    grid cell by default) of its centre line: everything a walker on the causeway stands on."""
    margin = heightmap.cell_size_m if margin_m is None else margin_m
    x, z = triangle_centroids(heightmap)
    return causeway.distance_m(x, z) <= causeway.width_m / 2.0 + margin


def triangles_touching(points: np.ndarray) -> np.ndarray:
    """Triangles (see ``geometry.triangle_slopes_deg``) with at least one corner in a grid-point mask."""
    first = points[:-1, :-1] | points[:-1, 1:] | points[1:, :-1]
    second = points[:-1, 1:] | points[1:, 1:] | points[1:, :-1]
    return np.stack([first, second], axis=-1)


def reachable_without(heightmap: HeightMap, blocked: np.ndarray, start: XZ, goal: XZ) -> bool:
    """Whether ``goal`` is reachable from ``start`` when the ``blocked`` triangles are removed, on a
    generous walkability (slopes up to ``BLOCKING_SLOPE_DEG``, water counts as ground)."""
    walkable = walkable_grid(heightmap, BLOCKING_SLOPE_DEG, allow_water=True) & ~blocked
    labels = component_labels(walkable)
    a = labels[triangle_index(heightmap, *start)]
    b = labels[triangle_index(heightmap, *goal)]
    if a < 0 or b < 0:
        raise ImpossibleWorldError(f"reachable_without: start {start} or goal {goal} stands on a blocked or steep triangle")
    return bool(a == b)
