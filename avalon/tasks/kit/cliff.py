"""Cliffs as obstacle pieces' terrain: a ring of walls in flat tiers round a centre with a climbable
path up them (climb's piece), and the geometry the ring pieces (climb, descend, scramble) share.

A ring piece stands in the band of a :class:`~avalon.tasks.kit.obstacle.Constraint` round its
centre. Round the goal (heights not inverted) the goal's side, the inside, lies above the walls;
round the start (heights inverted) the start's side, the inside, lies below them, so the goal
outside lies above. A tiered cliff sets the heights inside its walls to flat levels, so it levels
whatever lay inside it: a compositional world places its pieces from the outermost band inwards.

Angles are ring angles (``avalon.datagen.obstacles``): from +x towards +z, round the centre.
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.noise import sample_periodic
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingOutline, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.geometry import XZ
from avalon.tasks.kit.obstacle import Constraint

#: Horizontal run of the outermost ring's wall (its outline; the tiers' tops are flat), metres.
WALL_RUN_M = 0.02
#: Round the goal, the lowest tier's top stands a tier's height above the highest natural ground
#: within this of the cliff's foot, metres: beyond the reach the bypass search grants a jump that
#: rises more than the feet's path does (it slides up the face: 2.75 m at full speed, + 0.5 m slack).
TAKE_OFF_REACH_M = 4.0
#: The wall's foot (round the goal) or its top edge (round the start) is the natural ground within
#: this of the cliff's outline, metres.
FOOT_BAND_M = 1.0
#: The climbable strip of a segment reaches this far onto the top beyond its wall (the last pull
#: takes hold there) and this far out from its foot, metres.
HOLDS_ONTO_TOP_M = 1.0
HOLDS_BEYOND_FOOT_M = 1.0


def point_at(centre: XZ, radius_m: float, angle_rad: float) -> XZ:
    """The point ``radius_m`` from ``centre`` in the direction ``angle_rad``."""
    return centre[0] + radius_m * math.cos(angle_rad), centre[1] + radius_m * math.sin(angle_rad)


def angular_distance(theta, centre_rad: float):
    """How far the angles ``theta`` (radians, arrays broadcast) lie round from ``centre_rad``, in [0, pi]."""
    return np.abs((theta - centre_rad + math.pi) % (2.0 * math.pi) - math.pi)


def require_reach(task: str, constraint: Constraint, reach_m: float) -> None:
    """``ImpossibleWorldError`` unless a piece reaching ``reach_m`` from its centre stays within the
    constraint's outer radius."""
    if reach_m > constraint.outer_radius_m:
        raise ImpossibleWorldError(f"{task}: the piece reaches {reach_m:.2f} m from its centre: beyond the band's "
                                   f"outer radius {constraint.outer_radius_m:.2f} m")


