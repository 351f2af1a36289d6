"""The ``bridge`` task: lay a log across a chasm too wide to jump and walk over it to the food.

Paper, Appendix F.1: "the agent must pick up a log and lay it across a chasm in order to create a
bridge to walk over the chasm. At low difficulties, the log is sometimes already in the solved
position. As difficulty increases, the log starts out farther away, and the width of the chasm
section that is narrow enough to be bridged shrinks, so the agent must find the right place to
bridge the chasm." Difficulty sets every factor through :data:`KNOBS` (:class:`BridgeKnobs`;
``docs/tasks/bridge.md`` quotes it):

- the chasm (:class:`~avalon.tasks.kit.chasm.ChasmRing` round a plateau) is wider than the log
  everywhere but along one stretch, the *bridgeable stretch*, where it narrows to a trench wider
  than any jump (``chasm.stretch_width_m``: 6.3 m to 6.6 m, against the 6 m of the bypass search's longest
  level jump and the 5.25 m measured) and narrower than the log less what rests on each side; the
  stretch gets shorter with difficulty (``chasm.stretch_length_m``) and turns away from the spawn
  (``chasm.max_stretch_bearing_deg``);
- the log (:mod:`avalon.tasks.kit.log`: 9 m long, 0.9 m thick, 30 kg, liftable) lies across the
  trench already, on two piers, with chance ``log_in_place_chance`` (always at d = 0, never at 1),
  or else on level ground beyond the chasm on the spawn's side, along the ring, farther round it
  from the stretch with difficulty (``log_distance_m``);
- the spawn stands farther from the bridge, the food farther in from it.

The chasm's half on the spawn's side is climbable and the other half is not (as in ``jump``): an
agent that falls in climbs back out to where it came from, never up to the food. The ground round
the chasm is levelled (:func:`~avalon.tasks.kit.log.levelled`) so the log lies flat wherever it is put.

The chasm and its log are an obstacle piece (:func:`obstacle`): in any band wide enough, the goal
inside it or, with ``heights_inverted``, outside (the log then lies inside the ring, where it must
fit level). The task's own world is that piece round the food. Every world is certified at
generation (:func:`~avalon.tasks.kit.log.check_bridge`; docs/tasks/bridge.md): the terrain alone
gives no route to the food (the bypass search with every skill but the jump, any fall short of a
lethal one, and :func:`~avalon.tasks.kit.chasm.jump_across`: no jump at the bypass limits crosses
the chasm); with the log burned into the height map across the trench
(:func:`~avalon.tasks.kit.solved.with_blocks`, two grid cells wide) a route walks over it; and the
world's log suffices: one log, liftable, reachable on foot from the spawn, the solved log on two
piers at least ``MIN_REST_M`` long.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon import errors as check
from avalon.datagen.obstacles import RingResult, apply_ring
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, assembly, chasm, log, sites
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, triangle_slopes_deg
from avalon.tasks.kit.log import check_bridge
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.solved import Block
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class BridgeKnobs:
    """Every factor of a bridge world that the difficulty d in [0, 1] sets (docs/tasks/bridge.md quotes it).
    Bands are drawn from uniformly."""

    #: The chasm: 10.5 m to 11.5 m wide outside the bridgeable stretch (on the one-metre grid the
    #: span between its rims stays wider than the 9 m log, so it bridges nowhere else); along the
    #: stretch a trench 6.3 m to 6.6 m wide (no jump clears it; the 9 m log rests nominally 1.35 m to
    #: 1.2 m on each side, at least MIN_REST_M on the generated terrain), the stretch 12 m to 4 m long.
    chasm: chasm.StretchKnobs = chasm.StretchKnobs(width_m=Ramp(10.5, 1.0), stretch_width_m=Ramp(6.3, 0.3),
                                                   stretch_length_m=Ramp(12.0, -8.0))
    #: Chance that the log already lies across the trench (1 at d = 0, 0.5 at 0.5, 0 at 1).
    log_in_place_chance: Ramp = Ramp(1.0, -1.0)
    #: Otherwise: how far round the ring (arc length beyond the chasm) the log's middle lies from the
    #: stretch's middle, metres (6-8 m at d = 0, 10-22 m at 1).
    log_distance_m: Band = Band(Ramp(6.0, 4.0), Ramp(8.0, 14.0))
    #: Horizontal distance from the spawn out to the bridge's outer end (the log's, laid across),
    #: along the spawn's direction from the centre, metres (1.5-2.5 m at d = 0, 2.5-7.5 m at 1);
    #: where that direction misses the stretch, the spawn stands at least ``SPAWN_BEYOND_CHASM_M``
    #: beyond the chasm.
    spawn_to_bridge_m: Band = Band(Ramp(1.5, 1.0), Ramp(2.5, 5.0))
    #: Horizontal distance from the bridge's inner end in to the food, along the food's direction
    #: from the centre, metres (1-1.5 m at d = 0, 1.5-3 m at 1).
    food_to_bridge_m: Band = Band(Ramp(1.0, 0.5), Ramp(1.5, 1.5))
    #: Training episodes are truncated after this many seconds (40 s at d = 0, 120 s at 1): a few
    #: times what fetching the log, laying it and crossing take.
    training_time_limit_s: Ramp = Ramp(40.0, 80.0)


#: The bridge task's difficulty curves.
KNOBS = BridgeKnobs()
#: Food directions drawn until one leaves the food in sight past the laid log.
FOOD_DRAWS = 8
#: With the goal outside the ring (``heights_inverted``), the ring lies this much farther out from
#: the band's inner radius than the plateau's radius, metres: room for the log on the inside.
INSIDE_LOG_ROOM_M = 3.0
#: What the certificate asks of the world with its solved log burned in (a route with every skill,
#: falls short of a damaging one); the terrain alone must give none even with any fall short of a
#: lethal one: the log is the crossing's answer, no skill is (see :func:`~avalon.tasks.kit.log.check_bridge`).
REQUIREMENT = Requirement(skills=frozenset(), max_fall_m=mechanics.SAFE_FALL_M,
                          bypass_max_fall_m=mechanics.LETHAL_FALL_M)


def levelled_ground(heightmap: HeightMap, constraint: Constraint, ring_inner_m: float, width_m: float,
                    towards: float) -> tuple[HeightMap, XZ]:
    """``heightmap`` levelled for the piece to its height where the path enters the band (the
    centre, round a goal) out to ``LEVEL_BEYOND_CHASM_M`` beyond a chasm ``width_m`` wide whose
    ring's inner radius is ``ring_inner_m`` (see :func:`~avalon.tasks.kit.log.levelled`), and that point."""
    level_at = chasm.at(constraint.centre, towards, constraint.inner_radius_m)
    level_radius = ring_inner_m + chasm.NOISE_M + width_m + log.LEVEL_BEYOND_CHASM_M
    return log.levelled(heightmap, constraint.centre, level_radius, level_at, constraint.inner_radius_m), level_at


