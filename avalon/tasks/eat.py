"""The ``eat`` task: food right by the agent, which only has to pick it up and eat it.

Paper, Appendix F.1: "the agent starts in front of the fruit ... As difficulty increases, worlds
contain different types of fruit that must be opened in more complex ways". Difficulty sets every
factor through :data:`KNOBS` (:class:`EatKnobs`, the table after the food ladder; ``docs/tasks/eat.md``
quotes it):

- the kinds of food: uniformly one of the first kinds of :data:`FOOD_LADDER`, one more every tenth
  of the difficulty; cherries come as a cluster of 2 to 4;
- whether the food rests on an **altar** (never carrots, which grow in the ground): a static stone
  pedestal right in front of the agent, so that at the lowest difficulties even a random agent
  sometimes grasps and eats it and the sparse reward appears (the original Avalon does the same;
  its numbers are adapted to our body below);
- otherwise (on the ground) how far away the food is and where it is relative to the way the agent
  faces (at d = 1 it must turn), and whether it hangs in the fruit tree instead.

The altar (``avalon/tasks/kit/altar.py``; a static ``box``, ``godot/entities/box.gd``, baked
lighting, never climbable). Original Avalon: 1.3 m high at d = 0, height varying by
U(-1.0, +0.5) * d, top 1.0 + U(0, 1) * d m wide, food 0.5 + U(0, 5) * d m from the spawn. Our body
(``avalon/rules/mechanics.py``): eyes 1.7 m, shoulders 1.45 m, hands resting at (+-0.3, 1.2, -0.6) m
in the body frame with radius 0.1 m, arm's reach 1.0 m, body radius 0.4 m; a closing hand grasps
food whose centre is within 0.25 m + the food's radius of the hand's centre; held food is eaten
within 0.5 m of the head; a hand moves at most 0.2 m per step. A 1 m wide top at chest height
would enclose the resting hands, and food near them is woken by Bullet and creeps off (see
``altar.WAKE_GAP_M``), so at d = 0 the altar is a **stone post** standing between the hands: its
top 1.4 m above the spawn's feet, 0.3 m wide (the hands' inner surfaces are 0.4 m apart), never
narrower than the food (a cherry cluster: 0.54 m). The food's distance (horizontal, spawn's axis
to the food's centre) is the nearest at which the altar is 0.05 m clear of the body capsule and
of the resting hands, the food's Bullet box out of the hands' pairing range and the food within
40 degrees of the camera's axis (the camera sees 45 degrees either way), plus the table's extra
distance. The food rests 0.1 m plus its footprint inside the near edge, or in the middle of a
smaller top. As soon as the post is turned off the axis it would touch a hand, so for d > 0 the
altar mostly stands beyond the hands (the food 0.8 m or more away): a step up the curriculum.

At d = 0 the apple's centre is 0.6 m ahead and 1.55 m up, 14 degrees below the view axis:
0.46 m from a resting hand's centre (it grasps within 0.40 m: the hand moves 0.06 m up and
forward), 0.68 m from a shoulder, 0.62 m from the head (one full-speed hand step toward the
head brings it within eating distance), and 0.35 m above the hands.

The food lies on the ground (or altar) under a fruit tree that stands behind it (seen from the
spawn; behind the altar's far edge when there is one); carrots grow anywhere, without a tree.
From d = 0.5 food that is not on an altar may instead hang in the fruit tree, within reach from
the ground (``HANGING_FOOD_CLEARANCE_M``): honeycomb always (on the ground it would get dirty),
other fruit with the table's probability, carrots never. The hanging draw is made only from
d = 0.5, before the altar's draws, so easier worlds do not depend on it.
Small world (64 m), one grid point per metre.
"""

from __future__ import annotations

import math
from typing import Optional

import attr
import numpy as np

from avalon.datagen.scenery import FruitTreeConfig
from avalon.datagen.world import World
from avalon.errors import check_choice
from avalon.rules.foods import FOOD_KINDS, FOOD_RADIUS_M, FOODS, FOODS_EASY_TO_HARD
from avalon.tasks.kit import altar as altars, assembly, geometry, sites
from avalon.tasks.kit.assembly import FoodPlacement
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import ForcedOptions, Forcing
from avalon.tasks.kit.route import Route
from avalon.tasks.kit.spec import ROUTE_FOLLOWER, TaskSpec

