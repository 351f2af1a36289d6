"""The ``fight`` task: predators guard the food; sticks and rocks by the spawn to fight them with.

Paper, Appendix F.1: "the agent must use sticks or stones to fight a predator that is guarding
the food in order to reach and eat the food. While it is not strictly necessary to defeat the
predators in order to reach the food in some levels, as difficulty increases, the predator types
that spawn are more aggressive and more difficult to hit, and there are more of them, effectively
forcing the agent to fight." Difficulty sets every factor through :data:`KNOBS`
(:class:`FightKnobs`; ``docs/tasks/fight.md`` quotes it):

- the species: drawn uniformly from the first of the predators a tool can knock out
  (:data:`~avalon.tasks.kit.predators.DESTRUCTIBLE_PREDATORS`, easiest first: bee, snake, hawk,
  alligator, eagle, wolf, jaguar), one more every sixth of the difficulty. Hippo and bear are
  left out: they are indestructible, so a world guarded by one could not be won by fighting, which
  is what this task is about (``avoid`` has them). The later ones fly (hawk, eagle: harder to hit)
  or take two hits (wolf, jaguar);
- how many: 1 at d = 0, up to 3 at d = 1;
- how near the food they stand (guard it): 4-6 m at d = 0, 2-3 m at d = 1;
- the food: an apple under its fruit tree, 8-11 m from the spawn and ahead of it at d = 0, up to
  18-23 m and anywhere round at d = 1 (a wide-radius predator 2-3 m from it must stand 17 m from
  the spawn);
- the tools: per predator one stick and two rocks (a wolf or a jaguar takes two hits), lying
  1.5-4 m from the spawn within 60 degrees of its facing (:func:`lay_tools`).

At d = 0 the one predator is a bee, whose sting costs a quarter of the energy and kills it: the
apple can be eaten without a fight (F.1: "not strictly necessary ... in some levels"). Every
predator's home keeps its activation radius and 2 m from the spawn. Forcing (Appendix G.1):
``predator_kind`` pins the first predator's species (one of the seven). Small world (64 m), one
grid point per metre.

The obstacle is a piece (:func:`obstacle`, :mod:`avalon.tasks.kit.predators`): the guards stand in
a band round a centre, near the path, and the tools lie ahead of the path's start; the task's
world is that piece placed round the food, the path from the spawn. ``build_layout`` returns the
tools and the predators' homes (where the tools are used), so another task (carry) can take these
worlds and move the tools.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import attr
import numpy as np

from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules.animals import animal_spec
from avalon.rules.tools import TOOL_KINDS
from avalon.tasks.kit import assembly, geometry, predators
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import ForcedOptions, Forcing
from avalon.tasks.kit.obstacle import Constraint, Draft, ObstaclePlan
from avalon.tasks.kit.spec import TaskSpec

WORLD_SIZE = "small"
POINTS_PER_M = 1.0
#: Full world builds (tree, scenery, checks) tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 4
#: The food: the canonical apple.
FOOD_KIND = "apple"
#: Tools lie at least this far apart (centre to centre), metres: half a stick's 1 m and a margin.
TOOL_GAP_M = 1.0
#: Places drawn for one tool before the spawn site is given up.
TOOL_TRIES = 8


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FightKnobs:
    """Every factor of a fight world that the difficulty d in [0, 1] sets (docs/tasks/fight.md quotes it)."""

    #: The predators: species from the first ``1 + floor(6 d)`` that a tool can knock out (only bees
    #: at d = 0, all seven at d = 1); ``1 + floor(2 d)`` of them (1 to 3); the food 8-11 m from the
    #: spawn within 20 degrees of its facing at d = 0, 18-23 m anywhere round at d = 1 (a wide-radius
    #: predator 2-3 m from the food must stand 17 m from the spawn); each
    #: predator's home 4-6 m from the food at d = 0, 2-3 m at d = 1 (guarding it).
    guard: predators.GuardKnobs = predators.GuardKnobs(
        species_per_unit=len(predators.DESTRUCTIBLE_PREDATORS) - 1,
        predators_per_unit=2,
        food_distance_m=Band(Ramp(8.0, 10.0), Ramp(11.0, 12.0)),
        food_bearing_deg=Band(Ramp(0.0), Ramp(20.0, 160.0)),
        guard_distance_m=Band(Ramp(4.0, -2.0), Ramp(6.0, -3.0)),
    )
    #: Sticks per predator (swung at a run).
    sticks_per_predator: int = 1
    #: Rocks per predator (thrown; wolves and jaguars take two hits).
    rocks_per_predator: int = 2
    #: Tools lie this far from the spawn, metres.
    tool_distance_m: Band = Band(Ramp(1.5), Ramp(4.0))
    #: ...within this angle of the spawn's facing, either side, degrees.
    tool_bearing_deg: float = 60.0
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): a few
    #: times what picking up a tool, walking 8-17 m, knocking out up to three predators and eating take.
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The fight task's difficulty curves.
KNOBS = FightKnobs()


def tool_kinds(predator_count: int) -> list[str]:
    """The tools a world with ``predator_count`` predators gets: per predator its sticks, then its rocks."""
    return (["stick"] * KNOBS.sticks_per_predator + ["rock"] * KNOBS.rocks_per_predator) * predator_count


def lay_tools(rng: np.random.Generator, ground: HeightMap, start: geometry.XZ, yaw_rad: float, kinds: Sequence[str],
              difficulty: float) -> Union[list[predators.ToolSite], str]:
    """The places of tools of ``kinds`` on the ground ahead of an agent at ``start`` facing
    ``yaw_rad``, named ``tool_<i>_<kind>``, or why one cannot lie there. Each tool takes the first of
    up to :data:`TOOL_TRIES` places (three draws each: distance, bearing, yaw) on dry ground no
    steeper than food lies on and :data:`TOOL_GAP_M` from the tools before it."""
    slopes = geometry.triangle_slopes_deg(ground)
    steepest = assembly.FOOD_MAX_SLOPE_DEG
    placed: list[predators.ToolSite] = []
    for index, kind in enumerate(kinds):
        reason = ""
        for _ in range(TOOL_TRIES):
            distance = float(rng.uniform(*KNOBS.tool_distance_m.at(difficulty)))
            bearing = math.radians(float(rng.uniform(-KNOBS.tool_bearing_deg, KNOBS.tool_bearing_deg)))
            yaw = float(rng.uniform(-math.pi, math.pi))
            dx, dz = geometry.facing_direction(yaw_rad + bearing)
            x, z = start[0] + distance * dx, start[1] + distance * dz
            if not bool(ground.contains(x, z)) or not geometry.is_dry_land(ground, x, z, min_water_distance_m=1.0):
                reason = f"a {kind} at ({x:.1f}, {z:.1f}) would not lie on dry land"
            elif slopes[geometry.triangle_index(ground, x, z)] > steepest:
                reason = f"a {kind} at ({x:.1f}, {z:.1f}) would lie on ground steeper than {steepest} degrees"
            elif any(math.dist((x, z), (t.x, t.z)) < TOOL_GAP_M for t in placed):
                reason = f"a {kind} at ({x:.1f}, {z:.1f}) would lie on another tool"
            else:
                placed.append(predators.ToolSite(kind=kind, name=f"tool_{index}_{kind}", x=x, z=z, yaw_rad=yaw))
                break
        else:
            return reason
    return placed


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint,
             **drawn) -> ObstaclePlan:
    """Fight's piece: predators a tool can knock out guarding the way across the band, and per
    predator its sticks and rocks ahead of the path's start (:func:`lay_tools`); ``drawn``: what the
    task's own generator drew already (``guards``, ``facing_yaw_rad``: see
    :func:`~avalon.tasks.kit.predators.guard_obstacle`). Raises ``ImpossibleWorldError`` naming the
    predator or tool that cannot stand there."""

    def tools(rng, ground, start, yaw, count):
        return lay_tools(rng, ground, start, yaw, tool_kinds(count), difficulty)

    return predators.guard_obstacle(draft, streams, difficulty, constraint, knobs=KNOBS.guard,
                                    ladder=predators.DESTRUCTIBLE_PREDATORS, safe_route=False, lay_tools=tools, **drawn)


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None,
                 forced: Optional[ForcedOptions] = None) -> predators.GuardLayout:
    """The fight world for ``difficulty``: :func:`obstacle` placed round the food. Its layout names
    ``tools`` (the sticks and rocks) and ``predator_sites`` (where they are used); raises
    ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees. ``forced``
    may pin ``predator_kind`` (one of ``DESTRUCTIBLE_PREDATORS``), the first predator's species."""
    return predators.build_guarded_food(
        rng, difficulty, config, task="fight", knobs=KNOBS.guard, ladder=predators.DESTRUCTIBLE_PREDATORS,
        obstacle=obstacle, food_kind=FOOD_KIND, world_size=WORLD_SIZE, points_per_m=POINTS_PER_M,
        max_builds=ASSEMBLY_ATTEMPTS, forced_kind=(forced or {}).get("predator_kind"),
    )


