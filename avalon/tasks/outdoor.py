"""The shared builder of outdoor task worlds, and the geometry tasks use to check their guarantees.

Every outdoor task follows the same pipeline (see ``docs/tasks.md``):

1. :func:`split_streams` splits the task's generator into independent named streams (terrain,
   sites, rings, biomes, tree, scenery, lighting, food), so a change in one stage never shifts
   the random draws of another.
2. :func:`build_island` makes the height map for a world size; the task may cut obstacle rings
   into it (before biomes), then :func:`assign_biomes` runs and its eroded height map is used for
   everything after.
3. :func:`assemble_outdoor_world` places the fruit tree and the scenery (keeping discs around the
   spawn, the food and the sight lines clear), puts food on the terrain surface, and checks the
   guarantees every basic task makes: the spawn is on dry walkable land, the food can be seen from
   eye height at the spawn after turning in place, and the food can be reached on foot.

When the random draws produce a world that cannot keep a guarantee, a generator raises
:class:`ImpossibleWorldError`; :func:`avalon.tasks.build_world` then retries with a derived seed.

Geometry is Godot's: metres, x right, y up, z back, yaw 0 faces -z and positive yaw turns left.
The terrain surface is the triangle mesh Godot renders and Bullet collides with: every grid cell is
split along the diagonal from (row, col + 1) to (row + 1, col) (see
``avalon.datagen.export.terrain_data``); :func:`ground_height` and :func:`walkable_grid` use
exactly those triangles.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import attr
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from avalon.datagen import _checks as check
from avalon.datagen.biomes import BiomeConfig, BiomeMap, assign_biomes
from avalon.datagen.environment import random_lighting
from avalon.datagen.obstacles import RingOutline
from avalon.datagen.scenery import (
    FruitTreeConfig,
    FruitTreePlacement,
    SceneryConfig,
    SceneryInstance,
    SceneryKind,
    place_fruit_tree,
    place_scenery,
)
from avalon.datagen.terrain import WORLD_SIZES_M, HeightMap, WorldConfig, build_heightmap
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.datagen.world import Entity, Terrain, World, hanging_food_entity
from avalon.rules import mechanics

XZ = tuple[float, float]
KeepClear = tuple[float, float, float]

#: Height of the agent's eyes above its feet, metres.
EYE_HEIGHT_M = mechanics.HEAD_DEFAULT_HEIGHT_M
#: Radius of the agent's body capsule, metres.
AGENT_RADIUS_M = mechanics.BODY_RADIUS_M
#: Five minutes at 10 steps per second: the time limit of every basic task but stack, carry and
#: explore (paper, Appendix G.3).
TIME_LIMIT_FRAMES = 5 * 60 * mechanics.STEPS_PER_SECOND
#: Triangles steeper than this are not counted as walkable when proving the food is reachable.
WALKABLE_SLOPE_DEG = 40.0
#: Triangles this steep or steeper are walls when proving something is blocked (a generous limit:
#: the agent may manage a little more than WALKABLE_SLOPE_DEG).
BLOCKING_SLOPE_DEG = 50.0
#: Land this close to the water plane counts as wet, metres.
DRY_MARGIN_M = 0.05
#: No plant's footprint comes closer to the spawn than this, metres (the body has radius 0.4 m).
SPAWN_CLEAR_RADIUS_M = 1.5
#: Nor closer to a food item than this, metres.
FOOD_CLEAR_RADIUS_M = 1.0
#: Food rests on terrain triangles at most this steep, degrees.
FOOD_MAX_SLOPE_DEG = 20.0
#: Food hanging in the fruit tree keeps at least this gap to the trunk and to the canopy's edge, metres.
HANGING_FOOD_TRUNK_GAP_M = 0.1


class ImpossibleWorldError(Exception):
    """The random draws gave a world that cannot keep the task's guarantees; retry with another seed."""


# --- configuration -------------------------------------------------------------------------------


def _check_world_size(instance, attribute, value) -> None:
    if value is None:
        return
    if isinstance(value, str):
        if value not in WORLD_SIZES_M:
            raise ValueError(
                f"OutdoorTaskConfig.world_size={value!r}: expected None, one of {sorted(WORLD_SIZES_M)} or metres"
            )
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 16:
        raise ValueError(f"OutdoorTaskConfig.world_size={value!r}: expected None, a size name or at least 16 metres")


