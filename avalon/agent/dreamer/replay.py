"""DreamerV2's replay buffer: each env's steps in order, sampled as fixed-length sequences.

Row t of an env's stream holds what arrived at step t: the observation (the image as uint8, the
proprioception as float32), the flat action that led to it (zeros at an episode's first
step), the reward that came with it, ``is_first`` (the first observation of an episode) and
``is_terminal`` (the episode ended here by termination, not by a time limit). An episode that
ends adds two rows at once: its last observation (the vector env's ``final_obs``) and the next
episode's first.

A sequence is ``length`` consecutive rows of one env. It may run from one episode into the next:
the second episode's first row is then marked ``is_first``, and the world model resets its state
there, as DreamerV2 does. Memory is fixed when the buffer is built (``capacity_gb``, shared
evenly by the envs' streams); once a stream is full its oldest rows are overwritten. The arrays
are allocated with ``numpy.zeros``, whose pages the OS provides as they are first written, so a
buffer takes its full size only once full.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from avalon.agent.common.observations import ObservationLayout
from avalon.env.spaces import RGBD_KEY

#: Bytes per row besides the image, proprioception and action: reward (float32) and two flags.
_SCALAR_BYTES = 4 + 1 + 1


def bytes_per_step(layout: ObservationLayout, action_size: int) -> int:
    """Bytes one env step takes in the replay: the uint8 image, the float32 proprioception and
    action, the reward and the two flags."""
    height, width, channels = layout.image_shape
    return height * width * channels + 4 * (layout.proprio_size + action_size) + _SCALAR_BYTES


class ReplayBuffer:
    """The steps of ``num_envs`` envs, at most ``capacity_gb`` gigabytes (10^9 bytes) of them.

    ``sequence_length`` is the length of the sequences :meth:`sample` will be asked for: a buffer
    too small to hold one per env is refused.
    """

    def __init__(self, layout: ObservationLayout, action_size: int, num_envs: int, capacity_gb: float, sequence_length: int) -> None:
        if not (isinstance(num_envs, int) and num_envs >= 1):
            raise ValueError(f"num_envs={num_envs!r} must be an int >= 1")
        if not (isinstance(capacity_gb, (int, float)) and np.isfinite(capacity_gb) and capacity_gb > 0):
            raise ValueError(f"capacity_gb={capacity_gb!r} must be a number of gigabytes > 0")
        self.layout, self.action_size, self.num_envs = layout, action_size, num_envs
        self.sequence_length = sequence_length
        self.step_bytes = bytes_per_step(layout, action_size)
        #: Rows each env's stream holds.
        self.capacity = int(capacity_gb * 1e9 // self.step_bytes) // num_envs
        if self.capacity < sequence_length:
            raise ValueError(
                f"replay of {capacity_gb:g} GB holds {self.capacity} steps per env ({num_envs} envs of {self.step_bytes} bytes "
                f"per step), fewer than one sequence of {sequence_length}: raise the replay's size in GB"
            )
        rows = (num_envs, self.capacity)
        self.images = np.zeros(rows + layout.image_shape, np.uint8)
        self.proprio = np.zeros(rows + (layout.proprio_size,), np.float32)
        self.actions = np.zeros(rows + (action_size,), np.float32)
        self.rewards = np.zeros(rows, np.float32)
        self.is_first = np.zeros(rows, bool)
        self.is_terminal = np.zeros(rows, bool)
        #: Rows ever added to each env's stream (the newest is at ``(count - 1) % capacity``).
        self.counts = np.zeros(num_envs, np.int64)

    @property
    def nbytes(self) -> int:
        """Bytes of the storage arrays at capacity."""
        return sum(array.nbytes for array in (self.images, self.proprio, self.actions, self.rewards, self.is_first, self.is_terminal))

    def __len__(self) -> int:
        """Rows held now, over all envs."""
        return int(np.minimum(self.counts, self.capacity).sum())

    def add(self, env: int, image: np.ndarray, proprio: np.ndarray, action: np.ndarray, reward: float,
            is_first: bool, is_terminal: bool) -> None:
        """Appends one row to env ``env``'s stream (the image ``(H, W, C)`` uint8, the raw
        proprioception ``(P,)`` and the flat action ``(A,)``)."""
        if image.dtype != np.uint8 or tuple(image.shape) != self.layout.image_shape:
            raise ValueError(f"image must be uint8 of shape {self.layout.image_shape}, got {image.dtype} {tuple(image.shape)}")
        row = int(self.counts[env] % self.capacity)
        self.images[env, row] = image
        self.proprio[env, row] = proprio
        self.actions[env, row] = action
        self.rewards[env, row] = reward
        self.is_first[env, row] = is_first
        self.is_terminal[env, row] = is_terminal
        self.counts[env] += 1

    def can_sample(self) -> bool:
        """Whether some env's stream holds a whole sequence."""
        return bool((np.minimum(self.counts, self.capacity) >= self.sequence_length).any())

    def sample(self, batch: int, generator: torch.Generator) -> dict[str, Tensor]:
        """``batch`` sequences of ``sequence_length`` rows, each from one env's stream, its start
        drawn uniformly among all the sequences the buffer holds. Time-major tensors ``(T, B, ...)``:
        ``rgbd`` uint8, ``proprio``, ``action``, ``reward`` float32, ``is_first``, ``is_terminal`` bool."""
        length = self.sequence_length
        held = np.minimum(self.counts, self.capacity)
        starts = np.maximum(held - length + 1, 0)  # sequences each stream holds
        if starts.sum() == 0:
            raise ValueError(f"the replay holds no sequence of {length} steps yet ({len(self)} steps)")
        draws = torch.randint(int(starts.sum()), (batch,), generator=generator).numpy()
        envs = np.searchsorted(np.cumsum(starts), draws, side="right")
        offsets = draws - (np.cumsum(starts) - starts)[envs]
        oldest = self.counts[envs] - held[envs]
        rows = (oldest[None, :] + offsets[None, :] + np.arange(length)[:, None]) % self.capacity  # (T, B)
        columns = np.broadcast_to(envs[None, :], rows.shape)
        return {
            RGBD_KEY: torch.from_numpy(self.images[columns, rows]),
            "proprio": torch.from_numpy(self.proprio[columns, rows]),
            "action": torch.from_numpy(self.actions[columns, rows]),
            "reward": torch.from_numpy(self.rewards[columns, rows]),
            "is_first": torch.from_numpy(self.is_first[columns, rows]),
            "is_terminal": torch.from_numpy(self.is_terminal[columns, rows]),
        }
