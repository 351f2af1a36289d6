"""The ``push`` task: push a heavy boulder to the foot of a sheer ledge and use it as a step up.

Paper, Appendix F.1: "the agent must push a heavy boulder into a position where it can be used as
a stepping stone for jumping onto the cliff ledge where the fruit is. As difficulty increases, the
boulder gets heavier and more difficult to control, and must be pushed farther." Difficulty sets
every factor through :data:`KNOBS` (:class:`PushKnobs`, the table below; ``docs/tasks/push.md`` quotes
it):

- the boulder's mass: 200 kg at d = 0 (the tool's own), 400 kg at d = 1, always more than a hand
  lifts (``mechanics.MAX_LIFT_MASS_KG``) and no more than the heaviest pushed on this geometry
  in the simulator (:data:`MAX_PUSHED_MASS_KG`; a heavier boulder keeps its momentum longer and
  turns off its line less readily when the body meets it off centre);
- how far it must be pushed: at d = 0 it already stands at the ledge's foot (jump onto it, then
  onto the ledge), up to 4-8 m out at d = 1, straight out from the ledge's face;
- where the agent starts: just behind the boulder facing the ledge at d = 0; farther from it and
  round to its side (up to the ledge's side of it at d = 1), so the agent must walk round it to
  push it the right way.

The ledge is a static box (vertical faces) :data:`LEDGE_HEIGHT_M` tall, higher than any jump
lands (``mechanics.JUMP_LEDGE_MISSED_M`` 1.95 m) and within a jump of the boulder's top (1.08 m at
the boulder's scale :data:`BOULDER_SCALE`: 1.17 m up, the route search allows 1.2 m). It stands
on a level pad flattened into the island, with the boulder's way to its foot; no plant stands on
the pad. The apple lies on the middle of the ledge's top, out of reach from the ground.

Every world is certified at generation (:func:`certificate`), on the height map with the boxes
and the boulder burned in (:mod:`avalon.tasks.kit.solved`; a box's sides count as vertical):

- *no bypass*: with the ledge burned in and the boulder where it lies, the bypass search (every
  skill, every limit a margin beyond the measured one) does not reach the food;
- *the boulder suffices*: with the boulder burned in at the ledge's foot, the route search reaches
  the food (walk, jump onto the boulder, jump onto the ledge, walk); the boulder is heavier than a
  hand lifts and no heavier than :data:`MAX_PUSHED_MASS_KG`; the ground under its way to the foot
  is level (no triangle steeper than :data:`PUSH_MAX_SLOPE_DEG`) and clear of tree trunks; the
  spot behind it is reached on foot from the spawn.

The certificate's route starts with a ``push`` step (the boulder to its place) where the boulder
must move, then follows the route found with it in place.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy.ndimage import distance_transform_edt

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.foods import FOOD_RADIUS_M
from avalon.rules.tools import TOOL_MASS_KG, TOOL_SIZE_M
from avalon.tasks.kit import ImpossibleWorldError, assembly, sites
from avalon.tasks.kit.certificate import Certificate, certify, reaches
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, ground_height, is_dry_land, triangle_slopes_deg, yaw_towards
from avalon.tasks.kit.obstacle import Constraint, Crossing, Draft, Obstacle, ObstaclePlan, Requirement
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.skills import JUMP
from avalon.tasks.kit.solved import Block, block_faces, refined, with_blocks
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PushKnobs:
    """Every factor of a push world that the difficulty d in [0, 1] sets (docs/tasks/push.md quotes it).
    Bands are drawn from uniformly."""

    #: Mass of the boulder, kg (200 kg at d = 0, the boulder tool's own; 400 kg at 1).
    boulder_mass_kg: Ramp = Ramp(200.0, 200.0)
    #: How far the boulder starts from its place at the ledge's foot, straight out from the face,
    #: metres (0 at d = 0: already in place; 2-4 m at 0.5; 4-8 m at 1).
    push_distance_m: Band = Band(Ramp(0.0, 4.0), Ramp(0.0, 8.0))
    #: The spawn's direction from the boulder lies within this angle of straight behind it (away
    #: from the ledge), either side, degrees (0 at d = 0; 180 at 1: anywhere round it).
    spawn_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Gap between the spawn (the body's axis) and the boulder's side, metres (1-1.5 m at d = 0,
    #: 2-6 m at 1).
    spawn_gap_m: Band = Band(Ramp(1.0, 1.0), Ramp(1.5, 4.5))
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): a few
    #: times what pushing the boulder up to 8 m at a walk and two jumps take.
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The push task's difficulty curves.
KNOBS = PushKnobs()
#: The island: Small, no carved pool, at its own grid of a point per metre (twice as many drew
#: about a third fewer steps per second)...
ISLAND = assembly.IslandShape(pool_count=0)
#: ...and the certificate searches a grid this fine (``solved.refined``: the same surface), so the
#: boulder's 1.44 x 1.32 m top covers grid points a route can stand on (on a 1 m grid it is one
#: point with steep triangles all round), metres.
CERTIFICATE_CELL_M = 0.5
#: The ledge: a static box this tall above the pad (more than a jump lands on: 1.95 m is missed;
#: 1.17 m above the boulder's top), metres...
LEDGE_HEIGHT_M = 2.25
#: ...this wide along its near face and this deep away from it, metres...
LEDGE_WIDTH_M = 4.0
LEDGE_DEPTH_M = 5.0
#: ...and sunk this far into the pad (no gap under it where the pad is not quite level), metres.
LEDGE_FOOTING_M = 0.5
LEDGE_COLOR = (0.72, 0.6, 0.46)
LEDGE_NAME = "ledge"
BOULDER_NAME = "boulder"
#: The boulder's scale (``safe_scale``): 1.44 x 1.08 x 1.32 m, its top 1.08 m above the ground (a
#: jump lands 1.2 m up on the route search's limits).
BOULDER_SCALE = 1.2
#: The heaviest boulder the certificate accepts, kg: pushed on push's geometry in the simulator
#: (tests/agent/scripted/test_push_solved.py; the body's shove moves an item whatever its mass:
#: docs/mechanics.md, "Push").
MAX_PUSHED_MASS_KG = 400.0
#: The boulder's place: this far out from the ledge's face, metres.
PLACE_GAP_M = 0.05
#: The boulder's place lies at most this far to either side of the face's middle, metres.
PLACE_LATERAL_M = 0.6
#: Ground under the boulder's way to the ledge is no steeper than this, degrees.
PUSH_MAX_SLOPE_DEG = 3.0
#: Tree trunks keep this far from the boulder's way (its footprint swept to the ledge), metres.
TRUNK_CLEARANCE_M = 1.0
#: The pad: level ground this far round the ledge and the boulder's way (half width), metres...
PAD_HALF_WIDTH_M = 3.5
#: ...and this far round the ledge's centre (its sides and back: no ground near it as high as its top), metres...
PAD_ROUND_LEDGE_M = 7.0
#: ...blended into the island over this much, metres.
PAD_BLEND_M = 3.0
#: No terrain within this of the pad can be climbed, metres (beyond a jump's reach of the ledge).
UNCLIMBABLE_BEYOND_PAD_M = 4.0
#: The pad stays at least this far above the water plane, metres.
PAD_ABOVE_WATER_M = 0.6
#: The spawn (the body's axis) keeps at least this far from the ledge's sides, metres.
SPAWN_CLEARANCE_M = 1.0
#: The pushing body stands this far behind the boulder's back (the body's axis), metres.
PUSH_STANCE_M = 0.6
#: Below this the boulder is in place: no push step, metres.
PUSH_MIN_M = 0.05
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: What the certificate requires: jumping (onto the boulder, onto the ledge).
REQUIRED_SKILLS = frozenset({JUMP})


def boulder_size_m() -> tuple[float, float, float]:
    """The boulder's bounding box at :data:`BOULDER_SCALE` (x, y, z), metres."""
    width, height, depth = TOOL_SIZE_M["boulder"]
    return width * BOULDER_SCALE, height * BOULDER_SCALE, depth * BOULDER_SCALE


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PushPlan:
    """Where the ledge and the boulder go. Metres, radians; ``normal`` is the unit (x, z) out of the
    ledge's near face, ``tangent`` along it."""

    ledge_centre: XZ
    normal: XZ
    place: XZ
    start: XZ
    spawn: XZ

    @property
    def tangent(self) -> XZ:
        return (-self.normal[1], self.normal[0])

    @property
    def yaw_rad(self) -> float:
        """Yaw of the ledge and the boulder: their local +z axis along ``normal``."""
        return math.atan2(self.normal[0], self.normal[1])

    @property
    def push_distance_m(self) -> float:
        return math.dist(self.place, self.start)


