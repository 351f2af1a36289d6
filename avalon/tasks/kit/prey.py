"""Prey worlds: an island with prey animals to knock out (and eat) and the tools to do it with.

The prey tasks (``throw``, ``hunt``) differ only in what their knobs choose: the species, how far
the prey and the tools are from the spawn and which way, which tools, how large the island is and
how fast the prey wander. Each task draws a :class:`PreyPlan` from its own table; :func:`build_prey_layout`
finds a site for it on an island and returns a :class:`PreyLayout`: the world, where each tool lies
and where each prey starts (another task, ``carry``, may take the rocks' places from it).

A prey world holds no fruit: the food is the prey (``World.food_count`` counts prey; a knocked-out
prey is grasped and eaten like food). Every world is certified at generation
(:func:`prey_certificate`): the tools and the prey the knobs call for are there, and each stands
on ground reached on foot from the spawn (the walkable triangles' component of the spawn; an air
prey, over such ground). Its route walks to the nearest tool, then to the first prey's start: what
a scripted agent follows before it throws (:mod:`avalon.agent.scripted.throw`).
"""

from __future__ import annotations

import math
from typing import Mapping, Optional, Sequence

import attr
import numpy as np

from avalon.datagen.animal_placement import animal_entity
from avalon.datagen.world import Entity, World, tool_entity
from avalon.errors import check_choice
from avalon.rules.animals import PREY, PREY_KINDS, animal_spec
from avalon.rules.tools import TOOL_SIZE_M
from avalon.tasks.kit import ImpossibleWorldError, assembly, geometry, sites
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.geometry import XZ
from avalon.tasks.kit.route import Route, RouteStep

#: Prey from easy to hard to hit: the ground prey of Table 4 in its order (a frog never flees; a
#: deer takes two hits), then the air prey (``avalon.rules.animals.PREY``).
PREY_LADDER: tuple[str, ...] = tuple(s.species for s in PREY if s.domain == "ground") + tuple(
    s.species for s in PREY if s.domain == "air")
assert sorted(PREY_LADDER) == sorted(PREY_KINDS), "PREY_LADDER must hold every prey species once"
#: The tools a prey task may give (``avalon.rules.tools``): a rock is thrown, a stick swung.
PREY_TOOLS = ("rock", "stick")
#: Air prey fly no higher than this above the ground in prey worlds, metres: a rock thrown up
#: during a standing jump rises to about 3.7 m (docs/mechanics.md, "Throwing a rock"), and the
#: prey stays within the reach every task's food keeps from the ground (3 m from a route's end).
MAX_PREY_FLY_HEIGHT_M = 2.5
#: Plants keep this far from each tool and each prey's start, metres.
CLEAR_RADIUS_M = 1.0
#: ...and this far either side of the spawn's sight line to each prey when the plan asks for it, metres.
SIGHT_CORRIDOR_M = 1.0
#: Tools and prey start on terrain triangles at most this steep, degrees.
MAX_SLOPE_DEG = assembly.FOOD_MAX_SLOPE_DEG
#: Tools lie on triangles at most this steep, degrees: a rock (a lump) on a steeper one rolls off
#: its place as the simulation starts, where the agent, which knows it from the World spec, misses
#: it; a stick (a beam) stays put.
TOOL_MAX_SLOPE_DEG = {"rock": 6.0, "stick": MAX_SLOPE_DEG}
#: A tool whose place is too steep or wet goes this much farther out along its bearing instead,
#: the first of these that fits, metres.
TOOL_NUDGES_M = (0.0, 0.3, 0.6)
#: Sites keep this far inside the world's edge beyond the farthest prey, metres (so the prey has
#: room all round; the site mask keeps the spawn that far in).
EDGE_MARGIN_M = 4.0
#: Full world builds tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 3
#: Names of the entities: ``<TOOL_PREFIX><i>_<kind>`` and ``<PREY_PREFIX><i>_<species>``.
TOOL_PREFIX = "tool_"
PREY_PREFIX = "prey_"


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PreyPlan:
    """What a prey task's knobs chose for one world, before the terrain. Metres, radians; bearings
    are from the spawn's facing direction (positive: to the left)."""

    #: The species of each prey animal (``PREY_KINDS``).
    species: tuple[str, ...]
    #: Horizontal distance and bearing of each prey's start from the spawn.
    prey_distance_m: tuple[float, ...]
    prey_bearing_rad: tuple[float, ...]
    #: The kind of each tool (``PREY_TOOLS``), its horizontal distance and bearing from the spawn.
    tools: tuple[str, ...]
    tool_distance_m: tuple[float, ...]
    tool_bearing_rad: tuple[float, ...]
    #: The prey wander at this fraction of their species' idle speed (0: they sit still until they flee).
    wander_speed_fraction: float
    #: Side of the island, metres.
    world_size_m: float
    #: Whether plants are kept off the sight lines from the spawn to the prey.
    prey_in_sight: bool = True

    def __attrs_post_init__(self) -> None:
        if not self.species or len({len(self.species), len(self.prey_distance_m), len(self.prey_bearing_rad)}) != 1:
            raise ValueError(f"PreyPlan: expected one distance and bearing per prey, got {self}")
        if not self.tools or len({len(self.tools), len(self.tool_distance_m), len(self.tool_bearing_rad)}) != 1:
            raise ValueError(f"PreyPlan: expected one distance and bearing per tool, got {self}")
        for species in self.species:
            if species not in PREY_KINDS:
                raise ValueError(f"PreyPlan: {species!r} is not a prey species; the prey are: {', '.join(PREY_KINDS)}")
        for kind in self.tools:
            if kind not in PREY_TOOLS:
                raise ValueError(f"PreyPlan: tool {kind!r} is not one of {PREY_TOOLS}")
        if not 0.0 <= self.wander_speed_fraction <= 1.0:
            raise ValueError(f"PreyPlan.wander_speed_fraction={self.wander_speed_fraction!r}: expected a number in [0, 1]")


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class PreyLayout(assembly.TaskLayout):
    """A prey world (its ``outdoor`` before the tools and the prey were added), the plan it was
    built from and the certificate it was accepted with."""

    plan: PreyPlan
    #: The tools as they lie and the prey where they start, in plan order.
    tools: tuple[Entity, ...]
    prey: tuple[Entity, ...]
    certificate: Certificate

    @property
    def tool_sites(self) -> tuple[XZ, ...]:
        """Where each tool lies (x, z), metres."""
        return tuple((tool.position[0], tool.position[2]) for tool in self.tools)

    @property
    def prey_sites(self) -> tuple[XZ, ...]:
        """Where each prey starts (x, z): where the tools are used, metres."""
        return tuple((prey.position[0], prey.position[2]) for prey in self.prey)


