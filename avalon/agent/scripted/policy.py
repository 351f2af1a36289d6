"""A scripted agent as a per-env policy over many episodes: at each episode's start it is given
the World spec (evaluation and the fixed evaluation sets generate it from (task, difficulty,
seed)), finds its route and follows it with a :class:`RouteFollower`.

Acting over a batch of envs (``act(observations)`` as ``avalon.evaluation.policies.Policy`` has it) is
for later: one ``ScriptedPolicy`` per env.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

from avalon.agent.scripted.actions import ACTION_SPACE, Action
from avalon.agent.scripted.avoid import AvoidFollower
from avalon.agent.scripted.bridge import LogBridgeFollower
from avalon.agent.scripted.carry_task import carry_follower
from avalon.agent.scripted.follower import FollowResult, RouteFollower
from avalon.agent.scripted.task_routes import route_for
from avalon.agent.scripted.throw import ThrowFollower
from avalon.datagen.world import World
from avalon.tasks.kit.route import Route

#: Tasks whose routes need more than a :class:`RouteFollower` (items to use on the way), and the
#: follower that walks them.
TASK_FOLLOWERS: dict[str, Callable[[World, Route], RouteFollower]] = {
    "bridge": LogBridgeFollower, "avoid": AvoidFollower, "fight": AvoidFollower, "hunt": ThrowFollower,
    "throw": ThrowFollower, "carry": carry_follower}


def follower_for(world: World, route: Route) -> RouteFollower:
    """The follower of ``route`` in ``world``: its task's (``TASK_FOLLOWERS``), else a :class:`RouteFollower`."""
    return TASK_FOLLOWERS.get(world.task, RouteFollower)(world, route)


class ScriptedPolicy:
    """One env's scripted agent: ``reset(world, observation, info)`` at each episode's start, then
    ``act(observation, info)`` each step. ``find_route(world)`` gives the route (default: the walk
    routes of eat and move worlds, :func:`route_for`)."""

    #: The action space its actions belong to (``EnvConfig(action_space=...)``).
    action_space = ACTION_SPACE

    def __init__(self, find_route: Callable[[World], Route] = route_for) -> None:
        self.find_route = find_route
        self._follower: Optional[RouteFollower] = None

    def reset(self, world: World, observation: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        """Start an episode in ``world`` (the spec of the world the env has just reset to)."""
        self._follower = follower_for(world, self.find_route(world))
        self._follower.reset(observation, info)

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action:
        if self._follower is None:
            raise RuntimeError("ScriptedPolicy.act before reset: call reset(world, observation, info) at each episode's start")
        return self._follower.act(observation, info)

    @property
    def result(self) -> FollowResult:
        """How far this episode's follower has got."""
        if self._follower is None:
            raise RuntimeError("ScriptedPolicy.result before reset")
        return self._follower.result
