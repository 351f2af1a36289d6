"""Success by task and difficulty: the Wilson interval, rows per difficulty, whether a rate falls
with difficulty, and the lines ``avalon eval`` prints (with the scripted agents' notes)."""

import pytest

from avalon.evaluation.results import EpisodeResult
from avalon.evaluation.success_rates import by_difficulty, difficulty_lines, falls_with_difficulty, trend_text, trends, wilson_interval


def episode(difficulty: float, seed: int, success: bool, achievements=(), note="", task="eat") -> EpisodeResult:
    return EpisodeResult(task=task, difficulty=difficulty, seed=seed, success=success, score=1.0 if success else 0.0,
                         episode_return=0.0, episode_length=100 + seed, achievements=tuple(achievements), note=note)


def test_the_wilson_interval_holds_the_rate_and_narrows_with_more_trials():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 3)
    assert low == 0.0 and high == pytest.approx(0.5615, abs=1e-4)
    for successes, trials in ((3, 10), (30, 100)):
        low, high = wilson_interval(successes, trials)
        assert low < successes / trials < high
    assert wilson_interval(30, 100)[1] - wilson_interval(30, 100)[0] < wilson_interval(3, 10)[1] - wilson_interval(3, 10)[0]


def test_rows_per_task_and_difficulty_count_successes_grasps_and_lengths():
    episodes = [episode(1.0, 0, False), episode(0.0, 0, True, ["grasp", "eat"]), episode(0.0, 1, False, ["grasp"]),
                episode(0.0, 2, False), episode(0.5, 0, False, task="move")]
    table = by_difficulty(episodes)
    assert list(table) == ["eat", "move"]
    easy, hard = table["eat"]
    assert (easy["difficulty"], easy["episodes"], easy["successes"], easy["grasped"]) == (0.0, 3, 1, 2)
    assert easy["success_rate"] == pytest.approx(1 / 3) and easy["mean_length"] == pytest.approx(101.0)
    assert easy["wilson_95"] == list(wilson_interval(1, 3))
    assert (hard["difficulty"], hard["episodes"]) == (1.0, 1)
    assert trends(table) == {"eat": True}  # move was played at one difficulty only


def test_the_rate_must_never_rise_with_difficulty():
    rows = [{"difficulty": 1.0, "success_rate": 0.0}, {"difficulty": 0.0, "success_rate": 0.3}, {"difficulty": 0.5, "success_rate": 0.1}]
    assert falls_with_difficulty(rows)
    rows[0]["success_rate"] = 0.2
    assert not falls_with_difficulty(rows)
    assert trend_text(rows) == "RISES somewhere with difficulty"


def test_a_rate_that_stays_the_same_does_not_fall():
    # 0 / 50 at every difficulty never rises, but says nothing about difficulty.
    rows = [{"difficulty": d, "success_rate": 0.0} for d in (0.0, 0.5, 1.0)]
    assert not falls_with_difficulty(rows)
    assert trend_text(rows) == "stays at 0.0 % at every difficulty (it does not fall)"
    rows[0]["success_rate"] = 0.04
    assert falls_with_difficulty(rows) and trend_text(rows) == "falls with difficulty"


def test_the_printed_lines_give_each_difficulty_its_notes_and_the_trend():
    episodes = [episode(0.0, 4, True), episode(1.0, 5, False, note="failed at step 2 (climb): no hold")]
    lines = difficulty_lines(by_difficulty(episodes), episodes)
    assert lines[0].startswith("eat d=0: 1/1 successes (100.0 %, 95 % interval 20.7-100.0 %), 0 episodes with a grasp")
    assert lines[1].startswith("eat d=1: 0/1 successes") and lines[2] == "    seed 5: failed at step 2 (climb): no hold"
    assert lines[3] == "eat: the success rate falls with difficulty"