def prey_of(world: World) -> tuple[Entity, ...]:
    """The prey animals of ``world``, in scene order."""
    return tuple(animal for animal in world.animals if animal.kind in PREY_KINDS)


def tools_of(world: World) -> tuple[Entity, ...]:
    """The tools of ``world`` a prey task gives (``PREY_TOOLS``), in scene order."""
    return tuple(entity for entity in world.entities if entity.kind in PREY_TOOLS)


def prey_certificate(world: World, tools: Optional[Sequence[str]] = None, prey_count: Optional[int] = None) -> Certificate:
    """The certificate of a prey world: it holds the ``tools`` (kinds, in any order; default: at
    least one) and ``prey_count`` prey (default: at least one), and every tool and every prey's
    start (the ground under an air prey) lies on the walkable component of the spawn. Its route
    walks to the tool nearest the spawn, then to the first prey's start. ``ValueError`` for a
    world without terrain."""
    heightmap = world.ground.heightmap if hasattr(world.ground, "heightmap") else None
    if heightmap is None:
        raise ValueError(f"prey certificate: the {world.task} world has no terrain (a height map)")
    present, prey = tools_of(world), prey_of(world)
    problems = []
    if tools is not None and sorted(e.kind for e in present) != sorted(tools):
        problems.append(f"the tools are {sorted(e.kind for e in present)}: expected {sorted(tools)}")
    if not present:
        problems.append("there is no tool")
    if prey_count is not None and len(prey) != prey_count:
        problems.append(f"there are {len(prey)} prey: expected {prey_count}")
    if not prey:
        problems.append("there is no prey")
    labels = geometry.component_labels(geometry.walkable_grid(heightmap))

    def component(x: float, z: float) -> int:
        if not bool(heightmap.contains(x, z)):
            return -1
        return int(labels[geometry.triangle_index(heightmap, x, z)])

    start = component(world.spawn_position[0], world.spawn_position[2])
    if start < 0:
        problems.append("the spawn is not on walkable ground")
    for entity in present + prey:
        if component(entity.position[0], entity.position[2]) != start:
            problems.append(f"{entity.name} is not reached on foot from the spawn")
    route = None
    if not problems:
        spawn = world.spawn_position
        nearest = min(present, key=lambda e: math.hypot(e.position[0] - spawn[0], e.position[2] - spawn[2]))
        steps = [RouteStep("walk", _on_ground(world, nearest)), RouteStep("walk", _on_ground(world, prey[0]))]
        route = Route(start=spawn, steps=tuple(steps))
    return Certificate(required=frozenset(), allowed=frozenset({"walk"}), solvable=not problems, bypassed=False,
                       route=route, reason="; ".join(problems))


