"""The ``avoid`` task: predators near the food, no tools; reach the food without being killed.

Paper, Appendix F.1: "the agent must avoid predators that are near the food in order to reach and
eat it. Unlike in fight, the agent is not provided with sticks or stones for fighting the predator.
As difficulty increases, the number of predators increase, and more aggressive types of predators
become more likely to spawn." Difficulty sets every factor through :data:`KNOBS`
(:class:`AvoidKnobs`; ``docs/tasks/avoid.md`` quotes it):

- the species: each predator is drawn uniformly from the first species of Table 3 (easiest
  first: bee, snake, hawk, hippo, alligator, eagle, wolf, jaguar, bear), one more species every
  eighth of the difficulty: only bees at d = 0, every species at d = 1, so the more aggressive
  ones grow likelier;
- how many: 1 at d = 0, up to 4 at d = 1;
- how near the food they stand: 7-9 m at d = 0 (beyond a bee's 5 m activation radius), 2-4 m at
  d = 1 (the agent must pass within reach of every one);
- the food: an apple under its fruit tree, 10-14 m from the spawn at d = 0 and ahead of it, up to
  16-24 m at d = 1 and anywhere round.

Every predator's home keeps its activation radius and 2 m from the spawn (none is active at
frame 0). Up to :attr:`AvoidKnobs.safe_route_max_difficulty` the generator keeps only worlds with a
walking route from the spawn to the food that stays outside every predator's activation radius
(plus :data:`~avalon.tasks.kit.predators.ROUTE_MARGIN_M`) around its home
(:func:`avalon.tasks.kit.predators.certify_avoiding`): the way the scripted agent
(``avalon/agent/scripted/avoid.py``) walks. Beyond it a route on foot is all that is promised.
Forcing (Appendix G.1): ``predator_kind`` pins the first predator's species (any of the nine,
whatever the difficulty). Small world (64 m), one grid point per metre.

The predators are a piece (:func:`obstacle`, :mod:`avalon.tasks.kit.predators`): guards in a band
round a centre, near the path across it; the task's world is that piece placed round the food,
the path from the spawn.
"""

from __future__ import annotations

from typing import Optional

import attr
import numpy as np

from avalon.datagen.world import World
from avalon.rules.animals import animal_spec
from avalon.rules.tools import TOOL_KINDS
from avalon.tasks.kit import assembly, predators
from avalon.tasks.kit.certificate import Certificate
from avalon.tasks.kit.curves import Band, Ramp
from avalon.tasks.kit.forcing import ForcedOptions, Forcing
from avalon.tasks.kit.obstacle import Constraint, Draft, ObstaclePlan
from avalon.tasks.kit.predators import PREDATOR_LADDER, ROUTE_MARGIN_M
from avalon.tasks.kit.spec import TaskSpec

WORLD_SIZE = "small"
POINTS_PER_M = 1.0
#: Full world builds (tree, scenery, checks) tried on one terrain before giving up on it.
ASSEMBLY_ATTEMPTS = 4
#: The food: the canonical apple (the task is about the predators, not the food).
FOOD_KIND = "apple"


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class AvoidKnobs:
    """Every factor of an avoid world that the difficulty d in [0, 1] sets (docs/tasks/avoid.md quotes it)."""

    #: The predators: species from the first ``1 + floor(8 d)`` of Table 3 (only bees at d = 0, all
    #: nine at d = 1); ``1 + floor(3 d)`` of them (1 to 4); the food 10-14 m from the spawn within
    #: 20 degrees of its facing at d = 0, 16-24 m anywhere round at d = 1; each predator's home
    #: 7-9 m from the food at d = 0 (outside a bee's reach of it), 2-4 m at d = 1.
    guard: predators.GuardKnobs = predators.GuardKnobs(
        species_per_unit=len(PREDATOR_LADDER) - 1,
        predators_per_unit=3,
        food_distance_m=Band(Ramp(10.0, 6.0), Ramp(14.0, 10.0)),
        food_bearing_deg=Band(Ramp(0.0), Ramp(20.0, 160.0)),
        guard_distance_m=Band(Ramp(7.0, -5.0), Ramp(9.0, -5.0)),
    )
    #: Up to this difficulty every world has a walking route outside every predator's activation radius.
    safe_route_max_difficulty: float = 0.25
    #: Training episodes are truncated after this many seconds (30 s at d = 0, 90 s at 1): a few
    #: times what walking 10-24 m round the predators and eating takes.
    training_time_limit_s: Ramp = Ramp(30.0, 60.0)


