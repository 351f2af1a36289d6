"""Wrappers for libraries that need something other than the native ``Dict`` action space."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from avalon.env.protocol import ACTION_SPACES
from avalon.env.spaces import ActionCodec


class FlattenAction(gym.ActionWrapper):
    """Exposes the action as one float32 ``Box`` in the layout of ``docs/spaces.md``.

    Continuous entries keep their ranges; a binary entry (grasp, jump, eat, throw) has range
    [0, 1] and counts as pressed when it is 0.5 or more.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        name = env.unwrapped.config.action_space
        self._codec = ActionCodec(name)
        self._binary = np.zeros(self._codec.size, bool)
        lows, highs, offset = [], [], 0
        for field in ACTION_SPACES[name]:
            lows += [field.low] * field.size
            highs += [field.high] * field.size
            if field.kind == "binary":
                self._binary[offset] = True
            offset += field.size
        self.action_space = gym.spaces.Box(np.array(lows, np.float32), np.array(highs, np.float32), dtype=np.float32)

    def action(self, action: Any) -> dict[str, Any]:
        vector = np.asarray(action, dtype=np.float64)
        if vector.shape != (self._codec.size,):
            raise ValueError(f"flat action has shape {vector.shape}, expected ({self._codec.size},)")
        bad = np.flatnonzero(~np.isfinite(vector))
        if bad.size:
            index = int(bad[0])
            raise ValueError(f"flat action[{index}] ({self._field_at(index)}) is {vector[index]}")
        vector = vector.astype(np.float32)
        vector[self._binary] = (vector[self._binary] >= 0.5).astype(np.float32)
        return self._codec.decode(vector)

    def _field_at(self, index: int) -> str:
        offset = 0
        for field in self._codec.fields:
            if index < offset + field.size:
                return field.name if field.size == 1 else f"{field.name}[{index - offset}]"
            offset += field.size
        return "?"
