"""The ``jump`` task: jump over a chasm to reach food on the plateau it rings.

Paper, Appendix F.1: "the agent must jump over a chasm to reach the fruit. As difficulty
increases, the chasm gets wider, and the area that can be jumped across gets narrower, such that
the agent must figure out where it can successfully land a jump. If agents fall into the chasm
while jumping, they can climb back out to the original side and retry the jump." Difficulty sets
every factor through :data:`KNOBS` (:class:`JumpKnobs`, the table below; ``docs/tasks/jump.md`` quotes
it):

- the chasm (a ``chasm`` :class:`~avalon.datagen.obstacles.ObstacleRing` round the plateau) is
  wider than any jump carries the agent everywhere but along one stretch, the *jumpable stretch*,
  where it narrows to a trench a running jump clears with margin (``jump_width_m``: 2 m at d = 0,
  3.25 m at 1, against the 5.25 m measured); the chasm widens with difficulty, and so does the
  trench, while the stretch gets shorter (``jumpable_length_m``);
- where the stretch lies: facing the spawn at d = 0, up to 150 degrees round the ring at 1, so
  the agent must find it;
- the spawn and the food stand farther from the trench with difficulty (at d = 0 about 5 m
  apart, facing each other across it).

The chasm's outer half (the spawn's side of it, its floor's outer half included) is climbable, its
inner half is not: an agent that falls in climbs back out to where it started, never up to the
food. Walls are vertical steps at least 7 m deep on the one-metre grid (faces of 82 degrees and
more), so no face can be walked or jump-slid up (``docs/mechanics.md``, "Measured capabilities").

Every world is certified at generation (:func:`certificate`): a route with a jump reaches the food,
no route without one does (any survivable fall allowed), and every pair of standing points on
either side of the chasm that a jump could join (bypass limits) has a point on the jumpable
stretch (:func:`jumpable_outside_stretch`).
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy.spatial import cKDTree

from avalon import errors as check
from avalon.datagen.obstacles import ObstacleRing, RingKind, RingOutline, RingResult, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
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
from avalon.tasks.kit.capabilities import BYPASS_CAPABILITIES, jump_reach_m
from avalon.tasks.kit.certificate import Certificate, certify, require_certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, sample_at, triangle_index, triangle_slopes_deg, yaw_towards
from avalon.tasks.kit.reachability import make_ground
from avalon.tasks.kit.route import SKILLS
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
class JumpKnobs:
    """Every factor of a jump world that the difficulty d in [0, 1] sets (docs/tasks/jump.md quotes it).
    Bands are drawn from uniformly."""

    #: Radial width of the chasm outside the jumpable stretch, metres (9 m to 11 m; a running jump
    #: carries the agent 5.25 m, 6.5 m landing 2 m lower).
    chasm_width_m: Ramp = Ramp(9.0, 2.0)
    #: Radial width of the trench along the jumpable stretch, metres (2 m to 3.25 m: the jump to
    #: make; 5.25 m is measured to clear).
    jump_width_m: Ramp = Ramp(2.0, 1.25)
    #: Length of the jumpable stretch along the ring (at the middle of the chasm), metres (20 m
    #: to 3 m).
    jumpable_length_m: Ramp = Ramp(20.0, -17.0)
    #: Depth of the chasm, metres (7 m to 8 m: more than a jump slides up its walls; a fall in
    #: costs under a tenth of the energy).
    chasm_depth_m: Ramp = Ramp(7.0, 1.0)
    #: The middle of the jumpable stretch lies within this angle round the ring from the spawn's
    #: side, either side, degrees (0 at d = 0: straight ahead; 150 at 1).
    max_stretch_bearing_deg: Ramp = Ramp(0.0, 150.0)
    #: Horizontal distance from the spawn out to the trench's outer lip, along the spawn's
    #: direction from the centre, metres (1-2 m at d = 0, 2-8 m at 1); where that direction misses
    #: the jumpable stretch, the spawn stands at least ``SPAWN_BEYOND_CHASM_M`` beyond the chasm.
    spawn_to_trench_m: Band = Band(Ramp(1.0, 1.0), Ramp(2.0, 6.0))
    #: Horizontal distance from the food in to the trench's inner lip, along the food's direction
    #: from the centre, metres (1-1.5 m at d = 0, 1.5-3 m at 1); where that direction misses the
    #: stretch, the food lies at least ``FOOD_INSIDE_PLATEAU_M`` inside the plateau's edge.
    food_to_trench_m: Band = Band(Ramp(1.0, 0.5), Ramp(1.5, 1.5))
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 90 s at 1): a few
    #: times what walking to the stretch (up to half round the ring), jumping and a climb back out
    #: after a fall take.
    training_time_limit_s: Ramp = Ramp(30.0, 60.0)


#: The jump task's difficulty curves.
KNOBS = JumpKnobs()
#: Radius of the plateau the fruit tree stands on, inside the chasm, metres.
PLATEAU_RADIUS_M = 4.0
#: How far the chasm's inner edge wanders in and out, metres.
CHASM_NOISE_M = 0.5
#: Slope of the chasm's walls, degrees: near vertical, so each wall drops the whole depth within one
#: grid cell (a 7 m face over 1 m is 82 degrees: a jump slides 4.7 m up it, walking none).
WALL_SLOPE_DEG = 89.0
#: Height-map grid points per metre (Small's own: a finer grid would cost a third of the steps
#: per second; the walls are deep enough to stay steep on it).
POINTS_PER_M = 1.0
#: The island's mean land height is raised to the chasm depth plus this, metres (a dry chasm).
CHASM_FLOOR_HEIGHT_M = 2.5
#: The chasm floor stays at least this far above the water plane, metres...
CHASM_FLOOR_MIN_M = 0.3
#: ...over all but this share of it.
CHASM_MAX_WET_FRACTION = 0.1
#: The food's direction from the centre lies within this angle of the spawn's, either side, degrees.
FOOD_SPREAD_DEG = 30.0
#: A direction from the centre meets the jumpable stretch when it passes this far inside its sides, metres.
STRETCH_SIDE_CLEARANCE_M = 1.0
#: Where the spawn's direction misses the stretch, the spawn stands at least this far beyond the chasm, metres...
SPAWN_BEYOND_CHASM_M = 1.0
#: ...and where the food's does, the food lies at least this far inside the plateau's edge, metres.
FOOD_INSIDE_PLATEAU_M = 1.0
#: Keep-clear corridors for plants along the way: spawn to the stretch, across it, to the food (half width, metres).
CORRIDOR_HALF_WIDTH_M = 1.5
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: Ground more than this below the natural terrain is the chasm (not a place to jump from), metres.
CHASM_OFFSET_M = 0.25


def jump_required_skills() -> frozenset[str]:
    """The skills a jump world's certificate requires."""
    return frozenset({"jump"})


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ChasmRing:
    """The chasm of a jump world: lengths in metres, angles in degrees (ring angles: from +x towards +z)."""

    centre: XZ = attr.ib(converter=lambda c: (float(c[0]), float(c[1])))
    width_m: float = attr.ib(validator=check.positive())
    jump_width_m: float = attr.ib(validator=check.positive())
    jumpable_length_m: float = attr.ib(validator=check.positive())
    depth_m: float = attr.ib(validator=check.positive())
    #: Direction of the middle of the jumpable stretch from the centre.
    stretch_angle_deg: float = attr.ib(validator=check.finite())

    def obstacle(self) -> ObstacleRing:
        return ObstacleRing(
            kind=RingKind.CHASM, centre_x_m=self.centre[0], centre_z_m=self.centre[1], inner_radius_m=PLATEAU_RADIUS_M,
            width_m=self.width_m, height_m=self.depth_m, gap_angle_deg=self.stretch_angle_deg,
            gap_width_m=self.jumpable_length_m, gap_band_width_m=self.jump_width_m, wall_slope_deg=WALL_SLOPE_DEG,
            noise_amplitude_m=CHASM_NOISE_M, gap_edge_blend=False,
        )

    @property
    def outer_radius_m(self) -> float:
        """Farthest the chasm reaches from its centre."""
        return PLATEAU_RADIUS_M + CHASM_NOISE_M + self.width_m


