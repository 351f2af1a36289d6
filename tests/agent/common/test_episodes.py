"""Episode bookkeeping from a same-step autoreset vector env's infos."""

import math

import numpy as np
import pytest

from avalon.agent.common.episodes import EpisodeTracker, summarize


def test_tracker_sums_rewards_and_reads_final_info_of_ending_envs():
    tracker = EpisodeTracker(num_envs=3)
    tracker.step(np.array([1.0, 2.0, 3.0]), np.array([False, False, False]), {})
    # Env 1 ends with success in an eat world; env 2 ends without any final info (another env).
    infos = {
        "final_info": {
            "success": np.array([False, True, False]),
            "_success": np.array([False, True, False]),
            "task": np.array([None, "eat", None], dtype=object),
            "_task": np.array([False, True, False]),
            "difficulty": np.array([0.0, 0.25, 0.0]),
            "score": np.array([0.0, 0.8, 0.0]),
        },
        "_final_info": np.array([False, True, False]),
    }
    ended = tracker.step(np.array([0.5, 0.5, 0.5]), np.array([False, True, True]), infos)
    assert [(r.task, r.success, r.difficulty, r.score, r.episode_return, r.length) for r in ended[:1]] == [
        ("eat", True, 0.25, 0.8, 2.5, 2)
    ]
    other = ended[1]
    assert other.task == "unknown" and not other.success and math.isnan(other.difficulty)
    assert other.episode_return == 3.5 and other.length == 2
    # The ended envs start counting again; env 0 keeps its episode.
    tracker.step(np.array([1.0, 1.0, 1.0]), np.array([True, True, False]), {})
    assert tracker.recent[-2].episode_return == pytest.approx(2.5) and tracker.recent[-2].length == 3
    assert tracker.recent[-1].episode_return == pytest.approx(1.0) and tracker.recent[-1].length == 1
    assert tracker.finished == 4
    assert tracker.recent_success_rate() == pytest.approx(0.25)


def test_summary_per_task():
    tracker = EpisodeTracker(num_envs=2)
    infos = {
        "final_info": {
            "success": np.array([True, False]), "task": np.array(["eat", "move"], dtype=object), "difficulty": np.array([0.5, 0.1])
        },
        "_final_info": np.array([True, True]),
    }
    ended = tracker.step(np.array([1.0, -1.0]), np.array([True, True]), infos)
    scalars = summarize(ended)
    assert scalars["episode/success_rate"] == 0.5 and scalars["episode/return"] == 0.0
    assert scalars["task/eat/success_rate"] == 1.0 and scalars["task/move/difficulty"] == pytest.approx(0.1)
    assert "episode/score" not in scalars  # no env said
    assert summarize([]) == {}
