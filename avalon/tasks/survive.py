"""The ``survive`` task: keep eating on an island of fruit, prey, predators and tools.

Paper, Appendix F.2: survive scatters everything the basic tasks use over an island, by density;
more and harder predators and less food with difficulty. Difficulty sets every factor through
:data:`KNOBS` (:class:`SurviveKnobs`; ``docs/tasks/survive.md`` quotes it):

- at most one obstacle (with chance ``obstacle_chance``) between the spawn and the first apple,
  of a kind drawn from every task that declares an obstacle piece
  (:mod:`avalon.tasks.kit.composition`); the island sized for it;
- fruit (every kind that may lie on the ground, drawn uniformly), prey, predators and tools
  scattered over the island's dry ground, each count round(area x density) + 1 (the paper's
  densities per square metre): fruit 3e-4 to 1e-4,
  prey 5e-4 to 1e-4, predators 1e-5 to 8e-4, tools 5e-4 to 4e-4;
- the predators' species: the first ``1 + floor(predator_kinds_per_unit x d)`` of the ladder
  from the weakest (``kit.predators.PREDATOR_LADDER``); prey likewise from the easiest.

Success (Appendix M): every food eaten, or at least one eaten and more energy at the end than at
the start (``succeeds_on_energy_gain``). The certificate is the route to the first apple through
its obstacle, if any (:func:`~avalon.tasks.kit.composition.certify_composition`).
"""

from __future__ import annotations

import attr
import numpy as np

from avalon.datagen.animal_placement import place_animals
from avalon.datagen.terrain import HeightMap
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.tasks.kit import ImpossibleWorldError, composition, scatter
from avalon.tasks.kit.assembly import Streams
from avalon.tasks.kit.curves import Ramp
from avalon.tasks.kit.predators import PREDATOR_LADDER, ladder_prefix
from avalon.tasks.kit.prey import PREY_LADDER, PREY_TOOLS

#: Ten minutes (paper, Appendix G.3).
TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class SurviveKnobs:
    """Every factor of a survive world that the difficulty d in [0, 1] sets."""

    #: The obstacle and the island (see :class:`~avalon.tasks.kit.composition.CompositionKnobs`);
    #: no building at the goal (the paper's survive scatters its food, none of it behind doors).
    composition: composition.CompositionKnobs = composition.CompositionKnobs(goal_building_chance=0.0)
    #: Chance of one obstacle before the first apple (else none).
    obstacle_chance: Ramp = Ramp(0.5)
    #: Densities, things per square metre of the island's square (fruit besides the first apple).
    fruit_per_m2: Ramp = Ramp(3e-4, -2e-4)
    prey_per_m2: Ramp = Ramp(5e-4, -4e-4)
    predators_per_m2: Ramp = Ramp(1e-5, 7.9e-4)
    tools_per_m2: Ramp = Ramp(5e-4, -1e-4)
    #: One more predator species of the ladder per this fraction of difficulty's unit.
    predator_kinds_per_unit: int = len(PREDATOR_LADDER)
    prey_kinds_per_unit: int = len(PREY_LADDER)
    #: Scattered things keep this far from the spawn, metres (and foods from one another).
    spawn_distance_m: float = 12.0
    spacing_m: float = 4.0
    #: Training episodes are truncated after this many seconds (3 min at d = 0, 8 min at 1).
    training_time_limit_s: Ramp = Ramp(180.0, 300.0)


#: The survive task's difficulty curves.
KNOBS = SurviveKnobs()


def _obstacle_count(rng: np.random.Generator, difficulty: float) -> int:
    return int(rng.uniform() < KNOBS.obstacle_chance.at(difficulty))


def scattered_fruit(streams: Streams, ground: HeightMap, made: composition.Composition, difficulty: float) -> list:
    """The fruit besides the first apple, by density (see :data:`~avalon.tasks.kit.composition.ExtraFoods`)."""
    count = scatter.count_for_area(ground, KNOBS.fruit_per_m2.at(difficulty))
    return scatter.scattered_foods(streams.food, ground, count, away_from=(made.spawn, made.goal),
                                   min_distance_m=KNOBS.spawn_distance_m, spacing_m=KNOBS.spacing_m, kinds=scatter.GROUND_FOODS)


def animals_and_tools(world: World, streams: Streams, difficulty: float) -> World:
    """``world`` with its prey, predators and tools, by density (see :data:`~avalon.tasks.kit.composition.ExtraEntities`)."""
    ground = world.ground.heightmap
    rng = streams.food
    for ladder, per_m2, per_unit, prefix in ((PREY_LADDER, KNOBS.prey_per_m2, KNOBS.prey_kinds_per_unit, "prey"),
                                             (PREDATOR_LADDER, KNOBS.predators_per_m2, KNOBS.predator_kinds_per_unit,
                                              "predator")):
        kinds = ladder_prefix(ladder, per_unit, difficulty)
        species = [kinds[int(i)] for i in rng.integers(len(kinds), size=scatter.count_for_area(ground, per_m2.at(difficulty)))]
        try:
            world = place_animals(world, rng, species, min_spawn_distance_m=KNOBS.spawn_distance_m, name_prefix=prefix)
        except ValueError as error:
            raise ImpossibleWorldError(f"survive: {error}") from error
    tools = [PREY_TOOLS[int(i)] for i in rng.integers(len(PREY_TOOLS), size=scatter.count_for_area(
        ground, KNOBS.tools_per_m2.at(difficulty)))]
    laid = scatter.scattered_tools(rng, world, tools, min_distance_m=2.0, spacing_m=1.0, name_prefix="tool")
    return attr.evolve(world, entities=world.entities + laid)


#: What survive decides of its worlds: at most one obstacle, fruit, prey, predators and tools by density.
COMPOSED = composition.ComposedTask(task="survive", knobs=KNOBS.composition, kinds=composition.piece_kinds,
                                    obstacle_count=_obstacle_count, time_limit_frames=TIME_LIMIT_FRAMES,
                                    extra_foods=scattered_fruit, extra_entities=animals_and_tools)
#: ``(rng, difficulty, config) -> ComposedLayout``: the survive world (see the module's docstring).
build_layout = COMPOSED.build_layout

TASK = COMPOSED.task_spec(knobs=KNOBS, table_row=19, food_visible_from_spawn=False, succeeds_on_energy_gain=True)
