"""The ``move`` task: walk to food some distance away; at high difficulty along a causeway over a chasm.

Paper, Appendix F.1: "As difficulty increases, the agent spawns farther away from the fruit, and
the paths leading to the fruit become narrower. At the highest difficulties, the agent must
traverse thin, multi-segment paths across chasms". Difficulty sets every factor through
:data:`KNOBS` (:class:`MoveKnobs`, the table below; ``docs/tasks/move.md`` quotes it):

- the distance from the spawn to the food: a few metres at d = 0, tens of metres at d = 1;
- the path: below ``chasm_start_difficulty`` an open walk on a Small island, with a corridor free
  of plants along the sight line that narrows; from there on the food stands on a plateau ringed
  by a chasm (Medium island, two grid points per metre) whose only crossing is a causeway that
  narrows and gains straight segments at angles; the chasm widens beyond what a running jump
  carries the agent (about 5 m, a little more when it drops a metre) and deepens, with 75-degree
  unclimbable walls;
- where the food is relative to the way the agent faces: straight ahead at d = 0, anywhere at 1.

The food lies on the ground under a fruit tree. The causeway builder (:class:`Causeway`,
:func:`zigzag_causeway`, :func:`cut_causeway`, :func:`chasm_with_causeway`) works on any
obstacle ring, so other tasks can reuse it.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingResult, angle_towards_deg, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    FOOD_MAX_SLOPE_DEG,
    TIME_LIMIT_FRAMES,
    FoodPlacement,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    resolve_config,
    scaled_scenery,
    split_streams,
    world_config,
)
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import (
    BLOCKING_SLOPE_DEG,
    XZ,
    component_labels,
    ground_height,
    is_dry_land,
    sample_at,
    triangle_centroids,
    triangle_index,
    triangle_slopes_deg,
    walkable_grid,
    yaw_towards,
)
from avalon.tasks.kit.sight import eye_position, terrain_clear
from avalon.tasks.kit.sites import (
    build_at_first_fitting_site,
    candidate_points,
    corridor_discs,
    fruit_tree_site_ok,
    site_mask,
    tree_behind_food,
)
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class MoveKnobs:
    """Every factor of a move world that the difficulty d in [0, 1] sets (docs/tasks/move.md quotes it).

    Bands are drawn from uniformly. Below ``chasm_start_difficulty`` the corridor's ramp runs over
    ``d / chasm_start_difficulty``; from there on the chasm's ramps run over the chasm progress
    ``s = (d - chasm_start_difficulty) / (1 - chasm_start_difficulty)``, 0 to 1.
    """

    #: Horizontal spawn-to-food distance, metres (2-4 m at d = 0, 30-40 m at 1); with a chasm at
    #: least what the ring needs (the spawn stands 3 m outside it).
    food_distance_m: Band = Band(Ramp(2.0, 28.0), Ramp(4.0, 36.0))
    #: The food lies within this angle of the spawn's facing direction, either side, degrees.
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: From this difficulty on, the food is ringed by a chasm crossed by a causeway.
    chasm_start_difficulty: float = 0.35
    #: Open worlds: width of the plant-free corridor to the food, metres (8 m to 5.5 m), over
    #: ``d / chasm_start_difficulty``.
    corridor_width_m: Ramp = Ramp(8.0, -2.5)
    #: Chasm worlds, over the progress s: width of the causeway's flat top, metres (5 m to 1.25 m).
    causeway_width_m: Ramp = Ramp(5.0, -3.75)
    #: ...radial width of the chasm at the top, metres (7 m to 12 m; a running jump carries the
    #: agent about 5 m).
    chasm_width_m: Ramp = Ramp(7.0, 5.0)
    #: ...depth of the chasm, metres (4 m to 6 m).
    chasm_depth_m: Ramp = Ramp(4.0, 2.0)
    #: ...how far each causeway segment turns off the straight line across, degrees (20 to 35).
    causeway_turn_deg: Ramp = Ramp(20.0, 15.0)
    #: The causeway has one straight segment, and one more from each of these difficulties.
    causeway_segment_added_at: tuple[float, ...] = (0.55, 0.8)
    #: Training episodes are truncated after this many seconds (20 s at d = 0, 80 s at 1): a few
    #: times what walking 2-40 m at up to 5 m/s takes, on a causeway at high difficulty.
    training_time_limit_s: Ramp = Ramp(20.0, 60.0)


#: The move task's difficulty curves.
KNOBS = MoveKnobs()
#: From this difficulty on, the food is ringed by a chasm crossed by a causeway (the table's number).
CHASM_START_DIFFICULTY = KNOBS.chasm_start_difficulty
#: Radius of the plateau the fruit tree stands on, inside the chasm, metres.
PLATEAU_RADIUS_M = 5.0
#: How far the chasm's inner edge wanders in and out, metres.
CHASM_NOISE_M = 0.8
#: Chasm worlds raise the island's mean land height to the chasm depth plus this, metres.
CHASM_FLOOR_HEIGHT_M = 2.5
#: The chasm floor stays at least this far above the water plane, metres.
CHASM_FLOOR_MIN_M = 0.3
#: At most this share of the chasm's floor may lie under water.
CHASM_MAX_WET_FRACTION = 0.1
#: The causeway starts this far round the chasm from the spawn's direction (either side), degrees.
CAUSEWAY_APPROACH_OFFSET_DEG = (15.0, 45.0)
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3


def _chasm_progress(difficulty: float) -> float:
    """0 at CHASM_START_DIFFICULTY, 1 at difficulty 1."""
    return min(1.0, max(0.0, (difficulty - CHASM_START_DIFFICULTY) / (1.0 - CHASM_START_DIFFICULTY)))


def has_chasm(difficulty: float) -> bool:
    return difficulty >= CHASM_START_DIFFICULTY


#: What the table's ramps run over where it is not the difficulty (None: the knob does not apply
#: there); docs/tasks/move.md's generated table of the knobs evaluates them so.
KNOB_PROGRESS = {
    "corridor_width_m": lambda d: None if has_chasm(d) else d / CHASM_START_DIFFICULTY,
    **{name: lambda d: _chasm_progress(d) if has_chasm(d) else None
       for name in ("causeway_width_m", "chasm_width_m", "chasm_depth_m", "causeway_turn_deg")},
}


def path_width_m(difficulty: float) -> float:
    """Width of the path to the food, metres: the plant-free corridor (open worlds) or the causeway."""
    if not has_chasm(difficulty):
        return KNOBS.corridor_width_m.at(difficulty / CHASM_START_DIFFICULTY)
    return KNOBS.causeway_width_m.at(_chasm_progress(difficulty))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ChasmSpec:
    """A chasm ring around a plateau, crossed only by a causeway. Lengths in metres, angles in degrees."""

    plateau_radius_m: float = attr.ib(default=PLATEAU_RADIUS_M, validator=check.positive())
    #: Radial width of the chasm at the top (more than the agent can jump: about 5 m on the level).
    chasm_width_m: float = attr.ib(default=8.0, validator=check.positive())
    depth_m: float = attr.ib(default=5.0, validator=check.positive())
    #: Width of the causeway's flat top.
    causeway_width_m: float = attr.ib(default=2.0, validator=check.positive())
    segment_count: int = attr.ib(default=2, validator=check.int_between(1, 8))
    #: How far each segment turns off the straight line across, degrees.
    turn_deg: float = attr.ib(default=30.0, validator=check.between(0.0, 60.0))
    noise_amplitude_m: float = attr.ib(default=CHASM_NOISE_M, validator=check.non_negative())
    wall_slope_deg: float = attr.ib(default=75.0, validator=check.between(45.0, 89.0))

    @property
    def outer_radius_m(self) -> float:
        """Farthest the chasm reaches from its centre."""
        return self.plateau_radius_m + self.noise_amplitude_m + self.chasm_width_m


def chasm_spec(difficulty: float) -> ChasmSpec:
    """The chasm and causeway of ``difficulty`` (which must have a chasm)."""
    s = _chasm_progress(difficulty)
    return ChasmSpec(
        chasm_width_m=KNOBS.chasm_width_m.at(s),
        depth_m=KNOBS.chasm_depth_m.at(s),
        causeway_width_m=path_width_m(difficulty),
        segment_count=1 + sum(int(difficulty >= start) for start in KNOBS.causeway_segment_added_at),
        turn_deg=KNOBS.causeway_turn_deg.at(s),
    )


# --- causeway builder ----------------------------------------------------------------------------


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
class ChasmCrossing:
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
        """Triangles of the causeway where it crosses the chasm: block them and the food must be
        out of reach."""
        return causeway_triangles(heightmap, self.causeway) & triangles_touching(self.band)


def chasm_with_causeway(
    rng: np.random.Generator, heightmap: HeightMap, centre: XZ, approach_angle_deg: float, spec: ChasmSpec
) -> ChasmCrossing:
    """Cut a chasm ring around ``centre`` and a zigzag causeway across it.

    The causeway starts 1 m outside the chasm in the direction ``approach_angle_deg`` (ring
    angles: degrees from +x towards +z) and ends 1 m inside the plateau.
    """
    ring = ObstacleRing(
        kind=RingKind.CHASM,
        centre_x_m=float(centre[0]),
        centre_z_m=float(centre[1]),
        inner_radius_m=spec.plateau_radius_m,
        width_m=spec.chasm_width_m,
        height_m=spec.depth_m,
        wall_slope_deg=spec.wall_slope_deg,
        noise_amplitude_m=spec.noise_amplitude_m,
    )
    ringed = apply_ring(rng, heightmap, ring)
    angle = math.radians(approach_angle_deg)
    direction = (math.cos(angle), math.sin(angle))
    start_radius = spec.outer_radius_m + 1.0
    end_radius = max(1.0, spec.plateau_radius_m - spec.noise_amplitude_m - 1.0)
    start = (centre[0] + start_radius * direction[0], centre[1] + start_radius * direction[1])
    end = (centre[0] + end_radius * direction[0], centre[1] + end_radius * direction[1])
    causeway = zigzag_causeway(
        rng, start, end, segment_count=spec.segment_count, turn_deg=spec.turn_deg, width_m=spec.causeway_width_m
    )
    shaped, top = cut_causeway(heightmap, ringed.heightmap, causeway, spec.wall_slope_deg)
    result = RingResult(
        heightmap=shaped,
        wall=ringed.wall & ~top,
        climbable=ringed.climbable & ~top,
        unclimbable=ringed.unclimbable & ~top,
        gap=ringed.gap | (ringed.wall & top),
        inside=ringed.inside,
        outlines=ringed.outlines,
    )
    return ChasmCrossing(ring=ring, result=result, causeway=causeway, top=top, band=ringed.wall)


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


# --- the task ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class MoveLayout:
    """A move world and the factors difficulty chose for it."""

    outdoor: OutdoorLayout
    #: Horizontal distance from the spawn to the food's centre, metres.
    distance_m: float
    path_width_m: float
    crossing: Optional[ChasmCrossing] = None

    @property
    def world(self) -> World:
        return self.outdoor.world


def _food_site_ok(heightmap: HeightMap, slopes: np.ndarray, food: XZ) -> bool:
    """Dry land, gentle enough for food to rest on (``slopes``: ``triangle_slopes_deg(heightmap)``)."""
    if not is_dry_land(heightmap, *food, min_water_distance_m=1.0):
        return False
    return slopes[triangle_index(heightmap, *food)] <= FOOD_MAX_SLOPE_DEG


def _terrain_sight(heightmap: HeightMap, spawn: XZ, food: XZ) -> bool:
    """A cheap early look: does the terrain hide an apple at ``food`` from eye height at ``spawn``?

    Obstacles only lower the ground between (a chasm) or restore it (a causeway), so a clear
    view before them stays clear."""
    eye = eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1]))
    target = (food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1])
    return terrain_clear(heightmap, eye, target, margin_m=0.05)


def _assemble(streams, config, biome_map, difficulty: float, spawn, food, yaw_offset: float, **differences):
    """The outdoor world of a move layout: an apple at ``food`` (its yaw drawn from the sites
    stream), the agent at ``spawn`` facing it but for ``yaw_offset``; ``differences`` are the
    remaining arguments of ``assemble_outdoor_world`` (tree site, corridor, ring)."""
    foods = [FoodPlacement(kind="apple", x=food[0], z=food[1], yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]
    return assemble_outdoor_world(streams, config, biome_map, task="move", difficulty=difficulty, spawn=spawn,
                                  spawn_yaw_rad=yaw_towards(spawn, food) - yaw_offset, foods=foods, **differences)


def _open_layout(streams, config, difficulty: float, distance: float, yaw_offset: float) -> MoveLayout:
    width = path_width_m(difficulty)
    heightmap = build_island(streams.terrain, config.world_size or "small", config.points_per_m or 1.0)
    biome_map = make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    fruit_tree = scaled_scenery(config).fruit_tree
    mask = site_mask(ground, min_water_distance_m=1.5, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=6.0)
    slopes = triangle_slopes_deg(ground)

    def fit_spawn_site(spawn: XZ):
        """Why the food cannot lie ``distance`` from a spawn at ``spawn``, or the build of the world there."""
        heading = streams.sites.uniform(-math.pi, math.pi)
        food = (spawn[0] + distance * math.cos(heading), spawn[1] + distance * math.sin(heading))
        if not _food_site_ok(ground, slopes, food):
            return f"the food at {food} would not be on dry, gentle ground"
        tree_site = tree_behind_food(streams.sites, food, spawn, fruit_tree)
        if not fruit_tree_site_ok(ground, *tree_site, fruit_tree):
            return f"no fruit tree site behind the food at {tree_site}"
        if not _terrain_sight(ground, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> MoveLayout:
            outdoor = _assemble(streams, config, biome_map, difficulty, spawn, food, yaw_offset, tree_site=tree_site,
                                keep_clear=corridor_discs(spawn, food, width / 2.0))
            return MoveLayout(outdoor=outdoor, distance_m=math.dist(spawn, food), path_width_m=width)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, ground, mask, config.site_attempts), fit_spawn_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="move: no spawn site keeps the guarantees on this island",
    )


def _chasm_layout(streams, config, difficulty: float, distance: float, yaw_offset: float) -> MoveLayout:
    spec = chasm_spec(difficulty)
    size = config.world_size or "medium"
    # A higher island keeps the chasm floor above the water plane (a dry chasm, not a moat).
    land_height = max(world_config(size, 1.0).land_height_m, spec.depth_m + CHASM_FLOOR_HEIGHT_M)
    # No carved pools: on high ground their banks become wide craters that leave no room for the ring.
    heightmap = build_island(streams.terrain, size, config.points_per_m or 2.0, land_height_m=land_height, pool_count=0)
    fruit_tree = scaled_scenery(config).fruit_tree
    outer = spec.outer_radius_m
    mask = site_mask(
        heightmap, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=outer + 8.0, edge_margin_m=outer + 8.0
    )
    slopes = triangle_slopes_deg(heightmap)
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)

    def fit_chasm_site(centre: XZ):
        """Why the chasm cannot ring a plateau at ``centre``, or the build of the world there
        (the ring and the causeway are cut into the terrain in the build)."""
        if not fruit_tree_site_ok(heightmap, *centre, fruit_tree):
            return f"no fruit tree site at {centre}"
        # A chasm, not a moat: most of its floor must stay above the water plane.
        radius = np.hypot(x - centre[0], z - centre[1])
        band = (radius >= spec.plateau_radius_m) & (radius <= outer)
        wet = heightmap.heights[band] < heightmap.water_height_m + spec.depth_m + CHASM_FLOOR_MIN_M
        if wet.mean() > CHASM_MAX_WET_FRACTION:
            return f"the chasm around {centre} would be a moat"
        away = streams.sites.uniform(-math.pi, math.pi)  # from the food towards the spawn
        food_angle = away + math.radians(streams.sites.uniform(-60.0, 60.0))
        food_radius = streams.sites.uniform(1.2, 2.5)
        food = (centre[0] + food_radius * math.cos(food_angle), centre[1] + food_radius * math.sin(food_angle))
        spawn_distance = max(distance, outer + 3.0 + food_radius + 0.5)
        spawn = (food[0] + spawn_distance * math.cos(away), food[1] + spawn_distance * math.sin(away))
        if not bool(heightmap.contains(*spawn)) or not is_dry_land(heightmap, *spawn, min_water_distance_m=1.5):
            return f"the spawn at {spawn} would not be on dry land"
        if sample_at(heightmap, heightmap.slope_deg(), *spawn) > 25.0 or not _food_site_ok(heightmap, slopes, food):
            return f"the spawn at {spawn} or the food at {food} would be on ground too steep or wet"
        if not _terrain_sight(heightmap, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> MoveLayout:
            # The causeway starts off to one side, so the straight line to the food crosses the chasm.
            side = 1.0 if streams.sites.uniform() < 0.5 else -1.0
            approach = angle_towards_deg(*centre, *spawn) + side * streams.sites.uniform(*CAUSEWAY_APPROACH_OFFSET_DEG)
            crossing = chasm_with_causeway(streams.rings, heightmap, centre, approach, spec)
            shaped = crossing.result
            biome_map = make_biomes(streams.biomes, shaped.heightmap, config, shaped.climbable, shaped.unclimbable)
            ground = biome_map.heightmap
            near_causeway = crossing.causeway.distance_m(x, z) <= spec.causeway_width_m / 2.0 + 1.0
            outdoor = _assemble(
                streams, config, biome_map, difficulty, spawn, food, yaw_offset, tree_site=centre,
                keep_clear=corridor_discs(spawn, food, max(1.0, spec.causeway_width_m / 2.0)),
                exclude_mask=shaped.wall | near_causeway, ring_outlines=shaped.outlines,
            )
            if reachable_without(ground, crossing.crossing_triangles(ground), spawn, food):
                raise ImpossibleWorldError("move: the food can be reached without the causeway")
            return MoveLayout(
                outdoor=outdoor, distance_m=math.dist(spawn, food), path_width_m=spec.causeway_width_m, crossing=crossing
            )

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, heightmap, mask, config.site_attempts), fit_chasm_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="move: no site for the chasm keeps the guarantees on this island",
    )


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> MoveLayout:
    """The move world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees."""
    config = resolve_config(config)
    streams = split_streams(rng)
    distance = float(streams.food.uniform(*KNOBS.food_distance_m.at(difficulty)))
    yaw_offset = math.radians(streams.food.uniform(-1.0, 1.0) * KNOBS.max_facing_offset_deg.at(difficulty))
    if has_chasm(difficulty):
        return _chasm_layout(streams, config, difficulty, distance, yaw_offset)
    return _open_layout(streams, config, difficulty, distance, yaw_offset)


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``."""
    return build_layout(rng, difficulty, config).world


TASK = TaskSpec(
    name="move",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=TIME_LIMIT_FRAMES,
    food_visible_from_spawn=True,
    food_reachable_on_foot=True,
    table_row=2,
    in_sets_from_version=1,
    reference_agent="avalon.agent.scripted.follower:RouteFollower",
)
