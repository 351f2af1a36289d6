"""The scripted agent of ``stack`` worlds: up the stones standing in the staircase's place to the
food on the plateau.

The stones are loose items (35 kg, under the lift limit), so :class:`~avalon.agent.scripted.ground.Ground`
counts them neither as ground nor as obstacles. :func:`stack_follower` burns the stones standing
in the staircase's places (the World spec says where) into the ground as columns
(:func:`built_blocks`), follows the certificate's route over that ground (each step's height read
from it: a jump between columns of one height becomes a walk), jumps up each stone standing
(:class:`~avalon.agent.scripted.standing_jump.JumpUpTo`: a running jump into a stone's face shoves
it off the one below), then runs up onto the plateau: from a whole staircase (d = 0), and from the
one layer standing at 0 < d < 0.35 (the wall 2.1 m above it, which a running jump slides up: a
steep terrain face carries the body 2.6 m up, docs/mechanics.md). The agent does not stack the
loose stones: a hand closed on a 35 kg, 1.33 m stone holds it 0.87 m up, short of its carrying
pose, and loses it as the body turns (docs/tasks/stack.md); where the wall stands higher than a
jump above the stones in place, the follower fails at once (:class:`Unbuilt`), naming the places
left empty.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import attr

from avalon.agent.scripted.actions import Action
from avalon.agent.scripted.follower import RouteFollower, route_primitives
from avalon.agent.scripted.ground import Ground
from avalon.agent.scripted.jump import EDGE_STEP_M
from avalon.agent.scripted.primitive import Primitive, PrimitiveFailed, Situation
from avalon.agent.scripted.standing_jump import standing_jumps
from avalon.datagen.world import World
from avalon.rules import mechanics
from avalon.tasks.kit.route import Route, RouteStep
from avalon.tasks.kit.solved import Block, with_blocks
from avalon.tasks.kit.staircase import STONE_HEIGHT_M, Staircase, cliff_height_m, is_stone, staircase_of

#: A running jump slides up a wall this high above the take-off, metres: the rise up a 87 degree
#: terrain face (a stack wall stands 85.4 to 87.2 degrees steep).
WALL_JUMP_RISE_M = mechanics.TERRAIN_JUMP_RISE_M[87.0]
#: A stone whose bottom's middle lies within this of a place of the staircase stands there, metres.
IN_PLACE_M = 0.3


def unbuilt_places(world: World, stair: Staircase) -> list[tuple[int, int]]:
    """(column, layer) of each place of ``stair`` that no stone of ``world`` stands in."""
    bottoms = [(e.position[0], e.position[1] - STONE_HEIGHT_M / 2, e.position[2]) for e in world.entities if is_stone(e)]
    return [place for place in stair.places()
            if not any(math.dist(stair.ground_position(*place), bottom) < IN_PLACE_M for bottom in bottoms)]


def built_blocks(world: World, stair: Staircase) -> list[Block]:
    """The staircase's columns (``Staircase.blocks``, column 0 against the wall) as high as the
    stones standing in their places, from the lowest layer up; columns with none left out."""
    empty = set(unbuilt_places(world, stair))
    blocks = []
    for column, block in enumerate(stair.blocks()):
        standing = next((layer for layer in range(stair.layers - column) if (column, layer) in empty), stair.layers - column)
        if standing:
            blocks.append(attr.evolve(block, top_m=stair.base_m + standing * STONE_HEIGHT_M))
    return blocks


def route_over(route: Route, ground: Ground) -> Route:
    """``route`` with each step's height read from ``ground`` (the stones in place burned in), its
    jumps between places of one height (within ``EDGE_STEP_M``) walks, and steps that go nowhere new dropped."""
    steps, before = [], route.start
    for step in route.steps:
        x, _, z = step.target
        target = (x, float(ground.height(x, z)), z)
        skill = "walk" if step.skill == "jump" and abs(target[1] - before[1]) <= EDGE_STEP_M else step.skill
        steps.append(RouteStep(skill, target))
        before = target
    return Route(start=route.start, steps=steps)


@attr.s(auto_attribs=True)
class Unbuilt(Primitive):
    """Fails at once, saying which places of the staircase stand empty (the agent does not stack stones)."""

    empty: tuple[tuple[int, int], ...]
    total: int
    name = "stack"

    def budget_steps(self, situation: Situation) -> int:
        return 1

    def actions(self, situation: Situation) -> Iterator[Action]:
        places = ", ".join(f"column {c} layer {k}" for c, k in self.empty)
        raise PrimitiveFailed(f"{len(self.empty)} of the staircase's {self.total} places stand empty ({places}): "
                              f"the wall stands higher above the stones in place than a jump, and this agent does not "
                              f"lift 35 kg stones onto layers")
        yield  # a generator, like every primitive's actions


def stack_follower(world: World, route: Route) -> RouteFollower:
    """The follower of ``route`` (the certificate's: walks, one jump per layer, then onto the
    plateau) in the stack ``world``, over the stones standing in place (:func:`route_over`):
    standing jumps onto them, a running jump onto the plateau; or, where the wall stands higher
    above them than a running jump slides up, one that fails at once (:class:`Unbuilt`)."""
    stair = staircase_of(world)
    blocks = built_blocks(world, stair)
    top = max([block.top_m for block in blocks], default=stair.base_m)
    if stair.base_m + cliff_height_m(stair.layers) - top > WALL_JUMP_RISE_M:
        empty = unbuilt_places(world, stair)
        return RouteFollower(world, route, foods=world.food, primitives=[Unbuilt(tuple(empty), len(stair.places()))])
    built = with_blocks(world, blocks)
    over = route_over(route, Ground(built))
    primitives = standing_jumps(route_primitives(over), Ground(world))
    return RouteFollower(built, over, foods=world.food, primitives=primitives)