def chasm_ring(difficulty: float, centre: XZ, stretch_angle_deg: float) -> ChasmRing:
    """The chasm of ``difficulty`` round ``centre``, its jumpable stretch towards ``stretch_angle_deg``."""
    return ChasmRing(
        centre=centre, width_m=KNOBS.chasm_width_m.at(difficulty), jump_width_m=KNOBS.jump_width_m.at(difficulty),
        jumpable_length_m=KNOBS.jumpable_length_m.at(difficulty), depth_m=KNOBS.chasm_depth_m.at(difficulty),
        stretch_angle_deg=stretch_angle_deg,
    )


def meets_stretch(chasm: ChasmRing, angle_rad: float, radius_m: float) -> bool:
    """Whether the direction ``angle_rad`` from the chasm's centre passes through its jumpable
    stretch ``STRETCH_SIDE_CLEARANCE_M`` inside its sides at ``radius_m`` from the centre."""
    off = abs(math.remainder(angle_rad - math.radians(chasm.stretch_angle_deg), 2.0 * math.pi))
    return off <= stretch_half_angle_rad(chasm) - STRETCH_SIDE_CLEARANCE_M / radius_m


def spawn_outward_m(chasm: ChasmRing, angle_rad: float, to_trench_m: float) -> float:
    """How far outward from the chasm's inner edge the spawn stands in direction ``angle_rad``:
    ``to_trench_m`` beyond the trench's outer lip, and beyond the chasm where that direction
    misses the stretch (see ``JumpKnobs.spawn_to_trench_m``), metres."""
    outward = (chasm.width_m + chasm.jump_width_m) / 2.0 + to_trench_m
    if meets_stretch(chasm, angle_rad, PLATEAU_RADIUS_M + outward):
        return outward
    return max(outward, chasm.width_m + SPAWN_BEYOND_CHASM_M)


