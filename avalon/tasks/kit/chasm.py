"""The chasm piece's geometry: a trench ring round a plateau, too wide to jump, that the agent
crosses where it narrows (jump's trench, bridge's gap for a log) or over a causeway (move).

A :class:`ChasmRing` is the ring a task sets with its factors: width, depth, the stretch where it
narrows (none for move's), the ring's inner radius, how far its edge wanders, its walls' slope.
Jump and bridge cut it with near-vertical *stepped* walls (:func:`stepped_walls`) whose half on
the agent's side can be climbed (:func:`climbable_half`): an agent that falls in climbs back out
where it came from, never up to the goal. Every piece keeps its chasm dry (:func:`dry_island`,
:func:`moat_reason`) and fits it in its :class:`~avalon.tasks.kit.obstacle.Constraint`
(:func:`ring_inner_radius_m`): the ring's inner edge lies ``inner_radius_m`` (the plateau's
radius round a single task's goal) out from the band's inner radius.

Distances "outward" are measured from the ring's noisy inner edge (:func:`edge_m`), radially away
from the centre; angles are ring angles (radians unless named ``_deg``: from +x towards +z).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Sequence

import attr
import numpy as np
from scipy.spatial import cKDTree

from avalon import errors as check
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingOutline, RingResult
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError, assembly, sites
from avalon.tasks.kit.capabilities import BYPASS_CAPABILITIES, jump_reach_m
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, sample_at, triangle_index, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Draft, Obstacle, ObstaclePlan
from avalon.tasks.kit.reachability import make_ground
from avalon.tasks.kit.sight import eye_position, terrain_clear

#: Radius of the plateau a jump or bridge chasm rings (its ring's mean inner radius), metres.
PLATEAU_RADIUS_M = 4.0
#: How far a jump or bridge chasm's inner edge wanders in and out, metres.
NOISE_M = 0.5
#: Slope of stepped walls, degrees: near vertical, so each wall drops the whole depth within one
#: grid cell (a 7 m face over 1 m is 82 degrees: a jump slides 4.7 m up it, walking none).
STEP_WALL_SLOPE_DEG = 89.0
#: Height-map grid points per metre of jump and bridge worlds (Small's own: a finer grid costs a
#: third of the steps per second; the stepped walls are deep enough to stay steep on it).
POINTS_PER_M = 1.0
#: A chasm's island has its mean land height raised to the chasm's depth plus this, metres.
FLOOR_HEIGHT_M = 2.5
#: The chasm floor stays at least this far above the water plane, metres...
FLOOR_MIN_M = 0.3
#: ...over all but this share of it.
MAX_WET_FRACTION = 0.1
#: A direction from the centre meets the stretch when it passes this far inside its sides, metres.
STRETCH_SIDE_CLEARANCE_M = 1.0
#: Where the spawn's direction misses the stretch, the spawn stands at least this far beyond the chasm, metres...
SPAWN_BEYOND_CHASM_M = 1.0
#: ...and where the food's does, the food lies at least this far inside the plateau's edge, metres.
FOOD_INSIDE_PLATEAU_M = 1.0
#: The food's direction from the centre lies within this angle of the spawn's, either side, degrees.
FOOD_SPREAD_DEG = 30.0
#: Keep-clear corridors for plants on the way to, across and from a stretch (half width, metres).
CORRIDOR_HALF_WIDTH_M = 1.5
#: Ground more than this below the terrain before the chasm was cut is in the chasm, metres.
CUT_BELOW_M = 0.25
#: A crossing's standing points lie this far from the trench's lips, metres.
LIP_CLEARANCE_M = 1.0
#: Full world builds a chasm task tries on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3


def _centre(value) -> XZ:
    return float(value[0]), float(value[1])


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ChasmRing:
    """A chasm ring round ``centre``: lengths in metres, angles in degrees (ring angles)."""

    centre: XZ = attr.ib(converter=_centre)
    #: Radial width of the chasm (outside its stretch).
    width_m: float = attr.ib(validator=check.positive())
    depth_m: float = attr.ib(validator=check.positive())
    #: Radial width of the trench along the stretch (0: no stretch).
    stretch_width_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: Length of the stretch along the ring, at the chasm's middle (0: no stretch).
    stretch_length_m: float = attr.ib(default=0.0, validator=check.non_negative())
    #: Direction of the middle of the stretch from the centre.
    stretch_angle_deg: float = attr.ib(default=0.0, validator=check.finite())
    #: The ring's mean inner radius (the plateau's, round a single task's goal).
    inner_radius_m: float = attr.ib(default=PLATEAU_RADIUS_M, validator=check.positive())
    #: How far the inner edge wanders in and out.
    noise_m: float = attr.ib(default=NOISE_M, validator=check.non_negative())
    wall_slope_deg: float = attr.ib(default=STEP_WALL_SLOPE_DEG, validator=check.between(45.0, 89.9))

    def ring(self) -> ObstacleRing:
        """The chasm as an obstacle ring (the stretch's sides sharp, not blended)."""
        return ObstacleRing(
            kind=RingKind.CHASM, centre_x_m=self.centre[0], centre_z_m=self.centre[1], inner_radius_m=self.inner_radius_m,
            width_m=self.width_m, height_m=self.depth_m, gap_angle_deg=self.stretch_angle_deg,
            gap_width_m=self.stretch_length_m, gap_band_width_m=self.stretch_width_m, wall_slope_deg=self.wall_slope_deg,
            noise_amplitude_m=self.noise_m, gap_edge_blend=False,
        )

    @property
    def outer_radius_m(self) -> float:
        """Farthest the chasm reaches from its centre."""
        return self.inner_radius_m + self.noise_m + self.width_m

    @property
    def middle_radius_m(self) -> float:
        """The radius of the chasm's middle (its mean inner edge plus half its width)."""
        return self.inner_radius_m + self.width_m / 2.0

    @property
    def stretch_rad(self) -> float:
        """Direction of the middle of the stretch from the centre, radians."""
        return math.radians(self.stretch_angle_deg)

    def stretch_half_angle_rad(self) -> float:
        """Half the angle the stretch spans seen from the centre (its length at the chasm's middle)."""
        return self.stretch_length_m / (2.0 * (self.inner_radius_m + self.width_m / 2.0))

    def meets_stretch(self, angle_rad: float, radius_m: float) -> bool:
        """Whether the direction ``angle_rad`` from the centre passes through the stretch
        ``STRETCH_SIDE_CLEARANCE_M`` inside its sides at ``radius_m`` from the centre."""
        off = abs(math.remainder(angle_rad - math.radians(self.stretch_angle_deg), 2.0 * math.pi))
        return off <= self.stretch_half_angle_rad() - STRETCH_SIDE_CLEARANCE_M / radius_m

    def beyond_outward_m(self, angle_rad: float, outward_m: float) -> float:
        """``outward_m`` (from the inner edge, in direction ``angle_rad``) where that direction meets
        the stretch there; else at least ``SPAWN_BEYOND_CHASM_M`` beyond the chasm."""
        if self.meets_stretch(angle_rad, self.inner_radius_m + outward_m):
            return outward_m
        return max(outward_m, self.width_m + SPAWN_BEYOND_CHASM_M)

    def inside_outward_m(self, angle_rad: float, outward_m: float) -> float:
        """``outward_m`` (negative: inside the plateau) where the direction ``angle_rad`` meets the
        stretch there; else at least ``FOOD_INSIDE_PLATEAU_M`` inside the plateau's edge."""
        if self.meets_stretch(angle_rad, self.inner_radius_m + max(outward_m, 0.0)):
            return outward_m
        return min(outward_m, -FOOD_INSIDE_PLATEAU_M)

    def grid_offsets(self, heightmap: HeightMap) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, z, radius) of every grid point relative to the centre, metres."""
        x, z = np.meshgrid(heightmap.x_coords_m - self.centre[0], heightmap.z_coords_m - self.centre[1])
        return x, z, np.hypot(x, z)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StretchKnobs:
    """The factors of a chasm with one narrower stretch (jump's trench, bridge's gap for a log) that
    the difficulty d in [0, 1] sets: each such task's ``KNOBS.chasm`` is one (the comment above it
    says what its widths are measured against)."""

    #: Radial width of the chasm outside the stretch, metres.
    width_m: Ramp
    #: Radial width of the trench along the stretch, metres.
    stretch_width_m: Ramp
    #: Length of the stretch along the ring (at the middle of the chasm), metres.
    stretch_length_m: Ramp
    #: Depth of the chasm, metres (7 m to 8 m: more than a jump slides up its stepped walls; a fall
    #: in costs under a tenth of the energy).
    depth_m: Ramp = Ramp(7.0, 1.0)
    #: The middle of the stretch lies within this angle round the ring from the spawn's side, either
    #: side, degrees (0 at d = 0: straight ahead; 150 at 1).
    max_stretch_bearing_deg: Ramp = Ramp(0.0, 150.0)

    def ring(self, difficulty: float, centre: XZ, stretch_angle_deg: float,
             inner_radius_m: float = PLATEAU_RADIUS_M) -> ChasmRing:
        """The chasm of ``difficulty`` round ``centre``, its stretch towards ``stretch_angle_deg``."""
        return ChasmRing(centre=centre, width_m=self.width_m.at(difficulty), stretch_width_m=self.stretch_width_m.at(difficulty),
                         stretch_length_m=self.stretch_length_m.at(difficulty), depth_m=self.depth_m.at(difficulty),
                         stretch_angle_deg=stretch_angle_deg, inner_radius_m=inner_radius_m)


def ring_inner_radius_m(constraint: Constraint, plateau_m: float, extent_m: float, piece: str) -> float:
    """The inner radius of a chasm ring in ``constraint``'s band: ``plateau_m`` out from the band's
    inner radius; ``ImpossibleWorldError`` naming ``piece`` unless the piece, reaching ``extent_m``
    beyond the ring's inner radius, fits in the band."""
    inner = constraint.inner_radius_m + plateau_m
    if inner + extent_m > constraint.outer_radius_m + 1e-9:  # a band made to fit exactly fits, rounding aside
        raise ImpossibleWorldError(
            f"{piece}: the chasm reaches {inner + extent_m:.2f} m from the centre, beyond the band's outer radius "
            f"{constraint.outer_radius_m:.2f} m")
    return inner


