"""Obstacle rings: irregular rings of shaped terrain around a point (the spawn or the food).

A ring forces the agent to solve a task to get from outside to inside (or back): climb a cliff,
jump or bridge a chasm, get over a ridge, or descend a drop. The ring's radius varies smoothly
with direction (noise) so it looks like a natural formation. An optional *gap* is the passable
part (a land bridge, an opening, or a walkable ramp) or, for chasms and ridges, a narrower section
(jumpable or bridgeable). Rings only add height offsets, so they compose: apply a smaller ring
inside a bigger one and both obstacles stand, one after the other.

Angles are degrees in the x-z plane measured from +x towards +z: ``atan2(z - centre_z, x - centre_x)``.
"""

from __future__ import annotations

import enum
import math
from typing import Sequence

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.noise import periodic_noise, sample_periodic, smoothstep
from avalon.datagen.terrain import HeightMap


class RingKind(str, enum.Enum):
    CLIFF = "cliff"  #: inside raised by height_m; the wall is the band of width_m
    CHASM = "chasm"  #: a trench width_m across and height_m deep
    RIDGE = "ridge"  #: a wall height_m high and width_m thick at its base
    DROP = "drop"  #: inside lowered by height_m; the wall is the band of width_m


#: Angular samples of the realised ring outline.
OUTLINE_SAMPLES = 256


def angle_towards_deg(from_x: float, from_z: float, to_x: float, to_z: float) -> float:
    """Ring angle (degrees, 0 = +x, 90 = +z) of the direction from one point to another."""
    return math.degrees(math.atan2(to_z - from_z, to_x - from_x))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ObstacleRing:
    """One ring of shaped terrain. Lengths in metres, angles in degrees (see module docstring).

    ``t`` below is the distance outward from the ring's (noisy) inner edge.

    - CLIFF / DROP: the inside (``t < 0``) is raised / lowered by ``height_m``; the wall falls
      linearly over ``0 <= t <= width_m`` (slope ``atan(height_m / width_m)``). In the gap the wall
      becomes a ramp at ``gap_slope_deg`` running outward from the inner edge.
    - CHASM / RIDGE: a trench / wall over ``0 <= t <= width_m``, ``height_m`` deep / high, with
      sides at ``wall_slope_deg`` (steeper if the band is too narrow). In the gap the band narrows
      to ``gap_band_width_m`` (0 = fully passable land).
    """

    kind: RingKind = attr.ib(converter=RingKind)
    centre_x_m: float = attr.ib(validator=check.finite())
    centre_z_m: float = attr.ib(validator=check.finite())
    #: Mean distance from the centre to the ring's inner edge.
    inner_radius_m: float = attr.ib(validator=check.positive())
    #: Radial width of the ring band.
    width_m: float = attr.ib(validator=check.positive())
    #: Height of a cliff or ridge, depth of a chasm or drop (positive).
    height_m: float = attr.ib(validator=check.positive())
    #: Direction of the middle of the gap.
    gap_angle_deg: float = attr.ib(default=0.0, validator=check.finite())
    #: Arc length of the gap, measured at the middle of the band (0 = no gap).
    gap_width_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: CHASM / RIDGE only: radial width left in the gap (0 = open; > 0 = narrower section).
    gap_band_width_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: Whether the obstacle blends into the gap over about one grid cell of arc (False: a sharp
    #: side, so steep walls leave no grid points at heights between the gap's and the obstacle's).
    gap_edge_blend: bool = attr.ib(default=True, validator=attr.validators.instance_of(bool))
    #: CLIFF / DROP only: slope of the ramp in the gap.
    gap_slope_deg: float = attr.ib(default=25.0, validator=check.between(1.0, 89.0))
    #: CHASM / RIDGE only: slope of the sides.
    wall_slope_deg: float = attr.ib(default=75.0, validator=check.between(1.0, 89.9))
    #: Whether the whole wall can be climbed.
    climbable: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))
    #: Direction of the middle of a climbable strip in an otherwise unclimbable wall.
    climb_path_angle_deg: float = attr.ib(default=0.0, validator=check.finite())
    #: Arc length of that climbable strip at the middle of the band (0 = none).
    climb_path_width_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: How far the inner edge wanders in and out with direction.
    noise_amplitude_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: Roughly how many bumps the noise makes around the ring.
    noise_lobes: float = attr.ib(default=3.0, validator=check.between(0.5, 64.0))

    def __attrs_post_init__(self) -> None:
        if self.noise_amplitude_m >= self.inner_radius_m:
            raise ValueError(
                f"ObstacleRing.noise_amplitude_m={self.noise_amplitude_m!r}: expected less than inner_radius_m="
                f"{self.inner_radius_m!r} so the ring never crosses its centre"
            )
        if self.gap_band_width_m >= self.width_m:
            raise ValueError(
                f"ObstacleRing.gap_band_width_m={self.gap_band_width_m!r}: expected less than width_m={self.width_m!r}"
            )
        if self.gap_band_width_m > 0 and self.kind in (RingKind.CLIFF, RingKind.DROP):
            raise ValueError(
                f"ObstacleRing.gap_band_width_m={self.gap_band_width_m!r}: only chasms and ridges narrow in the gap; "
                f"a {self.kind.value} gap is a ramp (set gap_slope_deg)"
            )
        circumference = 2.0 * math.pi * self.mid_radius_m
        for name in ("gap_width_m", "climb_path_width_m"):
            value = getattr(self, name)
            if value > circumference:
                raise ValueError(
                    f"ObstacleRing.{name}={value!r}: expected at most the ring's circumference {circumference:.2f} m"
                )

    @property
    def mid_radius_m(self) -> float:
        return self.inner_radius_m + self.width_m / 2.0

    @property
    def outer_radius_m(self) -> float:
        """Largest distance from the centre the ring can reach (noise and gap ramp included)."""
        return self.inner_radius_m + self.noise_amplitude_m + max(self.width_m, self.ramp_length_m)

    @property
    def ramp_length_m(self) -> float:
        """Horizontal length of the ramp in a cliff's or drop's gap (0 for chasms and ridges)."""
        if self.kind in (RingKind.CLIFF, RingKind.DROP):
            return self.height_m / math.tan(math.radians(self.gap_slope_deg))
        return 0.0


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class RingOutline:
    """The realised shape of a ring (after noise), sampled at ``OUTLINE_SAMPLES`` angles; for drawing."""

    kind: RingKind
    centre_x_m: float
    centre_z_m: float
    angles_rad: np.ndarray = attr.ib(repr=False)
    inner_radius_m: np.ndarray = attr.ib(repr=False)
    outer_radius_m: np.ndarray = attr.ib(repr=False)
    #: True at angles inside the passable gap.
    gap: np.ndarray = attr.ib(repr=False)


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class RingResult:
    """The terrain after one or more rings, and bool grids describing them.

    ``wall`` covers the obstacle cells (padded by one cell so the cells whose triangles touch the
    wall are included); ``climbable`` and ``unclimbable`` split it; ``gap`` is the passable part;
    ``inside`` is the area enclosed by the (innermost) ring. Pass ``climbable`` and
    ``unclimbable`` to :func:`avalon.datagen.biomes.assign_biomes` so the surfaces get the right
    biome.
    """

    heightmap: HeightMap
    wall: np.ndarray = attr.ib(repr=False)
    climbable: np.ndarray = attr.ib(repr=False)
    unclimbable: np.ndarray = attr.ib(repr=False)
    gap: np.ndarray = attr.ib(repr=False)
    inside: np.ndarray = attr.ib(repr=False)
    outlines: tuple[RingOutline, ...] = ()


