"""The report's statistics: rliable's aggregates against their definitions, intervals that hold
their estimates, the difficulty view, Crafter's score and the Markdown table's layout."""

import numpy as np
import pytest
from scipy import stats

from avalon.episodes.achievements import crafter_score, success_rates
from avalon.evaluation.scoring.aggregates import aggregate_intervals, per_task_intervals, performance_profiles, score_matrix
from avalon.evaluation.scoring.report import build_report, difficulty_view, markdown_table


def samples(seed: int = 0, worlds: int = 30) -> dict[str, dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    return {
        "strong": {"eat": list(rng.uniform(0.5, 1.5, worlds)), "move": list(rng.uniform(0.2, 1.2, worlds))},
        "weak": {"eat": list(rng.uniform(0.0, 0.4, worlds)), "move": list(rng.uniform(0.0, 0.2, worlds))},
    }


def test_aggregates_are_the_mean_iqm_and_optimality_gap_of_every_task_and_world_with_intervals_around_them():
    data = samples()
    result = aggregate_intervals(data, reps=500)
    for name, by_task in data.items():
        values = np.concatenate([by_task["eat"], by_task["move"]])
        assert result[name]["mean"].value == pytest.approx(values.mean())
        assert result[name]["iqm"].value == pytest.approx(stats.trim_mean(values, 0.25))
        assert result[name]["optimality_gap"].value == pytest.approx(np.mean(np.maximum(1.0 - values, 0.0)))
        for interval in result[name].values():
            assert interval.low <= interval.value <= interval.high and interval.high - interval.low > 0
    assert result["strong"]["mean"].low > result["weak"]["mean"].high  # well separated samples, separated intervals
    assert aggregate_intervals(data, reps=500) == result  # seeded: the same scores give the same intervals


def test_per_task_intervals_and_tasks_with_different_world_counts():
    data = samples()
    per_task = per_task_intervals(data, reps=500)
    assert per_task["weak"]["move"].value == pytest.approx(np.mean(data["weak"]["move"]))
    uneven = {"a": {"eat": [0.1, 0.2, 0.3], "move": [0.5]}}
    assert score_matrix(uneven["a"]) is None and aggregate_intervals(uneven, reps=100) == {"a": None}
    assert per_task_intervals(uneven, reps=100)["a"]["move"].half_width == 0.0  # one sample: nothing to resample


def test_performance_profiles_count_the_scores_above_each_threshold():
    data = samples()
    profiles = performance_profiles(data, taus=np.array([0.0, 0.5, 1.0]), reps=200)
    values = np.concatenate([data["weak"]["eat"], data["weak"]["move"]])
    assert profiles["weak"]["fraction"] == pytest.approx([np.mean(values > tau) for tau in (0.0, 0.5, 1.0)])
    assert all(low <= f <= high for low, f, high in zip(profiles["weak"]["low"], profiles["weak"]["fraction"], profiles["weak"]["high"]))


def worlds(kind_of_score: str = "normalised"):
    rng = np.random.default_rng(1)
    result = []
    for task in ("eat", "move"):
        for difficulty in np.linspace(0.0, 1.0, 10):
            score = float(rng.uniform(0, 1) * (1.0 - difficulty))
            result.append({"key": f"{task}-{difficulty}", "task": task, "difficulty": float(difficulty), "score": score,
                           "normalised": score * 2 if kind_of_score == "normalised" else None, "success": score > 0.3,
                           "achievements": ["eat", "jump"] if score > 0.3 else ["jump"], "length": 10})
    return result


def test_the_difficulty_view_bins_each_tasks_worlds_and_gives_the_drop_from_easiest_to_hardest():
    view = difficulty_view(worlds(), bins=5)
    eat = view["eat"]["bins"]
    assert [row["episodes"] for row in eat] == [2, 2, 2, 2, 2]  # d = 1 falls into the last bin
    eat_worlds = [w for w in worlds() if w["task"] == "eat"]
    assert eat[0]["raw_mean"] == pytest.approx(np.mean([w["score"] for w in eat_worlds[:2]]))
    assert view["eat"]["raw_drop"] == pytest.approx(eat[0]["raw_mean"] - eat[-1]["raw_mean"]) and view["eat"]["raw_drop"] > 0
    assert view["eat"]["normalised_drop"] == pytest.approx(2 * view["eat"]["raw_drop"])
    assert difficulty_view(worlds("raw"))["eat"]["normalised_drop"] is None


def test_the_report_holds_crafters_score_and_its_table_has_tasks_as_rows_and_runs_as_columns():
    first, second = worlds(), [dict(w, normalised=w["normalised"] / 2) for w in worlds()]
    report = build_report({"A": [first], "B": [first, second]}, reps=200)
    assert report["score_kind"] == "normalised" and report["columns"]["B"]["runs"] == 2
    assert report["columns"]["B"]["per_task"]["eat"]["samples"] == 20  # worlds of both runs
    expected = crafter_score(success_rates(w["achievements"] for w in first))
    assert report["columns"]["A"]["crafter"]["score"] == pytest.approx(expected)
    table = markdown_table(report, "a note")
    lines = table.splitlines()
    assert "a note" in lines and "| task | A | B |" in lines
    eat = report["columns"]["A"]["per_task"]["eat"]
    assert f"| eat | {eat['value']:.3f} ± {eat['half_width']:.3f} |" in table
    assert any(line.startswith("| all (IQM) |") for line in lines) and any("optimality gap" in line for line in lines)
    raw = build_report({"A": [worlds("raw")]}, reps=100)
    assert raw["score_kind"] == "raw" and "Mean raw score" in markdown_table(raw)
