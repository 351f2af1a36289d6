"""Where some of a world's animals are now, as ``info["animals"]`` reports them (ground truth: x,
y, z, state, hits; one row per animal in the World spec's order): the prey a hunter throws at
(:class:`PreyWatch`), the guards a fighter strikes (:class:`GuardWatch`). Call ``update`` with each
step's ``info``; a :class:`WatchingFollower` does."""

from __future__ import annotations

import collections
import math
from collections.abc import Mapping
from typing import Any, Optional

import attr
import numpy as np

from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.primitive import PrimitiveFailed
from avalon.datagen.world import Entity, World
from avalon.rules.animals import PREY_KINDS, STATE_EATEN, STATE_KNOCKED_OUT, animal_spec

#: An animal's velocity is read over this many steps.
VELOCITY_STEPS = 3


class AnimalWatch:
    """The animals of a world that :meth:`watches` picks, numbered 0, 1, ... in world order."""

    def __init__(self, world: World) -> None:
        self.world = world
        #: Rows of ``info["animals"]`` of the watched animals, and their entities.
        self.slots = tuple(i for i, animal in enumerate(world.animals) if self.watches(animal))
        self.entities = tuple(world.animals[i] for i in self.slots)
        self._rows: Optional[np.ndarray] = None
        self._history: collections.deque = collections.deque(maxlen=VELOCITY_STEPS + 1)

    @staticmethod
    def watches(animal: Entity) -> bool:
        """Whether this watch follows ``animal`` (every animal here; subclasses choose)."""
        return True

    def update(self, info: Mapping[str, Any]) -> None:
        self._rows = np.asarray(info["animals"], dtype=np.float64)
        self._history.append(self._rows)

    def _row(self, k: int) -> np.ndarray:
        if self._rows is None:
            raise PrimitiveFailed(f"no animals reported yet ({type(self).__name__}.update was not called)")
        return self._rows[self.slots[k]]

    def position(self, k: int) -> tuple[float, float, float]:
        """Where animal ``k`` is now (its centre), metres."""
        x, y, z = (float(v) for v in self._row(k)[:3])
        return x, y, z

    def lead(self, k: int, steps: float) -> tuple[float, float]:
        """Where animal ``k`` will be (x, z) in ``steps`` steps if it keeps its velocity over the
        last :data:`VELOCITY_STEPS` steps, metres."""
        x, _, z = self.position(k)
        if len(self._history) < 2:
            return x, z
        first = self._history[0][self.slots[k]]
        per_step = (len(self._history) - 1)
        return x + (x - float(first[0])) / per_step * steps, z + (z - float(first[2])) / per_step * steps

    def state(self, k: int) -> int:
        return int(round(float(self._row(k)[3])))

    def hits(self, k: int) -> int:
        return int(round(float(self._row(k)[4])))

    def is_down(self, k: int) -> bool:
        """Whether animal ``k`` is knocked out (or already eaten)."""
        return self.state(k) in (STATE_KNOCKED_OUT, STATE_EATEN)

    def is_eaten(self, k: int) -> bool:
        return self.state(k) == STATE_EATEN


class PreyWatch(AnimalWatch):
    """The prey of a world."""

    @staticmethod
    def watches(animal: Entity) -> bool:
        return animal.kind in PREY_KINDS

    def as_food(self, k: int) -> Entity:
        """Prey ``k`` where it lies now, as the food entity the eating of :mod:`~avalon.agent.scripted.eat` aims at."""
        entity = self.entities[k]
        size = animal_spec(entity.kind).size_m
        return attr.evolve(entity, position=self.position(k), params={"radius": float(min(size[0], size[2])) / 2.0})


class GuardWatch(AnimalWatch):
    """The predators of a world."""

    @staticmethod
    def watches(animal: Entity) -> bool:
        return animal_spec(animal.kind).is_predator

    def half_length_m(self, k: int) -> float:
        """Half the longest side of guard ``k``: its reach from its centre, metres."""
        size = animal_spec(self.entities[k].kind).size_m
        return float(max(size[0], size[2])) / 2.0

    def near_end_m(self, k: int, body_xz: tuple[float, float]) -> float:
        """How far guard ``k``'s near end is from the body's axis, metres."""
        x, _, z = self.position(k)
        return math.dist(body_xz, (x, z)) - self.half_length_m(k)


class WatchingFollower(RouteFollower):
    """A :class:`RouteFollower` whose ``watch`` (set before ``RouteFollower.__init__``) takes in
    every step's ``info`` at the reset and at each observation."""

    watch: AnimalWatch

    def reset(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        self.watch.update(info)
        super().reset(observation, info)

    def observe(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        self.watch.update(info)
        super().observe(observation, info)