def _check_optional_positive(instance, attribute, value) -> None:
    if value is not None:
        check.between(0.25, 8.0)(instance, attribute, value)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class OutdoorTaskConfig:
    """What an outdoor task may vary besides difficulty. ``None`` lets the task choose."""

    #: World size: a name of ``WORLD_SIZES_M`` or the side in metres (``None``: the task's choice,
    #: large enough for its distances).
    world_size: Optional[Union[str, float]] = attr.ib(default=None, validator=_check_world_size)
    #: Height-map grid points per metre (``None``: the task's choice; narrow paths need 2).
    points_per_m: Optional[float] = attr.ib(default=None, validator=_check_optional_positive)
    #: Vary sun, sky and fog per world (the benchmark keeps them fixed, paper Section 4).
    vary_lighting: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))
    #: Multiplies every plant density (0 = bare islands).
    scenery_density_scale: float = attr.ib(default=1.0, validator=check.between(0.0, 10.0))
    #: Episode length limit in frames (10 frames per simulated second).
    time_limit_frames: int = attr.ib(default=TIME_LIMIT_FRAMES, validator=check.int_between(1, 10**7))
    #: Candidate sites a task tries on one terrain before giving up on it.
    site_attempts: int = attr.ib(default=40, validator=check.int_between(1, 10_000))
    biomes: BiomeConfig = attr.ib(factory=BiomeConfig, validator=attr.validators.instance_of(BiomeConfig))
    scenery: SceneryConfig = attr.ib(factory=SceneryConfig, validator=attr.validators.instance_of(SceneryConfig))


def resolve_config(config: object | None) -> OutdoorTaskConfig:
    """``config`` itself, or the defaults for ``None``; anything else is a ``TypeError``."""
    if config is None:
        return OutdoorTaskConfig()
    if not isinstance(config, OutdoorTaskConfig):
        raise TypeError(f"config {config!r}: expected an OutdoorTaskConfig or None")
    return config


def scaled_scenery(config: OutdoorTaskConfig) -> SceneryConfig:
    """The scenery config with every plant density multiplied by ``scenery_density_scale``."""
    scale = config.scenery_density_scale
    if scale == 1.0:
        return config.scenery
    flora = tuple(
        attr.evolve(f, density_per_100m2=tuple((b, d * scale) for b, d in f.density_per_100m2))
        for f in config.scenery.flora
    )
    return attr.evolve(config.scenery, flora=flora)


# --- random streams ------------------------------------------------------------------------------

STREAM_NAMES = ("terrain", "sites", "rings", "biomes", "tree", "scenery", "lighting", "food")


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class Streams:
    """Independent generators for the stages of world building (seeded from the task's generator)."""

    terrain: np.random.Generator
    sites: np.random.Generator
    rings: np.random.Generator
    biomes: np.random.Generator
    tree: np.random.Generator
    scenery: np.random.Generator
    lighting: np.random.Generator
    food: np.random.Generator


def split_streams(rng: np.random.Generator) -> Streams:
    """One generator per stage, each seeded by one 63-bit draw from ``rng`` (in ``STREAM_NAMES`` order)."""
    seeds = rng.integers(0, 2**63 - 1, size=len(STREAM_NAMES), dtype=np.int64)
    return Streams(**{name: np.random.default_rng(int(seed)) for name, seed in zip(STREAM_NAMES, seeds)})


# --- terrain -------------------------------------------------------------------------------------


def world_config(size: Union[str, float], points_per_m: float, **overrides) -> WorldConfig:
    """``WorldConfig.for_size`` at ``points_per_m``, with the fractal's coarsest lattice kept at 64 m;
    ``overrides`` replace any other field."""
    iterations = 6 + int(round(math.log2(points_per_m)))
    fields = dict(points_per_m=float(points_per_m), fractal_iteration_count=max(1, iterations))
    fields.update(overrides)
    return WorldConfig.for_size(size, **fields)


def build_island(rng: np.random.Generator, size: Union[str, float], points_per_m: float, **overrides) -> HeightMap:
    """The island height map of a size (see :func:`world_config`)."""
    return build_heightmap(rng, world_config(size, points_per_m, **overrides))


