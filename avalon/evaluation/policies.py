"""What a policy is to an evaluation, and the random baseline.

Any object with ``act(observations, deterministic) -> actions`` (batched dicts of arrays) is a
policy: a trained agent (``avalon.agent``) or :class:`RandomPolicy`, whose figures are the
baseline every score is normalised against (section 5.4).
"""

from __future__ import annotations

from typing import Protocol

import gymnasium as gym
import numpy as np

from avalon.env.spaces import RGBD_KEY


class Policy(Protocol):
    def act(self, observations: dict[str, np.ndarray], deterministic: bool = False) -> dict[str, np.ndarray]:
        """Batched actions for batched observations (leading dimension: environments).

        A policy with a true ``recurrent`` attribute (Dreamer's) keeps a state per env: it is also
        given ``envs`` (each row's env) and ``is_first`` (whether the row's episode starts now)."""


class RandomPolicy:
    """Uniformly random actions from the action space (the paper's random baseline)."""

    def __init__(self, action_space: gym.spaces.Space, seed: int | None = None) -> None:
        self.action_space = action_space
        self.action_space.seed(seed)

    def act(self, observations: dict[str, np.ndarray], deterministic: bool = False) -> dict[str, np.ndarray]:
        count = len(observations[RGBD_KEY])
        samples = [self.action_space.sample() for _ in range(count)]
        return {key: np.stack([sample[key] for sample in samples]) for key in samples[0]}
