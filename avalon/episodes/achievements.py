"""Achievements across episodes: success rates and Crafter's score.

Each episode's ``info["achievements"]`` (at its last step) is the set of names of
:data:`avalon.sim.protocol.ACHIEVEMENTS` the agent unlocked in it. Crafter (Hafner, 2021)
summarises many episodes by each achievement's success rate ``s_i`` (the percentage of episodes
that unlocked it) and the score ``exp(mean_i ln(1 + s_i)) - 1``, a geometric mean that rewards
unlocking rare achievements more than improving common ones.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

from avalon.sim.protocol import ACHIEVEMENTS


def success_rates(episodes: Iterable[Iterable[str]], names: tuple[str, ...] = ACHIEVEMENTS) -> dict[str, float]:
    """Percentage (0-100) of ``episodes`` that unlocked each achievement of ``names``.

    ``episodes`` holds one collection of achievement names per episode, e.g. the last
    ``info["achievements"]`` of each. Unknown names raise ``ValueError``.
    """
    counts = dict.fromkeys(names, 0)
    episode_count = 0
    for unlocked in episodes:
        episode_count += 1
        for name in set(unlocked):
            if name not in counts:
                raise ValueError(f"unknown achievement {name!r}; the achievements are: {', '.join(names)}")
            counts[name] += 1
    if episode_count == 0:
        raise ValueError("no episodes: success rates need at least one episode")
    return {name: 100.0 * count / episode_count for name, count in counts.items()}


def crafter_score(rates: Mapping[str, float]) -> float:
    """Crafter's score of per-achievement success rates in percent: ``exp(mean(ln(1 + s))) - 1``.

    Ranges from 0 (nothing ever unlocked) to 100 (everything unlocked in every episode).
    """
    if not rates:
        raise ValueError("no success rates given")
    for name, rate in rates.items():
        if not (isinstance(rate, (int, float)) and 0.0 <= rate <= 100.0):
            raise ValueError(f"success rate of {name!r} is {rate!r}; expected a percentage in [0, 100]")
    return math.exp(sum(math.log1p(rate) for rate in rates.values()) / len(rates)) - 1.0
