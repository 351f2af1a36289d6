import random

import pytest

from avalon.dev.bench.stats import fewest_values_for_interval, median_interval


def test_ten_values_give_the_second_and_ninth_order_statistics():
    # P(Binomial(10, 1/2) <= 1) = 11/1024 <= 2.5%, P(<= 2) = 56/1024 > 2.5%: k = 2.
    interval = median_interval([float(v) for v in (7, 3, 10, 1, 5, 9, 2, 8, 4, 6)])
    assert (interval.median, interval.low, interval.high, interval.count) == (5.5, 2.0, 9.0, 10)


def test_too_few_values_for_the_confidence_give_no_interval():
    interval = median_interval([1.0, 2.0, 3.0, 4.0, 5.0])  # the extremes: 1 - 2/32 = 93.75% < 95%
    assert interval.median == 3.0 and interval.low is None and interval.high is None
    assert interval.verdict(0.0) == "undecided"
    six = median_interval([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])  # 1 - 2/64 = 96.9%
    assert (six.low, six.high) == (1.0, 6.0)


def test_the_interval_holds_the_true_median_at_least_as_often_as_promised():
    rng = random.Random(0)
    trials, held = 2000, 0
    for _ in range(trials):
        values = [rng.lognormvariate(0.0, 0.5) for _ in range(15)]  # skewed noise; true median 1.0
        interval = median_interval(values, confidence=0.9)
        held += interval.low <= 1.0 <= interval.high
    assert held / trials >= 0.9 - 0.02  # (a binomial standard error is ~0.007)
    assert held / trials < 0.99  # not a trivially wide interval


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
def test_the_fewest_values_for_an_interval_are_the_first_that_give_one(confidence):
    fewest = fewest_values_for_interval(confidence)
    assert median_interval([float(v) for v in range(fewest)], confidence).low is not None
    assert median_interval([float(v) for v in range(fewest - 1)], confidence).low is None
    assert fewest_values_for_interval(0.95) == 6


def test_verdicts():
    values = [0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92, 0.94, 0.96, 0.98]  # interval 0.82..0.96
    assert median_interval(values).verdict(0.80) == "met"
    assert median_interval(values).verdict(0.85) == "undecided"
    assert median_interval(values).verdict(0.97) == "missed"


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5])
def test_a_confidence_outside_zero_to_one_is_refused(confidence):
    with pytest.raises(ValueError, match="confidence"):
        median_interval([1.0, 2.0], confidence)


def test_no_values_is_refused():
    with pytest.raises(ValueError, match="at least one value"):
        median_interval([])