#: Food kinds from easy to hard (every kind of ``FOOD_KINDS``, by its row's ``difficulty_rank``):
#: apple is canonical; cherries come several at once; mulberries are small; a banana gives half
#: the energy; figs splatter; honeycomb gets dirty on the ground; carrots must be pulled out;
#: coconuts, oranges and avocados must be opened (by a force, a rock or a drop).
FOOD_LADDER: tuple[str, ...] = FOODS_EASY_TO_HARD
assert sorted(FOOD_LADDER) == sorted(FOOD_KINDS), "FOOD_LADDER must hold every food kind once"

#: Kinds that grow in the ground, anywhere (no fruit tree needed).
GROUND_KINDS = frozenset(kind for kind, food in FOODS.items() if food.grows_in_ground)
WORLD_SIZE = "small"
POINTS_PER_M = 1.0
#: Full world builds (tree, scenery, checks) tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 4
#: Food that gets dirty on touching the ground (honeycomb) hangs in the tree wherever food may hang
#: (honeycomb is on the ladder only from d = 0.5).
ALWAYS_HANGING_KINDS = frozenset(kind for kind, food in FOODS.items() if food.dirty_on_ground)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class EatKnobs:
    """Every factor of an eat world that the difficulty d in [0, 1] sets (docs/tasks/eat.md quotes it).
    Bands are drawn from uniformly; the module's docstring says why the altar's numbers are these."""

    #: Kinds in use: the first ``min(len(FOOD_LADDER), 1 + floor(kinds_per_unit * d))`` of the ladder.
    kinds_per_unit: int = len(FOOD_LADDER)
    #: Probability that food which can rest on a surface (not GROUND_KINDS) goes on an altar: 1 - d.
    altar_probability: Ramp = Ramp(1.0, -1.0)
    #: The altar: top 1.4 m above the spawn's feet varying by U(-1.0, +0.2) d (the original's range,
    #: its rise cut to keep the top below our eyes at 1.7 m); top 0.3 m wide growing by U(0, 1) d;
    #: food U(0, 4) d m beyond the nearest distance allowed (the original's 5 m spread shortened to
    #: our 4.5 m farthest ground food); bearing within 30 d degrees, either side.
    altar: altars.AltarCurves = altars.AltarCurves(
        top_above_spawn_m=Band(Ramp(altars.TOP_HEIGHT_M, -1.0), Ramp(altars.TOP_HEIGHT_M, 0.2)),
        top_width_m=Band(Ramp(altars.TOP_WIDTH_M), Ramp(altars.TOP_WIDTH_M, 1.0)),
        extra_distance_m=Band(Ramp(0.0), Ramp(0.0, 4.0)),
        bearing_limit_deg=Ramp(0.0, 30.0),
    )
    #: Food on the ground: horizontal distance from the spawn, metres (1.8-2.4 at d = 0, 1.8-4.5 at 1).
    ground_distance_m: Band = Band(Ramp(1.8), Ramp(2.4, 2.1))
    #: Food on the ground: angle between the facing direction and the food, either side, degrees
    #: (0-10 at d = 0, 60-180 at 1: the agent must turn).
    ground_bearing_deg: Band = Band(Ramp(0.0, 60.0), Ramp(10.0, 170.0))
    #: From this difficulty food not on an altar may hang in the fruit tree instead of lying under it...
    hanging_min_difficulty: float = 0.5
    #: ...with this probability (kinds of ``ALWAYS_HANGING_KINDS`` always, ``GROUND_KINDS`` never).
    hanging_probability: float = 0.5
    #: Training episodes are truncated after this many seconds (20 s at d = 0, 40 s at 1): a few
    #: times what reaching, grasping and eating food 2-4.5 m away, turning up to 180 degrees, takes.
    training_time_limit_s: Ramp = Ramp(20.0, 20.0)


#: The eat task's difficulty curves.
KNOBS = EatKnobs()


