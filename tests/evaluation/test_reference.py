"""The reference policy's reporting, without a simulator: which tasks it plays and the error for
one it does not, the certificate's verdict made with the route, and the per-task share of worlds
solved with each failure's note and verdict."""

import numpy as np
import pytest

from avalon.evaluation.reference import (
    VERDICT_SEPARATOR,
    check_reference_tasks,
    reference_tasks,
    route_and_verdict,
    solved_lines,
)
from avalon.evaluation.results import EpisodeResult
from avalon.tasks import build_world


def test_a_task_without_a_reference_agent_is_refused_listing_the_tasks_that_have_one():
    assert {"eat", "stack", "hunt"} <= set(reference_tasks()) and "trivial" not in reference_tasks()
    with pytest.raises(ValueError, match=r"no reference agent for task\(s\) trivial .*the tasks that have one: avoid, bridge"):
        check_reference_tasks(["eat", "trivial"])
    check_reference_tasks(["eat", "stack"])


def test_the_verdict_comes_with_the_route():
    route, verdict = route_and_verdict(build_world("jump", 0.0, 0))
    assert route.steps and verdict.startswith("solvable (") and "jump" in verdict and verdict.endswith("the agent's gap")
    route, verdict = route_and_verdict(build_world("eat", 0.0, 0))
    assert verdict == "none (eat declares no certificate): the gap is unexamined"


def _episode(task: str, seed: int, success: bool, note: str = "") -> EpisodeResult:
    return EpisodeResult(task=task, difficulty=0.5, seed=seed, success=success, score=0.0, episode_return=0.0,
                         episode_length=10, achievements=(), note=note)


def test_the_share_solved_per_task_names_each_failure_and_its_verdict():
    agents = "failed at step 1 (jump): fell" + VERDICT_SEPARATOR + "solvable (walk, jump): the agent's gap"
    unexamined = "still going" + VERDICT_SEPARATOR + "none (eat declares no certificate): the gap is unexamined"
    episodes = [_episode("jump", 1, True), _episode("jump", 2, False, agents), _episode("eat", 3, False, unexamined)]
    lines = solved_lines(episodes)
    assert lines[1] == "  jump: 1 / 2 solved (50%); failed: 1 the agent's gap, 0 not the agent's"
    assert lines[2] == f"    {episodes[1].key}: {agents}"
    assert lines[3] == "  eat: 0 / 1 solved (0%); failed: 0 the agent's gap, 1 not the agent's"
    assert lines[4].endswith("the gap is unexamined")


class _RaisingAgent:
    """An agent whose second action raises (an agent's bug)."""

    def __init__(self, find_route):
        self.steps = 0

    def reset(self, world, observation, info):
        pass

    def act(self, observation, info):
        self.steps += 1
        if self.steps == 2:
            raise IndexError("index 0 is out of bounds")
        return {"move_forward": 1.0}


def test_an_agent_that_raises_stands_still_for_the_rest_of_its_episode_and_says_what_it_raised(monkeypatch):
    import avalon.evaluation.reference as reference
    from avalon.training.world_supply import WorldRequest

    monkeypatch.setattr(reference, "ScriptedPolicy", _RaisingAgent)
    policy = reference.ReferencePolicy()
    policy.start_episode(0, WorldRequest("jump", 0.0, 0), {}, {})
    batch = {"rgbd": np.zeros((1, 2, 2, 4), np.uint8)}
    actions = [policy.act(batch, envs=[0], infos=[{}]) for _ in range(3)]
    assert actions[0]["move_forward"][0] == 1.0
    assert actions[1]["move_forward"][0] == actions[2]["move_forward"][0] == reference.STAND_STILL["move_forward"]
    note = policy.end_episode(0, {}, {"success": False})
    assert note.startswith("the agent raised IndexError: index 0 is out of bounds" + VERDICT_SEPARATOR + "solvable (")
