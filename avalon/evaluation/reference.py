"""The scripted reference agents as one evaluation policy (the benchmark's 1 until human recordings
exist, section 5.4).

A scripted agent (``avalon.agent.scripted``) reads what a batched policy never sees: its world's
World spec, from which it takes its task's route, and each step's ``info``. So
:class:`ReferencePolicy` has the runner's episode hooks (:mod:`avalon.evaluation.policies`): at an
episode's start it builds the World spec of the world in play from its request (the same bytes the
world supply generated) and the route, once per world; then each env's agent acts on its own row.
It plays the tasks whose spec names a reference agent (:func:`has_reference`); the runner skips
the others. An agent that gives up stands still until the episode ends, so its score is measured
as any policy's is; the episode's note says where and why it stopped.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from avalon.agent.scripted import ScriptedPolicy, route_for
from avalon.datagen.world import World
from avalon.evaluation.policies import Batch
from avalon.tasks import build_world, check_task
from avalon.training.world_supply import WorldRequest

#: The action space the scripted agents act in.
REFERENCE_ACTION_SPACE = ScriptedPolicy.action_space


def has_reference(task: str) -> bool:
    """Whether a scripted reference agent plays ``task`` (its ``TaskSpec.reference_agent``)."""
    return check_task(task).reference_agent is not None


class ReferencePolicy:
    """One scripted agent per env, each given its world's spec and route at the episode's start.

    ``worlds``: World specs already built, by request (the sets' worker has them); any other world
    is built from its request. A world whose spec or route cannot be made raises from
    :meth:`start_episode`, and the runner gives that world up without rerunning it.
    """

    action_space = REFERENCE_ACTION_SPACE

    def __init__(self, worlds: Mapping[WorldRequest, World] | None = None) -> None:
        self._worlds = dict(worlds or {})
        self._routes: dict[int, tuple[WorldRequest, World, Any]] = {}  # per env: the last world and its route
        self._agents: dict[int, ScriptedPolicy] = {}

    def plays(self, task: str) -> bool:
        return has_reference(task)

    def start_episode(self, env: int, request: WorldRequest, observation: Batch, info: Mapping[str, Any]) -> None:
        known = self._routes.get(env)
        if known is None or known[0] != request:  # a rerun after a crash keeps its world's route
            world = self._worlds.get(request)
            if world is None:
                world = build_world(request.task, request.difficulty, request.seed, forced=request.forced)
            known = (request, world, route_for(world))
            self._routes[env] = known
        route = known[2]
        agent = ScriptedPolicy(find_route=lambda _world: route)
        agent.reset(known[1], observation, info)
        self._agents[env] = agent

    def act(self, observations: Batch, deterministic: bool = False, *, envs: Sequence[int],
            infos: Sequence[Mapping[str, Any]]) -> Batch:
        rows = [self._agents[env].act({key: value[row] for key, value in observations.items()}, info)
                for row, (env, info) in enumerate(zip(envs, infos))]
        return {key: np.stack([row[key] for row in rows]) for key in rows[0]}

    def end_episode(self, env: int, observation: Batch, info: Mapping[str, Any]) -> str:
        """Nothing after a success; else where and why the agent stopped."""
        agent = self._agents.pop(env)
        return "" if info["success"] else agent.result.describe()
