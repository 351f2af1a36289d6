"""A scripted agent as a per-env policy over many episodes: at each episode's start it is given
the World spec (evaluation and the fixed evaluation sets generate it from (task, difficulty,
seed)), finds its route and follows it with its task's reference agent (:func:`follower_for`).

Acting over a batch of envs (``act(observations)`` as ``avalon.evaluation.policies.Policy`` has it) is
for later: one ``ScriptedPolicy`` per env.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

from avalon.agent.scripted.actions import ACTION_SPACE, Action
from avalon.agent.scripted.follower import FollowResult, RouteFollower
from avalon.agent.scripted.task_routes import route_for
from avalon.datagen.world import World
from avalon.tasks import check_task
from avalon.tasks.kit.route import Route
from avalon.tasks.kit.spec import resolve_reference


def follower_for(world: World, route: Route) -> RouteFollower:
    """The follower of ``route`` in ``world``: its task's reference agent (``TaskSpec.reference_agent``,
    a ``(world, route) -> follower`` callable); ``ValueError`` for a task that has none."""
    spec = check_task(world.task)
    if spec.reference_agent is None:
        raise ValueError(f"follower_for: task {world.task!r} has no reference agent (TaskSpec.reference_agent is None)")
    return resolve_reference(spec.reference_agent)(world, route)


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
