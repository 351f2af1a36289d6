"""The route a scripted agent follows in a world a registered task made, read from the task's spec.

- A task with a reference route of its own (``TaskSpec.reference_route``, ``world -> Route``):
  that route (eat's: no steps, the food is reached on foot; :class:`EatFood` walks to it).
- Otherwise its solvability certificate's route (``TaskSpec.certificate``: the terrain, object and
  animal tasks), found in the World spec with the task's required skills and fall limits.
- A task with neither (move, until its spec declares its reference route): the walk to the
  causeway's start and along each of its straight segments to its end on the plateau
  (:class:`~avalon.tasks.move.Causeway`, rebuilt from the world's seed with the registry's retry
  rule, so it is the causeway of the very world ``build_world`` makes); none in open move worlds.

A task without a reference agent (``TaskSpec.reference_agent`` None, as the trivial test world)
has no route.
"""

from __future__ import annotations

from typing import Optional

from avalon.agent.scripted.ground import Ground
from avalon.datagen.world import World
from avalon.tasks import build_world, check_difficulty, check_seed, check_task, with_retries
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.spec import TaskSpec


def task_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """The world of ``task`` at ``difficulty`` for ``seed`` and its reference agent's route to the food."""
    _reference_spec(task)
    world = build_world(task, difficulty, seed, config)
    return world, route_for(world, config)


def walk_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """:func:`task_route` for a task whose route is not a certificate's (its own reference route, a
    walk to food reached on foot); ``ValueError`` for a certified task."""
    if _reference_spec(task).certificate is not None:
        raise ValueError(f"task {task!r} has no walking route of its own: its route comes from the solvability "
                         f"certificate (task_route)")
    return task_route(task, difficulty, seed, config)


def route_for(world: World, config: Optional[object] = None) -> Route:
    """The route to the food of ``world``, made by ``build_world`` (its task, difficulty and seed
    name it; ``config`` is the one it was made with): its task's reference route, else its
    certificate's. ``ValueError`` for a task without a reference agent, or when a certified task's
    world has no route (it was not made by its generator, which rejects those)."""
    spec = _reference_spec(world.task)
    if spec.reference_route is not None:
        return spec.reference_route(world)
    if spec.certificate is None:
        return _causeway_route(world, config)
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


def _causeway_route(world: World, config: Optional[object]) -> Route:
    """The walk along a move world's causeway (no steps in an open move world). It goes once move's
    ``TaskSpec`` declares its ``reference_route``."""
    from avalon.tasks import move

    difficulty, seed = check_difficulty(world.difficulty), check_seed(world.seed)
    if not move.has_chasm(difficulty):
        return Route(start=world.spawn_position, steps=())
    layout = with_retries(lambda rng: move.build_layout(rng, difficulty, config), world.task, difficulty, seed)
    if layout.world.spawn_position != world.spawn_position:
        raise ValueError(f"route_for: the move world of difficulty {difficulty} and seed {seed} has another spawn than "
                         f"the one given: was it made with another config?")
    ground = Ground(world)
    steps = tuple(RouteStep("walk", (x, ground.height(x, z), z)) for x, z in layout.crossing.causeway.points)
    return Route(start=world.spawn_position, steps=steps)
