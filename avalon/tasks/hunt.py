"""The ``hunt`` task: find a prey animal, knock it out with a thrown rock or a swung stick, eat it.

Paper, Appendix F.1 (hunt): the agent must find prey and kill it with a thrown rock or a stick.
Issue 21: the world larger, the prey harder and the tools fewer with difficulty (down to one rock
or one stick). Difficulty sets every factor through :data:`KNOBS` (:class:`HuntKnobs`;
``docs/tasks/hunt.md`` quotes it):

- the prey's species: uniformly one of the first kinds of the prey ladder (``kit.prey.PREY_LADDER``:
  the ground prey of Table 4 in its order, then the air prey), one more every eighth of the
  difficulty; a forced world (``prey_kind``, paper Appendix G.1: one world per prey) names any;
- how far the prey starts from the spawn (5-8 m at d = 0, 30-60 m at 1) and which way (ahead at
  d = 0, anywhere round at 1), on an island growing from 64 m to 256 m; below d = 0.5 plants are
  kept off the spawn's sight line to it, above it must be looked for;
- how fast it wanders before it notices the agent (still at d = 0, its species' own at 1);
- how many tools lie round the spawn (4 at d = 0, 1 at d = 1), each a rock or a stick with even
  odds, how far from the spawn and which way.

The world holds one prey and no fruit. Every world is certified at generation (:func:`certificate`,
:mod:`avalon.tasks.kit.prey`): the tools and the prey are there, on ground reached on foot from the
spawn; its route walks to the nearest tool, then to the prey.
"""

from __future__ import annotations

from typing import Optional

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.tasks.kit.assembly import TIME_LIMIT_FRAMES, resolve_config, split_streams
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import ForcedOptions, Forcing
from avalon.tasks.kit.prey import (
    PREY_LADDER,
    PREY_TOOLS,
    PreyLayout,
    PreyPlan,
    build_prey_layout,
    draw_prey,
    ladder_kinds,
    prey_certificate,
    signed_bearing_rad,
    spread_bearings,
    whole_count,
    world_side_m,
)
from avalon.tasks.kit.spec import TaskSpec

#: Tools lie on an arc round the spawn, about this far apart, metres.
TOOL_SPACING_M = 1.2


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class HuntKnobs:
    """Every factor of a hunt world that the difficulty d in [0, 1] sets (docs/tasks/hunt.md quotes it).
    Bands are drawn from uniformly."""

    #: Species in use: the first ``min(8, 1 + floor(kinds_per_unit * d))`` of ``PREY_LADDER``.
    kinds_per_unit: int = len(PREY_LADDER)
    #: Horizontal distance from the spawn to the prey, metres (5-8 at d = 0, 30-60 at 1).
    prey_distance_m: Band = Band(Ramp(5.0, 25.0), Ramp(8.0, 52.0))
    #: The prey lies within this angle of the spawn's facing direction, either side, degrees.
    prey_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Below this difficulty plants are kept off the spawn's sight line to the prey.
    prey_in_sight_below: float = 0.5
    #: The prey wanders at this fraction of its species' idle speed (0 at d = 0: it sits still).
    wander_speed_fraction: Ramp = Ramp(0.0, 1.0)
    #: Tools in the world, rounded to the nearest whole tool (4 at d = 0, 1 at 1).
    tool_count: Ramp = Ramp(4.0, -3.0)
    #: Chance that a tool is a stick (else a rock).
    stick_probability: float = 0.5
    #: Horizontal distance from the spawn to the tools' arc, metres (1.0-1.5 at d = 0, 2-15 at 1).
    tool_distance_m: Band = Band(Ramp(1.0, 1.0), Ramp(1.5, 13.5))
    #: The tools lie within this angle of the spawn's facing direction, either side, degrees.
    tool_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Side of the island, rounded down to a multiple of 32 m, metres (64 at d = 0, 256 at 1).
    world_size_m: Ramp = Ramp(64.0, 192.0)
    #: Training episodes are truncated after this many seconds (40 s at d = 0, 180 s at 1): a few
    #: times what taking a tool, finding the prey up to 60 m off, striking it and eating it take.
    training_time_limit_s: Ramp = Ramp(40.0, 140.0)


