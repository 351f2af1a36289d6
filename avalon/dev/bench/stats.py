"""Statistics for benchmark figures measured on a noisy, shared machine.

On the machines this project is developed on, one 1000-step repeat of a benchmark can read 20-40%
off the next (other tenants' load comes and goes within seconds), so a median of a handful of
repeats can be several points off. Benchmarks report the median with a confidence interval that
needs no assumption about the noise's distribution, and say whether a target is met by the whole
interval, missed by it, or not decided by this many repeats.
"""

from __future__ import annotations

import math
import statistics
from typing import Sequence

import attr


@attr.s(frozen=True, auto_attribs=True)
class MedianInterval:
    """The median of ``count`` values, and ``low``..``high``: an interval holding the true median
    with probability at least ``confidence`` (None when ``count`` is too small for that)."""

    median: float
    low: float | None
    high: float | None
    confidence: float
    count: int

    def verdict(self, target: float) -> str:
        """``met`` (the whole interval is at or above ``target``), ``missed`` (all of it below), or
        ``undecided`` (the interval holds the target, or there is none)."""
        if self.low is None or self.high is None:
            return "undecided"
        if self.low >= target:
            return "met"
        if self.high < target:
            return "missed"
        return "undecided"


def _binomial_half_cdf(count: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(count, 1/2)."""
    return sum(math.comb(count, i) for i in range(k + 1)) / 2.0**count


def fewest_values_for_interval(confidence: float = 0.95) -> int:
    """The fewest values for which median_interval gives an interval at ``confidence`` (6 for 95%:
    with 5, even the smallest and largest hold the median only 94% of the time)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence!r} must be between 0 and 1 (exclusive)")
    count = 1
    while 0.5**count > (1.0 - confidence) / 2.0:  # P(all below the median) = P(none below)
        count += 1
    return count


def median_interval(values: Sequence[float], confidence: float = 0.95) -> MedianInterval:
    """The median of ``values`` with a distribution-free interval for it: the order statistics
    x(k) and x(n + 1 - k), with k the largest rank for which fewer than k of n independent values
    fall below the true median with probability at most (1 - confidence) / 2. Needs at least
    fewest_values_for_interval(confidence) values."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence {confidence!r} must be between 0 and 1 (exclusive)")
    if len(values) == 0:
        raise ValueError("median_interval needs at least one value")
    ordered = sorted(values)
    count = len(ordered)
    tail = (1.0 - confidence) / 2.0
    rank = 0  # k: the interval is ordered[k - 1] .. ordered[count - k]
    while rank + 1 <= (count + 1) // 2 and _binomial_half_cdf(count, rank) <= tail:
        rank += 1
    median = statistics.median(ordered)
    if rank == 0:
        return MedianInterval(median, None, None, confidence, count)
    return MedianInterval(median, ordered[rank - 1], ordered[count - rank], confidence, count)
