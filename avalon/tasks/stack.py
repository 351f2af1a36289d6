"""The ``stack`` task: stack stones at the foot of a sheer cliff and jump up them to the food on top.

Paper, Appendix F.1: "the agent must stack stones and jump on top of them in order to reach the
cliff ledge where the fruit is. At low difficulties, the agent only needs to use one stone to reach
the top. As difficulty increases, the cliff ledge gets taller, so more layers of stones need to be
stacked to reach the top. At the highest difficulty, the agent must stack a pyramid with four
layers of stones." Difficulty sets every factor through :data:`KNOBS` (:class:`StackKnobs`, the
table below; ``docs/tasks/stack.md`` quotes it):

- the cliff: a square plateau standing on a level yard, its walls rising between two neighbouring
  points of the 0.25 m grid (faces steeper than 85 degrees) and unclimbable; it is
  ``LEDGE_RISE_M`` higher than the top of a staircase of ``layers`` stones against one wall, so
  the layers the way up needs grow with difficulty (2 at d = 0, 4 at d = 1);
- the stones: the staircase's ``layers (layers + 1) / 2`` stones, each ``STONE_HEIGHT_M`` tall and
  ``STONE_MASS_KG`` (under the lift limit), of which the lowest ``built_layers_share`` of the layers
  already stand in place (all of them at d = 0: the stones already form the step); the rest lie
  loose on the yard, spread round the plateau wider with difficulty;
- how far from the staircase the agent starts and how far it faces away from it.

One stone cannot be the whole step, as the paper's easiest worlds have it: a wall low enough for
one jump from a stone would be jumped (or slid) up from the ground (see :data:`LEDGE_RISE_M` and
``docs/tasks/stack.md``).

Every world is certified at generation (:func:`certificate`): with any skill and a body a margin
better than ours the terrain alone does not lead to the food (``routes.bypass_reaches``); with the
staircase's stones burned into the height map (``kit.solved.with_blocks``) a route of walks and
jumps does; and the world holds the stones that staircase needs, each liftable and each loose one
lying on ground the spawn walks to.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np
from scipy import ndimage

from avalon import errors as check
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import Entity, Terrain, World, tool_entity
from avalon.rules import mechanics
from avalon.rules.tools import TOOL_SIZE_M, tool_spec
from avalon.tasks.kit import ImpossibleWorldError
from avalon.tasks.kit.assembly import (
    TIME_LIMIT_FRAMES,
    FoodPlacement,
    OutdoorLayout,
    assemble_outdoor_world,
    build_island,
    make_biomes,
    resolve_config,
    split_streams,
)
from avalon.tasks.kit.certificate import Certificate, bypass_reaches, certify
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ, component_labels, ground_height, is_dry_land, triangle_index, walkable_grid, yaw_towards
from avalon.tasks.kit.route import SKILLS, Route, RouteStep
from avalon.tasks.kit.sites import build_at_first_fitting_site, candidate_points, corridor_discs, site_mask
from avalon.tasks.kit.solved import Block, window, with_blocks
from avalon.tasks.kit.spec import TaskSpec


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class StackKnobs:
    """Every factor of a stack world that the difficulty d in [0, 1] sets (docs/tasks/stack.md quotes it).
    Bands are drawn from uniformly."""

    #: The staircase the way up needs has two layers of stones, and one more from each of these
    #: difficulties (four at d = 1, the paper's text); the cliff rises with it.
    layer_added_at: tuple[float, ...] = (0.35, 0.7)
    #: Share of the layers already standing in place, lowest first (rounded down: all of them at
    #: d = 0, none at d = 1); the other stones lie loose on the yard.
    built_layers_share: Ramp = Ramp(1.0, -1.0)
    #: Loose stones lie within this angle, either side, of the staircase's direction seen from the
    #: plateau's centre, degrees (round the plateau at d = 1).
    stone_spread_deg: Ramp = Ramp(30.0, 150.0)
    #: Horizontal distance from the spawn to the staircase's outer end, metres (1.5-2.5 m at d = 0,
    #: 2.5-6 m at 1).
    spawn_distance_m: Band = Band(Ramp(1.5, 1.0), Ramp(2.5, 3.5))
    #: The staircase lies within this angle of the spawn's facing direction, either side, degrees.
    max_facing_offset_deg: Ramp = Ramp(0.0, 180.0)
    #: The food lies this far inside the plateau's edge above the staircase, metres.
    food_inset_m: Band = Band(Ramp(1.5), Ramp(2.0))
    #: Training episodes are truncated after this many seconds (45 s at d = 0, 300 s at 1): a few
    #: times a direct solution (walking, jumping, and at d = 1 ten stones carried and set down).
    training_time_limit_s: Ramp = Ramp(45.0, 255.0)


#: The stack task's difficulty curves.
KNOBS = StackKnobs()
#: Height-map grid points per metre: on a 0.25 m cell the 3.1 m wall of d = 0 is a face of 85.4
#: degrees, up which a jump slides 2.6 m (``mechanics.TERRAIN_JUMP_RISE_M``); on a 0.5 m cell it
#: would be 80.8 degrees, slid up all the way.
POINTS_PER_M = 4.0
#: The stones' uniform scale: 1.33 x 1.0 x 1.33 m, each layer of the staircase 1 m high (a jump
#: onto it rises 1 m: the route search allows 1.2 m, a running jump lands on 1.9 m) and each step
#: 1.33 m deep (on the 0.25 m grid, at least three points across stand on its top).
STONE_SCALE = 1.0 / TOOL_SIZE_M["stone"][1]
STONE_HEIGHT_M = TOOL_SIZE_M["stone"][1] * STONE_SCALE
STONE_WIDTH_M = TOOL_SIZE_M["stone"][0] * STONE_SCALE
#: Each stone's mass, kilograms: under ``mechanics.MAX_LIFT_MASS_KG``, so a hand lifts it.
STONE_MASS_KG = 35.0
#: The plateau stands this much above the staircase's top, metres: within the route search's jump
#: (1.2 m). The wall is then at least 3.1 m high, which neither a jump (2.0 m onto a ledge, 2.8 m
#: slid up the face, with the bypass search's margins) nor a reach gets up; one layer fewer leaves
#: 2.1 m, which the face lets a jump slide up (why the easiest world needs two layers, not one).
LEDGE_RISE_M = 1.1
#: Half the side of the square plateau, metres.
PLATEAU_HALF_SIDE_M = 3.0
#: The staircase's first column stands this far out from the wall's foot (the grid point where the
#: wall rises lies 0.25 m out from the plateau's edge), metres; its columns this far apart.
STAIR_GAP_M = 0.3
COLUMN_GAP_M = 0.02
#: The way up starts this far beyond the staircase's outer face, metres.
FOOT_OUT_M = 0.6
#: The certificate searches the terrain within this of the plateau's centre (a square): the
#: staircase's foot (9.3 m out at four layers) and, beyond the farthest a bypass jump carries the
#: body from the yard (6.5 m), more of the level yard, metres.
CERTIFICATE_WINDOW_M = 10.5
#: The ground is level within this of the plateau's centre (the yard: where the staircase stands
#: and the stones lie), blending back to the natural ground over the next ``YARD_BLEND_M``, metres.
YARD_RADIUS_M = 11.0
YARD_BLEND_M = 4.0
#: The island's coarsest noise amplitude, metres (the terrain's default is 1.5).
ISLAND_NOISE_SCALE_M = 0.8
#: The natural ground under the yard and its blend varies by at most this, metres.
MAX_YARD_RELIEF_M = 2.5
#: Loose stones keep this far from each other, the staircase and the plateau (footprints as
#: discs round their corners), and their centres this far from the spawn, metres.
STONE_CLEARANCE_M = 0.4
STONE_SPAWN_CLEARANCE_M = 2.0
#: Loose stones lie within the yard, this far inside its edge, metres.
STONE_YARD_MARGIN_M = 1.0
#: Draws of a loose stone's place before the world is given up.
STONE_PLACE_ATTEMPTS = 60
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: A stack world's own time limit: ten minutes (paper, Appendix G.3).
STACK_TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND
#: The skill the route over the staircase needs (jumping up its layers).
REQUIRED_SKILLS = frozenset({"jump"})


def layer_count(difficulty: float) -> int:
    """Layers of stones the staircase up the cliff has."""
    return 2 + sum(int(difficulty >= start) for start in KNOBS.layer_added_at)


def stone_count(layers: int) -> int:
    """Stones in a staircase of ``layers`` (one column fewer each layer up)."""
    return layers * (layers + 1) // 2


def built_layer_count(difficulty: float) -> int:
    """Layers of the staircase standing in place at the start."""
    return int(math.floor(KNOBS.built_layers_share.at(difficulty) * layer_count(difficulty) + 1e-9))


def cliff_height_m(layers: int) -> float:
    """Height of the plateau above the yard for a staircase of ``layers``, metres."""
    return layers * STONE_HEIGHT_M + LEDGE_RISE_M


# --- the staircase ---------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class Staircase:
    """Where the solved staircase stands: against the wall of the plateau centred on ``centre``
    that faces ``outward`` (a unit grid axis), on the yard at ``base_m``. Metres."""

    centre: XZ
    outward: XZ
    base_m: float
    layers: int = attr.ib(validator=check.int_between(1, 16))

    def column_xz(self, column: int) -> XZ:
        """Centre of column ``column`` (0 against the wall)."""
        out = PLATEAU_HALF_SIDE_M + STAIR_GAP_M + STONE_WIDTH_M / 2 + column * (STONE_WIDTH_M + COLUMN_GAP_M)
        return self.centre[0] + out * self.outward[0], self.centre[1] + out * self.outward[1]

    def places(self) -> list[tuple[int, int]]:
        """(column, layer) of every stone, lowest layer first."""
        return [(column, layer) for layer in range(self.layers) for column in range(self.layers - layer)]

    def ground_position(self, column: int, layer: int) -> tuple[float, float, float]:
        """Where the stone at (column, layer) rests: the middle of its bottom face."""
        x, z = self.column_xz(column)
        return x, self.base_m + layer * STONE_HEIGHT_M, z

    def blocks(self) -> tuple[Block, ...]:
        """The staircase's columns as blocks on the terrain (for ``with_blocks``). They tile the way
        from the wall out, the gaps left between the stones (``STAIR_GAP_M`` at the wall,
        ``COLUMN_GAP_M`` between columns) included: a body, 0.8 m wide, stands over them."""
        pitch = STONE_WIDTH_M + COLUMN_GAP_M
        blocks = []
        for k in range(self.layers):
            near = PLATEAU_HALF_SIDE_M + (0.0 if k == 0 else STAIR_GAP_M + k * pitch)
            far = PLATEAU_HALF_SIDE_M + STAIR_GAP_M + (k + 1) * pitch
            middle = (near + far) / 2
            blocks.append(Block(centre=(self.centre[0] + middle * self.outward[0],
                                        self.centre[1] + middle * self.outward[1]),
                                width_m=STONE_WIDTH_M if self.outward[0] == 0 else far - near,
                                depth_m=far - near if self.outward[0] == 0 else STONE_WIDTH_M,
                                top_m=self.base_m + (self.layers - k) * STONE_HEIGHT_M))
        return tuple(blocks)

    @property
    def foot_xz(self) -> XZ:
        """Where the way up starts: on the yard, ``FOOT_OUT_M`` beyond the staircase's outer face."""
        out = self.outer_end_m + FOOT_OUT_M
        return self.centre[0] + out * self.outward[0], self.centre[1] + out * self.outward[1]

    @property
    def outer_end_m(self) -> float:
        """Distance from the plateau's centre to the staircase's outer face."""
        return PLATEAU_HALF_SIDE_M + STAIR_GAP_M + self.layers * (STONE_WIDTH_M + COLUMN_GAP_M)