def dry_island(rng: np.random.Generator, size, points_per_m: float, depth_m: float) -> HeightMap:
    """The island of a chasm world: its mean land height raised to at least the chasm's depth plus
    ``FLOOR_HEIGHT_M`` (a dry chasm, not a moat) and no carved pools (on high ground their banks
    become craters that leave no room for the ring)."""
    land_height = max(assembly.world_config(size, 1.0).land_height_m, depth_m + FLOOR_HEIGHT_M)
    return assembly.build_island(rng, size, points_per_m, land_height_m=land_height, pool_count=0)


def begin(rng: np.random.Generator, config: object | None,
          depth_m: float) -> tuple[assembly.OutdoorTaskConfig, assembly.Streams, HeightMap]:
    """How a jump or bridge generator starts: its config (the defaults for None), the world's
    streams, and its :func:`dry_island` (Small, ``POINTS_PER_M``, unless the config says otherwise)."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    size, points_per_m = config.world_size or "small", config.points_per_m or POINTS_PER_M
    return config, streams, dry_island(streams.terrain, size, points_per_m, depth_m)


def moat_reason(heightmap: HeightMap, centre: XZ, inner_m: float, outer_m: float, depth_m: float,
                grid: Optional[tuple[np.ndarray, np.ndarray]] = None) -> Optional[str]:
    """Why a chasm ``depth_m`` deep between ``inner_m`` and ``outer_m`` from ``centre`` would be a
    moat (more than ``MAX_WET_FRACTION`` of its floor under water), or None. ``grid``: the
    height map's (x, z) meshgrid, when the caller has it."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m) if grid is None else grid
    radius = np.hypot(x - centre[0], z - centre[1])
    band = (radius >= inner_m) & (radius <= outer_m)
    wet = heightmap.heights[band] < heightmap.water_height_m + depth_m + FLOOR_MIN_M
    if wet.mean() > MAX_WET_FRACTION:
        return f"the chasm around {centre} would be a moat"
    return None