def make_biomes(
    rng: np.random.Generator,
    heightmap: HeightMap,
    config: OutdoorTaskConfig,
    climbable: np.ndarray | None = None,
    unclimbable: np.ndarray | None = None,
) -> BiomeMap:
    """Biomes of a (ring-shaped) height map; use the result's ``heightmap`` from now on."""
    return assign_biomes(rng, heightmap, config.biomes, climbable_mask=climbable, unclimbable_mask=unclimbable)


def _corners(heightmap: HeightMap, x, z):
    row, col = heightmap.world_to_grid(x, z)
    last = heightmap.shape[0] - 1
    row = np.clip(row, 0.0, last)
    col = np.clip(col, 0.0, last)
    r0 = np.minimum(np.floor(row).astype(np.intp), last - 1)
    c0 = np.minimum(np.floor(col).astype(np.intp), last - 1)
    return r0, c0, row - r0, col - c0


def _require_inside(heightmap: HeightMap, x, z) -> None:
    if not np.all(heightmap.contains(x, z)):
        raise ValueError(
            f"position x={np.ravel(x)[:3].tolist()}, z={np.ravel(z)[:3].tolist()} (m) is outside the world "
            f"(|x|, |z| <= {heightmap.half_size_m})"
        )


def ground_height(heightmap: HeightMap, x, z):
    """Height (y, metres) of the terrain surface the agent stands on at world (x, z).

    Exact on the rendered and colliding triangle mesh (the bilinear ``HeightMap.height_at`` can
    differ from it inside a cell). Returns a float for scalar input, an array otherwise;
    ``ValueError`` outside the world.
    """
    _require_inside(heightmap, x, z)
    r0, c0, fr, fc = _corners(heightmap, x, z)
    h = heightmap.heights.astype(np.float64)
    h00, h01, h10, h11 = h[r0, c0], h[r0, c0 + 1], h[r0 + 1, c0], h[r0 + 1, c0 + 1]
    upper = fr + fc <= 1.0  # triangle (row, col), (row, col + 1), (row + 1, col)
    y = np.where(
        upper,
        h00 + fc * (h01 - h00) + fr * (h10 - h00),
        h11 + (1.0 - fc) * (h10 - h11) + (1.0 - fr) * (h01 - h11),
    )
    return float(y) if np.ndim(y) == 0 else y


def triangle_slopes_deg(heightmap: HeightMap) -> np.ndarray:
    """Slope of every terrain triangle, degrees: shape (rows - 1, cols - 1, 2).

    ``[..., 0]`` is the triangle (r, c), (r, c + 1), (r + 1, c) of cell (r, c) and ``[..., 1]``
    the triangle (r, c + 1), (r + 1, c + 1), (r + 1, c).
    """
    h = heightmap.heights.astype(np.float64)
    cell = heightmap.cell_size_m
    first = np.hypot(h[:-1, 1:] - h[:-1, :-1], h[1:, :-1] - h[:-1, :-1]) / cell
    second = np.hypot(h[1:, 1:] - h[1:, :-1], h[1:, 1:] - h[:-1, 1:]) / cell
    return np.degrees(np.arctan(np.stack([first, second], axis=-1)))


def triangle_corner_heights(heightmap: HeightMap) -> np.ndarray:
    """Heights of the three corners of every triangle: shape (rows - 1, cols - 1, 2, 3)."""
    h = heightmap.heights.astype(np.float64)
    first = np.stack([h[:-1, :-1], h[:-1, 1:], h[1:, :-1]], axis=-1)
    second = np.stack([h[:-1, 1:], h[1:, 1:], h[1:, :-1]], axis=-1)
    return np.stack([first, second], axis=2)


def walkable_grid(
    heightmap: HeightMap, max_slope_deg: float = WALKABLE_SLOPE_DEG, *, allow_water: bool = False
) -> np.ndarray:
    """True for every terrain triangle the agent can walk on: shape (rows - 1, cols - 1, 2).

    Walkable means gentler than ``max_slope_deg`` and, unless ``allow_water``, with all three
    corners at or above the water plane (the agent does not wade or swim).
    """
    walkable = triangle_slopes_deg(heightmap) < max_slope_deg
    if not allow_water:
        walkable &= (triangle_corner_heights(heightmap) >= heightmap.water_height_m).all(axis=-1)
    return walkable