def _along(origin: XZ, direction: XZ, distance_m: float) -> XZ:
    return origin[0] + direction[0] * distance_m, origin[1] + direction[1] * distance_m


def plan(streams_sites: np.random.Generator, difficulty: float, centre: XZ, approach_rad: float) -> PushPlan:
    """The ledge round ``centre`` with its near face towards ``approach_rad`` (from +x towards +z),
    the boulder's place and start, and the spawn, drawn for ``difficulty``."""
    normal = (math.cos(approach_rad), math.sin(approach_rad))
    tangent = (-normal[1], normal[0])
    width, _, depth = boulder_size_m()
    face = _along(centre, normal, LEDGE_DEPTH_M / 2.0)
    place = _along(_along(face, normal, depth / 2.0 + PLACE_GAP_M), tangent,
                   float(streams_sites.uniform(-PLACE_LATERAL_M, PLACE_LATERAL_M)))
    start = _along(place, normal, float(streams_sites.uniform(*KNOBS.push_distance_m.at(difficulty))))
    bearing = math.radians(float(streams_sites.uniform(-1.0, 1.0)) * KNOBS.spawn_bearing_deg.at(difficulty))
    away = (normal[0] * math.cos(bearing) - normal[1] * math.sin(bearing),
            normal[0] * math.sin(bearing) + normal[1] * math.cos(bearing))
    # From the boulder's middle to its side along ``away`` (its footprint is a rectangle).
    along_n, along_t = abs(away[0] * normal[0] + away[1] * normal[1]), abs(away[0] * tangent[0] + away[1] * tangent[1])
    to_side = min(depth / 2.0 / max(along_n, 1e-9), width / 2.0 / max(along_t, 1e-9))
    gap = float(streams_sites.uniform(*KNOBS.spawn_gap_m.at(difficulty)))
    spawn = _along(start, away, to_side + gap)
    return PushPlan(ledge_centre=centre, normal=normal, place=place, start=start, spawn=spawn)