def certificate(world: World) -> Certificate:
    """The fight world's certificate: predators there, each one a tool can knock out, and the sticks
    and rocks for them; then the walking route that keeps out of every predator's reach where one
    exists (:func:`~avalon.tasks.kit.predators.certify_avoiding`), else any walking route to the food."""
    guards = predators.predators(world)
    tools = sorted(entity.kind for entity in world.entities if entity.kind in TOOL_KINDS)
    problem = ""
    if not guards:
        problem = "the fight world has no predator"
    elif any(animal_spec(animal.kind).hits_to_ko == 0 for animal in guards):
        problem = "a predator of the fight world is indestructible"
    elif tools != sorted(tool_kinds(len(guards))):
        problem = f"the fight world holds the tools {tools}: expected {sorted(tool_kinds(len(guards)))}"
    if problem:
        return Certificate(required=frozenset(), allowed=predators.WALK, solvable=False, bypassed=False,
                           route=None, reason=problem)
    food = world.food[0]
    safe = predators.certify_avoiding(world, food)
    return safe if safe.solvable else predators.certify_on_foot(world, food)


TASK = TaskSpec(
    name="fight", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
    food_visible_from_spawn=True, food_reachable_on_foot=True,
    forcing=(Forcing("predator_kind", predators.DESTRUCTIBLE_PREDATORS),),  # one forced world per predator it holds
    table_row=12, in_sets_from_version=3, reference_agent="avalon.agent.scripted.avoid:AvoidFollower",
    carry_variant="avalon.tasks.kit.carried_tools:GUARD_VARIANT",
)
