"""The ``navigate`` task: reach food in sight of the spawn past up to four obstacles in sequence.

Paper, Appendix F.2: navigate composes the basic tasks' obstacles between the agent and a food
it can see from where it starts. Difficulty sets every factor through :data:`KNOBS`
(:class:`NavigateKnobs`; ``docs/tasks/navigate.md`` quotes it):

- how many obstacles stand between the spawn and the food: a normal draw round 1.25 at d = 0
  and 4.49 at d = 1, rounded and clipped to 1-4; the food about 21 m farther per obstacle;
- with chance ``goal_building_chance`` (0.5) the goal lies in a building, one of the obstacles, its
  doors on the way in (:mod:`avalon.tasks.kit.composition_building`);
- every obstacle at the world's difficulty, each in its band round the spawn along the path, of
  a kind drawn from the tasks whose obstacle keeps their own food in sight
  (``food_visible_from_spawn``) (:mod:`avalon.tasks.kit.composition`);
- the spawn stands on a mound raised (up to ``spawn_rise_steps_m``'s last) until the food is in
  sight over the terrain; plants that hide it are removed.

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
class NavigateKnobs:
    """Every factor of a navigate world that the difficulty d in [0, 1] sets."""

    #: The obstacles and the island (see :class:`~avalon.tasks.kit.composition.CompositionKnobs`).
    composition: composition.CompositionKnobs = composition.CompositionKnobs(grid_points_per_metre=1.0)
    #: The spawn's mound rises by the first of these that brings the food into sight, metres.
    spawn_rise_steps_m: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)
    #: Training episodes are truncated after this many seconds (2 min at d = 0, 8 min at 1).
    training_time_limit_s: Ramp = Ramp(120.0, 360.0)


#: The navigate task's difficulty curves.
KNOBS = NavigateKnobs()

#: What navigate decides of its worlds: pieces of the tasks that keep their own food in sight, the food in sight.
COMPOSED = composition.ComposedTask(
    task="navigate", knobs=KNOBS.composition,
    kinds=lambda: composition.piece_kinds(lambda spec: spec.food_visible_from_spawn),
    goal_in_sight=True, spawn_rise_steps_m=KNOBS.spawn_rise_steps_m, time_limit_frames=TIME_LIMIT_FRAMES,
)
#: ``(rng, difficulty, config) -> ComposedLayout``: the navigate world (see the module's docstring).
build_layout = COMPOSED.build_layout

TASK = COMPOSED.task_spec(knobs=KNOBS, table_row=17, food_visible_from_spawn=True)