def ledge_block(chosen: PushPlan, pad_y_m: float) -> Block:
    """The ledge of ``chosen`` standing on a pad at ``pad_y_m`` (metres)."""
    return Block(centre=chosen.ledge_centre, width_m=LEDGE_WIDTH_M, depth_m=LEDGE_DEPTH_M, yaw_rad=chosen.yaw_rad,
                 top_m=pad_y_m + LEDGE_HEIGHT_M)


def ledge_entity(block: Block) -> Entity:
    """The static ``box`` of the ledge ``block``, sunk ``LEDGE_FOOTING_M`` into the pad."""
    bottom = block.top_m - LEDGE_HEIGHT_M - LEDGE_FOOTING_M
    return Entity(kind="box", name=LEDGE_NAME, position=(block.centre[0], (block.top_m + bottom) / 2.0, block.centre[1]),
                  yaw_rad=block.yaw_rad, params={"size": (block.width_m, block.top_m - bottom, block.depth_m),
                                                 "color": LEDGE_COLOR})


def flatten_pad(heightmap: HeightMap, pad: np.ndarray, height_m: float) -> HeightMap:
    """``heightmap`` at ``height_m`` on the ``pad`` grid points, blended back into the island over
    ``PAD_BLEND_M`` round it (a smooth step)."""
    distance = distance_transform_edt(~pad) * heightmap.cell_size_m
    t = np.clip(distance / PAD_BLEND_M, 0.0, 1.0)
    weight = t * t * (3.0 - 2.0 * t)
    heights = heightmap.heights.astype(np.float64)
    return heightmap.with_heights((height_m + (heights - height_m) * weight).astype(heightmap.heights.dtype))


