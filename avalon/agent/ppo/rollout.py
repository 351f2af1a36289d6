"""Rollout storage: one unroll of T steps from N envs, time-major.

Observations keep their dtypes (the uint8 images stay uint8: 200 x 16 frames of 96 x 96 x 4 take
118 MB instead of 472 MB as float32) and have T + 1 rows: row t is what the policy saw before
step t; row T is the observation after the last step, used to bootstrap the value.
"""

from __future__ import annotations

import torch
from torch import Tensor

from avalon.agent.common.observations import ObservationLayout
from avalon.env.spaces import RGBD_KEY


class RolloutStorage:
    def __init__(self, layout: ObservationLayout, num_envs: int, unroll_steps: int, action_size: int) -> None:
        if num_envs < 1 or unroll_steps < 1:
            raise ValueError(f"num_envs={num_envs} and unroll_steps={unroll_steps} must be >= 1")
        self.num_envs, self.unroll_steps = num_envs, unroll_steps
        rows = (unroll_steps + 1, num_envs)
        self.observations: dict[str, Tensor] = {
            RGBD_KEY: torch.zeros(rows + layout.image_shape, dtype=torch.uint8),
            "proprio": torch.zeros(rows + (layout.proprio_size,), dtype=torch.float32),
        }
        steps = (unroll_steps, num_envs)
        self.actions = torch.zeros(steps + (action_size,), dtype=torch.float32)
        self.log_probs = torch.zeros(steps)
        self.values = torch.zeros(steps)
        self.rewards = torch.zeros(steps)
        self.dones = torch.zeros(steps)

    def set_observation(self, t: int, observations: dict[str, Tensor]) -> None:
        """Row ``t`` (0..T) of the observations, from :meth:`ObservationLayout.to_tensors`."""
        for key, storage in self.observations.items():
            storage[t].copy_(observations[key])

    def observation(self, t: int) -> dict[str, Tensor]:
        return {key: storage[t] for key, storage in self.observations.items()}

    def set_step(self, t: int, actions: Tensor, log_probs: Tensor, values: Tensor, rewards: Tensor, dones: Tensor) -> None:
        self.actions[t].copy_(actions)
        self.log_probs[t].copy_(log_probs)
        self.values[t].copy_(values)
        self.rewards[t].copy_(rewards)
        self.dones[t].copy_(dones)

    def flat_observations(self) -> dict[str, Tensor]:
        """Rows 0..T-1 as ``(T * N, ...)`` views (no copy)."""
        return {key: storage[:-1].flatten(0, 1) for key, storage in self.observations.items()}
