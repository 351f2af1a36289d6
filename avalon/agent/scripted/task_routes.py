"""The route a scripted agent follows in a world a registered task made.

- Tasks with a solvability certificate (``TaskSpec.certificate``: the terrain tasks): the
  certificate's route (:mod:`avalon.tasks.kit.certificate`), found in the World spec with the task's
  required skills and fall limits.
- ``eat`` and the open ``move`` worlds: no steps (the food is reached on foot; :class:`EatFood`
  walks to it).
- ``move`` worlds with a chasm: walk to the causeway's start, along each of its straight segments
  to its end on the plateau (:class:`~avalon.tasks.move.Causeway`, rebuilt from the world's seed
  with the registry's retry rule, so it is the causeway of the very world ``build_world`` makes).
"""

from __future__ import annotations

from typing import Optional

from avalon.agent.scripted.ground import Ground
from avalon.datagen.world import World
from avalon.tasks import build_world, check_difficulty, check_seed, check_task, move, with_retries
from avalon.tasks.kit.route import Route, RouteStep

#: The tasks whose routes are read from how their worlds were built (no certificate).
WALKING_TASKS = ("eat", "move")


def task_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """The world of ``task`` at ``difficulty`` for ``seed`` and the route to its food."""
    spec = check_task(task)
    if spec.certificate is None:
        _walking_task(task)
    world = build_world(task, difficulty, seed, config)
    return world, route_for(world, config)


def walk_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """The world of ``task`` (eat or move) at ``difficulty`` for ``seed`` and a walking route to its food."""
    world = build_world(_walking_task(task), difficulty, seed, config)
    return world, route_for(world, config)


def route_for(world: World, config: Optional[object] = None) -> Route:
    """The route to the food of ``world``, made by ``build_world`` (its task, difficulty and seed
    name it; ``config`` is the one it was made with): the certificate's route for a task with one,
    else the walking route of an eat or move world. ``ValueError`` when a certified task's world
    has no route (it was not made by its generator, which rejects those)."""
    spec = check_task(world.task)
    if spec.certificate is not None:
        certificate = spec.certificate(world)
        if certificate.route is None:
            raise ValueError(f"route_for: the {world.task} world of difficulty {world.difficulty} and seed "
                             f"{world.seed} has no route: {certificate.reason}")
        return certificate.route
    task = _walking_task(world.task)
    difficulty, seed = check_difficulty(world.difficulty), check_seed(world.seed)
    if task != "move" or not move.has_chasm(difficulty):
        return Route(start=world.spawn_position, steps=())
    layout = with_retries(lambda rng: move.build_layout(rng, difficulty, config), task, difficulty, seed)
    if layout.world.spawn_position != world.spawn_position:
        raise ValueError(f"route_for: the move world of difficulty {difficulty} and seed {seed} has another spawn than "
                         f"the one given: was it made with another config?")
    ground = Ground(world)
    steps = tuple(RouteStep("walk", (x, ground.height(x, z), z)) for x, z in layout.crossing.causeway.points)
    return Route(start=world.spawn_position, steps=steps)


def _walking_task(task: str) -> str:
    check_task(task)
    if task not in WALKING_TASKS:
        raise ValueError(f"task {task!r} is not one of {WALKING_TASKS}: its route comes from the solvability certificate")
    return task