def triangle_index(heightmap: HeightMap, x: float, z: float) -> tuple[int, int, int]:
    """(row, col, k) of the terrain triangle under world (x, z); see :func:`triangle_slopes_deg`."""
    _require_inside(heightmap, x, z)
    r0, c0, fr, fc = _corners(heightmap, x, z)
    return int(r0), int(c0), int(fr + fc > 1.0)


def component_labels(walkable: np.ndarray) -> np.ndarray:
    """Connected-component label of each triangle (same shape); -1 where not walkable.

    Two walkable triangles are connected when they share an edge (a breadth-first flood fill
    over the triangle mesh).
    """
    rows, cols, _ = walkable.shape
    ids = np.arange(rows * cols * 2).reshape(rows, cols, 2)
    w = walkable
    pairs = (
        (w[:, :, 0] & w[:, :, 1], ids[:, :, 0], ids[:, :, 1]),  # the two halves of a cell
        (w[1:, :, 0] & w[:-1, :, 1], ids[1:, :, 0], ids[:-1, :, 1]),  # top edge / cell above
        (w[:, 1:, 0] & w[:, :-1, 1], ids[:, 1:, 0], ids[:, :-1, 1]),  # left edge / cell to the left
    )
    a = np.concatenate([first[mask] for mask, first, _ in pairs])
    b = np.concatenate([second[mask] for mask, _, second in pairs])
    size = ids.size
    graph = coo_matrix((np.ones(a.size, dtype=np.int8), (a, b)), shape=(size, size)).tocsr()
    _count, labels = connected_components(graph, directed=False)
    labels = labels.reshape(w.shape)
    labels[~w] = -1
    return labels


def _xz(point) -> XZ:
    values = [float(v) for v in point]
    if len(values) == 2:
        return values[0], values[1]
    if len(values) == 3:
        return values[0], values[2]
    raise ValueError(f"point {point!r}: expected (x, z) or (x, y, z)")


def reachable_mask(heightmap: HeightMap, walkable: np.ndarray, start) -> np.ndarray:
    """Triangles reachable on foot from ``start`` ((x, z) or (x, y, z)); all False if it is not walkable."""
    labels = component_labels(walkable)
    label = labels[triangle_index(heightmap, *_xz(start))]
    if label < 0:
        return np.zeros(walkable.shape, dtype=bool)
    return labels == label


def path_exists(heightmap: HeightMap, walkable: np.ndarray, start, goal) -> bool:
    """Whether a walk over ``walkable`` triangles leads from ``start`` to ``goal`` ((x, z) or (x, y, z))."""
    labels = component_labels(walkable)
    a = labels[triangle_index(heightmap, *_xz(start))]
    b = labels[triangle_index(heightmap, *_xz(goal))]
    return bool(a >= 0 and a == b)


def triangle_centroids(heightmap: HeightMap) -> tuple[np.ndarray, np.ndarray]:
    """(x, z) of every triangle's centroid, each of shape (rows - 1, cols - 1, 2)."""
    cell = heightmap.cell_size_m
    n = heightmap.shape[0] - 1
    base = -heightmap.half_size_m + cell * np.arange(n)
    offsets = np.array([1.0 / 3.0, 2.0 / 3.0]) * cell
    x = base[None, :, None] + offsets[None, None, :]
    z = base[:, None, None] + offsets[None, None, :]
    return np.broadcast_to(x, (n, n, 2)).copy(), np.broadcast_to(z, (n, n, 2)).copy()


# --- directions ----------------------------------------------------------------------------------


def facing_direction(yaw_rad: float) -> XZ:
    """Unit (x, z) direction the agent faces at ``yaw_rad`` (yaw 0 faces -z, positive turns left)."""
    return -math.sin(yaw_rad), -math.cos(yaw_rad)


def yaw_towards(from_xz: XZ, to_xz: XZ) -> float:
    """The yaw (radians) that faces from one point towards another."""
    return math.atan2(-(to_xz[0] - from_xz[0]), -(to_xz[1] - from_xz[1]))


