"""The scripted reference agents as one evaluation policy (the benchmark's 1 until human recordings
exist, section 5.4).

A scripted agent (``avalon.agent.scripted``) reads what a batched policy never sees: its world's
World spec, from which it takes its task's route, and each step's ``info``. So
:class:`ReferencePolicy` has the runner's episode hooks (:mod:`avalon.evaluation.policies`): at an
episode's start it builds the World spec of the world in play from its request (the same bytes the
world supply generated) and the route, once per world; then each env's agent acts on its own row.
It plays the tasks whose spec names a reference agent (:func:`has_reference`); the runner skips
the others. An agent that gives up stands still until the episode ends, so its score is measured
as any policy's is; the episode's note says where and why it stopped, and beside it the
certificate's verdict on the world (:func:`certificate_verdict`): a world the certificate solves is
the agent's gap, one it cannot (or one no certificate examines) the world's or nobody's.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from avalon.agent.scripted import ScriptedPolicy
from avalon.agent.scripted.actions import action
from avalon.datagen.world import World
from avalon.evaluation.policies import Batch
from avalon.evaluation.results import EpisodeResult
from avalon.tasks import TASKS, build_world, check_task
from avalon.tasks.kit.route import Route
from avalon.training.world_supply import WorldRequest

#: The action space the scripted agents act in.
REFERENCE_ACTION_SPACE = ScriptedPolicy.action_space


#: What an agent that raised does for the rest of its episode.
STAND_STILL = action()
#: Separates an episode's note (where and why the agent stopped) from the certificate's verdict.
VERDICT_SEPARATOR = " | certificate: "


def has_reference(task: str) -> bool:
    """Whether a scripted reference agent plays ``task`` (its ``TaskSpec.reference_agent``)."""
    return check_task(task).reference_agent is not None


def reference_tasks() -> list[str]:
    """The registered tasks a scripted reference agent plays, sorted."""
    return sorted(name for name in TASKS if has_reference(name))


def check_reference_tasks(tasks: Sequence[str]) -> None:
    """``ValueError`` naming the tasks of ``tasks`` that no reference agent plays and listing the
    tasks that have one."""
    missing = [task for task in tasks if not has_reference(task)]
    if missing:
        raise ValueError(f"--policy reference: no reference agent for task(s) {', '.join(missing)} (TaskSpec.reference_agent "
                         f"is None); the tasks that have one: {', '.join(reference_tasks())}")


def route_and_verdict(world: World) -> tuple[Route, str]:
    """The route the reference agent follows in ``world`` (its task's reference route, else its
    certificate's) and the certificate's verdict on the world, said beside a failure: certified
    (the route's skills), so a failure is the agent's gap; or no certificate to say. ``ValueError``
    when neither gives a route (the certificate's reason: the world's gap)."""
    spec = check_task(world.task)
    if spec.reference_agent is None:
        check_reference_tasks([world.task])
    if spec.certificate is None:
        if spec.reference_route is None:
            raise ValueError(f"task {world.task!r} declares neither a reference route nor a certificate, so no route")
        return spec.reference_route(world), f"none ({world.task} declares no certificate): the gap is unexamined"
    certificate = spec.certificate(world)
    if certificate.route is None:
        raise ValueError(f"the {world.task} world of difficulty {world.difficulty} and seed {world.seed} has no route: "
                         f"the certificate's verdict: {certificate.reason} (the world's gap)")
    skills = ", ".join(step.skill for step in certificate.route.steps) or "no steps"
    route = certificate.route if spec.reference_route is None else spec.reference_route(world)
    return route, f"solvable ({skills}): {AGENTS_GAP}"


#: How a verdict names whose the gap is.
AGENTS_GAP = "the agent's gap"


def solved_lines(episodes: Sequence[EpisodeResult]) -> list[str]:
    """Per task, the share of worlds the reference agent solved, then each failed world with where
    its agent stopped and the certificate's verdict (the note :meth:`ReferencePolicy.end_episode` wrote)."""
    by_task: dict[str, list[EpisodeResult]] = {}
    for episode in episodes:
        by_task.setdefault(episode.task, []).append(episode)
    lines = ["worlds the reference agents solved, per task (each failure: where the agent stopped | the certificate's verdict):"]
    for task, group in by_task.items():
        failed = [e for e in group if not e.success]
        agents = sum(AGENTS_GAP in e.note.partition(VERDICT_SEPARATOR)[2] for e in failed)
        gaps = f"; failed: {agents} the agent's gap, {len(failed) - agents} not the agent's" if failed else ""
        lines.append(f"  {task}: {len(group) - len(failed)} / {len(group)} solved ({(len(group) - len(failed)) / len(group):.0%}){gaps}")
        lines.extend(f"    {e.key}: {e.note or 'failed (no note)'}" for e in failed)
    return lines


class ReferencePolicy:
    """One scripted agent per env, each given its world's spec and route at the episode's start.

    ``worlds``: World specs already built, by request (the sets' worker has them); any other world
    is built from its request. A world whose spec or route cannot be made raises from
    :meth:`start_episode`, and the runner gives that world up without rerunning it.
    """

    action_space = REFERENCE_ACTION_SPACE

    def __init__(self, worlds: Mapping[WorldRequest, World] | None = None) -> None:
        self._worlds = dict(worlds or {})
        self._routes: dict[int, tuple[WorldRequest, World, Any, str]] = {}  # per env: the last world, its route and verdict
        self._agents: dict[int, ScriptedPolicy] = {}
        self._raised: dict[int, str] = {}  # per env: what its agent raised this episode

    def plays(self, task: str) -> bool:
        return has_reference(task)

    def start_episode(self, env: int, request: WorldRequest, observation: Batch, info: Mapping[str, Any]) -> None:
        known = self._routes.get(env)
        if known is None or known[0] != request:  # a rerun after a crash keeps its world's route
            world = self._worlds.get(request)
            if world is None:
                world = build_world(request.task, request.difficulty, request.seed, forced=request.forced)
            known = (request, world, *route_and_verdict(world))
            self._routes[env] = known
        route = known[2]
        agent = ScriptedPolicy(find_route=lambda _world: route)
        agent.reset(known[1], observation, info)
        self._agents[env] = agent
        self._raised.pop(env, None)

    def act(self, observations: Batch, deterministic: bool = False, *, envs: Sequence[int],
            infos: Sequence[Mapping[str, Any]]) -> Batch:
        rows = [self._act(env, {key: value[row] for key, value in observations.items()}, info)
                for row, (env, info) in enumerate(zip(envs, infos))]
        return {key: np.stack([row[key] for row in rows]) for key in rows[0]}

    def _act(self, env: int, observation: Mapping[str, Any], info: Mapping[str, Any]):
        """The env's agent's action; an agent that raises stands still for the rest of its episode
        (its note says what it raised), so one agent's error does not end the evaluation."""
        if env not in self._raised:
            try:
                return self._agents[env].act(observation, info)
            except Exception as error:  # any error of an agent is its episode's failure
                self._raised[env] = f"the agent raised {type(error).__name__}: {error}"
        return STAND_STILL

    def end_episode(self, env: int, observation: Batch, info: Mapping[str, Any]) -> str:
        """Nothing after a success; else where and why the agent stopped, and the certificate's verdict."""
        agent = self._agents.pop(env)
        raised = self._raised.pop(env, None)
        if info["success"]:
            return ""
        return (raised or agent.result.describe()) + VERDICT_SEPARATOR + self._routes[env][3]
