"""Island terrain: the ``WorldConfig`` that shapes it, the ``HeightMap`` grid, and ``build_heightmap``.

Coordinates follow Godot: metres, x right, y up, z back (the agent faces -z at yaw 0). A height map
is a square grid centred on the world origin: row ``i`` lies at ``z = -size_m/2 + i * cell_size_m``
and column ``j`` at ``x = -size_m/2 + j * cell_size_m``; so ``heights[i, j]`` is the terrain height
(y, metres) at that grid point, and a top-down image of the array has -z ("north") at the top.

Generation (see ``docs/worldgen.md``): fractal noise by repeated cubic subdivision, an island mask
with a noisy coast, a few mountains and hills, then inland pools carved below the water plane.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.noise import fractal_noise, libm_power, periodic_noise, sample_periodic, smoothstep

#: Side length in metres of the named world sizes. Small and Huge come from the paper (64 m and
#: "almost a square half-kilometre"); Medium and Large double the side at each step in between.
WORLD_SIZES_M: dict[str, float] = {"small": 64.0, "medium": 128.0, "large": 256.0, "huge": 440.0}

#: Refuse grids larger than this per side (about 67 M points at the limit): beyond it a typo in
#: ``points_per_m`` would silently eat gigabytes.
MAX_GRID_POINTS_PER_SIDE = 8193


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class WorldConfig:
    """Everything that shapes one island. Lengths and heights are metres; heights are y values.

    Defaults are a Small (64 m) world; :meth:`for_size` scales the feature counts and sizes for the
    other sizes. The agent is about 2 m tall, walks at 5 m/s and jumps about 1.25 m, so slopes above
    about 45 degrees act as walls.
    """

    #: Side of the square world, metres. The grid spans [-size_m/2, size_m/2] in x and z.
    size_m: float = attr.ib(default=64.0, validator=check.between(8.0, 4096.0))
    #: Grid points per metre along each axis (1.0 = one height sample every metre).
    points_per_m: float = attr.ib(default=1.0, validator=check.between(0.05, 16.0))
    #: Subdivision levels of the fractal noise; the coarsest lattice spacing is
    #: ``2**fractal_iteration_count`` grid cells (64 m at the defaults).
    fractal_iteration_count: int = attr.ib(default=6, validator=check.int_between(1, 14))
    #: Standard deviation (metres) of the noise added at the coarsest level.
    initial_noise_scale_m: float = attr.ib(default=1.5, validator=check.non_negative())
    #: Factor applied to the noise standard deviation at each finer level (0.5 halves it per level).
    noise_scale_decay: float = attr.ib(default=0.55, validator=check.between(0.0, 1.0, low_open=True))
    #: Height of the water plane (y, metres); everything below it is ocean or an inland pool.
    water_height_m: float = attr.ib(default=0.0, validator=check.finite())
    #: Mean height of inland ground above the water plane, metres (before mountains and hills).
    land_height_m: float = attr.ib(default=2.5, validator=check.positive())
    #: Depth of the sea floor below the water plane, metres.
    sea_depth_m: float = attr.ib(default=2.0, validator=check.positive())
    #: Distance from the world edge to the outer foot of the island before coastline noise, metres.
    coast_distance_m: float = attr.ib(default=3.0, validator=check.non_negative())
    #: Minimum distance from the world edge to the outer foot of the island, metres: the band of
    #: at least this width along every edge is always sea floor.
    coast_margin_m: float = attr.ib(default=1.0, validator=check.non_negative())
    #: Horizontal distance over which the shore rises from the waterline to inland height, metres.
    #: (Below the water the sea floor drops over ``2 * sea_depth_m`` metres.)
    coast_ramp_m: float = attr.ib(default=10.0, validator=check.positive())
    #: Amplitude of the coastline displacement (bays and headlands), metres.
    coast_noise_m: float = attr.ib(default=5.0, validator=check.non_negative())
    #: Shape of the island outline before noise: 2 is round, larger values fill the square more.
    coast_shape_exponent: float = attr.ib(default=3.0, validator=check.between(1.0, 16.0))
    #: Number of mountains (steep, rugged, often too steep to walk up).
    mountain_count: int = attr.ib(default=0, validator=check.int_between(0, 1000))
    #: Range of mountain peak heights above the surrounding ground, metres.
    mountain_height_range_m: tuple[float, float] = attr.ib(
        default=(6.0, 14.0), converter=check.float_pair, validator=check.ordered_pair(0.0)
    )
    #: Range of mountain base radii, metres.
    mountain_radius_range_m: tuple[float, float] = attr.ib(
        default=(12.0, 20.0), converter=check.float_pair, validator=check.ordered_pair(0.0, strictly_above=True)
    )
    #: Extra rugged noise on mountains, metres (standard deviation at the summit).
    mountain_roughness_m: float = attr.ib(default=1.5, validator=check.non_negative())
    #: How much a mountain's or hill's radius varies with direction, as a fraction of the radius.
    feature_irregularity: float = attr.ib(default=0.35, validator=check.between(0.0, 0.9))
    #: Number of hills (gentle, walkable bumps).
    hill_count: int = attr.ib(default=2, validator=check.int_between(0, 1000))
    #: Range of hill heights, metres.
    hill_height_range_m: tuple[float, float] = attr.ib(
        default=(1.0, 3.0), converter=check.float_pair, validator=check.ordered_pair(0.0)
    )
    #: Range of hill base radii, metres.
    hill_radius_range_m: tuple[float, float] = attr.ib(
        default=(12.0, 24.0), converter=check.float_pair, validator=check.ordered_pair(0.0, strictly_above=True)
    )
    #: Number of inland pools carved below the water plane (more can appear naturally in hollows).
    pool_count: int = attr.ib(default=1, validator=check.int_between(0, 1000))
    #: Range of pool radii at the waterline, metres (approximate: the shore follows the terrain).
    pool_radius_range_m: tuple[float, float] = attr.ib(
        default=(3.0, 6.0), converter=check.float_pair, validator=check.ordered_pair(0.0, strictly_above=True)
    )
    #: Depth of a pool's centre below the water plane, metres.
    pool_depth_m: float = attr.ib(default=1.5, validator=check.positive())

    def __attrs_post_init__(self) -> None:
        points = self.grid_points_per_side
        if points > MAX_GRID_POINTS_PER_SIDE:
            raise ValueError(
                f"WorldConfig size_m={self.size_m!r} x points_per_m={self.points_per_m!r} gives {points} grid points "
                f"per side: expected at most {MAX_GRID_POINTS_PER_SIDE}"
            )
        if points < 9:
            raise ValueError(
                f"WorldConfig size_m={self.size_m!r} x points_per_m={self.points_per_m!r} gives {points} grid points "
                "per side: expected at least 9"
            )
        if self.coast_margin_m > self.coast_distance_m:
            raise ValueError(
                f"WorldConfig coast_margin_m={self.coast_margin_m!r}: expected at most coast_distance_m="
                f"{self.coast_distance_m!r} (the margin is the closest the island may come to the edge)"
            )
        core = self.size_m / 2 - self.coast_distance_m - self.coast_ramp_m
        if core <= 0:
            raise ValueError(
                f"WorldConfig coast_distance_m={self.coast_distance_m!r} + coast_ramp_m={self.coast_ramp_m!r} "
                f"leaves no inland ground in a world of size_m={self.size_m!r}: expected their sum below "
                f"size_m / 2 = {self.size_m / 2}"
            )

    @property
    def grid_points_per_side(self) -> int:
        return int(round(self.size_m * self.points_per_m)) + 1

    @classmethod
    def for_size(cls, size: str | float, **overrides: Any) -> "WorldConfig":
        """A config scaled for a named size (``"small"`` … ``"huge"``, see ``WORLD_SIZES_M``) or a side in metres.

        Feature counts grow with area and feature sizes with the square root of the side, so big
        worlds get more and larger mountains rather than stretched small ones. ``overrides`` replace
        any field.
        """
        if isinstance(size, str):
            if size not in WORLD_SIZES_M:
                raise ValueError(f"world size {size!r}: expected one of {sorted(WORLD_SIZES_M)} or a number of metres")
            size_m = WORLD_SIZES_M[size]
        else:
            size_m = float(size)
            if not math.isfinite(size_m) or size_m <= 0:
                raise ValueError(f"world size {size!r}: expected a positive number of metres")
        side = size_m / 64.0  # in Small-world units
        area = side**2
        grow = math.sqrt(side)
        values: dict[str, Any] = dict(
            size_m=size_m,
            land_height_m=2.5 * grow,
            sea_depth_m=2.0 * grow,
            coast_distance_m=3.0 * side,
            coast_margin_m=max(1.0, 0.01 * size_m),
            coast_ramp_m=float(np.clip(10.0 * side, 10.0, 30.0)),
            coast_noise_m=5.0 * side,
            mountain_count=int(math.floor(0.15 * area + 0.5)),
            mountain_height_range_m=(6.0 * grow, 14.0 * grow),
            mountain_radius_range_m=(12.0 * grow, 20.0 * grow),
            hill_count=int(math.floor(0.3 * area + 2.0)),
            hill_height_range_m=(1.0 * grow, 3.0 * grow),
            hill_radius_range_m=(12.0 * grow, 24.0 * grow),
            pool_count=int(math.floor(0.1 * area + 1.0)),
            pool_radius_range_m=(3.0 * grow, 6.0 * grow),
        )
        values.update(overrides)
        return cls(**values)


def _heights_array(value: Any) -> np.ndarray:
    array = np.array(value, dtype=np.float32, copy=True, order="C")
    array.setflags(write=False)
    return array


def _check_heights(instance: Any, attribute: Any, value: np.ndarray) -> None:
    if value.ndim != 2 or value.shape[0] != value.shape[1] or value.shape[0] < 2:
        raise ValueError(f"HeightMap.heights has shape {value.shape}: expected a square 2D grid of at least 2x2")
    if not np.isfinite(value).all():
        raise ValueError(f"HeightMap.heights has {int((~np.isfinite(value)).sum())} non-finite values: expected all finite")


@attr.s(frozen=True, eq=False, auto_attribs=True, kw_only=True)
class HeightMap:
    """Terrain heights (y, metres) on a square grid centred on the origin; rows along z, columns along x.

    The array is stored as read-only float32. Derived grids (slope, water, distances) are computed
    on first use and cached; they are read-only too.
    """

    heights: np.ndarray = attr.ib(converter=_heights_array, validator=_check_heights, repr=False)
    #: Side of the square covered by the grid, metres (corner points sit on the world edge).
    size_m: float = attr.ib(converter=float, validator=check.positive())
    #: Height of the water plane (y, metres).
    water_height_m: float = attr.ib(default=0.0, converter=float, validator=check.finite())
    _cache: dict = attr.ib(init=False, factory=dict, repr=False)

    # --- geometry -------------------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, int]:
        return self.heights.shape  # type: ignore[return-value]

    @property
    def cell_size_m(self) -> float:
        """Distance between neighbouring grid points, metres."""
        return self.size_m / (self.heights.shape[0] - 1)

    @property
    def half_size_m(self) -> float:
        return self.size_m / 2.0

    @property
    def x_coords_m(self) -> np.ndarray:
        """x of each column, metres."""
        return np.linspace(-self.half_size_m, self.half_size_m, self.heights.shape[1])

    @property
    def z_coords_m(self) -> np.ndarray:
        """z of each row, metres."""
        return np.linspace(-self.half_size_m, self.half_size_m, self.heights.shape[0])

    def world_to_grid(self, x: Any, z: Any) -> tuple[np.ndarray, np.ndarray]:
        """(row, col) as fractional grid indices for world coordinates (metres); no bounds check."""
        cell = self.cell_size_m
        row = (np.asarray(z, dtype=np.float64) + self.half_size_m) / cell
        col = (np.asarray(x, dtype=np.float64) + self.half_size_m) / cell
        return row, col

    def grid_to_world(self, row: Any, col: Any) -> tuple[np.ndarray, np.ndarray]:
        """(x, z) in metres for (possibly fractional) grid indices."""
        cell = self.cell_size_m
        x = np.asarray(col, dtype=np.float64) * cell - self.half_size_m
        z = np.asarray(row, dtype=np.float64) * cell - self.half_size_m
        return x, z

    def contains(self, x: Any, z: Any) -> np.ndarray:
        """True where (x, z) lies inside the world square (edges included)."""
        h = self.half_size_m * (1.0 + 1e-9)
        return (np.abs(np.asarray(x)) <= h) & (np.abs(np.asarray(z)) <= h)

    def _require_inside(self, x: Any, z: Any) -> None:
        inside = self.contains(x, z)
        if not np.all(inside):
            bad_x = np.asarray(x, dtype=np.float64)[~inside] if np.ndim(x) else x
            bad_z = np.asarray(z, dtype=np.float64)[~inside] if np.ndim(z) else z
            raise ValueError(
                f"position x={np.ravel(bad_x)[:3].tolist()} z={np.ravel(bad_z)[:3].tolist()} (m) is outside the world: "
                f"expected |x|, |z| <= {self.half_size_m}"
            )

    def nearest_index(self, x: Any, z: Any) -> tuple[np.ndarray, np.ndarray]:
        """Integer (row, col) of the grid point nearest to (x, z); ``ValueError`` outside the world."""
        self._require_inside(x, z)
        row, col = self.world_to_grid(x, z)
        last = self.heights.shape[0] - 1
        return np.clip(np.rint(row), 0, last).astype(np.intp), np.clip(np.rint(col), 0, last).astype(np.intp)

    def sample(self, grid: np.ndarray, x: Any, z: Any) -> np.ndarray:
        """Bilinear interpolation of any grid with this map's shape at world (x, z); ``ValueError`` outside."""
        if grid.shape[:2] != self.heights.shape:
            raise ValueError(f"grid shape {grid.shape} does not match the height map shape {self.heights.shape}")
        self._require_inside(x, z)
        row, col = self.world_to_grid(x, z)
        last = self.heights.shape[0] - 1
        row = np.clip(row, 0.0, last)  # only rounding error can push inside points past the edge
        col = np.clip(col, 0.0, last)
        r0 = np.minimum(np.floor(row).astype(np.intp), last - 1)
        c0 = np.minimum(np.floor(col).astype(np.intp), last - 1)
        fr = row - r0
        fc = col - c0
        if grid.ndim == 3:
            fr = fr[..., None]
            fc = fc[..., None]
        g = grid.astype(np.float64, copy=False)
        top = g[r0, c0] * (1 - fc) + g[r0, c0 + 1] * fc
        bottom = g[r0 + 1, c0] * (1 - fc) + g[r0 + 1, c0 + 1] * fc
        return top * (1 - fr) + bottom * fr

    def height_at(self, x: Any, z: Any) -> np.ndarray | float:
        """Terrain height (y, metres) at world (x, z), bilinear between grid points.

        Returns a float for scalar input, an array otherwise. The rendered mesh is triangulated, so
        its surface can differ from this by a small fraction of the height step within one cell.
        """
        value = self.sample(self.heights, x, z)
        return float(value) if np.ndim(value) == 0 else value

    # --- derived grids --------------------------------------------------------------------------

    def _cached(self, key: str, compute) -> np.ndarray:
        if key not in self._cache:
            value = compute()
            value.setflags(write=False)
            self._cache[key] = value
        return self._cache[key]

    def slope_deg(self) -> np.ndarray:
        """Steepest slope at each grid point, degrees from horizontal (central differences)."""

        def compute():
            d_row, d_col = np.gradient(self.heights.astype(np.float64), self.cell_size_m)
            return np.degrees(np.arctan(np.hypot(d_row, d_col))).astype(np.float32)

        return self._cached("slope", compute)

    def is_water(self) -> np.ndarray:
        """True where the terrain is below the water plane (ocean or inland pool)."""
        return self._cached("water", lambda: self.heights < self.water_height_m)

    def ocean_mask(self) -> np.ndarray:
        """Water connected (4-neighbour) to the world edge; the rest of the water is fresh (pools)."""

        def compute():
            labels, _count = ndimage.label(self.is_water())
            edge = np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
            ocean_labels = np.unique(edge[edge > 0])
            return np.isin(labels, ocean_labels)

        return self._cached("ocean", compute)

    def fresh_water_mask(self) -> np.ndarray:
        """Water not connected to the world edge (inland pools)."""
        return self._cached("fresh", lambda: self.is_water() & ~self.ocean_mask())

    def distance_to_water_m(self) -> np.ndarray:
        """Distance from each grid point to the nearest water grid point, metres (0 in water; inf if none)."""
        return self._cached("dist_water", lambda: self._distance_to(self.is_water()))

    def distance_to_ocean_m(self) -> np.ndarray:
        """Distance to the nearest ocean grid point, metres (0 in the ocean; inf if there is none)."""
        return self._cached("dist_ocean", lambda: self._distance_to(self.ocean_mask()))

    def distance_to_fresh_water_m(self) -> np.ndarray:
        """Distance to the nearest inland-pool grid point, metres (inf if there are no pools)."""
        return self._cached("dist_fresh", lambda: self._distance_to(self.fresh_water_mask()))

    def _distance_to(self, mask: np.ndarray) -> np.ndarray:
        if not mask.any():
            return np.full(mask.shape, np.inf, dtype=np.float32)
        return (ndimage.distance_transform_edt(~mask) * self.cell_size_m).astype(np.float32)

    # --- derivation -----------------------------------------------------------------------------

    def with_heights(self, heights: np.ndarray) -> "HeightMap":
        """A new map with the same extent and water plane and the given heights (same shape)."""
        heights = np.asarray(heights)
        if heights.shape != self.heights.shape:
            raise ValueError(f"heights shape {heights.shape}: expected {self.heights.shape}")
        return HeightMap(heights=heights, size_m=self.size_m, water_height_m=self.water_height_m)

    def digest(self) -> str:
        """SHA-256 of the heights, size and water height: equal digests mean identical maps."""
        sha = hashlib.sha256()
        sha.update(np.ascontiguousarray(self.heights).tobytes())
        sha.update(repr((self.heights.shape, self.size_m, self.water_height_m)).encode())
        return sha.hexdigest()


