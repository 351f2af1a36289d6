"""The ``throw`` task: knock a prey animal out with a thrown rock, then eat it.

Paper, Appendix F.1 (throw): the agent must throw a rock at prey to kill it and eat it; no fruit.
Issue 21: the prey farther away and the world larger with difficulty, so prey can run; prey
types harder to hit with difficulty (ground hoppers first, flyers last). Difficulty sets every
factor through :data:`KNOBS` (:class:`ThrowKnobs`; ``docs/tasks/throw.md`` quotes it):

- the prey's species: uniformly one of the first kinds of :data:`PREY_LADDER` (the ground prey of
  Table 4 in its order, then the air prey), one more every eighth of the difficulty; a forced world
  (``prey_kind``, paper Appendix G.1) names any of them;
- how far the prey starts from the spawn (3.5-4.5 m at d = 0, 15-30 m at 1) and which way (ahead
  at d = 0, anywhere round at 1); the island's side (64 m at d = 0, 128 m at 1);
- how fast it wanders before it notices the agent: still at d = 0 (a frog sitting in front of the
  agent), its species' own idle speed at 1 (fleeing is its species' own whatever the difficulty);
- how many rocks there are (3 at d = 0, misses allowed; 1 at d = 1), how far from the spawn (a
  step ahead at d = 0, up to 8 m at 1) and which way.

The world holds one prey and no fruit: eating the knocked-out prey is the episode's success.
Every world is certified at generation (:func:`certificate`, :mod:`avalon.tasks.kit.prey`): the
rocks and the prey are there, on ground reached on foot from the spawn; its route walks to the
nearest rock, then to the prey.
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

#: Rocks lie in a row across the line from the spawn, this far apart, metres.
ROCK_SPACING_M = 1.2


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class ThrowKnobs:
    """Every factor of a throw world that the difficulty d in [0, 1] sets (docs/tasks/throw.md quotes it).
    Bands are drawn from uniformly."""

    #: Species in use: the first ``min(8, 1 + floor(kinds_per_unit * d))`` of ``PREY_LADDER``.
    kinds_per_unit: int = len(PREY_LADDER)
    #: Horizontal distance from the spawn to the prey, metres (3.5-4.5 at d = 0, 15-30 at 1).
    prey_distance_m: Band = Band(Ramp(3.5, 11.5), Ramp(4.5, 25.5))
    #: The prey lies within this angle of the spawn's facing direction, either side, degrees.
    prey_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: The prey wanders at this fraction of its species' idle speed (0 at d = 0: it sits still).
    wander_speed_fraction: Ramp = Ramp(0.0, 1.0)
    #: Rocks in the world, rounded to the nearest whole rock (3 at d = 0, 1 at 1).
    rock_count: Ramp = Ramp(3.0, -2.0)
    #: Horizontal distance from the spawn to the rocks' row, metres (1.0-1.2 at d = 0, 2-8 at 1).
    rock_distance_m: Band = Band(Ramp(1.0, 1.0), Ramp(1.2, 6.8))
    #: The rocks lie within this angle of the spawn's facing direction, either side, degrees.
    rock_bearing_deg: Ramp = Ramp(0.0, 180.0)
    #: Side of the island, rounded down to a multiple of 32 m, metres (64 at d = 0, 128 at 1).
    world_size_m: Ramp = Ramp(64.0, 64.0)
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 120 s at 1): a few
    #: times what taking a rock, walking up to the prey, throwing and eating it take.
    training_time_limit_s: Ramp = Ramp(30.0, 90.0)


#: The throw task's difficulty curves.
KNOBS = ThrowKnobs()


def prey_kinds(difficulty: float) -> tuple[str, ...]:
    """The species throw may use at ``difficulty`` (the first of :data:`PREY_LADDER`)."""
    return ladder_kinds(PREY_LADDER, difficulty, KNOBS.kinds_per_unit)


def rock_count(difficulty: float) -> int:
    """Rocks in a throw world at ``difficulty``."""
    return whole_count(KNOBS.rock_count.at(difficulty))


def world_size_m(difficulty: float) -> float:
    """Side of the island at ``difficulty``, metres (the knob rounded down to a multiple of 32 m)."""
    return world_side_m(KNOBS.world_size_m.at(difficulty))


def draw_plan(rng: np.random.Generator, difficulty: float, prey_kind: Optional[str] = None) -> PreyPlan:
    """The factors of a throw world at ``difficulty`` (drawn from ``rng``, the task's own stream);
    ``prey_kind`` replaces the drawn species (the draw is still made)."""
    species, prey_distance, prey_bearing = draw_prey(
        rng, prey_kinds(difficulty), prey_kind, KNOBS.prey_distance_m.at(difficulty), KNOBS.prey_bearing_deg.at(difficulty))
    count = rock_count(difficulty)
    rock_distance = float(rng.uniform(*KNOBS.rock_distance_m.at(difficulty)))
    rock_bearing = signed_bearing_rad(rng, KNOBS.rock_bearing_deg.at(difficulty))
    return PreyPlan(
        species=(species,), prey_distance_m=(prey_distance,), prey_bearing_rad=(prey_bearing,),
        tools=("rock",) * count, tool_distance_m=(rock_distance,) * count,
        tool_bearing_rad=spread_bearings(rock_bearing, rock_distance, count, ROCK_SPACING_M),
        wander_speed_fraction=float(np.clip(KNOBS.wander_speed_fraction.at(difficulty), 0.0, 1.0)),
        world_size_m=world_size_m(difficulty),
    )


def build_layout(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
                 prey_kind: Optional[str] = None) -> PreyLayout:
    """The throw world for ``difficulty`` and what was chosen (where the rocks lie:
    ``tool_sites``; where they are used: ``prey_sites``); raises ``ImpossibleWorldError`` if the
    island offers no place that keeps the guarantees. ``prey_kind`` forces the species."""
    config = resolve_config(config)
    streams = split_streams(rng)
    plan = draw_plan(streams.food, difficulty, prey_kind)
    return build_prey_layout(streams, config, plan, task="throw", difficulty=difficulty)


def certificate(world: World) -> Certificate:
    """The certificate of a throw world: its rocks (as many as the knobs call for at its difficulty)
    and its one prey are there, each on ground reached on foot from the spawn (see
    :func:`avalon.tasks.kit.prey.prey_certificate`)."""
    return prey_certificate(world, ("rock",) * rock_count(world.difficulty), 1)


def generate(rng: np.random.Generator, difficulty: float, config: Optional[object] = None,
             forced: Optional[ForcedOptions] = None) -> World:
    """Task generator for the registry: ``(rng, difficulty, config) -> World``; ``forced`` may pin ``prey_kind``."""
    return build_layout(rng, difficulty, config, prey_kind=(forced or {}).get("prey_kind")).world


TASK = TaskSpec(
    name="throw",
    generate=generate,
    training_time_limit_s=KNOBS.training_time_limit_s,
    evaluation_time_limit_frames=TIME_LIMIT_FRAMES,
    food_visible_from_spawn=False,
    food_reachable_on_foot=False,
    certificate=certificate,
    forcing=(Forcing("prey_kind", PREY_LADDER),),
    table_row=10,
    in_sets_from_version=3,
    reference_agent="avalon.agent.scripted.throw:ThrowFollower",
)