def staircase_of(world: World) -> Staircase:
    """The staircase that solves a stack world, read from its terrain: the plateau is the flat top
    the food lies on; the staircase stands against the wall nearest the food, on the ground at its
    foot, with as many layers as leave ``LEDGE_RISE_M`` to the top. ``ValueError`` for a world
    that is not one a stack generator made."""
    if not isinstance(world, World) or not world.food or not isinstance(world.ground, Terrain):
        check.refuse("world", world, "a stack World on terrain with food")
    heightmap = world.ground.heightmap
    fx, _, fz = world.food[0].position
    top = float(ground_height(heightmap, fx, fz))
    labels, _ = ndimage.label(np.abs(heightmap.heights - top) < 1e-3)
    row, col = (int(v) for v in heightmap.nearest_index(fx, fz))
    if labels[row, col] == 0:
        raise ValueError(f"staircase_of: the food at ({fx:.2f}, {fz:.2f}) does not lie on a flat plateau")
    rows, cols = np.nonzero(labels == labels[row, col])
    x0, z0 = heightmap.grid_to_world(rows.min(), cols.min())
    x1, z1 = heightmap.grid_to_world(rows.max(), cols.max())
    centre = (float(x0 + x1) / 2, float(z0 + z1) / 2)
    faces = {(1.0, 0.0): float(x1) - fx, (-1.0, 0.0): fx - float(x0), (0.0, 1.0): float(z1) - fz, (0.0, -1.0): fz - float(z0)}
    outward = min(faces, key=faces.get)
    foot = (centre[0] + outward[0] * (PLATEAU_HALF_SIDE_M + STAIR_GAP_M + 0.5),
            centre[1] + outward[1] * (PLATEAU_HALF_SIDE_M + STAIR_GAP_M + 0.5))
    base = float(ground_height(heightmap, *foot))
    layers = int(round((top - base - LEDGE_RISE_M) / STONE_HEIGHT_M))
    if layers < 1:
        raise ValueError(f"staircase_of: the plateau at {centre} stands {top - base:.2f} m high: no staircase fits")
    return Staircase(centre=centre, outward=outward, base_m=base, layers=layers)