def food_kinds(difficulty: float) -> tuple[str, ...]:
    """The kinds eat may use at ``difficulty``: the first ``min(10, 1 + floor(10 d))`` of the ladder."""
    count = min(len(FOOD_LADDER), 1 + int(math.floor(KNOBS.kinds_per_unit * difficulty)))
    return FOOD_LADDER[:count]


def food_count(kind: str, rng: np.random.Generator) -> int:
    """How many of ``kind`` the world holds: drawn from its row's ``count_range`` (one draw from
    ``rng``), or its one count without a draw."""
    low, high = FOODS[kind].count_range
    return low if low == high else int(rng.integers(low, high + 1))


def food_hangs(kind: str, difficulty: float, draw: float) -> bool:
    """Whether food of ``kind`` hangs in the fruit tree, given a uniform ``draw`` in [0, 1)."""
    if difficulty < KNOBS.hanging_min_difficulty or kind in GROUND_KINDS:
        return False
    return kind in ALWAYS_HANGING_KINDS or draw < KNOBS.hanging_probability


@attr.s(frozen=True, auto_attribs=True, kw_only=True, eq=False)
class EatLayout(assembly.TaskLayout):
    """An eat world and the factors difficulty chose for it."""

    kind: str
    #: Horizontal distance from the spawn to the (first) food's centre, metres.
    distance_m: float
    #: Where the food lies relative to the facing direction, radians (positive: to the left).
    bearing_rad: float
    #: Whether the food hangs in the fruit tree (over the point it would lie on).
    hanging: bool = False
    #: The altar the food rests on, or None when it lies on the ground (or hangs).
    altar: Optional[altars.Altar] = None


def _cluster(kind: str, centre: tuple[float, float], count: int, rng: np.random.Generator, hanging: bool = False) -> list[FoodPlacement]:
    if count == 1:
        return [FoodPlacement(kind=kind, x=centre[0], z=centre[1], yaw_rad=float(rng.uniform(-math.pi, math.pi)), hanging=hanging)]
    start = rng.uniform(0.0, 2.0 * math.pi)
    foods = []
    for i in range(count):
        angle = start + 2.0 * math.pi * i / count
        foods.append(
            FoodPlacement(
                kind=kind,
                x=centre[0] + FOODS[kind].cluster_radius_m * math.cos(angle),
                z=centre[1] + FOODS[kind].cluster_radius_m * math.sin(angle),
                yaw_rad=float(rng.uniform(-math.pi, math.pi)),
                hanging=hanging,
            )
        )
    return foods


