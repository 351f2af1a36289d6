"""A door's mechanism, latch and locks from a difficulty (the paper's F.1, **open**: mechanism, latch
and locks harder with difficulty; at d = 1 all three locks are possible). ``docs/doors.md`` shows
the table and the frequencies it gives.

A difficulty d is split into three sub-difficulties whose weighted mean is d (weights
:data:`SUB_DIFFICULTY_WEIGHTS`: locks weigh most), each spread round d. Then each choice is drawn
with weights proportional to a normal density (standard deviation :data:`SPREAD`) at its
sub-difficulty, over candidates each placed at a difficulty of its own (:data:`MECHANISM_LEVELS`,
:data:`LOCK_LEVELS`, :data:`LATCH_LEVELS`): the mechanism first, then the locks among those the
mechanism can hold, then the latch (``"none"`` only for a door without locks). The hinge side is
a fair coin.
"""

from __future__ import annotations

import math

import attr
import numpy as np

from avalon.datagen.doors import door_entity
from avalon.datagen.world import Entity, Vector3
from avalon.rules import doors

#: Weights of the (locks, latch, mechanism) sub-difficulties in their mean.
SUB_DIFFICULTY_WEIGHTS = (4.0, 0.5, 1.0)
#: How far a sub-difficulty strays from d before the weighted mean is restored (uniform, ±).
SUB_DIFFICULTY_SPREAD = 0.25
#: Standard deviation of the normal density that weighs the candidates.
SPREAD = 0.125
#: Each mechanism's difficulty.
MECHANISM_LEVELS: dict[str, float] = {"hinged_both": 0.25, "hinged_push": 0.5, "hinged_pull": 0.75, "sliding": 1.0}
#: Each set of locks' difficulty (a set the mechanism cannot hold is left out).
LOCK_LEVELS: dict[tuple[str, ...], float] = {
    (): 0.125,
    ("button",): 0.25,
    ("bolt",): 0.45,
    ("bar",): 0.675,
    ("bar", "button"): 0.725,
    ("bolt", "button"): 0.75,
    ("bolt", "bar"): 0.8,
    ("bolt", "bar", "button"): 0.925,
}
#: Each latch's difficulty ("none" only without locks).
LATCH_LEVELS: dict[str, float] = {"none": 0.25, "once": 0.5, "always": 0.75}


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class DoorParams:
    """What a door is, apart from where: its mechanism, hinge side, latch and locks."""

    mechanism: str
    hinge_side: str
    latch: str
    locks: tuple[str, ...]

    def entity(self, name: str, centre: Vector3, yaw_rad: float, width_m: float, height_m: float,
               wall_thickness_m: float) -> Entity:
        """The door entity in a doorway (``avalon.datagen.doors.door_entity``)."""
        return door_entity(name, centre, yaw_rad, width_m, height_m, mechanism=self.mechanism,
                           wall_thickness_m=wall_thickness_m, hinge_side=self.hinge_side, latch=self.latch,
                           locks=self.locks)


def door_params(difficulty: float, rng: np.random.Generator) -> DoorParams:
    """A door for ``difficulty`` in [0, 1], drawn from ``rng``."""
    if not (isinstance(difficulty, (int, float)) and 0.0 <= difficulty <= 1.0):
        raise ValueError(f"difficulty {difficulty!r} must be a number in [0, 1]")
    lock_d, latch_d, mechanism_d = split_difficulty(float(difficulty), rng)
    mechanism = _weighted_choice(rng, MECHANISM_LEVELS, mechanism_d)
    holdable = doors.MECHANISMS[mechanism].lock_kinds
    lock_sets = {locks: level for locks, level in LOCK_LEVELS.items() if set(locks) <= set(holdable)}
    locks = _weighted_choice(rng, lock_sets, lock_d)
    latches = {latch: level for latch, level in LATCH_LEVELS.items() if latch != "none" or not locks}
    latch = _weighted_choice(rng, latches, latch_d)
    hinge_side = doors.SIDES[int(rng.integers(len(doors.SIDES)))]
    return DoorParams(mechanism=mechanism, hinge_side=hinge_side, latch=latch, locks=locks)


def split_difficulty(difficulty: float, rng: np.random.Generator) -> tuple[float, ...]:
    """Sub-difficulties in [0, 1], one per weight of :data:`SUB_DIFFICULTY_WEIGHTS`, whose weighted
    mean is ``difficulty`` (as nearly as clipping to [0, 1] allows)."""
    weights = np.array(SUB_DIFFICULTY_WEIGHTS)
    offsets = rng.uniform(-SUB_DIFFICULTY_SPREAD, SUB_DIFFICULTY_SPREAD, size=len(weights))
    offsets -= float(np.dot(weights, offsets) / weights.sum())
    return tuple(float(v) for v in np.clip(difficulty + offsets, 0.0, 1.0))


def _weighted_choice(rng: np.random.Generator, levels: dict, at: float):
    keys = list(levels)
    weights = np.array([math.exp(-0.5 * ((levels[key] - at) / SPREAD) ** 2) for key in keys])
    return keys[int(rng.choice(len(keys), p=weights / weights.sum()))]


def door_frequencies(difficulty: float, draws: int = 20_000, seed: int = 0) -> dict[str, dict[object, float]]:
    """How often each mechanism, latch, lock set and lock count comes at ``difficulty`` over ``draws``
    doors (for ``docs/doors.md``)."""
    rng = np.random.default_rng(seed)
    counts: dict[str, dict[object, float]] = {"mechanism": {}, "latch": {}, "locks": {}, "lock count": {}}
    for _ in range(draws):
        params = door_params(difficulty, rng)
        for table, key in (("mechanism", params.mechanism), ("latch", params.latch), ("locks", params.locks),
                           ("lock count", len(params.locks))):
            counts[table][key] = counts[table].get(key, 0) + 1 / draws
    return counts
