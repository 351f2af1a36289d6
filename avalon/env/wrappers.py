"""Wrappers: a flat action space for libraries that need one, and crash recovery for training."""

from __future__ import annotations

import logging
from typing import Any

import gymnasium as gym
import numpy as np

from avalon.env.spaces import ActionCodec
from avalon.errors import SimulatorError, check_int
from avalon.sim.protocol import ACTION_SPACES

log = logging.getLogger(__name__)


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
        try:
            array = np.asarray(action)
        except ValueError:  # ragged
            array = np.asarray(None)
        if array.dtype.kind not in "biuf":
            raise ValueError(f"a flat action is {self._codec.size} real numbers (int, bool or float), got {action!r}")
        vector = array.astype(np.float64)
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


class RestartOnCrash(gym.Wrapper):
    """Turns a crashed or hung simulator into the end of the episode, so a training run goes on.

    When ``step()`` raises :class:`SimulatorError` (the simulator was already killed and its log
    quoted), this wrapper logs a warning and returns the last observation with reward 0,
    ``truncated=True`` and ``info["simulator_crashed"] = True`` (plus ``info["error"]``). The next
    ``reset()`` starts a fresh simulator; a reset that fails this way is retried up to
    ``max_reset_attempts`` times before the error is raised. Other errors (bad actions, missing
    world folders) pass through unchanged.
    """

    def __init__(self, env: gym.Env, max_reset_attempts: int = 3) -> None:
        super().__init__(env)
        self.max_reset_attempts = check_int(max_reset_attempts, "max_reset_attempts", low=1)
        #: Simulator crashes seen so far (steps and resets).
        self.crashes = 0
        self._last: tuple[Any, dict[str, Any]] | None = None

    def reset(self, **kwargs: Any):
        for attempt in range(1, self.max_reset_attempts + 1):
            try:
                observation, info = self.env.reset(**kwargs)
            except SimulatorError as error:
                self.crashes += 1
                log.warning("simulator failed during reset (attempt %d of %d): %s", attempt, self.max_reset_attempts, error)
                if attempt == self.max_reset_attempts:
                    raise
                continue
            self._last = (observation, info)
            return observation, info
        raise AssertionError("unreachable")

    def step(self, action: Any):
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except SimulatorError as error:
            if self._last is None:
                raise
            self.crashes += 1
            log.warning("simulator crashed during a step; the episode is truncated and the next reset restarts it: %s", error)
            observation, info = self._last
            return observation, 0.0, False, True, dict(info, simulator_crashed=True, error=str(error))
        self._last = (observation, info)
        return observation, reward, terminated, truncated, info
