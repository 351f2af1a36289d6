"""The ``gather`` task: eat several foods spread over an island, one of them past up to four obstacles.

Paper, Appendix F.2: gather composes the basic tasks' obstacles like navigate and find, with
more food farther apart, none of it guaranteed in sight. Difficulty sets every factor through
:data:`KNOBS` (:class:`GatherKnobs`; ``docs/tasks/gather.md`` quotes it):

- the obstacles between the spawn and the first food as in find (1-4, about 21 m per obstacle),
  of a kind drawn from every task that declares an obstacle piece;
- with chance ``goal_building_chance`` (0.5) the goal lies in a building, one of the obstacles, its
  doors on the way in (:mod:`avalon.tasks.kit.composition_building`);
- 1-5 more apples scattered over the island's dry, gentle ground, at least
  ``extra_food_spacing_m`` from the spawn and from one another (fewer with difficulty); neither
  their sight nor their reach is guaranteed.

Success (Appendix M): every food eaten, or at least one eaten and more energy at the end than at
the start (``succeeds_on_energy_gain``). The certificate is the route through every crossing to
the first food (:func:`~avalon.tasks.kit.composition.certify_composition`).
"""

from __future__ import annotations

import attr

from avalon.datagen.terrain import HeightMap
from avalon.rules import mechanics
from avalon.tasks.kit import composition, scatter
from avalon.tasks.kit.assembly import Streams
from avalon.tasks.kit.curves import Band, Ramp

#: Ten minutes (paper, Appendix G.3; the original code's 15 minutes disagree: the paper's value).
TIME_LIMIT_FRAMES = 10 * 60 * mechanics.STEPS_PER_SECOND


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class GatherKnobs:
    """Every factor of a gather world that the difficulty d in [0, 1] sets."""

    #: The obstacles and the island (see :class:`~avalon.tasks.kit.composition.CompositionKnobs`).
    composition: composition.CompositionKnobs = composition.CompositionKnobs()
    #: Apples besides the first: drawn uniformly from this band and rounded (1-5 at d = 0, 1-3 at 1).
    extra_food_count: Band = Band(Ramp(1.0), Ramp(5.0, -2.0))
    #: Every extra apple lies at least this far from the spawn and from the other foods, metres.
    extra_food_spacing_m: Ramp = Ramp(10.0, 10.0)
    #: Training episodes are truncated after this many seconds (3 min at d = 0, 8 min at 1).
    training_time_limit_s: Ramp = Ramp(180.0, 300.0)


#: The gather task's difficulty curves.
KNOBS = GatherKnobs()


def extra_foods(streams: Streams, ground: HeightMap, made: composition.Composition, difficulty: float) -> list:
    """The apples besides the first (see :data:`~avalon.tasks.kit.composition.ExtraFoods`)."""
    count = int(round(float(streams.food.uniform(*KNOBS.extra_food_count.at(difficulty)))))
    spacing = KNOBS.extra_food_spacing_m.at(difficulty)
    return scatter.scattered_foods(streams.food, ground, count, away_from=(made.spawn, made.goal),
                                   min_distance_m=spacing, spacing_m=spacing)


#: What gather decides of its worlds: pieces of every task that declares one, more apples.
COMPOSED = composition.ComposedTask(task="gather", knobs=KNOBS.composition, kinds=composition.piece_kinds,
                                    time_limit_frames=TIME_LIMIT_FRAMES, extra_foods=extra_foods)
#: ``(rng, difficulty, config) -> ComposedLayout``: the gather world (see the module's docstring).
build_layout = COMPOSED.build_layout

TASK = COMPOSED.task_spec(knobs=KNOBS, table_row=20, food_visible_from_spawn=False, succeeds_on_energy_gain=True)
