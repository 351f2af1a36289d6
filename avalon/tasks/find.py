"""The ``find`` task: reach food past up to four obstacles in sequence, not necessarily in sight.

Paper, section 5.1: "find is the same [as navigate] but the food is not guaranteed to be visible
from the agent's starting location". Difficulty sets every factor through :data:`KNOBS` (:class:`FindKnobs`;
``docs/tasks/find.md`` quotes it):

- how many obstacles stand between the spawn and the food: a normal draw round 1.25 at d = 0
  and 4.49 at d = 1, rounded and clipped to 1-4; the food about 21 m farther per obstacle;
- with chance ``goal_building_chance`` (0.5) the goal lies in a building, one of the obstacles, its
  doors on the way in (:mod:`avalon.tasks.kit.composition_building`);
- every obstacle at the world's difficulty, each in its band round the spawn along the path, of
  a kind drawn from every task that declares an obstacle piece
  (:mod:`avalon.tasks.kit.composition`);
- nothing is promised of the food's sight: no mound raises the spawn, no plant is removed for it.

The certificate is the route through every crossing (:func:`~avalon.tasks.kit.composition.certify_composition`).
"""

from __future__ import annotations

import attr

from avalon.rules import mechanics
from avalon.tasks.kit import composition
from avalon.tasks.kit.curves import Ramp

#: Fifteen minutes (paper, Appendix G.3).
TIME_LIMIT_FRAMES = 15 * 60 * mechanics.STEPS_PER_SECOND


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class FindKnobs:
    """Every factor of a find world that the difficulty d in [0, 1] sets."""

    #: The obstacles and the island (see :class:`~avalon.tasks.kit.composition.CompositionKnobs`).
    composition: composition.CompositionKnobs = composition.CompositionKnobs()
    #: Training episodes are truncated after this many seconds (2 min at d = 0, 8 min at 1).
    training_time_limit_s: Ramp = Ramp(120.0, 360.0)


#: The find task's difficulty curves.
KNOBS = FindKnobs()

#: What find decides of its worlds: pieces of every task that declares one, nothing promised of sight.
COMPOSED = composition.ComposedTask(task="find", knobs=KNOBS.composition, kinds=composition.piece_kinds,
                                    time_limit_frames=TIME_LIMIT_FRAMES)
#: ``(rng, difficulty, config) -> ComposedLayout``: the find world (see the module's docstring).
build_layout = COMPOSED.build_layout

TASK = COMPOSED.task_spec(knobs=KNOBS, table_row=18, food_visible_from_spawn=False)