def at(centre: XZ, angle_rad: float, radius_m: float) -> XZ:
    """The point ``radius_m`` from ``centre`` in direction ``angle_rad``."""
    return centre[0] + radius_m * math.cos(angle_rad), centre[1] + radius_m * math.sin(angle_rad)


def outward_point(centre: XZ, angle_rad: float, outward_m: float, outline: Optional[RingOutline] = None) -> XZ:
    """The point ``outward_m`` out from the ring's inner edge in the direction ``angle_rad`` from
    ``centre`` (negative: inside the plateau): the noisy edge of ``outline``, or without one the
    plateau's mean edge (``PLATEAU_RADIUS_M``)."""
    edge = PLATEAU_RADIUS_M if outline is None else edge_m(outline, angle_rad)
    return at(centre, angle_rad, edge + outward_m)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EdgePlacement:
    """Where a jump or bridge world's spawn and food stand: each ``(angle_rad, outward_m)`` from the
    chasm's inner edge round ``centre``, planned on the mean edge and set as far out from the built
    chasm's noisy one (:func:`outward_point`)."""

    centre: XZ
    spawn: tuple[float, float]
    food: tuple[float, float]

    def points(self, outline: Optional[RingOutline] = None) -> tuple[XZ, XZ]:
        """(spawn, food) off the mean inner edge, or off ``outline``'s noisy one."""
        return outward_point(self.centre, *self.spawn, outline), outward_point(self.centre, *self.food, outline)

    def reason(self, natural: HeightMap, slopes: np.ndarray) -> Optional[str]:
        """Why the spawn and the food cannot stand where planned (:func:`placement_reason`), or None."""
        return placement_reason(natural, slopes, *self.points())

    def build(self, plan: ObstaclePlan, draft: Draft) -> tuple[Obstacle, XZ, XZ]:
        """The piece of ``plan`` built on ``draft``, and the spawn and the food off its noisy inner edge."""
        piece = plan.build(draft)
        return (piece, *self.points(piece.detail.ringed.outlines[0]))


