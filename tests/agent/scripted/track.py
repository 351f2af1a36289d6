"""An env wrapper for the scripted agents' simulator tests: it keeps where the body was after
every reset and step, so a test can check the way the agent went (onto a log, round a guard)."""

from __future__ import annotations

import numpy as np


class Track:
    """Wraps the env to keep the body's positions (``positions``: feet, world metres, one per frame)."""

    def __init__(self, env):
        self.env, self.positions = env, []

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        self.positions.append(np.asarray(info["world_body_position"], np.float64))
        return observation, info

    def step(self, action):
        result = self.env.step(action)
        self.positions.append(np.asarray(result[-1]["world_body_position"], np.float64))
        return result