def food_outward_m(chasm: ChasmRing, angle_rad: float, to_trench_m: float) -> float:
    """How far outward from the chasm's inner edge the food lies in direction ``angle_rad`` (negative:
    inside the plateau): ``to_trench_m`` before the trench's inner lip, and inside the plateau where
    that direction misses the stretch (see ``JumpKnobs.food_to_trench_m``), metres."""
    outward = (chasm.width_m - chasm.jump_width_m) / 2.0 - to_trench_m
    if meets_stretch(chasm, angle_rad, PLATEAU_RADIUS_M + max(outward, 0.0)):
        return outward
    return min(outward, -FOOD_INSIDE_PLATEAU_M)


def outward_distance_m(outline: RingOutline, heightmap: HeightMap) -> np.ndarray:
    """At every grid point, its distance outward from the ring's (noisy) inner edge, metres
    (negative inside), as :func:`~avalon.datagen.obstacles.apply_ring` measured it."""
    x, z = np.meshgrid(heightmap.x_coords_m - outline.centre_x_m, heightmap.z_coords_m - outline.centre_z_m)
    inner = np.interp(np.arctan2(z, x), outline.angles_rad, outline.inner_radius_m, period=2.0 * math.pi)
    return np.hypot(x, z) - inner


def climbable_outer_half(result: RingResult, heightmap: HeightMap, width_m: float) -> tuple[np.ndarray, np.ndarray]:
    """The (climbable, unclimbable) grid masks of a chasm whose outer half (its outer walls and the
    outer half of its floor) can be climbed and whose inner half cannot."""
    outer = outward_distance_m(result.outlines[0], heightmap) > width_m / 2.0
    return result.wall & outer, result.wall & ~outer


