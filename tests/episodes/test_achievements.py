"""Per-achievement success rates and Crafter's score (pure Python)."""

import math

import pytest

from avalon.episodes.achievements import crafter_score, success_rates
from avalon.rules.foods import FOOD_KINDS
from avalon.sim.protocol import ACHIEVEMENTS, FEATURES


def test_every_food_has_an_eat_achievement_and_the_feature_has_a_flag_per_name():
    assert {f"eat_{kind}" for kind in FOOD_KINDS} <= set(ACHIEVEMENTS)
    assert len(set(ACHIEVEMENTS)) == len(ACHIEVEMENTS)
    (feature,) = [feature for feature in FEATURES if feature.name == "achievements"]
    assert feature.size == len(ACHIEVEMENTS) and not feature.observed


def test_success_rates_count_episodes_not_repeats():
    episodes = [{"grasp", "eat", "eat_apple"}, ["grasp", "grasp"], set(), {"jump"}]
    rates = success_rates(episodes)
    assert rates["grasp"] == 50.0 and rates["eat"] == 25.0 and rates["jump"] == 25.0
    assert rates["throw"] == 0.0 and set(rates) == set(ACHIEVEMENTS)


def test_success_rates_reject_unknown_names_and_no_episodes():
    with pytest.raises(ValueError, match="'fly'"):
        success_rates([{"fly"}])
    with pytest.raises(ValueError, match="at least one episode"):
        success_rates([])


def test_crafter_score_is_the_geometric_mean_of_one_plus_rates_minus_one():
    assert crafter_score({"a": 0.0, "b": 0.0}) == 0.0
    assert crafter_score({"a": 100.0, "b": 100.0}) == pytest.approx(100.0)
    assert crafter_score({"a": 3.0, "b": 15.0}) == pytest.approx(math.sqrt(4 * 16) - 1)
    # Unlocking a rare achievement counts more than improving a common one.
    assert crafter_score({"a": 90.0, "b": 1.0}) > crafter_score({"a": 95.0, "b": 0.0})


def test_crafter_score_rejects_rates_outside_percentages():
    with pytest.raises(ValueError, match="'a' is 150.0"):
        crafter_score({"a": 150.0})
    with pytest.raises(ValueError, match="no success rates"):
        crafter_score({})