def _under_canopy(food: FoodPlacement, tree_site: tuple[float, float], fruit_tree: FruitTreeConfig) -> bool:
    """Whether ``food`` can hang from the canopy of a fruit tree at ``tree_site`` whatever its scale
    (see ``assembly.HANGING_FOOD_TRUNK_GAP_M``)."""
    low, high = fruit_tree.scale_range
    radius = FOOD_RADIUS_M[food.kind]
    reach = math.hypot(food.x - tree_site[0], food.z - tree_site[1])
    nearest = fruit_tree.trunk_radius_m * high + radius + assembly.HANGING_FOOD_TRUNK_GAP_M
    return nearest <= reach <= fruit_tree.canopy_radius_m * low - radius - assembly.HANGING_FOOD_TRUNK_GAP_M


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None,
                 forced: Optional[ForcedOptions] = None) -> EatLayout:
    """The eat world for ``difficulty`` and what was chosen; raises ``ImpossibleWorldError`` if the
    terrain offers no place that keeps the guarantees. ``forced`` may pin ``food_kind`` (any kind of
    :data:`FOOD_LADDER`, whatever the difficulty), which replaces the drawn kind."""
    food_kind = (forced or {}).get("food_kind")
    config = assembly.resolve_config(config)
    streams = assembly.split_streams(rng)
    # Task factors first, from their own stream, so they do not depend on the terrain.
    kinds = food_kinds(difficulty)
    kind = kinds[int(streams.food.integers(len(kinds)))]  # drawn even when forced: the later draws stay
    if food_kind is not None:
        kind = check_choice(food_kind, "food_kind", FOOD_LADDER)
    count = food_count(kind, streams.food)
    distance = float(streams.food.uniform(*KNOBS.ground_distance_m.at(difficulty)))
    bearing = math.radians(streams.food.uniform(*KNOBS.ground_bearing_deg.at(difficulty)))
    bearing *= 1.0 if streams.food.uniform() < 0.5 else -1.0
    # Drawn only where food may hang, so easier worlds keep every earlier draw and byte.
    may_hang = difficulty >= KNOBS.hanging_min_difficulty
    hanging = may_hang and food_hangs(kind, difficulty, float(streams.food.uniform()))
    # Drawn after (and whatever) the ground factors; an altar takes precedence over hanging.
    on_altar, altar_factors = draw_altar(streams.food, kind, difficulty)
    hanging = hanging and not on_altar

    heightmap = assembly.build_island(streams.terrain, config.world_size or WORLD_SIZE, config.points_per_m or POINTS_PER_M)
    biome_map = assembly.make_biomes(streams.biomes, heightmap, config)
    ground = biome_map.heightmap
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    slopes = geometry.triangle_slopes_deg(ground)
    mask = sites.site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=8.0)

    if on_altar:
        return _build_altar_layout(streams, config, biome_map, difficulty, kind, count, altar_factors)

    def fit_ground_site(spawn: geometry.XZ):
        """Why the food cannot lie ahead of a spawn at ``spawn``, or the build of the world there."""
        yaw = float(streams.sites.uniform(-math.pi, math.pi))
        dx, dz = geometry.facing_direction(yaw + bearing)
        centre = (spawn[0] + distance * dx, spawn[1] + distance * dz)
        if not geometry.is_dry_land(ground, *centre, min_water_distance_m=1.0):
            return f"the food at {centre} would not be on dry land"
        if slopes[geometry.triangle_index(ground, *centre)] > assembly.FOOD_MAX_SLOPE_DEG:
            return f"the food at {centre} would be on ground steeper than {assembly.FOOD_MAX_SLOPE_DEG} degrees"
        tree_site = None
        if kind not in GROUND_KINDS:
            tree_site = sites.tree_behind_food(streams.sites, centre, spawn, fruit_tree)
            if not sites.fruit_tree_site_ok(ground, *tree_site, fruit_tree):
                return f"no fruit tree site behind the food at {tree_site}"
        foods = _cluster(kind, centre, count, streams.sites, hanging)
        if hanging and not all(_under_canopy(f, tree_site, fruit_tree) for f in foods):
            return "the food would not hang under the fruit tree's canopy"
        if any(abs(geometry.ground_height(ground, f.x, f.z) - geometry.ground_height(ground, *centre)) > 0.3 for f in foods):
            return "the ground under the cluster is too uneven"

        def build() -> EatLayout:
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="eat", difficulty=difficulty, spawn=spawn, spawn_yaw_rad=yaw,
                foods=foods, tree_site=tree_site,
            )
            return EatLayout(outdoor=outdoor, kind=kind, distance_m=distance, bearing_rad=bearing, hanging=hanging)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, ground, mask, config.site_attempts), fit_ground_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="eat: no spawn site keeps the guarantees on this island",
    )


# --- food on an altar (see avalon/tasks/kit/altar.py) --------------------------------------------


def can_go_on_altar(kind: str) -> bool:
    """Whether ``kind`` can rest on an altar (carrots grow in the ground)."""
    return kind not in GROUND_KINDS


def draw_altar(rng: np.random.Generator, kind: str, difficulty: float) -> tuple[bool, altars.AltarFactors]:
    """Whether the food goes on an altar (probability ``1 - d`` for kinds that can) and the altar's
    factors; always the same five draws from ``rng``."""
    chance = float(rng.uniform())
    factors = altars.draw_altar_factors(rng, difficulty, KNOBS.altar)
    return can_go_on_altar(kind) and chance < KNOBS.altar_probability.at(difficulty), factors


def footprint_radius_m(kind: str, count: int) -> float:
    """Radius of the disc that holds the food seen from above: one item's radius, or a cluster's."""
    radius = FOOD_RADIUS_M[kind]
    return radius if count == 1 else FOODS[kind].cluster_radius_m + radius