def _disc_mask(heightmap: HeightMap, discs) -> np.ndarray:
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    mask = np.zeros(heightmap.shape, dtype=bool)
    for cx, cz, radius in discs:
        mask |= np.hypot(x - cx, z - cz) <= radius
    return mask


# --- the obstacle piece ---------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class PushPiece:
    """What the push piece chose: where the ledge, the boulder and the crossing's start go, and the
    pad of level ground under the ledge and the boulder's way (discs, metres, and their grid points)."""

    plan: PushPlan
    discs: tuple[tuple[float, float, float], ...]
    pad: np.ndarray = attr.ib(repr=False)
    #: The boulder's mass, kg.
    mass_kg: float

    def ledge(self, ground: HeightMap) -> Block:
        """The ledge standing on the pad of ``ground`` (the eroded terrain); ``ImpossibleWorldError``
        if the biomes' erosion left the pad uneven."""
        pad_now = ground.heights[self.pad].astype(np.float64)
        if pad_now.max() - pad_now.min() > 0.05:
            centre = self.plan.ledge_centre
            raise ImpossibleWorldError(f"push: the pad round {centre} was eroded ({pad_now.min():.2f} to {pad_now.max():.2f} m)")
        return ledge_block(self.plan, float(np.median(pad_now)))

    def items(self, ground: HeightMap) -> tuple[Entity, Entity]:
        """The ledge's box and the boulder where it starts, on ``ground``."""
        ledge, start = self.ledge(ground), self.plan.start
        boulder = tool_entity("boulder", BOULDER_NAME, (start[0], float(ground_height(ground, *start)), start[1]),
                              yaw_rad=ledge.yaw_rad, safe_scale=BOULDER_SCALE, mass=self.mass_kg)
        return ledge_entity(ledge), boulder


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint) -> ObstaclePlan:
    """The push piece: the ledge stands at the constraint's centre, under the goal (not a ring: it
    cannot stand round the start, nor leave the band's inner disc free), its near face towards the
    grid axis nearest the path; the boulder's place, its start out along the face's normal and the
    crossing's start round it are drawn from ``streams.sites`` (:func:`plan`). The pad of level
    ground and the boulder come when built; the ledge's box and the boulder are the piece's
    items. ``ImpossibleWorldError`` when the constraint is not one it can stand in, the pad would
    lie near the water, or the crossing's start is not on dry land clear of the ledge."""
    if constraint.heights_inverted:
        raise ImpossibleWorldError("push: the ledge is a free-standing box under the goal, not a ring: it cannot "
                                   "stand round the start (heights inverted)")
    if constraint.inner_radius_m > 0.0:
        raise ImpossibleWorldError(f"push: the ledge stands at the band's centre, under the goal, not in a ring: "
                                   f"expected an inner radius of 0 m, got {constraint.inner_radius_m} m")
    natural, centre = draft.heightmap, constraint.centre
    quarter = round(math.degrees(constraint.path_angle_rad()) / 90.0) % 4
    approach = math.radians(90.0 * float(quarter))  # faces along the grid's axes
    chosen = plan(streams.sites, difficulty, centre, approach)
    _, _, depth = boulder_size_m()
    back = _along(chosen.start, chosen.normal, depth / 2.0 + PUSH_STANCE_M + 1.0)
    far = _along(centre, chosen.normal, -LEDGE_DEPTH_M / 2.0)
    discs = (*sites.corridor_discs(far, back, PAD_HALF_WIDTH_M), (centre[0], centre[1], PAD_ROUND_LEDGE_M))
    reach = max(max(math.dist(centre, (x, z)) + r for x, z, r in discs) + PAD_BLEND_M, math.dist(centre, chosen.spawn))
    if reach > constraint.outer_radius_m:
        raise ImpossibleWorldError(f"push: the pad and the boulder's way reach {reach:.2f} m from the ledge: beyond "
                                   f"the band's outer radius {constraint.outer_radius_m:.2f} m")
    pad = _disc_mask(natural, discs)
    pad_y = float(np.median(natural.heights[pad]))
    if pad_y < natural.water_height_m + PAD_ABOVE_WATER_M:
        raise ImpossibleWorldError(f"the pad round {centre} would lie at {pad_y:.2f} m, too near the water")
    if not is_dry_land(natural, *chosen.spawn, min_water_distance_m=1.5):
        raise ImpossibleWorldError(f"the spawn at {chosen.spawn} would not be on dry land")
    right, back_ = ledge_block(chosen, 0.0).local(*chosen.spawn)
    if max(abs(float(right)) - LEDGE_WIDTH_M / 2.0, abs(float(back_)) - LEDGE_DEPTH_M / 2.0) < SPAWN_CLEARANCE_M:
        raise ImpossibleWorldError(f"the spawn at {chosen.spawn} would stand by the ledge")
    chose = PushPiece(plan=chosen, discs=discs, pad=pad, mass_kg=KNOBS.boulder_mass_kg.at(difficulty))
    pushed = {"push"} if chosen.push_distance_m >= PUSH_MIN_M else set()

    def build(draft: Draft) -> Obstacle:
        flat = flatten_pad(draft.heightmap, pad, pad_y)
        # Nothing near the ledge or the boulder's way can be climbed (bare mountain would be).
        unclimbable = _disc_mask(natural, [(x, z, r + UNCLIMBABLE_BEYOND_PAD_M) for x, z, r in discs])
        drafted = draft.with_piece(flat, unclimbable=unclimbable, no_scenery=pad, keep_clear=[(x, z, r + 1.0) for x, z, r in discs])
        crossing = Crossing(start=chosen.spawn, end=centre, requirement=Requirement(skills=REQUIRED_SKILLS | pushed))
        return Obstacle(draft=drafted, crossing=crossing, items=chose.items, detail=chose)

    return ObstaclePlan(constraint=constraint, build=build, detail=chose)