def _on_ground(world: World, entity: Entity) -> tuple[float, float, float]:
    x, _, z = entity.position
    return x, float(geometry.ground_height(world.ground.heightmap, x, z)), z


def footprint_top_m(heightmap, x: float, z: float, reach_m: float) -> float:
    """The highest ground under a footprint of radius ``reach_m`` round (x, z) (an animal then
    drops onto a slope instead of starting inside it), metres."""
    angles = np.linspace(0.0, 2.0 * math.pi, 8, endpoint=False)
    xs = np.concatenate([[x], x + reach_m * np.cos(angles)])
    zs = np.concatenate([[z], z + reach_m * np.sin(angles)])
    return float(np.max(geometry.ground_height(heightmap, xs, zs)))


def tool_reach_m(kind: str) -> float:
    """Half the larger side of the footprint of a tool of ``kind``, metres."""
    width, _, depth = TOOL_SIZE_M[kind]
    return max(width, depth) / 2.0


def prey_entity(species: str, index: int, heightmap, xz: XZ, yaw_rad: float, wander_speed_fraction: float) -> Entity:
    """Prey animal ``index`` of ``species`` starting at ``xz``: wandering at ``wander_speed_fraction``
    of its species' idle speed, an air prey flying no higher than ``MAX_PREY_FLY_HEIGHT_M``."""
    spec = animal_spec(species)
    overrides: dict[str, object] = {"idle_speed_m_per_s": spec.idle_speed_m_per_s * wander_speed_fraction}
    if spec.domain == "air":
        overrides["fly_height_m"] = min(spec.fly_height_m, MAX_PREY_FLY_HEIGHT_M)
    top = footprint_top_m(heightmap, xz[0], xz[1], max(spec.size_m[0], spec.size_m[2]) / 2.0)
    return animal_entity(species, f"{PREY_PREFIX}{index}_{species}", (xz[0], top, xz[1]), yaw_rad, **overrides)


