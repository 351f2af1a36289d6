"""Stack's reference agent plans over the stones standing in place (no simulator): the whole
staircase at d = 0, its lowest layer at 0 < d < 0.35 (the jump between columns of one height a
walk, a standing jump onto the stones, a running jump onto the plateau), and gives up at once,
naming the empty places, where the wall stands higher above the stones than a jump."""

import pytest

from avalon.agent.scripted.jump import JumpTo
from avalon.agent.scripted.stack import Unbuilt, built_blocks, stack_follower, unbuilt_places
from avalon.agent.scripted.standing_jump import JumpUpTo
from avalon.agent.scripted.task_routes import task_route
from avalon.tasks.kit.staircase import STONE_HEIGHT_M, staircase_of


@pytest.mark.parametrize(("difficulty", "seed", "standing"), [(0.0, 0, (2, 1)), (0.2, 1, (1, 1))])
def test_the_agent_jumps_up_the_stones_standing_in_place_and_onto_the_plateau(difficulty, seed, standing):
    world, route = task_route("stack", difficulty, seed)
    stair = staircase_of(world)
    blocks = built_blocks(world, stair)
    assert [round((b.top_m - stair.base_m) / STONE_HEIGHT_M) for b in blocks] == list(standing)
    follower = stack_follower(world, route)
    skills = [step.skill for step in follower.route.steps]
    assert skills == (["walk", "walk", "jump", "jump", "jump"] if standing == (2, 1) else ["walk", "walk", "jump", "walk", "jump"])
    jumps = [p for p in follower._primitives if isinstance(p, JumpTo)]
    # Onto the stones standing, onto the plateau running.
    assert [type(p) for p in jumps] == [JumpUpTo] * (len(jumps) - 1) + [JumpTo]
    assert follower.route.steps[2].target[1] == pytest.approx(stair.base_m + STONE_HEIGHT_M, abs=0.01)


def test_where_the_wall_stands_too_high_above_the_stones_the_agent_gives_up_naming_the_empty_places():
    world, route = task_route("stack", 0.5, 0)
    stair = staircase_of(world)
    empty = unbuilt_places(world, stair)
    assert empty and len(empty) < len(stair.places())
    [first, _eat] = stack_follower(world, route)._primitives
    assert isinstance(first, Unbuilt) and first.empty == tuple(empty)
