"""What the network sees of a Dict observation, and how the proprioceptive variables are scaled.

The image (``"rgbd"``, uint8 ``(res, res, 4)``) stays uint8 until the network turns it into
floats in [0, 1]. Every other key is a float vector; they are concatenated in sorted key order
and each value ``x`` becomes ``symlog(x / scale)`` with ``symlog(y) = sign(y) * log(1 + |y|)``,
where ``scale`` is a fixed, documented size for that variable (``PROPRIO_SCALES``): about the
largest value it takes in one step. symlog keeps small values nearly linear and squashes rare
large ones (``frames_remaining`` reaches thousands) without statistics that would have to be
learnt, saved and kept in sync between training and evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from torch import Tensor

from avalon.env.spaces import RGBD_KEY
from avalon.rules import mechanics

_STEP = mechanics.STEP_SECONDS
_DELTA_POSITION_M = mechanics.MAX_WALK_SPEED_M_PER_S * _STEP  # the most the body walks in one step
_DELTA_ROTATION_RAD = mechanics.MAX_HEAD_TURN_SPEED_RAD_PER_S * _STEP  # the most the body turns in one step

#: Scale of each proprioceptive key (``x / scale`` goes into symlog). Keys not listed use 1.
PROPRIO_SCALES: dict[str, float] = {
    **{f"{part}_delta_position": _DELTA_POSITION_M for part in ("body", "head", "left_hand", "right_hand")},
    **{f"{part}_delta_rotation": _DELTA_ROTATION_RAD for part in ("body", "head", "left_hand", "right_hand")},
    # Positions in the body frame (metres, up to about 2) and angles (radians, up to pi): scale 1.
    # Flags (0 or 1) and energy terms (energy starts at 1; one food gives about 1): scale 1.
    "energy_spent_on_movement": 1e-6,  # C_move (1e-8) times a few hundred joules of work in one step
    "frames_remaining": 100.0,  # ten seconds: the last hundred frames stay nearly linear
}


def symlog(values: Tensor) -> Tensor:
    return torch.sign(values) * torch.log1p(torch.abs(values))


class ObservationLayout:
    """The image shape and the proprioceptive keys (sorted) with their sizes and scales."""

    def __init__(self, image_shape: tuple[int, int, int], proprio: list[tuple[str, int]]) -> None:
        if len(image_shape) != 3 or image_shape[2] < 1:
            raise ValueError(f"image shape {image_shape} must be (height, width, channels)")
        self.image_shape = tuple(int(v) for v in image_shape)
        self.proprio = sorted((str(name), int(size)) for name, size in proprio)
        self.proprio_keys = [name for name, _ in self.proprio]
        self.proprio_size = sum(size for _, size in self.proprio)
        self.scales = np.concatenate(
            [np.full(size, PROPRIO_SCALES.get(name, 1.0), np.float32) for name, size in self.proprio]
        ) if self.proprio else np.zeros(0, np.float32)

    @classmethod
    def from_space(cls, space: spaces.Space) -> "ObservationLayout":
        if not isinstance(space, spaces.Dict):
            raise ValueError(f"the observation space must be a gymnasium Dict, not {type(space).__name__}")
        image = space.spaces.get(RGBD_KEY)
        if not (isinstance(image, spaces.Box) and image.dtype == np.uint8 and len(image.shape) == 3):
            raise ValueError(f"the observation needs {RGBD_KEY!r}: a uint8 Box of shape (height, width, channels), got {image!r}")
        proprio = []
        for name, part in space.spaces.items():
            if name == RGBD_KEY:
                continue
            if not (isinstance(part, spaces.Box) and len(part.shape) == 1 and np.issubdtype(part.dtype, np.floating)):
                raise ValueError(f"observation key {name!r}: expected a one-dimensional float Box, got {part!r}")
            proprio.append((name, int(part.shape[0])))
        return cls(tuple(image.shape), proprio)

    def to_dict(self) -> dict[str, Any]:
        return {"image_shape": list(self.image_shape), "proprio": [[name, size] for name, size in self.proprio]}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "ObservationLayout":
        return cls(tuple(values["image_shape"]), [(name, size) for name, size in values["proprio"]])

    def to_tensors(self, observations: Mapping[str, np.ndarray]) -> dict[str, Tensor]:
        """Batched numpy observations -> ``{"rgbd": uint8 (B, H, W, C), "proprio": float32 (B, P)}`` (raw)."""
        missing = [key for key in [RGBD_KEY, *self.proprio_keys] if key not in observations]
        if missing:
            raise ValueError(f"observations lack key(s) {missing}; expected {[RGBD_KEY, *self.proprio_keys]}")
        image = np.asarray(observations[RGBD_KEY])
        if image.dtype != np.uint8 or image.ndim != 4 or tuple(image.shape[1:]) != self.image_shape:
            raise ValueError(
                f"observations[{RGBD_KEY!r}] must be uint8 of shape (batch, {', '.join(map(str, self.image_shape))}), "
                f"got {image.dtype} {image.shape}"
            )
        batch = image.shape[0]
        parts = []
        for name, size in self.proprio:
            value = np.asarray(observations[name], np.float32)
            if value.shape != (batch, size):
                raise ValueError(f"observations[{name!r}] must have shape ({batch}, {size}), got {value.shape}")
            parts.append(value)
        proprio = np.concatenate(parts, axis=1) if parts else np.zeros((batch, 0), np.float32)
        return {RGBD_KEY: torch.from_numpy(np.ascontiguousarray(image)), "proprio": torch.from_numpy(proprio)}