def uphill_kind(inverted: bool) -> RingKind:
    """The kind of a ring whose wall the agent goes up to its goal: a cliff raising the inside round
    the goal, a drop lowering the inside round the start."""
    return RingKind.DROP if inverted else RingKind.CLIFF


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class CliffSpec:
    """A cliff in flat tiers round a plateau (or, round the start, a pit) with a climbable path up
    it. Lengths in metres."""

    #: From the foot to the top, split evenly between the tiers.
    height_m: float = attr.ib(validator=check.positive())
    path_width_m: float = attr.ib(validator=check.positive())
    #: Tiers, one straight segment of the path each.
    segments: int = attr.ib(validator=check.int_between(1, 8))
    #: Sideways offset of each segment's path from the one below, along the ledge at its foot (0
    #: with one segment).
    segment_offset_m: float = attr.ib(validator=check.non_negative())
    ledge_width_m: float = attr.ib(validator=check.positive())
    #: Mean radius of the innermost wall.
    plateau_radius_m: float = attr.ib(validator=check.positive())
    #: How far the walls' outline wanders in and out with direction.
    noise_amplitude_m: float = attr.ib(validator=check.non_negative())

    def __attrs_post_init__(self) -> None:
        if self.noise_amplitude_m >= self.plateau_radius_m:
            raise ValueError(f"CliffSpec.noise_amplitude_m={self.noise_amplitude_m!r}: expected less than "
                             f"plateau_radius_m={self.plateau_radius_m!r}")

    @property
    def tier_height_m(self) -> float:
        return self.height_m / self.segments

    def inner_radius_m(self, tier: int) -> float:
        """Mean radius of tier ``tier``'s wall (0: the outermost)."""
        return self.plateau_radius_m + (self.segments - 1 - tier) * self.ledge_width_m

    @property
    def outer_radius_m(self) -> float:
        """Farthest the outermost wall reaches from the centre."""
        return self.inner_radius_m(0) + self.noise_amplitude_m + WALL_RUN_M

    def climbed_tier(self, step: int, inverted: bool) -> int:
        """The tier (0: the outermost) whose wall the ``step``-th segment of the path climbs: from
        the outside in round the goal, from the inside out round the start."""
        return self.segments - 1 - step if inverted else step


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class TieredCliff:
    """The terrain after a tiered cliff, and what the biomes and the tasks need of it."""

    spec: CliffSpec
    centre: XZ
    #: Whether the cliff rings the start (the inside below the walls) rather than the goal.
    inverted: bool
    heightmap: HeightMap
    #: Grid points that can be climbed (the path's strips) and the rest of the walls.
    climbable: np.ndarray = attr.ib(repr=False)
    unclimbable: np.ndarray = attr.ib(repr=False)
    #: Grid points inside the outermost wall (walls, ledges and the plateau or the pit).
    inside: np.ndarray = attr.ib(repr=False)
    #: Each tier's wall's outline, outermost first.
    outlines: tuple[RingOutline, ...]
    #: Ring angle (degrees) of the path up each tier's wall, outermost first.
    path_angles_deg: tuple[float, ...]

    def wall_radius_m(self, tier: int, angle_deg: float) -> float:
        """Distance from the centre to tier ``tier``'s wall in the direction ``angle_deg``."""
        return float(sample_periodic(self.outlines[tier].inner_radius_m, math.radians(angle_deg)))

    def point(self, radius_m: float, angle_deg: float) -> XZ:
        angle = math.radians(angle_deg)
        return self.centre[0] + radius_m * math.cos(angle), self.centre[1] + radius_m * math.sin(angle)

    def crossing_points(self, standoff_m: float) -> tuple[XZ, XZ]:
        """(start, end): standing points ``standoff_m`` before the foot of the path's first segment
        and beyond the top of its last, each on its segment's line."""
        first = self.spec.climbed_tier(0, self.inverted)
        last = self.spec.climbed_tier(self.spec.segments - 1, self.inverted)
        below, above = (-standoff_m, WALL_RUN_M + standoff_m) if self.inverted else (WALL_RUN_M + standoff_m, -standoff_m)
        start_angle, end_angle = self.path_angles_deg[first], self.path_angles_deg[last]
        return (self.point(self.wall_radius_m(first, start_angle) + below, start_angle),
                self.point(self.wall_radius_m(last, end_angle) + above, end_angle))


def path_angles_deg(spec: CliffSpec, approach_deg: float, side: float, inverted: bool = False) -> tuple[float, ...]:
    """Each tier's path angle, outermost first: the first segment climbed faces ``approach_deg``;
    each next one is set ``segment_offset_m`` along the ledge at its foot from the one below, first
    to ``side`` (+1 or -1), then back: the path zigzags."""
    climbed = [approach_deg]
    for step in range(1, spec.segments):
        radius = spec.inner_radius_m(spec.climbed_tier(step, inverted))
        turn = math.degrees(spec.segment_offset_m / radius)  # along the ledge at its foot
        climbed.append(climbed[-1] + side * turn * (-1.0) ** (step - 1))
    return tuple(reversed(climbed)) if inverted else tuple(climbed)