def edge_m(outline: RingOutline, angle_rad) -> float:
    """The ring's (noisy) inner edge's distance from its centre in direction ``angle_rad``."""
    return float(np.interp(angle_rad, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi))


def outward_distance_m(outline: RingOutline, heightmap: HeightMap) -> np.ndarray:
    """At every grid point, its distance outward from the ring's (noisy) inner edge, metres
    (negative inside), as :func:`~avalon.datagen.obstacles.apply_ring` measured it."""
    x, z = np.meshgrid(heightmap.x_coords_m - outline.centre_x_m, heightmap.z_coords_m - outline.centre_z_m)
    inner = np.interp(np.arctan2(z, x), outline.angles_rad, outline.inner_radius_m, period=2.0 * math.pi)
    return np.hypot(x, z) - inner


def climbable_half(result: RingResult, heightmap: HeightMap, width_m: float, *,
                   outer: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The (climbable, unclimbable) grid masks of a chasm whose half on the agent's side (its walls
    and that half of its floor: the outer half, or the inner one with ``outer`` False) can be
    climbed and whose other half cannot."""
    beyond = outward_distance_m(result.outlines[0], heightmap) > width_m / 2.0
    side = beyond if outer else ~beyond
    return result.wall & side, result.wall & ~side


def stepped_walls(natural: HeightMap, ringed: HeightMap, depth_m: float) -> HeightMap:
    """``ringed`` with every grid point at the natural height or the chasm's full depth below it:
    a wall's few points that fall on its (near vertical) slope would be steps a body walks up."""
    offset = ringed.heights.astype(np.float64) - natural.heights.astype(np.float64)
    return ringed.with_heights(natural.heights.astype(np.float64) - np.where(offset < -depth_m / 2.0, depth_m, 0.0))