def wrap_angle(angle_rad: float) -> float:
    """An angle in [-pi, pi)."""
    return (angle_rad + math.pi) % (2.0 * math.pi) - math.pi


# --- sight ---------------------------------------------------------------------------------------

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
    x, y, z = (float(v) for v in spawn)
    return (x, y + EYE_HEIGHT_M, z)


# --- sites ---------------------------------------------------------------------------------------


def site_mask(
    heightmap: HeightMap,
    *,
    min_water_distance_m: float,
    max_slope_deg: float,
    min_ocean_distance_m: float = 0.0,
    edge_margin_m: float = 2.0,
) -> np.ndarray:
    """Grid points on dry land at least the given distances from water and the ocean, gentle enough,
    and at least ``edge_margin_m`` inside the world edge."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    inside = np.maximum(np.abs(x), np.abs(z)) <= heightmap.half_size_m - edge_margin_m
    return (
        inside
        & (heightmap.heights >= heightmap.water_height_m + DRY_MARGIN_M)
        & (heightmap.distance_to_water_m() >= min_water_distance_m)
        & (heightmap.distance_to_ocean_m() >= min_ocean_distance_m)
        & (heightmap.slope_deg() <= max_slope_deg)
    )


def candidate_points(rng: np.random.Generator, heightmap: HeightMap, mask: np.ndarray, count: int) -> list[XZ]:
    """Up to ``count`` distinct random grid points of ``mask`` as (x, z), jittered within a quarter cell."""
    indices = np.flatnonzero(mask)
    if indices.size == 0:
        return []
    chosen = rng.choice(indices, size=min(count, indices.size), replace=False)
    rows, cols = np.divmod(chosen, mask.shape[1])
    x, z = heightmap.grid_to_world(rows, cols)
    jitter = rng.uniform(-0.25, 0.25, (2, chosen.size)) * heightmap.cell_size_m
    half = heightmap.half_size_m
    x = np.clip(x + jitter[0], -half, half)
    z = np.clip(z + jitter[1], -half, half)
    return [(float(a), float(b)) for a, b in zip(x, z)]


def sample_at(heightmap: HeightMap, grid: np.ndarray, x: float, z: float) -> float:
    """Value of a per-point grid (e.g. ``distance_to_water_m()``) at the nearest point to (x, z)."""
    row, col = heightmap.nearest_index(x, z)
    return float(grid[row, col])


def is_dry_land(heightmap: HeightMap, x: float, z: float, min_water_distance_m: float = 0.0) -> bool:
    if not bool(heightmap.contains(x, z)):
        return False
    if ground_height(heightmap, x, z) < heightmap.water_height_m + DRY_MARGIN_M:
        return False
    return sample_at(heightmap, heightmap.distance_to_water_m(), x, z) >= min_water_distance_m


def fruit_tree_site_ok(heightmap: HeightMap, x: float, z: float, config: FruitTreeConfig) -> bool:
    """The checks ``place_fruit_tree`` makes (water clearance, slope), without raising."""
    if not bool(heightmap.contains(x, z)):
        return False
    distance = heightmap.distance_to_water_m()
    finite = np.where(np.isfinite(distance), distance, 1e9)
    if float(heightmap.sample(finite, x, z)) < config.water_clearance_m:
        return False
    return float(heightmap.sample(heightmap.slope_deg(), x, z)) <= config.max_slope_deg


def tree_behind_food(rng: np.random.Generator, food: XZ, viewer: XZ, config: FruitTreeConfig, spread_deg: float = 45.0) -> XZ:
    """A fruit-tree trunk position a canopy's reach behind ``food`` as seen from ``viewer``.

    The food then lies under the canopy (within ``ground_food_distance_range_m`` of the trunk) and
    the trunk is not between the viewer and the food.
    """
    away = math.atan2(food[1] - viewer[1], food[0] - viewer[0])
    angle = away + math.radians(rng.uniform(-spread_deg, spread_deg))
    distance = rng.uniform(*config.ground_food_distance_range_m)
    distance = max(distance, config.trunk_radius_m * config.scale_range[1] + 0.45)
    return food[0] + distance * math.cos(angle), food[1] + distance * math.sin(angle)


def corridor_discs(a: XZ, b: XZ, radius_m: float) -> list[KeepClear]:
    """Keep-clear discs of ``radius_m`` covering the segment from ``a`` to ``b`` (a corridor)."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    count = max(1, int(math.ceil(length / max(0.5 * radius_m, 0.25))))
    return [
        (a[0] + (b[0] - a[0]) * i / count, a[1] + (b[1] - a[1]) * i / count, float(radius_m)) for i in range(count + 1)
    ]


