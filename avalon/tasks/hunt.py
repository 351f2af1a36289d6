"""The ``hunt`` task: find a prey animal, knock it out with a thrown rock or a swung stick, eat it.

Paper, Appendix F.1 (hunt): the agent must find prey and kill it with a thrown rock or a stick.
The world grows larger, the prey harder and the tools fewer with difficulty (down to one rock or
one stick). Difficulty sets every factor through :data:`KNOBS` (the prey tasks'
:class:`~avalon.tasks.kit.prey.PreyKnobs`; ``docs/tasks/hunt.md`` quotes it):

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

import functools

import attr

from avalon.datagen.world import World
from avalon.tasks.kit import prey
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.spec import TaskSpec

#: The hunt task's difficulty curves (docs/tasks/hunt.md quotes them): the prey 5-8 m from the spawn
#: at d = 0, 30-60 m at 1, ahead at d = 0, anywhere round at 1, and in sight below d = 0.5; 4 tools
#: at d = 0, 1 at 1, each a stick or a rock with even odds, 1.0-1.5 m from the spawn at d = 0, 2-15 m
#: at 1; the island 64 m at d = 0, 256 m at 1; training episodes 40 s at d = 0, 180 s at 1 (a few
#: times what taking a tool, finding the prey up to 60 m off, striking it and eating it take).
KNOBS = prey.PreyKnobs(
    prey_distance_m=Band(Ramp(5.0, 25.0), Ramp(8.0, 52.0)),
    prey_in_sight_below=0.5,
    tool_count=Ramp(4.0, -3.0),
    stick_probability=0.5,
    tool_distance_m=Band(Ramp(1.0, 1.0), Ramp(1.5, 13.5)),
    world_size_m=Ramp(64.0, 192.0),
    training_time_limit_s=Ramp(40.0, 140.0),
)


#: The hunt world for ``(rng, difficulty, config, forced)`` and what was chosen (where the tools
#: lie: ``tool_sites``; where they are used: ``prey_sites``); ``forced`` may pin ``prey_kind``.
build_layout = functools.partial(prey.build_prey_task, knobs=KNOBS, task="hunt")


def certificate(world: World) -> Certificate:
    """The certificate of a hunt world: as many tools as the knobs call for at its difficulty
    (rocks or sticks) and its one prey, each on ground reached on foot from the spawn (see
    :func:`avalon.tasks.kit.prey.prey_certificate`)."""
    certified = prey.prey_certificate(world, None, 1)
    count = KNOBS.tools_at(world.difficulty)
    present = len(prey.tools_of(world))
    if present != count and certified.ok:
        return attr.evolve(certified, solvable=False, route=None, reason=f"there are {present} tools: expected {count}")
    return certified


TASK = TaskSpec(
    name="hunt", generate=build_layout, knobs=KNOBS, certificate=certificate,
    food_visible_from_spawn=False, food_reachable_on_foot=False,
    forcing=(Forcing("prey_kind", prey.PREY_LADDER),),
    table_row=11, in_sets_from_version=3, reference_agent="avalon.agent.scripted.throw:ThrowFollower",
)