def build_prey_layout(streams: assembly.Streams, config: assembly.OutdoorTaskConfig, plan: PreyPlan, *, task: str, difficulty: float,
                      points_per_m: float = 1.0) -> PreyLayout:
    """The prey world of ``plan`` on a fresh island; raises :class:`ImpossibleWorldError` if the
    island offers no spawn from which every tool and prey lands on dry, gentle ground reached on foot."""
    size = config.world_size or plan.world_size_m
    heightmap = assembly.build_island(streams.terrain, size, config.points_per_m or points_per_m)
    biome_map = assembly.make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    slopes = geometry.triangle_slopes_deg(ground)
    reach = max(plan.prey_distance_m + tuple(d + TOOL_NUDGES_M[-1] for d in plan.tool_distance_m))
    edge = min(reach + EDGE_MARGIN_M, ground.half_size_m - 2.0)
    mask = sites.site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=edge)

    def fit(spawn: XZ):
        yaw = float(streams.sites.uniform(-math.pi, math.pi))

        def at(distance: float, bearing: float) -> XZ:
            dx, dz = geometry.facing_direction(yaw + bearing)
            return spawn[0] + distance * dx, spawn[1] + distance * dz

        def problem(label: str, point: XZ, steepest: float) -> str:
            if not bool(ground.contains(*point)) or not geometry.is_dry_land(ground, *point, min_water_distance_m=1.0):
                return f"{label} at {point} would not be on dry land"
            if slopes[geometry.triangle_index(ground, *point)] > steepest:
                return f"{label} at {point} would be on ground steeper than {steepest} degrees"
            return ""

        tool_sites = []
        for kind, distance, bearing in zip(plan.tools, plan.tool_distance_m, plan.tool_bearing_rad):
            # Out along its bearing, the first place gentle enough (a rock needs level ground).
            candidates = [at(distance + extra, bearing) for extra in TOOL_NUDGES_M]
            why = [problem(f"a {kind}", point, TOOL_MAX_SLOPE_DEG[kind]) for point in candidates]
            if all(why):
                return why[0]
            tool_sites.append(candidates[why.index("")])
        prey_sites = [at(d, b) for d, b in zip(plan.prey_distance_m, plan.prey_bearing_rad)]
        for point in prey_sites:
            why = problem("a prey", point, MAX_SLOPE_DEG)
            if why:
                return why
        tool_yaws = [float(streams.sites.uniform(-math.pi, math.pi)) for _ in tool_sites]
        prey_yaws = [float(streams.sites.uniform(-math.pi, math.pi)) for _ in prey_sites]

        def build() -> PreyLayout:
            discs = [(x, z, CLEAR_RADIUS_M) for x, z in tool_sites + prey_sites]
            if plan.prey_in_sight:
                for point in prey_sites:
                    discs.extend(sites.corridor_discs(spawn, point, SIGHT_CORRIDOR_M))
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task=task, difficulty=difficulty, spawn=spawn, spawn_yaw_rad=yaw,
                foods=(), tree_site=None, keep_clear=discs, food_in_sight=False, clear_sight_lines=False,
                food_on_foot=False,
            )
            tools = tuple(
                tool_entity(kind, f"{TOOL_PREFIX}{i}_{kind}", (x, footprint_top_m(ground, x, z, tool_reach_m(kind)), z),
                            yaw_rad=tool_yaw)
                for i, (kind, (x, z), tool_yaw) in enumerate(zip(plan.tools, tool_sites, tool_yaws))
            )
            prey = tuple(
                prey_entity(species, i, ground, point, prey_yaw, plan.wander_speed_fraction)
                for i, (species, point, prey_yaw) in enumerate(zip(plan.species, prey_sites, prey_yaws))
            )
            world = attr.evolve(outdoor.world, entities=outdoor.world.entities + tools + prey)
            accepted = prey_certificate(world, plan.tools, len(plan.species))
            if not accepted.ok:
                raise ImpossibleWorldError(f"{task}: {accepted.reason}")
            return PreyLayout(outdoor=outdoor, plan=plan, world=world, tools=tools, prey=prey, certificate=accepted)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, ground, mask, config.site_attempts), fit,
        max_builds=ASSEMBLY_ATTEMPTS, failure=f"{task}: no spawn site keeps every tool and prey on reachable ground",
    )


# --- the prey tasks' knobs and generator --------------------------------------------------------

#: Island sides are multiples of this, metres (the exporter's chunks split them exactly).
WORLD_SIZE_STEP_M = 32.0
#: Tools lie on an arc round the spawn, about this far apart, metres.
TOOL_SPACING_M = 1.2


def whole_count(value: float) -> int:
    """``value`` rounded to the nearest whole number, at least 1 (a count of tools or prey)."""
    return max(1, int(math.floor(value + 0.5)))


def signed_bearing_rad(rng: np.random.Generator, limit_deg: float) -> float:
    """A bearing drawn uniformly within ``limit_deg`` either side, radians (one draw from ``rng``)."""
    return math.radians(float(rng.uniform(-1.0, 1.0)) * limit_deg)