def water_reason(natural: HeightMap, level_at: XZ, depth_m: float, centre: XZ) -> Optional[str]:
    """Why a chasm ``depth_m`` deep in ground levelled to its height at ``level_at`` would reach the water."""
    if ground_height(natural, *level_at) - depth_m < natural.water_height_m + chasm.FLOOR_MIN_M:
        return f"the chasm around {centre} would reach the water"
    return None


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class BridgePiece:
    """The bridge piece as planned (``ringed`` None) and built: its chasm, the levelled ground it is
    cut into, whether the log lies across already and, if not, how far round the ring."""

    chasm: chasm.ChasmRing
    #: The ground levelled for the piece, before the chasm is cut.
    natural: HeightMap = attr.ib(repr=False)
    #: Where the levelled height was taken (the centre, round a goal).
    level_at: XZ
    in_place: bool
    #: Arc length round the ring, beyond the chasm, from the stretch's middle to the log's (signed), metres.
    log_arc_m: float
    #: The goal lies outside the ring: the log lies inside it.
    inverted: bool = False
    ringed: Optional[RingResult] = attr.ib(default=None, repr=False)

    def nominal_log(self) -> log.LogFootprint:
        """The log laid across the chasm's mean middle at the stretch, on the levelled ground."""
        ring, stretch = self.chasm, self.chasm.stretch_rad
        return log.LogFootprint(centre=chasm.at(ring.centre, stretch, ring.inner_radius_m + ring.width_m / 2.0),
                                width_m=log.LOG_SIZE_M[0], length_m=log.LOG_SIZE_M[2], yaw_rad=log.radial_yaw(stretch),
                                top_m=float(ground_height(self.natural, *self.level_at)) + log.LOG_SIZE_M[1])

    def _edge(self, angle: float) -> float:
        return chasm.edge_m(self.ringed.outlines[0], angle)

    def carry_radius_m(self) -> float:
        """The radius of the ring a log not in place lies along (its axis ``LOG_BEYOND_CHASM_M`` beyond
        the chasm on the agent's side) at the stretch."""
        ring, stretch = self.chasm, self.chasm.stretch_rad
        if self.inverted:
            return self._edge(stretch) - log.LOG_BEYOND_CHASM_M
        return self._edge(stretch) + ring.width_m + log.LOG_BEYOND_CHASM_M

    def log_site(self) -> tuple[XZ, float]:
        """Where a log not in place lies: its centre (x, z) and yaw, along the ring ``log_arc_m`` round
        from the stretch, the noisy edge where it lies taken the whole log's length either side."""
        ring, stretch = self.chasm, self.chasm.stretch_rad
        angle = stretch + self.log_arc_m / self.carry_radius_m()
        edges = [self._edge(angle + k * log.LOG_SIZE_M[2] / (2 * ring.width_m)) for k in (-1, 0, 1)]
        if self.inverted:
            radius = min(edges) - log.LOG_BEYOND_CHASM_M
        else:
            radius = max(edges) + ring.width_m + log.LOG_BEYOND_CHASM_M
        return chasm.at(ring.centre, angle, radius), log.radial_yaw(angle) + math.pi / 2.0

    def solved_blocks(self, ground: HeightMap) -> tuple[Block, ...]:
        """The log laid across the trench on the final ``ground``, widened to two grid cells (as
        :func:`~avalon.tasks.kit.log.check_bridge` burns it in; its piers lie under it)."""
        return (log.log_footprint(self.place_log(ground).solved_log).block(min_width_m=2.0 * ground.cell_size_m),)

    def place_log(self, ground: HeightMap) -> log.LogPlacement:
        """The log and its piers on the final ``ground``; ``ImpossibleWorldError`` when the log would
        bridge the chasm outside the stretch, rest too little across the trench, or lie on uneven ground."""
        ring, stretch = self.chasm, self.chasm.stretch_rad
        span = log.narrowest_outside_stretch_m(ground, ring)
        if span <= log.LOG_SIZE_M[2]:
            raise ImpossibleWorldError(f"bridge: the chasm outside its stretch spans only {span:.2f} m: the log would bridge it")
        middle = log.trench_middle_m(ground, ring, self._edge(stretch) + ring.width_m / 2.0)
        on_terrain = log.resting_log(ground, chasm.at(ring.centre, stretch, middle), log.radial_yaw(stretch))
        rests = log.end_rests_m(ground, on_terrain)
        if min(rests) < log.MIN_REST_M:
            raise ImpossibleWorldError(f"bridge: the log across the trench would rest only {min(rests):.2f} m on one side")
        piers, solved_log = log.piers_under(ground, on_terrain)
        placed = solved_log
        if not self.in_place:
            placed = log.resting_log(ground, *self.log_site())
            heights = log.footprint_ground_m(ground, log.log_footprint(placed))
            if heights.max() - heights.min() > log.REST_TOLERANCE_M:
                raise ImpossibleWorldError(f"bridge: the ground under the log at {placed.position} is not level")
        return log.LogPlacement(piers=piers, solved_log=solved_log, log=placed)


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint, *,
             log_in_place: Optional[bool] = None) -> ObstaclePlan:
    """The bridge piece in ``constraint``'s band (see :mod:`avalon.tasks.kit.obstacle`): the ground
    levelled, a chasm whose inner edge lies ``chasm.PLATEAU_RADIUS_M`` out from the band's inner
    radius, its bridgeable stretch up to ``chasm.max_stretch_bearing_deg`` round from the path, and its log
    (whether it lies across already, ``log_in_place``: drawn when None, as a composed world does;
    the task's own generator draws it before its site search). Draws from ``streams.sites``; ``ImpossibleWorldError``
    when the band is too narrow or the chasm would reach the water. Its items, placed on the final
    ground: the two piers and the log (:meth:`BridgePiece.place_log`)."""
    in_place = bool(streams.sites.uniform() < KNOBS.log_in_place_chance.at(difficulty)) if log_in_place is None \
        else bool(log_in_place)
    width, depth = KNOBS.chasm.width_m.at(difficulty), KNOBS.chasm.depth_m.at(difficulty)
    # With the goal outside, the log lies inside the ring: the ring stands farther out, so the log
    # fits on the levelled ground between the band's inner blend and the chasm.
    plateau = chasm.PLATEAU_RADIUS_M + (INSIDE_LOG_ROOM_M if constraint.heights_inverted else 0.0)
    inner = chasm.ring_inner_radius_m(constraint, plateau,
                                      chasm.NOISE_M + width + log.LEVEL_BEYOND_CHASM_M + log.LEVEL_BLEND_M, "bridge")
    towards = constraint.path_angle_rad()
    natural, level_at = levelled_ground(draft.heightmap, constraint, inner, width, towards)
    why = water_reason(natural, level_at, depth, constraint.centre)
    if why is not None:
        raise ImpossibleWorldError(f"bridge: {why}")
    bearing = float(streams.sites.uniform(-1.0, 1.0)) * KNOBS.chasm.max_stretch_bearing_deg.at(difficulty)
    log_arc = float(streams.sites.uniform(*KNOBS.log_distance_m.at(difficulty))) * \
        (1.0 if streams.sites.uniform() < 0.5 else -1.0)
    planned = BridgePiece(chasm=KNOBS.chasm.ring(difficulty, constraint.centre, math.degrees(towards) + bearing, inner),
                          natural=natural, level_at=level_at, in_place=in_place, log_arc_m=log_arc,
                          inverted=constraint.heights_inverted)

    def build(draft: Draft) -> Obstacle:
        natural, _ = levelled_ground(draft.heightmap, constraint, inner, width, towards)
        ring = planned.chasm
        ringed = apply_ring(streams.rings, natural, ring.ring())
        piece = attr.evolve(planned, natural=natural, ringed=ringed)
        stepped = chasm.stepped_walls(natural, ringed.heightmap, depth)
        climbable, unclimbable = chasm.climbable_half(ringed, natural, width, outer=not piece.inverted)
        log_in, log_out = log.ends_outward_m(ring)
        inward, outward = (log.APPROACH_BEFORE_END_M, log.LAND_BEYOND_END_M) if piece.inverted else \
            (log.LAND_BEYOND_END_M, log.APPROACH_BEFORE_END_M)
        start, end = chasm.crossing_points(ring, ringed.outlines[0], log_in - inward, log_out + outward,
                                           inverted=piece.inverted)
        # Nominal ways for plants to keep off: across the stretch, and the log's, where it lies.
        discs = sites.corridor_discs(start, end, chasm.CORRIDOR_HALF_WIDTH_M)
        if not piece.in_place:
            centre, yaw = piece.log_site()
            half = log.LOG_SIZE_M[2] / 2.0
            ends = [(centre[0] + s * half * math.sin(yaw), centre[1] + s * half * math.cos(yaw)) for s in (1.0, -1.0)]
            discs += [*sites.corridor_discs(*ends, chasm.CORRIDOR_HALF_WIDTH_M + 0.5),
                      *log.carry_corridor(ring, piece.carry_radius_m(), centre)]
        built = draft.with_piece(stepped, climbable=climbable, unclimbable=unclimbable, no_scenery=ringed.wall,
                                 keep_clear=discs, ring_outlines=ringed.outlines)
        return Obstacle(draft=built, crossing=Crossing(start=start, end=end, requirement=REQUIREMENT),
                        items=lambda ground: piece.place_log(ground).entities, solved_blocks=piece.solved_blocks, detail=piece)

    return ObstaclePlan(constraint=constraint, build=build, detail=planned)


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class BridgeLayout(assembly.TaskLayout):
    """A bridge world and what was chosen for it."""

    chasm: chasm.ChasmRing
    #: The log laid across the trench (the world's log when ``in_place``).
    solved_log: Entity
    in_place: bool
    certificate: Certificate