# --- assembly ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FoodPlacement:
    """A food item to put on the ground, or with ``hanging`` to hang in the fruit tree above (x, z)
    (see ``avalon.datagen.world.hanging_food_entity``): its kind, its (x, z) and its yaw."""

    kind: str = attr.ib(validator=attr.validators.in_(tuple(FOOD_RADIUS_M)))
    x: float
    z: float
    yaw_rad: float = 0.0
    hanging: bool = attr.ib(default=False, validator=attr.validators.instance_of(bool))


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class OutdoorLayout:
    """A finished outdoor world and what the builder knows about it (for tasks and tests)."""

    world: World
    biome_map: BiomeMap
    #: Walkable triangles of the final terrain (see :func:`walkable_grid`).
    walkable: np.ndarray = attr.ib(repr=False)
    tree: Optional[FruitTreePlacement]
    #: Scenery instances removed because they hid the food from the spawn.
    removed_occluders: int

    @property
    def heightmap(self) -> HeightMap:
        return self.biome_map.heightmap


def _hanging_food(
    food: FoodPlacement, name: str, ground: HeightMap, tree: Optional[FruitTreePlacement], config: FruitTreeConfig
) -> Entity:
    """The entity of a food hanging from ``tree``'s canopy above (food.x, food.z)."""
    if tree is None:
        raise ValueError(f"{name} ({food.kind}) is to hang in the fruit tree, but the world has no fruit tree")
    tx, ty, tz = tree.tree.position
    scale = tree.tree.scale
    radius = FOOD_RADIUS_M[food.kind]
    reach = math.hypot(food.x - tx, food.z - tz)
    nearest = config.trunk_radius_m * scale + radius + HANGING_FOOD_TRUNK_GAP_M
    farthest = config.canopy_radius_m * scale - radius - HANGING_FOOD_TRUNK_GAP_M
    if not nearest <= reach <= farthest:
        raise ImpossibleWorldError(
            f"{name} would hang {reach:.2f} m from the fruit tree's trunk: expected {nearest:.2f} to {farthest:.2f} m"
        )
    try:
        return hanging_food_entity(
            food.kind, name, (food.x, ground_height(ground, food.x, food.z), food.z),
            branch_height_m=ty + config.canopy_bottom_m * scale, yaw_rad=food.yaw_rad,
        )
    except ValueError as error:
        raise ImpossibleWorldError(str(error)) from error


