"""The torch device a learner runs on (``avalon train --device``)."""

from __future__ import annotations

import re

import torch

_DEVICE = re.compile(r"^(cpu|cuda(:\d+)?)$")


def resolve_device(device: str | torch.device) -> torch.device:
    """``torch.device(device)`` for "cpu", "cuda" or "cuda:N"; ``ValueError`` naming the value
    when it is none of them or names a GPU this machine does not have."""
    text = str(device)
    if not _DEVICE.match(text):
        raise ValueError(f"device {text!r} is not one of 'cpu', 'cuda', 'cuda:N'")
    if text.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(
                f"device {text!r} asked for, but torch sees no CUDA GPU on this machine (torch.cuda.is_available() is False); use 'cpu'"
            )
        index = int(text.split(":")[1]) if ":" in text else 0
        if index >= torch.cuda.device_count():
            raise ValueError(f"device {text!r} asked for, but this machine has {torch.cuda.device_count()} CUDA GPU(s)")
    return torch.device(text)
