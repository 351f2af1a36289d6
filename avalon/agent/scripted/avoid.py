"""``AvoidFollower``: the scripted agent of the predator tasks (avoid, fight at low difficulty).

It walks its route like a :class:`~avalon.agent.scripted.follower.RouteFollower` (the
certificate's route keeps outside every predator's activation radius around its home where one
exists: :func:`avalon.tasks.kit.predators.certify_avoiding`), then eats. Predators that wander
(bees, alligators, eagles) can come nearer the route than their homes, so each step it reads the
animals' live positions and states from ``info["animals"]`` (ground truth: x, y, z, state, hits
per animal in the world's entity order) and, while a predator that is not knocked out stands
within its activation radius plus :data:`WAIT_MARGIN_M` of where one more step would take the
body, and that step would bring it nearer, it stands still and waits for it to wander off. It
waits at most :data:`MAX_WAIT_STEPS` steps in an episode, then walks on regardless (a bee's
sting costs a quarter of the energy, not the episode).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from avalon.agent.scripted.actions import WALK_PER_STEP_M, Action, action
from avalon.agent.scripted.animal_watch import GuardWatch
from avalon.agent.scripted.follower import RouteFollower
from avalon.agent.scripted.primitive import Primitive
from avalon.datagen.world import Entity, World
from avalon.rules.animals import STATE_ABSENT, STATE_EATEN, STATE_KNOCKED_OUT
from avalon.tasks.kit.predators import activation_radius_m
from avalon.tasks.kit.route import Route

#: It waits while a step would bring the body within a predator's activation radius plus this, metres.
WAIT_MARGIN_M = 1.0
#: It waits at most this many steps in an episode (30 s), then walks on whatever the predators do.
MAX_WAIT_STEPS = 300
#: States in which an animal is no threat.
HARMLESS_STATES = (STATE_ABSENT, STATE_KNOCKED_OUT, STATE_EATEN)


class AvoidFollower(RouteFollower):
    """Follows ``route`` through ``world`` and eats, waiting while a live predator is near its way."""

    def __init__(self, world: World, route: Route, foods: Optional[Sequence[Entity]] = None,
                 primitives: Optional[Sequence[Primitive]] = None) -> None:
        super().__init__(world, route, foods, primitives)
        self.watch = GuardWatch(world)
        #: Per predator of the world: its activation radius.
        self._radii = [activation_radius_m(guard) for guard in self.watch.entities]
        self.waited_steps = 0

    def reset(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        super().reset(observation, info)
        self.waited_steps = 0

    def threat(self, info: Mapping[str, Any]) -> Optional[int]:
        """The index (among the world's animals) of a predator the body's next step would walk
        towards within its activation radius plus :data:`WAIT_MARGIN_M`, or None."""
        self.watch.update(info)
        body = self._situation.body
        x, _, z = body.position
        fx, fz = body.facing
        ahead = (x + fx * WALK_PER_STEP_M, z + fz * WALK_PER_STEP_M)
        for k, radius in enumerate(self._radii):
            if self.watch.state(k) in HARMLESS_STATES:
                continue
            gx, _, gz = self.watch.position(k)
            now = math.hypot(gx - x, gz - z)
            then = math.hypot(gx - ahead[0], gz - ahead[1])
            if then < radius + WAIT_MARGIN_M and then < now:
                return self.watch.slots[k]
        return None

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action:
        """Wait (do nothing) while :meth:`threat` finds a predator, up to :data:`MAX_WAIT_STEPS`; else
        the route's next action."""
        self.observe(observation, info)
        if self.waited_steps < MAX_WAIT_STEPS and not self._situation.body.success and self.threat(info) is not None:
            self.waited_steps += 1
            return action()
        return super().act(observation, info)