def _angular_distance(theta: np.ndarray, centre_rad: float) -> np.ndarray:
    return np.abs((theta - centre_rad + math.pi) % (2.0 * math.pi) - math.pi)


def _angular_weight(theta: np.ndarray, centre_rad: float, half_width_rad: float, blend_rad: float) -> np.ndarray:
    """1 within ``half_width_rad`` of ``centre_rad``, fading to 0 over ``blend_rad`` beyond it."""
    if half_width_rad <= 0:
        return np.zeros(np.shape(theta))
    return 1.0 - smoothstep(half_width_rad, half_width_rad + blend_rad, _angular_distance(theta, centre_rad))


def _band_profile(t: np.ndarray, width: float, run: float) -> np.ndarray:
    """1 inside a band [0, width] with linear sides of horizontal length ``run``, 0 outside."""
    if width <= 0:
        return np.zeros(np.shape(t))
    run = max(min(run, 0.5 * width), 1e-6)
    return np.clip(t / run, 0.0, 1.0) * np.clip((width - t) / run, 0.0, 1.0)


def apply_ring(rng: np.random.Generator, heightmap: HeightMap, ring: ObstacleRing) -> RingResult:
    """Shape the terrain into ``ring``; the noise comes from ``rng``. Heights are offsets, so rings compose."""
    if not heightmap.contains(ring.centre_x_m, ring.centre_z_m):
        raise ValueError(
            f"ring centre x={ring.centre_x_m!r}, z={ring.centre_z_m!r} (m) is outside the world "
            f"(half size {heightmap.half_size_m} m)"
        )
    table = periodic_noise(rng, samples=OUTLINE_SAMPLES, lobes=ring.noise_lobes)
    cell = heightmap.cell_size_m
    xs = heightmap.x_coords_m - ring.centre_x_m
    zs = heightmap.z_coords_m - ring.centre_z_m
    dx, dz = np.meshgrid(xs, zs)
    r = np.hypot(dx, dz)
    theta = np.arctan2(dz, dx)
    inner = ring.inner_radius_m + ring.noise_amplitude_m * sample_periodic(table, theta)
    t = r - inner

    mid = ring.mid_radius_m
    blend = max(cell, 0.5) / mid if ring.gap_edge_blend else 0.0  # soften gap edges over about one cell of arc
    gap_half = ring.gap_width_m / (2 * mid)
    gap_weight = _angular_weight(theta, math.radians(ring.gap_angle_deg), gap_half, blend)
    in_gap = gap_weight >= 0.5
    height = ring.height_m
    pad = cell  # wall masks include the cells whose triangles touch the wall
    # The sides of the gap, where the obstacle blends into the passage, are steep too: they
    # belong to the wall, not to the gap.
    delta = _angular_distance(theta, math.radians(ring.gap_angle_deg))
    r_safe = np.maximum(r, cell)
    flank = (gap_half > 0) & (delta >= gap_half - pad / r_safe) & (delta <= gap_half + blend + pad / r_safe)

    if ring.kind in (RingKind.CLIFF, RingKind.DROP):
        sign = 1.0 if ring.kind is RingKind.CLIFF else -1.0
        wall_shape = np.clip(1.0 - t / ring.width_m, 0.0, 1.0)
        ramp_shape = np.clip(1.0 - t / ring.ramp_length_m, 0.0, 1.0)
        offset = sign * height * ((1.0 - gap_weight) * wall_shape + gap_weight * ramp_shape)
        band = (t >= -pad) & (t <= ring.width_m + pad)
        reach = max(ring.width_m, ring.ramp_length_m)
        wall = (band & ~in_gap) | (flank & (t >= -pad) & (t <= reach + pad))
        gap = in_gap & ~wall & (t >= 0.0) & (t <= reach)
    else:
        sign = 1.0 if ring.kind is RingKind.RIDGE else -1.0
        run = height / math.tan(math.radians(ring.wall_slope_deg))
        full = _band_profile(t, ring.width_m, run)
        narrow_width = ring.gap_band_width_m
        narrow = _band_profile(t - (ring.width_m - narrow_width) / 2.0, narrow_width, run)
        offset = sign * height * ((1.0 - gap_weight) * full + gap_weight * narrow)
        band = (t >= -pad) & (t <= ring.width_m + pad)
        if narrow_width > 0:
            lo = (ring.width_m - narrow_width) / 2.0
            narrow_band = (t >= lo - pad) & (t <= lo + narrow_width + pad)
        else:
            narrow_band = np.zeros_like(band)
        wall = band & (~in_gap | narrow_band | flank)
        gap = band & in_gap & ~wall

    path_weight = _angular_weight(
        theta, math.radians(ring.climb_path_angle_deg), ring.climb_path_width_m / (2 * mid), 0.0
    )
    climbable = wall & (ring.climbable | (path_weight >= 0.5))
    unclimbable = wall & ~climbable
    new_map = heightmap.with_heights(heightmap.heights.astype(np.float64) + offset)

    angles = np.arange(OUTLINE_SAMPLES) * (2.0 * math.pi / OUTLINE_SAMPLES)
    outline_inner = ring.inner_radius_m + ring.noise_amplitude_m * table
    outline_gap = _angular_weight(angles, math.radians(ring.gap_angle_deg), ring.gap_width_m / (2 * mid), 0.0) >= 0.5
    outline = RingOutline(
        kind=ring.kind,
        centre_x_m=ring.centre_x_m,
        centre_z_m=ring.centre_z_m,
        angles_rad=angles,
        inner_radius_m=outline_inner,
        outer_radius_m=outline_inner + ring.width_m,
        gap=outline_gap,
    )
    return RingResult(
        heightmap=new_map,
        wall=wall,
        climbable=climbable,
        unclimbable=unclimbable,
        gap=gap,
        inside=t < 0.0,
        outlines=(outline,),
    )


