"""The ``throw`` task: knock a prey animal out with a thrown rock, then eat it.

Paper, Appendix F.1 (throw): the agent must throw a rock at prey to kill it and eat it; no fruit.
With difficulty the prey starts farther away and the world is larger, so prey can run, and the
prey types are harder to hit (ground hoppers first, flyers last). Difficulty sets every factor
through :data:`KNOBS` (the prey tasks' :class:`~avalon.tasks.kit.prey.PreyKnobs`;
``docs/tasks/throw.md`` quotes it):

- the prey's species: uniformly one of the first kinds of ``kit.prey.PREY_LADDER`` (the ground prey of
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

import functools

from avalon.datagen.world import World
from avalon.tasks.kit import prey
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import Forcing
from avalon.tasks.kit.spec import TaskSpec

#: The throw task's difficulty curves (docs/tasks/throw.md quotes them): the prey 3.5-4.5 m from the
#: spawn at d = 0, 15-30 m at 1, ahead at d = 0, anywhere round at 1, always in sight; 3 rocks at
#: d = 0 (misses allowed), 1 at 1, a step ahead at d = 0 (1.0-1.2 m), 2-8 m anywhere round at 1; the
#: island 64 m at d = 0, 128 m at 1; training episodes 30 s at d = 0, 120 s at 1 (a few times what
#: taking a rock, walking up to the prey, throwing and eating it take).
KNOBS = prey.PreyKnobs(
    prey_distance_m=Band(Ramp(3.5, 11.5), Ramp(4.5, 25.5)),
    tool_count=Ramp(3.0, -2.0),
    tool_distance_m=Band(Ramp(1.0, 1.0), Ramp(1.2, 6.8)),
    world_size_m=Ramp(64.0, 64.0),
    training_time_limit_s=Ramp(30.0, 90.0),
)


#: The throw world for ``(rng, difficulty, config, forced)`` and what was chosen (where the rocks
#: lie: ``tool_sites``; where they are used: ``prey_sites``); ``forced`` may pin ``prey_kind``.
build_layout = functools.partial(prey.build_prey_task, knobs=KNOBS, task="throw")


def certificate(world: World) -> Certificate:
    """The certificate of a throw world: its rocks (as many as the knobs call for at its difficulty)
    and its one prey are there, each on ground reached on foot from the spawn (see
    :func:`avalon.tasks.kit.prey.prey_certificate`)."""
    return prey.prey_certificate(world, ("rock",) * KNOBS.tools_at(world.difficulty), 1)


TASK = TaskSpec(
    name="throw", generate=build_layout, knobs=KNOBS, certificate=certificate,
    food_visible_from_spawn=False, food_reachable_on_foot=False,
    forcing=(Forcing("prey_kind", prey.PREY_LADDER),),
    table_row=10, in_sets_from_version=3, reference_agent="avalon.agent.scripted.throw:ThrowFollower",
    carry_variant="avalon.tasks.kit.carried_tools:PREY_VARIANT",
)
