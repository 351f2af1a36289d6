"""Routes of today's walking tasks, read from how their worlds were built, until the solvability
certificate (:mod:`avalon.tasks.kit.routes`) finds routes in any World spec.

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

#: The tasks :func:`walk_route` knows.
WALKING_TASKS = ("eat", "move")


def walk_route(task: str, difficulty: float, seed: int, config: Optional[object] = None) -> tuple[World, Route]:
    """The world of ``task`` at ``difficulty`` for ``seed`` and a walking route to its food."""
    check_task(task)
    if task not in WALKING_TASKS:
        raise ValueError(f"walk_route: task {task!r} is not one of {WALKING_TASKS}; its route comes from the certificate")
    difficulty = check_difficulty(difficulty)
    seed = check_seed(seed)
    if task != "move" or not move.has_chasm(difficulty):
        world = build_world(task, difficulty, seed, config)
        return world, Route(start=world.spawn_position, steps=())
    layout = with_retries(lambda rng: move.build_layout(rng, difficulty, config), task, difficulty, seed)
    world = build_world(task, difficulty, seed, config)
    if layout.world.spawn_position != world.spawn_position:
        raise AssertionError("walk_route: the rebuilt move layout is not the world build_world makes")
    ground = Ground(world)
    steps = tuple(RouteStep("walk", (x, ground.height(x, z), z)) for x, z in layout.crossing.causeway.points)
    return world, Route(start=world.spawn_position, steps=steps)