# --- generation ---------------------------------------------------------------------------------


def _feature_bump(
    rng: np.random.Generator,
    coords: np.ndarray,
    site: tuple[int, int],
    radius_m: float,
    irregularity: float,
    peaked: bool,
) -> tuple[tuple[slice, slice], np.ndarray]:
    """A bump, 1 at the grid point ``site`` and 0 beyond a radius that varies with direction.

    Returns the window of the grid it covers and its values there (computing only the window keeps
    Huge worlds with dozens of features fast). ``peaked`` bumps have a summit slope of about
    1.6 x height / radius; the others are rounded. Both have a smooth foot.
    """
    table = periodic_noise(rng, samples=128, lobes=2.5)
    cell = coords[1] - coords[0]
    reach = int(math.ceil(radius_m * (1.0 + irregularity) / cell)) + 1
    rows = slice(max(site[0] - reach, 0), site[0] + reach + 1)
    cols = slice(max(site[1] - reach, 0), site[1] + reach + 1)
    dx, dz = np.meshgrid(coords[cols] - coords[site[1]], coords[rows] - coords[site[0]])
    radius = radius_m * (1.0 + irregularity * sample_periodic(table, np.arctan2(dz, dx)))
    u = 1.0 - np.hypot(dx, dz) / radius
    bump = libm_power(np.clip(u, 0.0, 1.0), 1.6) if peaked else smoothstep(0.0, 1.0, u)
    return (rows, cols), bump