def assemble_outdoor_world(
    streams: Streams,
    config: OutdoorTaskConfig,
    biome_map: BiomeMap,
    *,
    task: str,
    difficulty: float,
    spawn: XZ,
    spawn_yaw_rad: float,
    foods: Sequence[FoodPlacement],
    tree_site: Optional[XZ],
    keep_clear: Sequence[KeepClear] = (),
    exclude_mask: Optional[np.ndarray] = None,
    ring_outlines: Sequence[RingOutline] = (),
) -> OutdoorLayout:
    """Place the fruit tree, scenery and food on ``biome_map``'s (eroded) terrain and check the guarantees.

    Food rests on the terrain surface (centre one radius above it), or, when ``hanging``, hangs
    from the fruit tree's canopy above that point with its lowest point
    ``HANGING_FOOD_CLEARANCE_M`` above the surface (under the canopy, clear of the trunk). Plants keep clear of the
    spawn, the food, the tree and ``keep_clear`` discs, stay off ``exclude_mask`` cells, and any
    plant still hiding a food from the spawn is removed. Raises :class:`ImpossibleWorldError`
    unless the spawn is on dry walkable land, every food is on dry land, visible from the spawn at
    eye height and reachable on foot over triangles gentler than ``WALKABLE_SLOPE_DEG``.
    """
    ground = biome_map.heightmap
    scenery_config = scaled_scenery(config)

    if not is_dry_land(ground, *spawn, min_water_distance_m=1.0):
        raise ImpossibleWorldError(f"spawn {spawn} is not on dry land")
    spawn_position = (spawn[0], ground_height(ground, *spawn), spawn[1])
    eye = eye_position(spawn_position)

    tree: Optional[FruitTreePlacement] = None
    discs: list[KeepClear] = [(spawn[0], spawn[1], SPAWN_CLEAR_RADIUS_M), *keep_clear]
    if tree_site is not None:
        try:
            tree = place_fruit_tree(streams.tree, ground, tree_site[0], tree_site[1], scenery_config.fruit_tree, food_count=0)
        except ValueError as error:
            raise ImpossibleWorldError(f"no fruit tree at {tree_site}: {error}") from error
        trunk = scenery_config.fruit_tree.trunk_radius_m * tree.tree.scale
        if math.dist(spawn, tree_site) < SPAWN_CLEAR_RADIUS_M + trunk:
            raise ImpossibleWorldError(f"the fruit tree at {tree_site} stands on the spawn")
        discs.append(tree.keep_clear)

    entities: list[Entity] = []
    slopes = triangle_slopes_deg(ground)
    for index, food in enumerate(foods):
        if not is_dry_land(ground, food.x, food.z, min_water_distance_m=0.5):
            raise ImpossibleWorldError(f"food at ({food.x:.2f}, {food.z:.2f}) is not on dry land")
        if slopes[triangle_index(ground, food.x, food.z)] > FOOD_MAX_SLOPE_DEG:
            raise ImpossibleWorldError(f"food at ({food.x:.2f}, {food.z:.2f}) is on ground steeper than {FOOD_MAX_SLOPE_DEG} degrees")
        radius = FOOD_RADIUS_M[food.kind]
        if food.hanging:
            entities.append(_hanging_food(food, f"food_{index}", ground, tree, scenery_config.fruit_tree))
        else:
            position = (food.x, ground_height(ground, food.x, food.z) + radius, food.z)
            entities.append(
                Entity(kind=food.kind, name=f"food_{index}", position=position, yaw_rad=food.yaw_rad, params={"radius": radius})
            )
        discs.append((food.x, food.z, FOOD_CLEAR_RADIUS_M))
        discs.extend(corridor_discs(spawn, (food.x, food.z), 1.0))

    plants = place_scenery(streams.scenery, ground, biome_map, scenery_config, discs, exclude_mask=exclude_mask)
    occluders = scenery_occluders(plants)
    hiding = np.zeros(len(plants), dtype=bool)
    for entity in entities:
        hiding[occluders.owner[occluders.blocking(eye, entity.position)]] = True
    plants = tuple(p for p, hide in zip(plants, hiding) if not hide)
    scenery = plants + ((tree.tree,) if tree is not None else ())

    everything = scenery_occluders(scenery)
    for entity in entities:
        if not line_of_sight(ground, eye, entity.position, everything):
            raise ImpossibleWorldError(f"{entity.name} ({entity.kind}) cannot be seen from the spawn")

    walkable = walkable_grid(ground)
    labels = component_labels(walkable)
    start = labels[triangle_index(ground, *spawn)]
    if start < 0:
        raise ImpossibleWorldError(f"spawn {spawn} is on ground too steep to walk")
    for entity in entities:
        goal = labels[triangle_index(ground, entity.position[0], entity.position[2])]
        if goal != start:
            raise ImpossibleWorldError(f"{entity.name} cannot be reached on foot from the spawn")

    world = World(
        task=task,
        difficulty=difficulty,
        seed=0,  # build_world records the requested seed
        ground=Terrain(biome_map=biome_map, ring_outlines=tuple(ring_outlines)),
        entities=tuple(entities),
        scenery=scenery,
        spawn_position=spawn_position,
        spawn_yaw_rad=float(wrap_angle(spawn_yaw_rad)),
        time_limit_frames=config.time_limit_frames,
        lighting=random_lighting(streams.lighting, config.vary_lighting),
    )
    return OutdoorLayout(
        world=world, biome_map=biome_map, walkable=walkable, tree=tree, removed_occluders=int(hiding.sum())
    )