def apply_rings(
    rng: np.random.Generator, heightmap: HeightMap, rings: Sequence[ObstacleRing], *, stepped: bool = False
) -> RingResult:
    """Apply rings in order (outermost first for concentric obstacles) and merge their masks.

    A later ring's wall decides the climbability of the cells it covers; ``inside`` is the area
    inside every ring. ``stepped`` makes each face one clean step: a grid point the face's short
    run leaves part of the way up (within a few millimetres of the ring's edge) goes to the nearer
    of the two levels, so no wall has a ledge halfway up that the body could run up in two strides.
    """
    shape = heightmap.shape
    wall = np.zeros(shape, dtype=bool)
    climbable = np.zeros(shape, dtype=bool)
    unclimbable = np.zeros(shape, dtype=bool)
    gap = np.zeros(shape, dtype=bool)
    inside = np.ones(shape, dtype=bool)
    outlines: list[RingOutline] = []
    current = heightmap
    for ring in rings:
        result = apply_ring(rng, current, ring)
        if stepped:
            before = current.heights.astype(np.float64)
            offset = result.heightmap.heights.astype(np.float64) - before
            current = current.with_heights(before + np.round(offset / ring.height_m) * ring.height_m)
        else:
            current = result.heightmap
        climbable = (climbable & ~result.wall) | result.climbable
        unclimbable = (unclimbable & ~result.wall) | result.unclimbable
        wall |= result.wall
        gap = (gap & ~result.wall) | result.gap
        inside &= result.inside
        outlines.extend(result.outlines)
    return RingResult(
        heightmap=current,
        wall=wall,
        climbable=climbable,
        unclimbable=unclimbable,
        gap=gap,
        inside=inside,
        outlines=tuple(outlines),
    )