def stepped_walls(natural: HeightMap, ringed: HeightMap, depth_m: float) -> HeightMap:
    """``ringed`` with every grid point at the natural height or the chasm's full depth below it:
    a wall's few points that fall on its (near vertical) slope would be steps a body walks up."""
    offset = ringed.heights.astype(np.float64) - natural.heights.astype(np.float64)
    return ringed.with_heights(natural.heights.astype(np.float64) - np.where(offset < -depth_m / 2.0, depth_m, 0.0))


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class JumpLayout:
    """A jump world and what was chosen for it."""

    outdoor: OutdoorLayout
    chasm: ChasmRing
    #: The terrain before the chasm was cut (not eroded): the final terrain minus this is the chasm.
    natural: HeightMap = attr.ib(repr=False)
    certificate: Certificate

    @property
    def world(self) -> World:
        return self.outdoor.world


def stretch_half_angle_rad(chasm: ChasmRing) -> float:
    """Half the angle the jumpable stretch spans seen from the centre (its length is measured at
    the middle of the chasm)."""
    return chasm.jumpable_length_m / (2.0 * (PLATEAU_RADIUS_M + chasm.width_m / 2.0))


def jumpable_outside_stretch(heightmap: HeightMap, natural: HeightMap, chasm: ChasmRing) -> Optional[str]:
    """Why a jump could cross the chasm outside its jumpable stretch, or None if none can.

    Standing points (the bypass search's, on ground not cut into the chasm) beyond the chasm's
    middle and inside it are paired when a jump from the first lands on the second by the bypass
    search's limits (:func:`jump_reach_m` for their height difference, plus its slack: 6 m on the
    level, half a metre more than the simulator's body manages). Every such pair must have a point
    on the stretch: within its angle seen from the centre (with a grid cell's slack): a jump that
    takes off or lands there is a jump at the stretch."""
    ground = make_ground(heightmap, np.zeros(heightmap.shape, dtype=bool), np.zeros(heightmap.shape, dtype=bool),
                         BYPASS_CAPABILITIES)
    cut = heightmap.heights.astype(np.float64) - natural.heights.astype(np.float64) < -CHASM_OFFSET_M
    x, z = np.meshgrid(heightmap.x_coords_m - chasm.centre[0], heightmap.z_coords_m - chasm.centre[1])
    radius = np.hypot(x, z)
    middle = PLATEAU_RADIUS_M + chasm.width_m / 2.0
    slack = BYPASS_CAPABILITIES.jump_reach_slack_m
    longest = jump_reach_m(-chasm.depth_m) + slack
    near = np.abs(radius - middle) <= chasm.width_m / 2.0 + CHASM_NOISE_M + longest
    standing = ground.standing & ~cut & near
    inner = standing & (radius < middle)
    outer = standing & (radius >= middle)
    if not inner.any() or not outer.any():
        return "the chasm has no standing ground on one side"
    off = np.abs((np.arctan2(z, x) - math.radians(chasm.stretch_angle_deg) + math.pi) % (2.0 * math.pi) - math.pi)
    within = off <= stretch_half_angle_rad(chasm) + heightmap.cell_size_m / np.maximum(radius, heightmap.cell_size_m)
    heights = heightmap.heights.astype(np.float64)
    inner_xz, outer_xz = np.column_stack([x[inner], z[inner]]), np.column_stack([x[outer], z[outer]])
    inner_y, outer_y = heights[inner], heights[outer]
    inner_within, outer_within = within[inner], within[outer]
    pairs = cKDTree(outer_xz).query_ball_tree(cKDTree(inner_xz), longest)
    for i, found in enumerate(pairs):
        if not found:
            continue
        j = np.asarray(found)
        j = j[~(outer_within[i] | inner_within[j])]
        if j.size == 0:
            continue
        rise = inner_y[j] - outer_y[i]
        reach = np.array([jump_reach_m(r) for r in rise])  # NaN above the apex: out of reach
        distance = np.hypot(*(inner_xz[j] - outer_xz[i]).T)
        close = distance < np.nan_to_num(reach, nan=-np.inf) + slack
        if close.any():
            k = int(np.argmax(close))
            p, q = outer_xz[i] + chasm.centre, inner_xz[j[k]] + chasm.centre
            return (f"a jump from ({p[0]:.1f}, {p[1]:.1f}) to ({q[0]:.1f}, {q[1]:.1f}) ({distance[k]:.1f} m, "
                    f"rise {rise[k]:.1f} m) would cross the chasm outside its jumpable stretch")
    return None