# --- the world ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class PushLayout(assembly.TaskLayout):
    """A push world (its ``outdoor`` before the apple, the ledge and the boulder were added), what
    was planned for it and the certificate it was accepted with."""

    plan: PushPlan
    certificate: Certificate


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> PushLayout:
    """The push world for ``difficulty``: the piece round the food's site, the spawn at its
    crossing's start, the apple on the ledge; raises ``ImpossibleWorldError`` if the terrain offers
    no place that keeps the guarantees (the certificate included)."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    natural = ISLAND.build(streams.terrain, config)
    draft = Draft.of_island(natural)
    reach = LEDGE_DEPTH_M / 2.0 + max(KNOBS.push_distance_m.at(difficulty)) + 6.0
    mask = sites.site_mask(natural, min_water_distance_m=reach, max_slope_deg=15.0, min_ocean_distance_m=reach + 2.0,
                           edge_margin_m=reach + 2.0)

    def fit_site(centre: XZ):
        # The path comes in along one of the grid's axes (the ledge's near face is across it).
        approach = math.radians(90.0 * float(streams.sites.integers(0, 4)))
        constraint = Constraint.round_goal(centre, 0.0, natural.size_m, approach)
        try:
            planned = obstacle(draft, streams, difficulty, constraint)
        except ImpossibleWorldError as error:
            return str(error)

        def build() -> PushLayout:
            piece = planned.build(draft)
            chose = piece.detail
            biome_map = assembly.make_biomes(streams.biomes, piece.draft.heightmap, config, piece.draft.climbable,
                                             piece.draft.unclimbable)
            ground = biome_map.heightmap
            ledge_box, boulder = piece.items(ground)
            food_y = chose.ledge(ground).top_m + FOOD_RADIUS_M["apple"]
            spawn = piece.crossing.start
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="push", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, centre), foods=(), tree_site=None, keep_clear=piece.draft.keep_clear,
                exclude_mask=piece.draft.no_scenery, food_in_sight=False, food_on_foot=False,
            )
            food = Entity(kind="apple", name="food_0", position=(centre[0], food_y, centre[1]),
                          yaw_rad=float(streams.food.uniform(-math.pi, math.pi)), params={"radius": FOOD_RADIUS_M["apple"]})
            world = attr.evolve(outdoor.world, entities=(food, ledge_box, boulder))
            return PushLayout(outdoor=outdoor, plan=chose.plan, world=world, certificate=require(world))

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, natural, mask, config.site_attempts), fit_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="push: no site for the ledge keeps the guarantees on this island",
    )


# --- the certificate ------------------------------------------------------------------------------


def _boulder_mass_kg(boulder: Entity) -> float:
    return float(boulder.param("mass", TOOL_MASS_KG[boulder.kind]))


def push_place(world: World) -> XZ:
    """Where the boulder of a push world goes: out from the ledge's face nearest to it, level with
    where it lies across the face (within the face), ``PLACE_GAP_M`` clear of the face. Metres."""
    ledge, boulder = Block.of_entity(world.entity(LEDGE_NAME)), world.entity(BOULDER_NAME)
    right, back = ledge.local(boulder.position[0], boulder.position[2])
    right, back = float(right), float(back)
    depth = Block.of_entity(boulder).depth_m
    c, s = math.cos(ledge.yaw_rad), math.sin(ledge.yaw_rad)

    def to_world(r: float, b: float) -> XZ:
        return ledge.centre[0] + c * r + s * b, ledge.centre[1] - s * r + c * b

    if abs(back) / ledge.depth_m >= abs(right) / ledge.width_m:  # out from a face across local x
        side = math.copysign(1.0, back)
        limit = ledge.width_m / 2.0 - Block.of_entity(boulder).width_m / 2.0
        return to_world(float(np.clip(right, -limit, limit)), side * (ledge.depth_m / 2.0 + depth / 2.0 + PLACE_GAP_M))
    side = math.copysign(1.0, right)
    limit = ledge.depth_m / 2.0 - depth / 2.0
    return to_world(side * (ledge.width_m / 2.0 + Block.of_entity(boulder).width_m / 2.0 + PLACE_GAP_M),
                    float(np.clip(back, -limit, limit)))


def _way_problem(world: World, start: XZ, place: XZ, boulder: Block) -> str:
    """Why the boulder cannot be pushed from ``start`` to ``place`` over ``world``'s ground ("" if it can)."""
    heightmap = world.ground.heightmap
    length = math.dist(start, place)
    swept = Block(centre=((start[0] + place[0]) / 2.0, (start[1] + place[1]) / 2.0), width_m=boulder.width_m,
                  depth_m=boulder.depth_m + length, yaw_rad=boulder.yaw_rad, top_m=boulder.top_m)
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    grown = attr.evolve(swept, width_m=swept.width_m + 2 * heightmap.cell_size_m, depth_m=swept.depth_m + 2 * heightmap.cell_size_m)
    under = grown.covers(x, z)
    cells = under[:-1, :-1] | under[:-1, 1:] | under[1:, :-1] | under[1:, 1:]
    steepest = float(triangle_slopes_deg(heightmap)[cells].max(initial=0.0))
    if steepest > PUSH_MAX_SLOPE_DEG:
        return f"the ground under the boulder's way rises {steepest:.1f} degrees: expected at most {PUSH_MAX_SLOPE_DEG}"
    for plant in world.scenery:
        if plant.kind.is_tree:
            right, back = swept.local(plant.position[0], plant.position[2])
            gap = math.hypot(max(abs(float(right)) - swept.width_m / 2.0, 0.0), max(abs(float(back)) - swept.depth_m / 2.0, 0.0))
            if gap < TRUNK_CLEARANCE_M:
                return f"a {plant.kind.value} stands {gap:.2f} m from the boulder's way"
    return ""