def solved_world(world: World) -> World:
    """``world`` with its staircase burned into the terrain (where the certificate's route runs)."""
    return with_blocks(world, staircase_of(world).blocks())


# --- the certificate -------------------------------------------------------------------------------


def is_stone(entity: Entity) -> bool:
    """Whether ``entity`` is a stone (a tool of kind ``stone``, whatever its scale)."""
    return entity.kind == "stone"


def stones_suffice(world: World, staircase: Staircase) -> Optional[str]:
    """Why the stones of ``world`` cannot build ``staircase``, or None: enough of them, each as tall
    as a layer and liftable, and each loose one (not standing in the staircase's place) on ground
    the spawn walks to."""
    stones = [e for e in world.entities if is_stone(e)]
    needed = stone_count(staircase.layers)
    if len(stones) < needed:
        return f"{len(stones)} stones for a staircase of {needed}"
    heightmap = world.ground.heightmap
    labels = component_labels(walkable_grid(heightmap))
    start = labels[triangle_index(heightmap, world.spawn_position[0], world.spawn_position[2])]
    if start < 0 or labels[triangle_index(heightmap, *staircase.foot_xz)] != start:
        return f"the spawn does not walk to the staircase's foot at {staircase.foot_xz}"
    places = {staircase.ground_position(k, j) for k, j in staircase.places()}
    for stone in stones:
        scale = float(stone.param("safe_scale", 1.0))
        mass = float(stone.param("mass", tool_spec("stone").mass_kg))  # a scale leaves the mass as it is
        if TOOL_SIZE_M["stone"][1] * scale < STONE_HEIGHT_M - 1e-6:
            return f"{stone.name} is {TOOL_SIZE_M['stone'][1] * scale:.2f} m tall: a layer is {STONE_HEIGHT_M:.2f} m"
        if mass > mechanics.MAX_LIFT_MASS_KG:
            return f"{stone.name} weighs {mass:g} kg: more than a hand lifts ({mechanics.MAX_LIFT_MASS_KG:g} kg)"
        x, y, z = stone.position
        resting = (x, y - STONE_HEIGHT_M / 2, z)
        if any(math.dist(resting, place) < 1e-6 for place in places):
            continue
        if labels[triangle_index(heightmap, x, z)] != start:
            return f"{stone.name} at ({x:.2f}, {z:.2f}) lies where the spawn does not walk to"
    return None