#: The avoid task's difficulty curves.
KNOBS = AvoidKnobs()


def obstacle(draft: Draft, streams: assembly.Streams, difficulty: float, constraint: Constraint,
             **drawn) -> ObstaclePlan:
    """Avoid's piece: predators of the whole ladder guarding the way across the band, no tools; up to
    ``safe_route_max_difficulty`` its requirement keeps every route outside their activation radii.
    ``drawn``: what the task's own generator drew already (``guards``, ``facing_yaw_rad``: see
    :func:`~avalon.tasks.kit.predators.guard_obstacle`). Raises ``ImpossibleWorldError`` naming the
    predator that cannot stand there."""
    return predators.guard_obstacle(draft, streams, difficulty, constraint, knobs=KNOBS.guard, ladder=PREDATOR_LADDER,
                                    safe_route=difficulty <= KNOBS.safe_route_max_difficulty, **drawn)


def build_layout(rng: np.random.Generator, difficulty: float, config: object | None = None,
                 forced: Optional[ForcedOptions] = None) -> predators.GuardLayout:
    """The avoid world for ``difficulty``: :func:`obstacle` placed round the food; raises
    ``ImpossibleWorldError`` if the terrain offers no place that keeps the guarantees. ``forced``
    may pin ``predator_kind`` (any predator), the first predator's species; ``ValueError`` if that
    species cannot guard the food at ``difficulty`` (see :func:`check_forced_kind`)."""
    predator_kind = (forced or {}).get("predator_kind")
    if predator_kind is not None:
        check_forced_kind(predator_kind, difficulty)
    return predators.build_guarded_food(
        rng, difficulty, config, task="avoid", knobs=KNOBS.guard, ladder=PREDATOR_LADDER, obstacle=obstacle,
        food_kind=FOOD_KIND, world_size=WORLD_SIZE, points_per_m=POINTS_PER_M, max_builds=ASSEMBLY_ATTEMPTS,
        forced_kind=predator_kind,
    )


def check_forced_kind(predator_kind: str, difficulty: float) -> None:
    """``ValueError`` naming the species and the difficulties it can be forced at, when a route
    outside its activation radius (required up to ``safe_route_max_difficulty``) cannot exist: its
    radius and the route's margin reach past the farthest a guard stands from the food."""
    radius_m = animal_spec(predator_kind).activation_radius_m
    farthest_m = KNOBS.guard.guard_distance_m.at(difficulty)[1]
    if difficulty <= KNOBS.safe_route_max_difficulty and radius_m + ROUTE_MARGIN_M >= farthest_m:
        fitting = [kind for kind in PREDATOR_LADDER if animal_spec(kind).activation_radius_m + ROUTE_MARGIN_M < farthest_m]
        raise ValueError(
            f"avoid at difficulty {difficulty:g}: forced predator_kind={predator_kind!r} (activation radius {radius_m:g} m) "
            f"cannot be walked round: up to difficulty {KNOBS.safe_route_max_difficulty:g} the food must be reached "
            f"outside every predator's reach plus {ROUTE_MARGIN_M:g} m, and guards stand at most {farthest_m:g} m from it; "
            f"force it above difficulty {KNOBS.safe_route_max_difficulty:g}, or force one of {', '.join(fitting) or 'none'}")


def certificate(world: World) -> Certificate:
    """The avoid world's certificate: predators there and no tools; then the walking route that keeps
    out of every predator's reach (:func:`~avalon.tasks.kit.predators.certify_avoiding`), which up to
    ``safe_route_max_difficulty`` must exist, else any walking route to the food."""
    food = world.food[0]
    problem = ""
    if not predators.predators(world):
        problem = "the avoid world has no predator"
    elif any(entity.kind in TOOL_KINDS for entity in world.entities):
        problem = "the avoid world holds tools"
    if problem:
        return Certificate(required=frozenset(), allowed=predators.WALK, solvable=False, bypassed=False,
                           route=None, reason=problem)
    safe = predators.certify_avoiding(world, food)
    if safe.solvable or world.difficulty <= KNOBS.safe_route_max_difficulty:
        return safe
    return predators.certify_on_foot(world, food)


TASK = TaskSpec(
    name="avoid", generate=build_layout, knobs=KNOBS, certificate=certificate, obstacle=obstacle,
    food_visible_from_spawn=True, food_reachable_on_foot=True,
    forcing=(Forcing("predator_kind", PREDATOR_LADDER),),  # one forced world per predator (Appendix G.1)
    table_row=13, in_sets_from_version=3, reference_agent="avalon.agent.scripted.avoid:AvoidFollower",
)