def spread_bearings(bearing_rad: float, distance_m: float, count: int, spacing_m: float) -> tuple[float, ...]:
    """Bearings of ``count`` items at ``distance_m`` on an arc round the spawn, centred on
    ``bearing_rad``, each turned ``atan(spacing_m / distance_m)`` from the next (about
    ``spacing_m`` apart at a few metres; closer near the spawn)."""
    return tuple(bearing_rad + math.atan2((i - (count - 1) / 2.0) * spacing_m, distance_m) for i in range(count))


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PreyKnobs:
    """Every factor of a prey world (throw, hunt) that the difficulty d in [0, 1] sets; each task's
    ``KNOBS`` is one (its page quotes it). Bands are drawn from uniformly."""

    #: Species in use: the first ``min(8, 1 + floor(kinds_per_unit * d))`` of ``PREY_LADDER``.
    kinds_per_unit: int = len(PREY_LADDER)
    #: Horizontal distance from the spawn to the prey, metres.
    prey_distance_m: Band
    #: The prey lies within this angle of the spawn's facing direction, either side, degrees.
    prey_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Below this difficulty plants are kept off the spawn's sight line to the prey (inf: always).
    prey_in_sight_below: float = math.inf
    #: The prey wanders at this fraction of its species' idle speed (0 at d = 0: it sits still).
    wander_speed_fraction: Ramp = Ramp(0.0, 1.0)
    #: Tools in the world, rounded to the nearest whole tool.
    tool_count: Ramp
    #: Chance that a tool is a stick, else a rock (0: every tool a rock, and nothing is drawn).
    stick_probability: float = 0.0
    #: Horizontal distance from the spawn to the tools' arc, metres.
    tool_distance_m: Band
    #: The tools lie within this angle of the spawn's facing direction, either side, degrees.
    tool_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Side of the island, rounded down to a multiple of 32 m, metres.
    world_size_m: Ramp
    #: Training episodes are truncated after this many seconds.
    training_time_limit_s: Ramp

    def species_at(self, difficulty: float) -> tuple[str, ...]:
        """The species in use at ``difficulty``: the first of :data:`PREY_LADDER`."""
        count = 1 + int(math.floor(self.kinds_per_unit * difficulty + 1e-9))
        return PREY_LADDER[:min(len(PREY_LADDER), count)]

    def tools_at(self, difficulty: float) -> int:
        """How many tools a world at ``difficulty`` holds."""
        return whole_count(self.tool_count.at(difficulty))

    def world_side_m_at(self, difficulty: float) -> float:
        """Side of the island at ``difficulty``: the knob rounded down to a multiple of
        :data:`WORLD_SIZE_STEP_M` (at least one step), metres."""
        size = self.world_size_m.at(difficulty)
        return max(WORLD_SIZE_STEP_M, WORLD_SIZE_STEP_M * math.floor(size / WORLD_SIZE_STEP_M + 1e-9))


def draw_plan(rng: np.random.Generator, knobs: PreyKnobs, difficulty: float, prey_kind: Optional[str] = None) -> PreyPlan:
    """The factors of a prey world at ``difficulty`` (drawn from ``rng``, the task's own stream), in
    this order: the species (replaced by ``prey_kind``, one of :data:`PREY_LADDER`, when it is
    forced; the draw is still made), the prey's distance and bearing, each tool's kind (only where
    a tool may be a stick), the tools' distance and bearing."""
    kinds = knobs.species_at(difficulty)
    species = kinds[int(rng.integers(len(kinds)))]
    if prey_kind is not None:
        species = check_choice(prey_kind, "prey_kind", PREY_LADDER)
    prey_distance = float(rng.uniform(*knobs.prey_distance_m.at(difficulty)))
    prey_bearing = signed_bearing_rad(rng, knobs.prey_bearing_deg.at(difficulty))
    count = knobs.tools_at(difficulty)
    rock, stick = PREY_TOOLS
    tools = ((rock,) * count if knobs.stick_probability <= 0.0 else
             tuple(stick if rng.uniform() < knobs.stick_probability else rock for _ in range(count)))
    tool_distance = float(rng.uniform(*knobs.tool_distance_m.at(difficulty)))
    tool_bearing = signed_bearing_rad(rng, knobs.tool_bearing_deg.at(difficulty))
    return PreyPlan(
        species=(species,), prey_distance_m=(prey_distance,), prey_bearing_rad=(prey_bearing,),
        tools=tools, tool_distance_m=(tool_distance,) * count,
        tool_bearing_rad=spread_bearings(tool_bearing, tool_distance, count, TOOL_SPACING_M),
        wander_speed_fraction=float(np.clip(knobs.wander_speed_fraction.at(difficulty), 0.0, 1.0)),
        world_size_m=knobs.world_side_m_at(difficulty),
        prey_in_sight=difficulty < knobs.prey_in_sight_below,
    )


def build_prey_task(rng: np.random.Generator, difficulty: float, config: object | None = None,
                    forced: Optional[Mapping[str, str]] = None, *, knobs: PreyKnobs, task: str) -> PreyLayout:
    """The ``task`` world for ``difficulty``: its plan drawn from ``knobs`` (:func:`draw_plan`, on the
    food stream) and built on a fresh island (:func:`build_prey_layout`); ``forced`` may pin
    ``prey_kind``, the species. Raises ``ImpossibleWorldError`` if the island offers no place that
    keeps the guarantees. A prey task's generator is this with its knobs and name bound."""
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    plan = draw_plan(streams.food, knobs, difficulty, (forced or {}).get("prey_kind"))
    return build_prey_layout(streams, config, plan, task=task, difficulty=difficulty)