def layout_of(world: World) -> BridgeLayout:
    """The layout of a bridge world (where its log goes across the trench, its chasm), rebuilt
    from the world's seed with ``build_world``'s retry rule and the default config; ``ValueError``
    for another task's world or one made with another config."""
    if world.task != "bridge":
        check.refuse("world.task", world.task, "'bridge'")
    return chasm.layout_of(world, build_layout)


def certificate(world: World) -> Certificate:
    """The solvability certificate of a bridge world (see the module doc)."""
    layout = layout_of(world)
    return check_bridge(world, layout.solved_log, layout.chasm)


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None) -> BridgeLayout:
    """The bridge world for ``difficulty``: the bridge piece round the food, the spawn beyond it;
    raises ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees."""
    depth, width = KNOBS.chasm.depth_m.at(difficulty), KNOBS.chasm.width_m.at(difficulty)
    config, streams, island = chasm.begin(rng, config, depth)
    draft = Draft.of_island(island)
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    outer = chasm.PLATEAU_RADIUS_M + chasm.NOISE_M + width
    band = outer + log.LEVEL_BEYOND_CHASM_M + log.LEVEL_BLEND_M
    mask = sites.site_mask(island, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=band,
                           edge_margin_m=band)
    in_place = bool(streams.sites.uniform() < KNOBS.log_in_place_chance.at(difficulty))

    def fit_chasm_site(centre: XZ):
        # The piece's own check (round a goal the levelled height is the centre's), made before the
        # task's draws: it draws nothing.
        natural, level_at = levelled_ground(island, Constraint.round_goal(centre, 0.0, band, 0.0), chasm.PLATEAU_RADIUS_M,
                                            width, 0.0)
        why = water_reason(natural, level_at, depth, centre)
        if why is not None:
            return why
        away = float(streams.sites.uniform(-math.pi, math.pi))  # from the centre towards the spawn
        food_angles = away + np.radians(streams.sites.uniform(-chasm.FOOD_SPREAD_DEG, chasm.FOOD_SPREAD_DEG, FOOD_DRAWS))
        to_bridge = float(streams.sites.uniform(*KNOBS.spawn_to_bridge_m.at(difficulty)))
        from_bridge = float(streams.sites.uniform(*KNOBS.food_to_bridge_m.at(difficulty)))
        plan = obstacle(draft, streams, difficulty, Constraint.round_goal(centre, 0.0, band, away),
                        log_in_place=in_place)
        ring, nominal_log = plan.detail.chasm, plan.detail.nominal_log()
        # Outward from the chasm's inner edge: the laid log's ends, the spawn, the food.
        log_in, log_out = log.ends_outward_m(ring)
        spawn_radius = ring.beyond_outward_m(away, log_out + to_bridge)
        spawn = chasm.outward_point(centre, away, spawn_radius)
        for food_angle in food_angles:  # the first direction whose food the laid log leaves in sight
            food_angle = float(food_angle)
            food_radius = ring.inside_outward_m(food_angle, log_in - from_bridge)
            food = chasm.outward_point(centre, food_angle, food_radius)
            if not log.log_hides(natural, nominal_log, spawn, food):
                break
        else:
            return f"the laid log would hide every food drawn from the spawn at {spawn}"
        positions = chasm.EdgePlacement(centre=centre, spawn=(away, spawn_radius), food=(food_angle, food_radius))
        why = positions.reason(natural, triangle_slopes_deg(natural))
        if why is not None:
            return why

        def build() -> BridgeLayout:
            piece, spawn_at, food_at = positions.build(plan, draft)
            built = piece.draft
            biome_map = assembly.make_biomes(streams.biomes, built.heightmap, config, built.climbable, built.unclimbable)
            ground = biome_map.heightmap
            placed = piece.detail.place_log(ground)
            solved_block, log_now = log.log_footprint(placed.solved_log), log.log_footprint(placed.log)
            if log.log_hides(ground, solved_block, spawn_at, food_at) or log.log_hides(ground, log_now, spawn_at, food_at):
                raise ImpossibleWorldError(f"bridge: the log hides the food at {food_at} from the spawn")
            for name, point in (("spawn", spawn_at), ("food", food_at)):
                if log_now.clearance_m(point) < log.LOG_CLEARANCE_M or solved_block.clearance_m(point) < log.LOG_CLEARANCE_M:
                    raise ImpossibleWorldError(f"bridge: the {name} at {point} would be by the log")
                if ground_height(ground, *point) < ground_height(natural, *point) - chasm.CUT_BELOW_M:
                    raise ImpossibleWorldError(f"bridge: the {name} at {point} would stand in the chasm")
            tree_site = sites.tree_behind_food(streams.sites, food_at, spawn_at, fruit_tree)
            if ground_height(ground, *tree_site) < ground_height(natural, *tree_site) - chasm.CUT_BELOW_M or \
                    not sites.fruit_tree_site_ok(ground, *tree_site, fruit_tree):
                raise ImpossibleWorldError(f"bridge: no fruit tree site at {tree_site}")
            half = chasm.CORRIDOR_HALF_WIDTH_M
            corridors = [*sites.corridor_discs(spawn_at, solved_block.end(1.0), half),
                         *sites.corridor_discs(solved_block.end(1.0), solved_block.end(-1.0), half),
                         *sites.corridor_discs(solved_block.end(-1.0), food_at, half),
                         *sites.corridor_discs(spawn_at, log_now.centre, half),
                         *sites.corridor_discs(log_now.end(1.0), log_now.end(-1.0), half + 0.5),
                         *log.carry_corridor(ring, piece.detail.carry_radius_m(), log_now.centre)]
            outdoor = chasm.assemble_with_apple(streams, config, biome_map, built, task="bridge", difficulty=difficulty,
                                                spawn=spawn_at, food=food_at, tree_site=tree_site, keep_clear=corridors,
                                                food_on_foot=False)
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + placed.entities)
            outdoor = attr.evolve(outdoor, world=world)
            certified = check_bridge(world, placed.solved_log, ring)
            if not certified.ok:
                raise ImpossibleWorldError(f"bridge: {certified.reason}")
            return BridgeLayout(outdoor=outdoor, chasm=ring, solved_log=placed.solved_log, in_place=in_place,
                                certificate=certified)

        return build

    return chasm.first_fitting_site(streams, island, mask, config, fit_chasm_site,
                                    "bridge: no site for the chasm keeps the guarantees on this island")


TASK = TaskSpec(
    name="bridge", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
    food_visible_from_spawn=True, food_reachable_on_foot=False, table_row=8, in_sets_from_version=2,
    reference_agent="avalon.agent.scripted.bridge:LogBridgeFollower", carry_variant="avalon.tasks.kit.carried_log:VARIANT",
)