def certificate(world: World) -> Certificate:
    """The stack certificate of a world: no way to the food over its terrain, with every skill and
    the bypass search's generous limits; a route (walks and jumps) over its terrain with the solved
    staircase burned in; and the stones to build it.

    Both searches run on the window of ``CERTIFICATE_WINDOW_M`` round the plateau (the level yard
    and all the ground within any jump of the wall; a sixth of a Small world's grid points),
    starting at the staircase's foot; the spawn walks there (checked over the whole terrain's
    walkable triangles), which is the route's first step."""
    if not isinstance(world, World) or not world.food:
        check.refuse("world", world, "a stack World with food")
    staircase = staircase_of(world)
    foot = (*staircase.foot_xz, staircase.base_m)
    start = (foot[0], foot[2], foot[1])
    bare = window(world, staircase.centre, CERTIFICATE_WINDOW_M, start)
    bypassed = bypass_reaches(bare.world, bare.world.food[0], frozenset(SKILLS))
    built = window(with_blocks(world, staircase.blocks()), staircase.centre, CERTIFICATE_WINDOW_M, start)
    solved = certify(built.world, built.world.food[0], frozenset(), frozenset(SKILLS))
    unsolved = [] if solved.solvable else [f"with the staircase in place: {solved.reason}"]
    if solved.route is not None and not solved.route.skills() & REQUIRED_SKILLS:
        unsolved.append("the route over the staircase does not jump")
    short = stones_suffice(world, staircase)
    if short is not None:
        unsolved.append(short)
    bypass = ["the food can be reached over the terrain without the stones (bypass limits)"] if bypassed else []
    route = None
    if not unsolved:
        steps = [RouteStep("walk", start)] + [RouteStep(s.skill, built.to_world(s.target)) for s in solved.route.steps]
        route = Route(start=world.spawn_position, steps=steps)
    return Certificate(required=REQUIRED_SKILLS, allowed=frozenset(SKILLS), solvable=not unsolved, bypassed=bypassed,
                       route=route, reason="; ".join(unsolved + bypass))


