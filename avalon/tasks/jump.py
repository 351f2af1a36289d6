"""The ``jump`` task: jump over a chasm to reach food on the plateau it rings.

Paper, Appendix F.1: "the agent must jump over a chasm to reach the fruit. As difficulty
increases, the chasm gets wider, and the area that can be jumped across gets narrower, such that
the agent must figure out where it can successfully land a jump. If agents fall into the chasm
while jumping, they can climb back out to the original side and retry the jump." Difficulty sets
every factor through :data:`KNOBS` (:class:`JumpKnobs`, the table below; ``docs/tasks/jump.md`` quotes
it):

- the chasm (a ``chasm`` :class:`~avalon.datagen.obstacles.ObstacleRing` round the plateau) is
  wider than any jump carries the agent everywhere but along one stretch, the *jumpable stretch*,
  where it narrows to a trench a running jump clears with margin (``chasm.stretch_width_m``: 2 m at d = 0,
  3.25 m at 1, against the 5.25 m measured); the chasm widens with difficulty, and so does the
  trench, while the stretch gets shorter (``chasm.stretch_length_m``);
- where the stretch lies: facing the spawn at d = 0, up to 150 degrees round the ring at 1, so
  the agent must find it;
- the spawn and the food stand farther from the trench with difficulty (at d = 0 about 5 m
  apart, facing each other across it).

The chasm's outer half (the spawn's side of it, its floor's outer half included) is climbable, its
inner half is not: an agent that falls in climbs back out to where it started, never up to the
food. Walls are vertical steps at least 7 m deep on the one-metre grid (faces of 82 degrees and
more), so no face can be walked or jump-slid up (``docs/mechanics.md``, "Measured capabilities").

The chasm is an obstacle piece (:func:`obstacle`, :mod:`avalon.tasks.kit.obstacle`): in any band
wide enough, the goal inside it or, with ``heights_inverted``, outside (then the inner half is the
climbable one). The task's own world is that piece round the food. Every world is certified at
generation (:func:`certificate`): a route with a jump reaches the food, no route without one does
(any survivable fall allowed), and every pair of standing points on either side of the chasm that
a jump could join (bypass limits) has a point on the jumpable stretch
(:func:`jumpable_outside_stretch`, the piece's check on the final ground).
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.obstacles import RingResult, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, assembly, chasm, sites
from avalon.tasks.kit.certificate import Certificate, certify, require_certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import ground_height, triangle_slopes_deg
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class JumpKnobs:
    """Every factor of a jump world that the difficulty d in [0, 1] sets (docs/tasks/jump.md quotes it).
    Bands are drawn from uniformly."""

    #: The chasm: 9 m to 11 m wide outside the jumpable stretch (a running jump carries the agent
    #: 5.25 m, 6.5 m landing 2 m lower); along the stretch a trench 2 m to 3.25 m wide (the jump to
    #: make; 5.25 m is measured to clear), the stretch 20 m to 3 m long.
    chasm: chasm.StretchKnobs = chasm.StretchKnobs(width_m=Ramp(9.0, 2.0), stretch_width_m=Ramp(2.0, 1.25),
                                                   stretch_length_m=Ramp(20.0, -17.0))
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
#: What every route across the chasm takes: a jump; any fall short of a lethal one may not bypass it.
REQUIREMENT = Requirement(skills={"jump"}, max_fall_m=mechanics.SAFE_FALL_M, bypass_max_fall_m=mechanics.LETHAL_FALL_M)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class JumpChasm:
    """The jump piece as built (its :class:`~avalon.tasks.kit.obstacle.Obstacle`'s detail)."""

    chasm: chasm.ChasmRing
    #: The terrain before the chasm was cut.
    natural: HeightMap = attr.ib(repr=False)
    ringed: RingResult = attr.ib(repr=False)
    #: Where the corridor across the stretch starts beyond the chasm and ends inside it.
    stretch_out: tuple[float, float]
    stretch_in: tuple[float, float]


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The jump piece in ``constraint``'s band (see :mod:`avalon.tasks.kit.obstacle`): a chasm whose
    inner edge lies ``chasm.PLATEAU_RADIUS_M`` out from the band's inner radius, its jumpable
    stretch up to ``chasm.max_stretch_bearing_deg`` round from the path (drawn from ``streams.sites``). Raises
    ``ImpossibleWorldError`` when the band is too narrow or the chasm would be a moat."""
    width, depth = KNOBS.chasm.width_m.at(difficulty), KNOBS.chasm.depth_m.at(difficulty)
    inner = chasm.ring_inner_radius_m(constraint, chasm.PLATEAU_RADIUS_M, chasm.NOISE_M + width, "jump")
    why = chasm.moat_reason(draft.heightmap, constraint.centre, inner, inner + chasm.NOISE_M + width, depth)
    if why is not None:
        raise ImpossibleWorldError(f"jump: {why}")
    bearing = float(streams.sites.uniform(-1.0, 1.0)) * KNOBS.chasm.max_stretch_bearing_deg.at(difficulty)
    ring = KNOBS.chasm.ring(difficulty, constraint.centre, math.degrees(constraint.path_angle_rad()) + bearing, inner)
    inverted = constraint.heights_inverted

    def build(draft: Draft) -> Obstacle:
        natural = draft.heightmap
        ringed = apply_ring(streams.rings, natural, ring.ring())
        stepped = chasm.stepped_walls(natural, ringed.heightmap, ring.depth_m)
        climbable, unclimbable = chasm.climbable_half(ringed, natural, ring.width_m, outer=not inverted)
        stretch_out = chasm.at(ring.centre, ring.stretch_rad, ring.outer_radius_m + 0.5)
        stretch_in = chasm.at(ring.centre, ring.stretch_rad, ring.inner_radius_m - ring.noise_m)
        lip = (ring.width_m - ring.stretch_width_m) / 2.0, (ring.width_m + ring.stretch_width_m) / 2.0
        start, end = chasm.crossing_points(ring, ringed.outlines[0], lip[0] - chasm.LIP_CLEARANCE_M,
                                           lip[1] + chasm.LIP_CLEARANCE_M, inverted=inverted)

        def items(ground: HeightMap) -> tuple:
            """No items; raises ``ImpossibleWorldError`` when a jump crosses off the stretch on ``ground``."""
            why = jumpable_outside_stretch(ground, natural, ring, inverted=inverted)
            if why is not None:
                raise ImpossibleWorldError(f"jump: {why}")
            return ()

        built = draft.with_piece(stepped, climbable=climbable, unclimbable=unclimbable, no_scenery=ringed.wall,
                                 keep_clear=sites.corridor_discs(stretch_out, stretch_in, chasm.CORRIDOR_HALF_WIDTH_M),
                                 ring_outlines=ringed.outlines)
        return Obstacle(draft=built, crossing=Crossing(start=start, end=end, requirement=REQUIREMENT), items=items,
                        detail=JumpChasm(chasm=ring, natural=natural, ringed=ringed, stretch_out=stretch_out,
                                         stretch_in=stretch_in))

    return ObstaclePlan(constraint=constraint, build=build, detail=ring)


def jumpable_outside_stretch(heightmap: HeightMap, natural: HeightMap, ring: chasm.ChasmRing, *,
                             inverted: bool = False) -> Optional[str]:
    """Why a jump could cross the chasm outside its jumpable stretch, or None if none can.

    Standing points (the bypass search's, on ground not cut into the chasm) beyond the chasm's
    middle and inside it are paired when a jump from the first (from the second, ``inverted``)
    lands on the other by the bypass search's limits: every such pair must have a point on the
    stretch (:func:`~avalon.tasks.kit.chasm.jump_across`)."""
    cut = heightmap.heights.astype(np.float64) - natural.heights.astype(np.float64) < -chasm.CUT_BELOW_M
    return chasm.jump_across(heightmap, ring, cut, ways=(chasm.OUTWARD if inverted else chasm.INWARD,),
                             stretch_excepted=True)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class JumpLayout(assembly.TaskLayout):
    """A jump world and what was chosen for it."""

    chasm: chasm.ChasmRing
    #: The terrain before the chasm was cut (not eroded): the final terrain minus this is the chasm.
    natural: HeightMap = attr.ib(repr=False)
    certificate: Certificate


def certificate(world: World) -> Certificate:
    """The solvability certificate of a jump world: its food is reached with every skill, and not
    without a jump, even with any fall short of a lethal one (``mechanics.LETHAL_FALL_M``)."""
    return certify(world, world.food[0], REQUIREMENT.skills, REQUIREMENT.allowed, max_fall_m=REQUIREMENT.max_fall_m,
                   bypass_max_fall_m=REQUIREMENT.bypass_max_fall_m)


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> JumpLayout:
    """The jump world for ``difficulty``: the jump piece round the food, the spawn beyond it; raises
    ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees."""
    depth, width = KNOBS.chasm.depth_m.at(difficulty), KNOBS.chasm.width_m.at(difficulty)
    config, streams, natural = chasm.begin(rng, config, depth)
    draft = Draft.of_island(natural)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    outer = chasm.PLATEAU_RADIUS_M + chasm.NOISE_M + width
    mask = sites.site_mask(natural, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=outer + 2.0,
                           edge_margin_m=outer + 2.0)
    slopes = triangle_slopes_deg(natural)
    grid = np.meshgrid(natural.x_coords_m, natural.z_coords_m)

    def fit_chasm_site(centre):
        """Why the chasm cannot ring a plateau at ``centre``, or the build of the world there
        (positions are checked here against the chasm's mean inner edge, then set on its noisy one)."""
        # The piece's own check, made before the task's draws (it draws nothing).
        why = chasm.moat_reason(natural, centre, chasm.PLATEAU_RADIUS_M, outer, depth, grid)
        if why is not None:
            return why
        away = float(streams.sites.uniform(-math.pi, math.pi))  # from the centre towards the spawn
        food_angle = away + math.radians(streams.sites.uniform(-chasm.FOOD_SPREAD_DEG, chasm.FOOD_SPREAD_DEG))
        to_trench = float(streams.sites.uniform(*KNOBS.spawn_to_trench_m.at(difficulty)))
        from_trench = float(streams.sites.uniform(*KNOBS.food_to_trench_m.at(difficulty)))
        plan = obstacle(draft, streams, difficulty, Constraint.round_goal(centre, 0.0, outer, away))
        ring = plan.detail
        spawn_radius = ring.beyond_outward_m(away, (ring.width_m + ring.stretch_width_m) / 2.0 + to_trench)
        food_radius = ring.inside_outward_m(food_angle, (ring.width_m - ring.stretch_width_m) / 2.0 - from_trench)
        positions = chasm.EdgePlacement(centre=centre, spawn=(away, spawn_radius), food=(food_angle, food_radius))
        why = positions.reason(natural, slopes)
        if why is not None:
            return why

        def build() -> JumpLayout:
            # On the noisy inner edge: the same distances from the trench's lips.
            piece, spawn_at, food_at = positions.build(plan, draft)
            built = piece.draft
            tree_site = sites.tree_behind_food(streams.sites, food_at, spawn_at, fruit_tree)
            for name, point in (("spawn", spawn_at), ("food", food_at), ("fruit tree", tree_site)):
                if ground_height(built.heightmap, *point) < ground_height(natural, *point) - chasm.CUT_BELOW_M:
                    raise ImpossibleWorldError(f"jump: the {name} at {point} would stand in the chasm")
            if not sites.fruit_tree_site_ok(built.heightmap, *tree_site, fruit_tree):
                raise ImpossibleWorldError(f"jump: no fruit tree site at {tree_site}")
            biome_map = assembly.make_biomes(streams.biomes, built.heightmap, config, built.climbable, built.unclimbable)
            corridors = [*sites.corridor_discs(spawn_at, piece.detail.stretch_out, chasm.CORRIDOR_HALF_WIDTH_M),
                         *built.keep_clear,
                         *sites.corridor_discs(piece.detail.stretch_in, food_at, chasm.CORRIDOR_HALF_WIDTH_M)]
            outdoor = chasm.assemble_with_apple(streams, config, biome_map, built, task="jump", difficulty=difficulty,
                                                spawn=spawn_at, food=food_at, tree_site=tree_site, keep_clear=corridors,
                                                food_on_foot=False)
            piece.items(biome_map.heightmap)
            certified = require_certificate(outdoor.world, outdoor.world.food[0], REQUIREMENT.skills, REQUIREMENT.allowed,
                                            max_fall_m=REQUIREMENT.max_fall_m,
                                            bypass_max_fall_m=REQUIREMENT.bypass_max_fall_m)
            return JumpLayout(outdoor=outdoor, chasm=plan.detail, natural=natural, certificate=certified)

        return build

    return chasm.first_fitting_site(streams, natural, mask, config, fit_chasm_site,
                                    "jump: no site for the chasm keeps the guarantees on this island")


TASK = TaskSpec(name="jump", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                food_visible_from_spawn=True, food_reachable_on_foot=False, table_row=3, in_sets_from_version=1,
                reference_agent=ROUTE_FOLLOWER)