def _pick_cell(rng: np.random.Generator, candidates: np.ndarray) -> tuple[int, int] | None:
    rows, cols = np.nonzero(candidates)
    if rows.size == 0:
        return None
    k = int(rng.integers(rows.size))
    return int(rows[k]), int(cols[k])


#: Slope of the ground rising from an inland pool's waterline, degrees (walkable).
POOL_BANK_SLOPE_DEG = 15.0
#: Height band over which a pool basin blends into the terrain, metres.
POOL_BLEND_M = 0.6


def _soft_min(a: np.ndarray, b: np.ndarray, k: float) -> np.ndarray:
    """min(a, b) with the corner rounded over a height difference of ``k`` (polynomial smooth-min)."""
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b + (a - b) * h - k * h * (1.0 - h)


def build_heightmap(rng: np.random.Generator, config: WorldConfig = WorldConfig()) -> HeightMap:
    """Generate an island height map; the same generator state and config give identical bytes.

    Order of work (and of random draws): fractal ground, coastline noise, mountain roughness,
    mountains, hills, pools. The world edge is always water; the island interior averages
    ``land_height_m`` above the water plane.
    """
    n = config.grid_points_per_side
    half = config.size_m / 2.0
    coords = np.linspace(-half, half, n)
    x, z = np.meshgrid(coords, coords)  # x varies along columns, z along rows
    iterations = config.fractal_iteration_count

    ground = fractal_noise(rng, (n, n), iterations, config.initial_noise_scale_m, config.noise_scale_decay)
    coast = fractal_noise(rng, (n, n), iterations, 1.0, 0.5)
    coast = np.clip(coast / (2.5 * max(coast.std(), 1e-9)), -1.0, 1.0)
    rough = fractal_noise(rng, (n, n), max(1, iterations - 2), 1.0, 0.6)
    rough /= max(rough.std(), 1e-9)

    # `inland`: signed distance (m) inward from the outer foot of the island: a noisy superellipse,
    # cut by the square inset by coast_margin_m so the world edge is always sea floor.
    p = config.coast_shape_exponent
    radius = libm_power(libm_power(np.abs(x), p) + libm_power(np.abs(z), p), 1.0 / p)
    from_edge = half - np.maximum(np.abs(x), np.abs(z))
    inland = np.minimum(
        half - config.coast_distance_m - radius + config.coast_noise_m * coast, from_edge - config.coast_margin_m
    )
    # Shore profile: the sea floor rises over 2 * sea_depth_m to the waterline (unseen, so it may be
    # steep), then the beach climbs gently (about 4 degrees at the water) to land_height_m.
    underwater_run = 2.0 * config.sea_depth_m
    below = np.clip(1.0 - inland / underwater_run, 0.0, 1.0)
    above = np.clip((inland - underwater_run) / config.coast_ramp_m, 0.0, 1.0)
    shore = -config.sea_depth_m * below**2 + config.land_height_m * (0.3 * above + 0.7 * smoothstep(0.0, 1.0, above))
    # Relief fades out towards the sea so the coastline follows the coast noise, not ground bumps.
    land_weight = smoothstep(0.5 * underwater_run, underwater_run + config.coast_ramp_m, inland)
    core = land_weight > 0.5
    if core.any():
        ground -= ground[core].mean()  # keep the island at land_height_m whatever the coarse noise drew

    relief = ground.copy()
    feature_sites = inland >= underwater_run + config.coast_ramp_m
    for _ in range(config.mountain_count):
        site = _pick_cell(rng, feature_sites)
        height = rng.uniform(*config.mountain_height_range_m)
        radius = rng.uniform(*config.mountain_radius_range_m)
        if site is None:
            continue
        window, bump = _feature_bump(rng, coords, site, radius, config.feature_irregularity, peaked=True)
        relief[window] += bump * (height + config.mountain_roughness_m * rough[window])
    for _ in range(config.hill_count):
        site = _pick_cell(rng, feature_sites)
        height = rng.uniform(*config.hill_height_range_m)
        radius = rng.uniform(*config.hill_radius_range_m)
        if site is None:
            continue
        window, bump = _feature_bump(rng, coords, site, radius, config.feature_irregularity, peaked=False)
        relief[window] += height * bump

    water = config.water_height_m
    heights = water + shore + land_weight * relief

    for _ in range(config.pool_count):
        radius = rng.uniform(*config.pool_radius_range_m)
        # Lakes sit in hollows: of a few random inland sites, carve the lowest.
        candidates = inland >= underwater_run + config.coast_ramp_m + 1.6 * radius
        sites = [_pick_cell(rng, candidates) for _ in range(6)]
        sites = [s for s in sites if s is not None]
        if not sites:
            continue
        site = min(sites, key=lambda s: (heights[s], s))
        dx = x - x[site]
        dz = z - z[site]
        table = periodic_noise(rng, samples=64, lobes=2.0)
        r = np.hypot(dx, dz) / (1.0 + 0.3 * sample_periodic(table, np.arctan2(dz, dx)))
        # A basin: a bowl below the water inside `radius`, a bank rising at POOL_BANK_SLOPE_DEG until
        # it clears the ground at the site, then curving up steeply so distant hills are left
        # alone; blended into the terrain with a soft minimum so the cut leaves no crease.
        bank_slope = math.tan(math.radians(POOL_BANK_SLOPE_DEG))
        bank_run = max(radius, (float(heights[site]) - water + 1.0) / bank_slope)
        bank = np.maximum(r - radius, 0.0)
        basin = np.where(
            r <= radius,
            water - config.pool_depth_m * (1.0 - (r / radius) ** 2),
            water + bank_slope * bank + 0.08 * np.maximum(bank - bank_run, 0.0) ** 2,
        )
        heights = _soft_min(heights, basin, POOL_BLEND_M)

    return HeightMap(heights=heights, size_m=config.size_m, water_height_m=water)