#: The hunt task's difficulty curves.
KNOBS = HuntKnobs()


def prey_kinds(difficulty: float) -> tuple[str, ...]:
    """The species hunt may use at ``difficulty`` (the first of :data:`PREY_LADDER`)."""
    return ladder_kinds(PREY_LADDER, difficulty, KNOBS.kinds_per_unit)


def tool_count(difficulty: float) -> int:
    """Tools in a hunt world at ``difficulty``."""
    return whole_count(KNOBS.tool_count.at(difficulty))


def world_size_m(difficulty: float) -> float:
    """Side of the island at ``difficulty``, metres (the knob rounded down to a multiple of 32 m)."""
    return world_side_m(KNOBS.world_size_m.at(difficulty))


def draw_plan(rng: np.random.Generator, difficulty: float, prey_kind: Optional[str] = None) -> PreyPlan:
    """The factors of a hunt world at ``difficulty`` (drawn from ``rng``, the task's own stream);
    ``prey_kind`` replaces the drawn species (the draw is still made)."""
    species, prey_distance, prey_bearing = draw_prey(
        rng, prey_kinds(difficulty), prey_kind, KNOBS.prey_distance_m.at(difficulty), KNOBS.prey_bearing_deg.at(difficulty))
    count = tool_count(difficulty)
    rock, stick = PREY_TOOLS
    tools = tuple(stick if rng.uniform() < KNOBS.stick_probability else rock for _ in range(count))
    tool_distance = float(rng.uniform(*KNOBS.tool_distance_m.at(difficulty)))
    tool_bearing = signed_bearing_rad(rng, KNOBS.tool_bearing_deg.at(difficulty))
    return PreyPlan(
        species=(species,), prey_distance_m=(prey_distance,), prey_bearing_rad=(prey_bearing,),
        tools=tools, tool_distance_m=(tool_distance,) * count,
        tool_bearing_rad=spread_bearings(tool_bearing, tool_distance, count, TOOL_SPACING_M),
        wander_speed_fraction=float(np.clip(KNOBS.wander_speed_fraction.at(difficulty), 0.0, 1.0)),
        world_size_m=world_size_m(difficulty),
        prey_in_sight=difficulty < KNOBS.prey_in_sight_below,
    )


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
                 prey_kind: Optional[str] = None) -> PreyLayout:
    """The hunt world for ``difficulty`` and what was chosen (where the tools lie: ``tool_sites``;
    where they are used: ``prey_sites``); raises ``ImpossibleWorldError`` if the island offers no
    place that keeps the guarantees. ``prey_kind`` forces the species."""
    config = resolve_config(config)
    streams = split_streams(rng)
    plan = draw_plan(streams.food, difficulty, prey_kind)
    return build_prey_layout(streams, config, plan, task="hunt", difficulty=difficulty)


def certificate(world: World) -> Certificate:
    """The certificate of a hunt world: as many tools as the knobs call for at its difficulty
    (rocks or sticks) and its one prey, each on ground reached on foot from the spawn (see
    :func:`avalon.tasks.kit.prey.prey_certificate`)."""
    certified = prey_certificate(world, None, 1)
    count = tool_count(world.difficulty)
    present = sum(1 for entity in world.entities if entity.kind in PREY_TOOLS)
    if present != count and certified.ok:
        return attr.evolve(certified, solvable=False, route=None,
                           reason=f"there are {present} tools: expected {count}")
    return certified


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
             forced: Optional[ForcedOptions] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``; ``forced`` may pin ``prey_kind``."""
    return build_layout(rng, difficulty, config, prey_kind=(forced or {}).get("prey_kind")).world


TASK = TaskSpec(
    name="hunt",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False,
    food_reachable_on_foot=False,
    certificate=certificate,
    forcing=(Forcing("prey_kind", PREY_LADDER),),
    table_row=11,
    in_sets_from_version=3,
    reference_agent="avalon.agent.scripted.throw:ThrowFollower",
)