def terrain_sight(heightmap: HeightMap, spawn: XZ, food: XZ) -> bool:
    """Whether the terrain leaves an apple at ``food`` in sight of the eyes at ``spawn`` (a chasm
    only lowers the ground between, and a causeway restores it: a clear view before them stays clear)."""
    eye = eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1]))
    target = (food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1])
    return terrain_clear(heightmap, eye, target, margin_m=0.05)


def placement_reason(natural: HeightMap, slopes: np.ndarray, spawn: XZ, food: XZ) -> Optional[str]:
    """Why a spawn and an apple on either side of a chasm to be cut into ``natural`` cannot stand
    where drawn (``slopes``: its triangles' slopes), or None: the spawn on dry land (1.5 m from
    water) and ground under 25 degrees, the food on triangles under 20, in sight past the terrain."""
    if not bool(natural.contains(*spawn)) or not is_dry_land(natural, *spawn, min_water_distance_m=1.5):
        return f"the spawn at {spawn} would not be on dry land"
    if sample_at(natural, natural.slope_deg(), *spawn) > 25.0 or slopes[triangle_index(natural, *food)] > 20.0:
        return f"the spawn at {spawn} or the food at {food} would be on ground too steep"
    if not terrain_sight(natural, spawn, food):
        return f"the terrain hides the food at {food} from the spawn"
    return None


def first_fitting_site(streams: assembly.Streams, island: HeightMap, mask: np.ndarray,
                       config: assembly.OutdoorTaskConfig, fit, failure: str):
    """The world ``fit`` builds at the first of ``config.site_attempts`` candidate sites of ``mask``
    that fits, ``ASSEMBLY_ATTEMPTS`` builds at most (:func:`~avalon.tasks.kit.sites.build_at_first_fitting_site`)."""
    return sites.build_at_first_fitting_site(sites.candidate_points(streams.sites, island, mask, config.site_attempts),
                                             fit, max_builds=ASSEMBLY_ATTEMPTS, failure=failure)


def assemble_with_apple(streams: assembly.Streams, config: assembly.OutdoorTaskConfig, biome_map, draft: Draft, *,
                        task: str, difficulty: float, spawn: XZ, food: XZ, yaw_offset_rad: float = 0.0,
                        **options) -> assembly.OutdoorLayout:
    """The world of a piece's draft on ``biome_map``: an apple at ``food`` (its yaw drawn from
    ``streams.sites``), the agent at ``spawn`` facing it but for ``yaw_offset_rad``, plants off the
    draft's ``no_scenery`` grid, its ring outlines drawn; ``options``: the rest of
    :func:`~avalon.tasks.kit.assembly.assemble_outdoor_world`'s arguments (tree site, keep-clear discs...)."""
    yaw = float(streams.sites.uniform(-math.pi, math.pi))
    foods = [assembly.FoodPlacement(kind="apple", x=food[0], z=food[1], yaw_rad=yaw)]
    return assembly.assemble_outdoor_world(streams, config, biome_map, task=task, difficulty=difficulty, spawn=spawn,
                                  spawn_yaw_rad=yaw_towards(spawn, food) - yaw_offset_rad, foods=foods,
                                  exclude_mask=draft.no_scenery, ring_outlines=draft.ring_outlines, **options)


def crossing_points(chasm: ChasmRing, outline: RingOutline, inner_outward_m: float, outer_outward_m: float, *,
                    inverted: bool) -> tuple[XZ, XZ]:
    """(start, end) standing points of a crossing at the stretch's middle: ``inner_outward_m`` and
    ``outer_outward_m`` out from the noisy inner edge there; from outside in (from inside out when
    the goal lies outside, ``inverted``)."""
    stretch = chasm.stretch_rad
    edge = edge_m(outline, stretch)
    inside, outside = at(chasm.centre, stretch, edge + inner_outward_m), at(chasm.centre, stretch, edge + outer_outward_m)
    return (inside, outside) if inverted else (outside, inside)


#: Directions a jump may take across a chasm: from outside in, from inside out.
INWARD, OUTWARD = "in", "out"