def cliff_base_m(heightmap: HeightMap, centre: XZ, spec: CliffSpec, inverted: bool = False) -> tuple[float, float]:
    """(highest, lowest) natural ground the cliff stands on, metres. Round the goal: the highest
    under the cliff and within ``TAKE_OFF_REACH_M`` of its foot (the tiers stand on it, so no
    take-off within a jump of a wall is higher than its foot), the lowest under the cliff and
    ``FOOT_BAND_M`` round it (no lower than the water plane). Round the start: the highest and
    the lowest ground where the outermost wall's top may be, from its outline's innermost reach to
    ``FOOT_BAND_M`` beyond its outermost (the pit's levels hang from the lowest)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - centre[0], z - centre[1])
    heights = heightmap.heights
    if inverted:
        rim = heights[(r >= spec.inner_radius_m(0) - spec.noise_amplitude_m) & (r <= spec.outer_radius_m + FOOT_BAND_M)]
        return float(rim.max()), float(rim.min())
    lowest = heights[r <= spec.outer_radius_m + FOOT_BAND_M].min()
    return float(heights[r <= spec.outer_radius_m + TAKE_OFF_REACH_M].max()), float(max(lowest, heightmap.water_height_m))


def cut_tiered_cliff(rng: np.random.Generator, heightmap: HeightMap, centre: XZ, spec: CliffSpec,
                     angles_deg: tuple[float, ...], inverted: bool = False) -> TieredCliff:
    """A cliff round ``centre`` in ``spec.segments`` flat tiers, each ``spec.tier_height_m`` above
    the next one out (round the goal) or in (round the start, ``inverted``), and each tier's
    climbable strip at ``angles_deg`` (outermost tier first). Round the goal the lowest tier's top
    stands that high above the highest natural ground within ``TAKE_OFF_REACH_M`` of the cliff;
    round the start the highest tier lies that far below the lowest natural ground at the
    outermost wall's top (see :func:`cliff_base_m`). The outermost wall follows a ring's noisy
    outline (its noise drawn from ``rng``); each tier inside it the same outline ``ledge_width_m``
    further in, so the ledges keep their width."""
    outermost = ObstacleRing(
        kind=uphill_kind(inverted), centre_x_m=float(centre[0]), centre_z_m=float(centre[1]),
        inner_radius_m=spec.inner_radius_m(0), width_m=WALL_RUN_M, height_m=spec.tier_height_m,
        noise_amplitude_m=spec.noise_amplitude_m,
    )
    first = apply_ring(rng, heightmap, outermost).outlines[0]
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    dx, dz = x - centre[0], z - centre[1]
    r, theta = np.hypot(dx, dz), np.arctan2(dz, dx)
    highest, lowest = cliff_base_m(heightmap, centre, spec, inverted)
    heights = heightmap.heights.astype(np.float64)
    wall = np.zeros(heightmap.shape, dtype=bool)
    climbable = np.zeros(heightmap.shape, dtype=bool)
    pad = heightmap.cell_size_m  # the points whose triangles touch the wall, as obstacles.py pads it
    # Holds reach onto the top (inside round the goal, outside round the start) and out from the foot.
    inward, outward = (HOLDS_BEYOND_FOOT_M, HOLDS_ONTO_TOP_M) if inverted else (HOLDS_ONTO_TOP_M, HOLDS_BEYOND_FOOT_M)
    outlines = []
    for tier, angle in enumerate(angles_deg):
        shift = spec.inner_radius_m(0) - spec.inner_radius_m(tier)
        outline = attr.evolve(first, inner_radius_m=first.inner_radius_m - shift, outer_radius_m=first.outer_radius_m - shift)
        outlines.append(outline)
        t = r - sample_periodic(outline.inner_radius_m, theta)
        # The tier's top is flat (a grid point is on it or not), so its wall rises between two
        # neighbouring points, steeper than 83 degrees.
        level = lowest - (tier + 1) * spec.tier_height_m if inverted else highest + (tier + 1) * spec.tier_height_m
        heights = np.where(t < 0.0, level, heights)
        wall |= (t >= -pad) & (t <= WALL_RUN_M + pad)
        along = angular_distance(theta, math.radians(angle)) * np.maximum(r, 1e-6)
        climbable |= (along <= spec.path_width_m / 2) & (t >= -inward) & (t <= outward)
    inside = r < sample_periodic(outlines[0].inner_radius_m, theta)
    return TieredCliff(spec=spec, centre=centre, inverted=inverted, heightmap=heightmap.with_heights(heights),
                       climbable=climbable, unclimbable=wall & ~climbable, inside=inside, outlines=tuple(outlines),
                       path_angles_deg=tuple(angles_deg))