def certificate(world: World) -> Certificate:
    """The solvability certificate of a push world (see the module doc): no bypass with the ledge
    as it stands and the boulder where it lies; a route with the boulder at the ledge's foot, a
    boulder within the push limits and a level, clear way for it."""
    if not world.food:
        raise ValueError(f"push certificate: the {world.task} world holds no food")
    try:
        ledge_box, boulder = world.entity(LEDGE_NAME), world.entity(BOULDER_NAME)
    except KeyError as error:
        raise ValueError(f"push certificate: {error.args[0]}: expected a push world's ledge and boulder") from None
    food = world.food[0]
    ledge, lying = Block.of_entity(ledge_box), Block.of_entity(boulder)
    # The searches run on a grid fine enough for the boulder's top (the same surface: ``refined``).
    fine = refined(world, max(1, math.ceil(world.ground.heightmap.cell_size_m / CERTIFICATE_CELL_M - 1e-9)))
    bare = attr.evolve(fine, entities=tuple(e for e in world.entities if e.name not in (LEDGE_NAME, BOULDER_NAME)))

    as_made = with_blocks(bare, [ledge])
    bypassed = reaches(as_made, food, frozenset(SKILLS), bypass=True,
                       sheer_triangles=block_faces(as_made.ground.heightmap, [ledge]))

    start, place = (boulder.position[0], boulder.position[2]), push_place(world)
    ground_y = float(ground_height(world.ground.heightmap, *place))
    height = 2.0 * (lying.top_m - boulder.position[1])
    placed = attr.evolve(lying, centre=place, top_m=ground_y + height)
    solved = with_blocks(bare, [ledge, placed])
    # The route search only: the bypass half is the search above (every skill, the boulder loose).
    found = certify(solved, food, frozenset(), frozenset(SKILLS),
                    sheer_triangles=block_faces(solved.ground.heightmap, [ledge, placed]))
    problems = [] if found.solvable else [f"with the boulder at the ledge's foot, {found.reason}"]
    mass = _boulder_mass_kg(boulder)
    if not mechanics.MAX_LIFT_MASS_KG < mass <= MAX_PUSHED_MASS_KG:
        problems.append(f"the boulder weighs {mass:g} kg: expected more than {mechanics.MAX_LIFT_MASS_KG} kg (pushed, "
                        f"not carried) and at most {MAX_PUSHED_MASS_KG} kg (pushed in the simulator)")
    distance = math.dist(start, place)
    steps: tuple[RouteStep, ...] = ()
    if distance >= PUSH_MIN_M:
        why = _way_problem(world, start, place, lying)
        if why:
            problems.append(why)
        away = ((start[0] - place[0]) / distance, (start[1] - place[1]) / distance)
        stance = _along(start, away, lying.depth_m / 2.0 + PUSH_STANCE_M)
        stance_y = float(ground_height(world.ground.heightmap, *stance))
        on_foot = with_blocks(bare, [ledge, lying])
        if not reaches(on_foot, (stance[0], stance_y + 1.0, stance[1]), frozenset({"walk"}), bypass=False):
            problems.append(f"the spot behind the boulder at ({stance[0]:.2f}, {stance[1]:.2f}) is not reached on foot")
        steps = (RouteStep("push", (place[0], ground_y, place[1])),)
    solvable = not problems
    reasons = problems + (["the food is reached without the boulder (bypass limits)"] if bypassed else [])
    return Certificate(required=REQUIRED_SKILLS | ({"push"} if steps else frozenset()), allowed=frozenset(SKILLS),
                       solvable=solvable, bypassed=bypassed,
                       route=Route(start=world.spawn_position, steps=steps + found.route.steps) if solvable else None,
                       reason="; ".join(reasons))


def require(world: World) -> Certificate:
    """:func:`certificate`, raising :class:`ImpossibleWorldError` unless it holds."""
    accepted = certificate(world)
    if not accepted.ok:
        raise ImpossibleWorldError(f"push: {accepted.reason}")
    return accepted


TASK = TaskSpec(name="push", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
                food_visible_from_spawn=False, food_reachable_on_foot=False, table_row=9,
                in_sets_from_version=2,
                reference_agent=ROUTE_FOLLOWER)
