"""The route a scripted agent follows in a world a registered task made, read from the task's spec.

- A task with a reference route of its own (``TaskSpec.reference_route``, ``world -> Route``):
  that route (eat's: no steps, the food is reached on foot; :class:`EatFood` walks to it).
- Otherwise its solvability certificate's route (``TaskSpec.certificate``: the terrain, object and
  animal tasks), found in the World spec with the task's required skills and fall limits.

A task without a reference agent (``TaskSpec.reference_agent`` None, as the trivial test world)
has no route.
"""

from __future__ import annotations

from typing import Optional

from avalon.datagen.world import World
from avalon.tasks import build_world, check_task
from avalon.tasks.kit.route import Route
from avalon.tasks.kit.spec import TaskSpec


def task_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """The world of ``task`` at ``difficulty`` for ``seed`` and its reference agent's route to the food."""
    _reference_spec(task)
    world = build_world(task, difficulty, seed, config)
    return world, route_for(world)


def walk_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """:func:`task_route` for a task whose route is not a certificate's (its own reference route, a
    walk to food reached on foot); ``ValueError`` for a certified task."""
    if _reference_spec(task).certificate is not None:
        raise ValueError(f"task {task!r} has no walking route of its own: its route comes from the solvability "
                         f"certificate (task_route)")
    return task_route(task, difficulty, seed, config)


def route_for(world: World) -> Route:
    """The route to the food of ``world``, made by ``build_world`` (its task, difficulty and seed
    name it): its task's reference route, else its certificate's. ``ValueError`` for a task without
    a reference agent or with neither, or when a certified task's world has no route (it was not
    made by its generator, which rejects those)."""
    spec = _reference_spec(world.task)
    if spec.reference_route is not None:
        return spec.reference_route(world)
    if spec.certificate is None:
        raise ValueError(f"task {world.task!r} declares neither a reference route nor a certificate, so no route")
    certificate = spec.certificate(world)
    if certificate.route is None:
        raise ValueError(f"route_for: the {world.task} world of difficulty {world.difficulty} and seed "
                         f"{world.seed} has no route: {certificate.reason}")
    return certificate.route


def _reference_spec(task: str) -> TaskSpec:
    spec = check_task(task)
    if spec.reference_agent is None:
        raise ValueError(f"task {task!r} has no reference agent (TaskSpec.reference_agent is None), so no route")
    return spec