def jump_across(heightmap: HeightMap, chasm: ChasmRing, in_chasm: np.ndarray, *, ways: Sequence[str],
                stretch_excepted: bool) -> Optional[str]:
    """Why a jump could cross the chasm, or None if none can.

    Standing points (the bypass search's, off ``in_chasm``) beyond the chasm's middle and inside it
    are paired when a jump from one to the other (``ways``: :data:`INWARD`, :data:`OUTWARD`) lands
    by the bypass search's limits (:func:`jump_reach_m` for their height difference, plus its
    slack: 6 m on the level, half a metre more than the simulator's body manages). With
    ``stretch_excepted`` a pair with a point on the stretch (within its angle seen from the centre,
    a grid cell's slack) is a jump at the stretch, and allowed."""
    ground = make_ground(heightmap, np.zeros(heightmap.shape, dtype=bool), np.zeros(heightmap.shape, dtype=bool),
                         BYPASS_CAPABILITIES)
    x, z, radius = chasm.grid_offsets(heightmap)
    middle = chasm.inner_radius_m + chasm.width_m / 2.0
    slack = BYPASS_CAPABILITIES.jump_reach_slack_m
    longest = jump_reach_m(-chasm.depth_m) + slack
    near = np.abs(radius - middle) <= chasm.width_m / 2.0 + chasm.noise_m + longest
    standing = ground.standing & ~in_chasm & near
    inner, outer = standing & (radius < middle), standing & (radius >= middle)
    if not inner.any() or not outer.any():
        return "the chasm has no standing ground on one side"
    off = np.abs((np.arctan2(z, x) - math.radians(chasm.stretch_angle_deg) + math.pi) % (2.0 * math.pi) - math.pi)
    within = off <= chasm.stretch_half_angle_rad() + heightmap.cell_size_m / np.maximum(radius, heightmap.cell_size_m)
    heights = heightmap.heights.astype(np.float64)
    inner_xz, outer_xz = np.column_stack([x[inner], z[inner]]), np.column_stack([x[outer], z[outer]])
    inner_y, outer_y = heights[inner], heights[outer]
    inner_within, outer_within = within[inner], within[outer]
    for i, found in enumerate(cKDTree(outer_xz).query_ball_tree(cKDTree(inner_xz), longest)):
        if not found:
            continue
        j = np.asarray(found)
        if stretch_excepted:
            j = j[~(outer_within[i] | inner_within[j])]
            if j.size == 0:
                continue
        distance = np.hypot(*(inner_xz[j] - outer_xz[i]).T)
        for way in ways:
            rise = inner_y[j] - outer_y[i] if way == INWARD else outer_y[i] - inner_y[j]
            reach = np.array([jump_reach_m(r) for r in rise])  # NaN above the apex: out of reach
            close = distance < np.nan_to_num(reach, nan=-np.inf) + slack
            if close.any():
                k = int(np.argmax(close))
                p, q = outer_xz[i] + chasm.centre, inner_xz[j[k]] + chasm.centre
                where = " outside its stretch" if stretch_excepted else ""
                return (f"a jump between ({p[0]:.1f}, {p[1]:.1f}) and ({q[0]:.1f}, {q[1]:.1f}) ({distance[k]:.1f} m, "
                        f"rise {rise[k]:.1f} m) would cross the chasm{where}")
    return None


def layout_of(world: World, build_layout: Callable[[np.random.Generator, float], Any]) -> Any:
    """The layout ``build_layout(rng, difficulty)`` (a chasm task's generator, default config)
    makes for ``world``'s task, difficulty and seed with ``build_world``'s retry rule: what was
    chosen for the world besides what it holds. ``ValueError`` when that layout's spawn is not the
    world's (another task's world, or one made with another config)."""
    from avalon.tasks import with_retries  # the registry imports the tasks, which import this module

    layout = with_retries(lambda rng: build_layout(rng, world.difficulty), world.task, world.difficulty, world.seed)
    if layout.world.spawn_position != world.spawn_position:
        raise ValueError(f"the {world.task} world of difficulty {world.difficulty} and seed {world.seed} has another spawn "
                         f"than the one its seed builds: was it made with another config?")
    return layout