def certificate(world: World) -> Certificate:
    """The solvability certificate of a jump world: its food is reached with every skill, and not
    without a jump, even with any fall short of a lethal one (``mechanics.LETHAL_FALL_M``)."""
    return certify(world, world.food[0], jump_required_skills(), frozenset(SKILLS),
                   max_fall_m=mechanics.SAFE_FALL_M, bypass_max_fall_m=mechanics.LETHAL_FALL_M)


def _terrain_sight(heightmap: HeightMap, spawn: XZ, food: XZ) -> bool:
    """Whether the terrain leaves an apple at ``food`` in sight of the eyes at ``spawn`` (a chasm
    only lowers the ground between, so a clear view before it stays clear)."""
    eye = eye_position((spawn[0], ground_height(heightmap, *spawn), spawn[1]))
    target = (food[0], ground_height(heightmap, *food) + FOOD_RADIUS_M["apple"], food[1])
    return terrain_clear(heightmap, eye, target, margin_m=0.05)


def _at(centre: XZ, angle_rad: float, radius_m: float) -> XZ:
    return centre[0] + radius_m * math.cos(angle_rad), centre[1] + radius_m * math.sin(angle_rad)


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> JumpLayout:
    """The jump world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees."""
    config = resolve_config(config)
    streams = split_streams(rng)
    size = config.world_size or "small"
    depth = KNOBS.chasm_depth_m.at(difficulty)
    width = KNOBS.chasm_width_m.at(difficulty)
    # A higher island keeps the chasm floor above the water plane (a dry chasm, not a moat); no
    # carved pools: on high ground their banks become craters that leave no room for the ring.
    land_height = max(world_config(size, 1.0).land_height_m, depth + CHASM_FLOOR_HEIGHT_M)
    natural = build_island(streams.terrain, size, config.points_per_m or POINTS_PER_M, land_height_m=land_height,
                           pool_count=0)
    fruit_tree = scaled_scenery(config).fruit_tree
    outer = PLATEAU_RADIUS_M + CHASM_NOISE_M + width
    mask = site_mask(natural, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=outer + 2.0,
                     edge_margin_m=outer + 2.0)
    slopes = triangle_slopes_deg(natural)
    x, z = np.meshgrid(natural.x_coords_m, natural.z_coords_m)

    def fit_chasm_site(centre: XZ):
        """Why the chasm cannot ring a plateau at ``centre``, or the build of the world there
        (positions are checked here against the chasm's mean inner edge, then set on its noisy one)."""
        radius = np.hypot(x - centre[0], z - centre[1])
        band = (radius >= PLATEAU_RADIUS_M) & (radius <= outer)
        wet = natural.heights[band] < natural.water_height_m + depth + CHASM_FLOOR_MIN_M
        if wet.mean() > CHASM_MAX_WET_FRACTION:
            return f"the chasm around {centre} would be a moat"
        away = float(streams.sites.uniform(-math.pi, math.pi))  # from the centre towards the spawn
        food_angle = away + math.radians(streams.sites.uniform(-FOOD_SPREAD_DEG, FOOD_SPREAD_DEG))
        to_trench = float(streams.sites.uniform(*KNOBS.spawn_to_trench_m.at(difficulty)))
        from_trench = float(streams.sites.uniform(*KNOBS.food_to_trench_m.at(difficulty)))
        bearing = float(streams.sites.uniform(-1.0, 1.0)) * KNOBS.max_stretch_bearing_deg.at(difficulty)
        chasm = chasm_ring(difficulty, centre, math.degrees(away) + bearing)
        spawn_radius = spawn_outward_m(chasm, away, to_trench)
        food_radius = food_outward_m(chasm, food_angle, from_trench)
        spawn = _at(centre, away, PLATEAU_RADIUS_M + spawn_radius)
        food = _at(centre, food_angle, PLATEAU_RADIUS_M + food_radius)
        if not bool(natural.contains(*spawn)) or not is_dry_land(natural, *spawn, min_water_distance_m=1.5):
            return f"the spawn at {spawn} would not be on dry land"
        if sample_at(natural, natural.slope_deg(), *spawn) > 25.0 or slopes[triangle_index(natural, *food)] > 20.0:
            return f"the spawn at {spawn} or the food at {food} would be on ground too steep"
        if not _terrain_sight(natural, spawn, food):
            return f"the terrain hides the food at {food} from the spawn"

        def build() -> JumpLayout:
            ringed = apply_ring(streams.rings, natural, chasm.obstacle())
            outline = ringed.outlines[0]
            # On the noisy inner edge: the same distances from the trench's lips.
            edge = lambda angle: float(np.interp(angle, outline.angles_rad, outline.inner_radius_m, period=2 * math.pi))  # noqa: E731
            spawn_at = _at(centre, away, edge(away) + spawn_radius)
            food_at = _at(centre, food_angle, edge(food_angle) + food_radius)
            stepped = stepped_walls(natural, ringed.heightmap, depth)
            tree_site = tree_behind_food(streams.sites, food_at, spawn_at, fruit_tree)
            for name, point in (("spawn", spawn_at), ("food", food_at), ("fruit tree", tree_site)):
                if ground_height(stepped, *point) < ground_height(natural, *point) - CHASM_OFFSET_M:
                    raise ImpossibleWorldError(f"jump: the {name} at {point} would stand in the chasm")
            if not fruit_tree_site_ok(stepped, *tree_site, fruit_tree):
                raise ImpossibleWorldError(f"jump: no fruit tree site at {tree_site}")
            climbable, unclimbable = climbable_outer_half(ringed, natural, width)
            biome_map = make_biomes(streams.biomes, stepped, config, climbable, unclimbable)
            ground = biome_map.heightmap
            stretch = math.radians(chasm.stretch_angle_deg)
            stretch_out = _at(centre, stretch, outer + 0.5)
            stretch_in = _at(centre, stretch, PLATEAU_RADIUS_M - CHASM_NOISE_M)
            corridors = [*corridor_discs(spawn_at, stretch_out, CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(stretch_out, stretch_in, CORRIDOR_HALF_WIDTH_M),
                         *corridor_discs(stretch_in, food_at, CORRIDOR_HALF_WIDTH_M)]
            foods = [FoodPlacement(kind="apple", x=food_at[0], z=food_at[1],
                                   yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task="jump", difficulty=difficulty, spawn=spawn_at,
                spawn_yaw_rad=yaw_towards(spawn_at, food_at), foods=foods, tree_site=tree_site, keep_clear=corridors,
                exclude_mask=ringed.wall, ring_outlines=ringed.outlines, food_on_foot=False,
            )
            why = jumpable_outside_stretch(ground, natural, chasm)
            if why is not None:
                raise ImpossibleWorldError(f"jump: {why}")
            certified = require_certificate(outdoor.world, outdoor.world.food[0], jump_required_skills(), frozenset(SKILLS),
                                            max_fall_m=mechanics.SAFE_FALL_M, bypass_max_fall_m=mechanics.LETHAL_FALL_M)
            return JumpLayout(outdoor=outdoor, chasm=chasm, natural=natural, certificate=certified)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, natural, mask, config.site_attempts), fit_chasm_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="jump: no site for the chasm keeps the guarantees on this island",
    )


TASK = TaskSpec(
    name="jump",
    generate=build_layout,
    knobs=KNOBS,
    food_visible_from_spawn=True,
    food_reachable_on_foot=False,
    certificate=certificate,
    table_row=3,
    in_sets_from_version=1,
    reference_agent="avalon.agent.scripted.follower:RouteFollower",
)