# --- the terrain ---------------------------------------------------------------------------------


def level_yard(heightmap: HeightMap, centre: XZ) -> tuple[np.ndarray, float]:
    """Heights with the yard round ``centre`` level at the natural ground's median there, blending
    back to the natural ground (smoothstep) over ``YARD_BLEND_M``; and that level, metres."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    r = np.hypot(x - centre[0], z - centre[1])
    natural = heightmap.heights.astype(np.float64)
    base = float(np.median(natural[r <= YARD_RADIUS_M]))
    t = np.clip((r - YARD_RADIUS_M) / YARD_BLEND_M, 0.0, 1.0)
    weight = 1.0 - t * t * (3.0 - 2.0 * t)
    return natural + (base - natural) * weight, base


def plateau_mask(heightmap: HeightMap, centre: XZ) -> np.ndarray:
    """Grid points on the square plateau round ``centre`` (a grid point)."""
    x, z = np.meshgrid(heightmap.x_coords_m, heightmap.z_coords_m)
    half = PLATEAU_HALF_SIDE_M + 1e-6
    return (np.abs(x - centre[0]) <= half) & (np.abs(z - centre[1]) <= half)


def wall_mask(plateau: np.ndarray) -> np.ndarray:
    """The wall's grid points: the plateau's rim and the ring just outside it."""
    return ndimage.binary_dilation(plateau) & ~ndimage.binary_erosion(plateau)


# --- the task ------------------------------------------------------------------------------------


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class StackLayout:
    """A stack world, its staircase and the certificate it was accepted with."""

    outdoor: OutdoorLayout
    world: World
    staircase: Staircase
    #: Names of the stones standing in place at the start, and of the loose ones.
    built: tuple[str, ...]
    loose: tuple[str, ...]
    certificate: Certificate


def _footprint_radius_m() -> float:
    return STONE_WIDTH_M / math.sqrt(2.0)


def place_loose_stones(rng: np.random.Generator, staircase: Staircase, count: int, spread_deg: float,
                       spawn: XZ) -> list[tuple[XZ, float]]:
    """(x, z) and yaw of ``count`` loose stones on the yard, within ``spread_deg`` of the
    staircase's direction seen from the centre, clear of the plateau, the staircase, each other and
    the spawn; ``ImpossibleWorldError`` if they do not fit."""
    cx, cz = staircase.centre
    away = math.atan2(staircase.outward[1], staircase.outward[0])
    footprint = _footprint_radius_m()
    inner = PLATEAU_HALF_SIDE_M * math.sqrt(2.0) + footprint + STONE_CLEARANCE_M
    outer = YARD_RADIUS_M - footprint - STONE_YARD_MARGIN_M
    stair = [staircase.column_xz(k) for k in range(staircase.layers)]
    placed: list[tuple[XZ, float]] = []
    for _ in range(count):
        for _ in range(STONE_PLACE_ATTEMPTS):
            angle = away + math.radians(rng.uniform(-spread_deg, spread_deg))
            radius = math.sqrt(rng.uniform(inner**2, outer**2))
            point = (cx + radius * math.cos(angle), cz + radius * math.sin(angle))
            yaw = float(rng.uniform(-math.pi, math.pi))
            near = [*stair, *(p for p, _ in placed)]
            if all(math.dist(point, other) >= 2 * footprint + STONE_CLEARANCE_M for other in near) \
                    and math.dist(point, spawn) >= STONE_SPAWN_CLEARANCE_M:
                placed.append((point, yaw))
                break
        else:
            raise ImpossibleWorldError(f"stack: no room on the yard for loose stone {len(placed) + 1} of {count}")
    return placed


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> StackLayout:
    """The stack world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees (the certificate included)."""
    config = resolve_config(config)
    if config.time_limit_frames == TIME_LIMIT_FRAMES:  # the config's default, the five-minute tasks' limit
        config = attr.evolve(config, time_limit_frames=STACK_TIME_LIMIT_FRAMES)
    streams = split_streams(rng)
    layers = layer_count(difficulty)
    built_layers = built_layer_count(difficulty)
    spawn_distance = float(streams.food.uniform(*KNOBS.spawn_distance_m.at(difficulty)))
    food_inset = float(streams.food.uniform(*KNOBS.food_inset_m.at(difficulty)))
    yaw_offset = math.radians(streams.food.uniform(-1.0, 1.0) * KNOBS.max_facing_offset_deg.at(difficulty))
    # A gentle island (no hills, half the fine noise): the yard is levelled out of natural ground.
    natural = build_island(streams.terrain, config.world_size or "small", config.points_per_m or POINTS_PER_M,
                           pool_count=0, hill_count=0, initial_noise_scale_m=ISLAND_NOISE_SCALE_M)
    reach = YARD_RADIUS_M + YARD_BLEND_M
    mask = site_mask(natural, min_water_distance_m=reach + 1.0, max_slope_deg=20.0,
                     min_ocean_distance_m=reach + config.biomes.beach_width_m + 1.0, edge_margin_m=reach + 1.0)
    x, z = np.meshgrid(natural.x_coords_m, natural.z_coords_m)

    def fit_site(point: XZ):
        row, col = (int(v) for v in natural.nearest_index(*point))
        gx, gz = natural.grid_to_world(row, col)
        centre = (float(gx), float(gz))
        around = np.hypot(x - centre[0], z - centre[1]) <= reach
        relief = float(natural.heights[around].max() - natural.heights[around].min())
        if relief > MAX_YARD_RELIEF_M:
            return f"the ground round {centre} varies by {relief:.2f} m: more than {MAX_YARD_RELIEF_M} m"
        axis = int(streams.sites.integers(0, 4))
        outward = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))[axis]

        def build() -> StackLayout:
            heights, base = level_yard(natural, centre)
            if base < natural.water_height_m + 1.0:
                raise ImpossibleWorldError(f"stack: the yard at {centre} would lie {base:.2f} m high, near the water")
            plateau = plateau_mask(natural, centre)
            heights = np.where(plateau, base + cliff_height_m(layers), heights)
            wall = wall_mask(plateau)
            biome_map = make_biomes(streams.biomes, natural.with_heights(heights.astype(natural.heights.dtype)), config,
                                    np.zeros(natural.shape, dtype=bool), wall)
            staircase = Staircase(centre=centre, outward=outward, base_m=base, layers=layers)
            end = staircase.outer_end_m + spawn_distance
            spawn = (centre[0] + end * outward[0], centre[1] + end * outward[1])
            if not is_dry_land(biome_map.heightmap, *spawn, min_water_distance_m=1.5):
                raise ImpossibleWorldError(f"stack: the spawn at {spawn} would not be on dry land")
            food = (centre[0] + (PLATEAU_HALF_SIDE_M - food_inset) * outward[0],
                    centre[1] + (PLATEAU_HALF_SIDE_M - food_inset) * outward[1])
            stair_foot = staircase.column_xz(layers - 1)
            loose_count = sum(1 for _, layer in staircase.places() if layer >= built_layers)
            loose = place_loose_stones(streams.food, staircase, loose_count, KNOBS.stone_spread_deg.at(difficulty), spawn)
            yard = np.hypot(x - centre[0], z - centre[1]) <= reach
            keep_clear = [*corridor_discs(spawn, stair_foot, 1.0)]
            foods = [FoodPlacement(kind="apple", x=food[0], z=food[1], yaw_rad=float(streams.sites.uniform(-math.pi, math.pi)))]
            outdoor = assemble_outdoor_world(
                streams, config, biome_map, task="stack", difficulty=difficulty, spawn=spawn,
                spawn_yaw_rad=yaw_towards(spawn, stair_foot) - yaw_offset, foods=foods, tree_site=None,
                keep_clear=keep_clear, exclude_mask=yard, food_in_sight=False, food_on_foot=False,
            )
            stones, built, loose_names = [], [], []
            for column, layer in staircase.places():
                if layer < built_layers:
                    name = f"stone_{len(stones)}"
                    stones.append(tool_entity("stone", name, staircase.ground_position(column, layer),
                                              safe_scale=STONE_SCALE, mass=STONE_MASS_KG))
                    built.append(name)
            ground = biome_map.heightmap
            for (px, pz), yaw in loose:
                name = f"stone_{len(stones)}"
                stones.append(tool_entity("stone", name, (px, float(ground_height(ground, px, pz)), pz), yaw_rad=yaw,
                                          safe_scale=STONE_SCALE, mass=STONE_MASS_KG))
                loose_names.append(name)
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + tuple(stones))
            accepted = certificate(world)
            if not accepted.ok:
                raise ImpossibleWorldError(f"stack: {accepted.reason}")
            return StackLayout(outdoor=outdoor, world=world, staircase=staircase, built=tuple(built),
                               loose=tuple(loose_names), certificate=accepted)

        return build

    return build_at_first_fitting_site(
        candidate_points(streams.sites, natural, mask, config.site_attempts), fit_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="stack: no site for the cliff and its yard keeps the guarantees on this island",
    )


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``."""
    return build_layout(rng, difficulty, config).world


TASK = TaskSpec(
    name="stack",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=STACK_TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False,
    food_reachable_on_foot=False,
    certificate=certificate,
    table_row=7,
    in_sets_from_version=2,
    reference_agent="avalon.agent.scripted.follower:RouteFollower",
)