def altar_distance_and_bearing(kind: str, count: int, factors: altars.AltarFactors) -> tuple[float, float]:
    """Horizontal distance (metres) from the spawn to the food (cluster) centre on the altar, and
    its bearing (radians): the nearest distance the altar allows plus the drawn extra."""
    nearest = altars.nearest_food_distance_m(factors, FOOD_RADIUS_M[kind], footprint_radius_m(kind, count))
    return nearest + factors.extra_distance_m, factors.bearing_rad


def _build_altar_layout(streams, config, biome_map, difficulty: float, kind: str, count: int,
                        factors: altars.AltarFactors) -> EatLayout:
    """The eat world with the food on an altar: like the ground loop of :func:`build_layout`, with
    the spawn sites drawn the same way."""
    ground = biome_map.heightmap
    fruit_tree = assembly.scaled_scenery(config).fruit_tree
    mask = sites.site_mask(ground, min_water_distance_m=2.0, max_slope_deg=20.0, min_ocean_distance_m=4.0, edge_margin_m=8.0)
    distance, bearing = altar_distance_and_bearing(kind, count, factors)

    def fit_altar_site(spawn: geometry.XZ):
        """Why an altar cannot stand ahead of a spawn at ``spawn``, or the build of the world there."""
        yaw = float(streams.sites.uniform(-math.pi, math.pi))
        site = _altar_site(streams, ground, fruit_tree, spawn, yaw, kind, count, factors, distance)
        if isinstance(site, str):
            return site
        altar, foods, tree_site = site

        def build() -> EatLayout:
            outdoor = assembly.assemble_outdoor_world(
                streams, config, biome_map, task="eat", difficulty=difficulty, spawn=spawn, spawn_yaw_rad=yaw,
                foods=foods, tree_site=tree_site, keep_clear=[altar.keep_clear],
            )
            outdoor = altars.put_food_on_altar(outdoor, altar)
            return EatLayout(outdoor=outdoor, kind=kind, distance_m=distance, bearing_rad=bearing, altar=altar)

        return build

    return sites.build_at_first_fitting_site(
        sites.candidate_points(streams.sites, ground, mask, config.site_attempts), fit_altar_site,
        max_builds=ASSEMBLY_ATTEMPTS, failure="eat: no spawn site keeps the altar's guarantees on this island",
    )


def _altar_site(streams, ground, fruit_tree, spawn, yaw: float, kind: str, count: int,
                factors: altars.AltarFactors, distance: float):
    """(altar, foods, tree site) for a spawn facing ``yaw``, or why the site cannot hold the altar."""
    dx, dz = geometry.facing_direction(yaw + factors.bearing_rad)
    centre = (spawn[0] + distance * dx, spawn[1] + distance * dz)
    if not bool(ground.contains(*centre)):
        return "the altar falls outside the world"
    spawn_position = (spawn[0], geometry.ground_height(ground, *spawn), spawn[1])
    altar = altars.altar_for_food(
        ground, spawn_position, centre, FOOD_RADIUS_M[kind], footprint_radius_m(kind, count), factors
    )
    if isinstance(altar, str):
        return altar
    problem = altars.spawn_problem(altar, spawn_position, yaw)
    if problem is not None:
        return problem
    tree_site = altars.tree_behind_altar(streams.sites, altar, centre, spawn, fruit_tree)
    if not sites.fruit_tree_site_ok(ground, *tree_site, fruit_tree):
        return f"no fruit tree site behind the altar at {tree_site}"
    return altar, _cluster(kind, centre, count, streams.sites), tree_site


def reference_route(world: World) -> Route:
    """The reference agent's route in an eat world: no steps (the food is right by the spawn; the
    follower's :class:`~avalon.agent.scripted.eat.EatFood` walks to it and eats)."""
    return Route(start=world.spawn_position, steps=())


TASK = TaskSpec(
    name="eat", generate=build_layout, knobs=KNOBS, food_visible_from_spawn=True, food_reachable_on_foot=True,
    forcing=(Forcing("food_kind", FOOD_LADDER),),  # evaluation sets hold every kind (Appendix G.1)
    table_row=1, in_sets_from_version=1, role="first",
    reference_agent=ROUTE_FOLLOWER, reference_route=reference_route,
)
