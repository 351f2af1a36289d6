"""Checkpoint files: one ``torch.save`` dict per file, ``<out_dir>/checkpoints/step-<env steps>.pt``.

Every checkpoint names its algorithm, so that :func:`avalon.agent.load_policy` rebuilds the right
policy from the file alone. Keys every algorithm writes (format version 1):

| key | what |
|---|---|
| ``format``, ``version`` | ``"avalon-<algorithm>"`` (e.g. ``"avalon-ppo"``), ``1`` |
| ``algorithm`` | the algorithm's registry name, e.g. ``"ppo"`` (files written before it existed: taken from ``format``) |
| ``env_steps``, ``updates``, ``episodes`` | counters at the time of saving |
| ``observation_layout``, ``action_layout`` | what the network reads and what the policy head produces |
| ``action_space`` | ``"vr"``, ``"mouse_keyboard"`` or ``None`` (another Dict space) |
| ``resolution`` | side of the square RGBD frame, pixels |
| ``curriculum`` | the curriculum's ``state_dict()`` or ``None`` |
| ``rng`` | torch, numpy and Python global RNG states and the trainer's sampling generator |
| ``seed`` | the run's seed |

The algorithm adds its own keys (PPO: ``ppo_config``, ``model``, ``optimizer``; see its trainer).

Files are written to a temporary name and renamed, so a crash never leaves half a checkpoint
under the final name. They load with ``torch.load(weights_only=True)``: everything in them is
tensors and plain Python values (the curriculum's state must be too).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np
import torch

#: ``format`` is this prefix followed by the algorithm's name.
FORMAT_PREFIX = "avalon-"
VERSION = 1
_NAME = re.compile(r"^step-(\d+)\.pt$")


def checkpoint_format(algorithm: str) -> str:
    """The ``format`` of an ``algorithm``'s checkpoints, e.g. ``"avalon-ppo"``."""
    return FORMAT_PREFIX + algorithm


def checkpoint_dir(out_dir: str | Path) -> Path:
    return Path(out_dir) / "checkpoints"


def checkpoint_path(out_dir: str | Path, env_steps: int) -> Path:
    return checkpoint_dir(out_dir) / f"step-{env_steps:012d}.pt"


def list_checkpoints(out_dir: str | Path) -> list[Path]:
    """Checkpoints in ``out_dir``, oldest (fewest env steps) first."""
    directory = checkpoint_dir(out_dir)
    if not directory.is_dir():
        return []
    found = [(int(match.group(1)), path) for path in directory.iterdir() if (match := _NAME.match(path.name))]
    return [path for _, path in sorted(found)]


def latest_checkpoint(out_dir: str | Path) -> Path | None:
    checkpoints = list_checkpoints(out_dir)
    return checkpoints[-1] if checkpoints else None


def save_checkpoint(path: Path, payload: dict[str, Any], algorithm: str) -> Path:
    """Writes ``payload`` under the header naming ``algorithm`` (atomically: temporary file, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    torch.save({"format": checkpoint_format(algorithm), "version": VERSION, "algorithm": algorithm, **payload}, temporary)
    os.replace(temporary, path)
    return path


def prune_checkpoints(out_dir: str | Path, keep: int) -> None:
    """Deletes all but the ``keep`` newest checkpoints."""
    for path in list_checkpoints(out_dir)[:-keep] if keep > 0 else []:
        path.unlink(missing_ok=True)


def load_checkpoint(path: str | Path, algorithms: Collection[str]) -> dict[str, Any]:
    """The checkpoint dict, whose ``"algorithm"`` is one of ``algorithms``; ``ValueError`` naming
    the file when it is not a checkpoint of one of them.

    A file written before checkpoints named their algorithm gets ``"algorithm"`` from its
    ``format`` (``"avalon-ppo"``: ``"ppo"``).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint file at {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # corrupt file or a foreign pickle
        raise ValueError(f"{path} is not a readable checkpoint: {error}") from error
    formats = {checkpoint_format(name): name for name in algorithms}
    if not isinstance(payload, dict) or payload.get("format") not in formats:
        theirs = payload.get("format") if isinstance(payload, dict) else None
        if isinstance(theirs, str) and theirs.startswith("avalon-"):  # another algorithm's: name both
            raise ValueError(
                f"{path} is a checkpoint of {payload.get('algorithm') or theirs[len('avalon-'):]}, "
                f"not of {' or '.join(algorithms)}: an algorithm cannot continue another's training"
            )
        raise ValueError(f"{path} is not an {' or '.join(formats) or 'avalon'} checkpoint")
    algorithm = payload.setdefault("algorithm", formats[payload["format"]])
    if algorithm != formats[payload["format"]]:
        raise ValueError(f"{path} has format {payload['format']!r} but names the algorithm {algorithm!r}")
    if payload.get("version") != VERSION:
        raise ValueError(f"{path} has checkpoint format version {payload.get('version')!r}; this code reads version {VERSION}")
    return payload


_PLAIN = (str, int, float, bool, type(None), torch.Tensor)


def check_plain(value: Any, where: str = "state") -> None:
    """Raises ``ValueError`` naming the first part of ``value`` that ``weights_only`` loading
    would refuse (anything but dicts, lists, tuples, str, int, float, bool, None, tensors)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, (str, int)):
                raise ValueError(f"{where} has a key {key!r} of type {type(key).__name__}; checkpoints take str or int keys")
            check_plain(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_plain(item, f"{where}[{index}]")
    elif not isinstance(value, _PLAIN) or isinstance(value, np.generic):
        raise ValueError(
            f"{where} is a {type(value).__name__}; checkpoints hold only dicts, lists, tuples, str, int, float, "
            "bool, None and torch tensors (convert numpy values with .tolist() or float())"
        )


def rng_states(sampler: torch.Generator) -> dict[str, Any]:
    """The global RNG states and the trainer's generator, as tensors and plain Python values."""
    numpy_state = np.random.get_state(legacy=False)
    numpy_state = {**numpy_state, "state": {**numpy_state["state"], "key": numpy_state["state"]["key"].tolist()}}
    return {
        "torch": torch.get_rng_state(),
        "numpy": numpy_state,
        "python": random.getstate(),
        "sampler": sampler.get_state(),
    }


def restore_rng_states(states: dict[str, Any], sampler: torch.Generator) -> None:
    torch.set_rng_state(states["torch"])
    numpy_state = states["numpy"]
    key = np.asarray(numpy_state["state"]["key"], np.uint32)
    np.random.set_state({**numpy_state, "state": {**numpy_state["state"], "key": key}})
    random.setstate(_as_tuples(states["python"]))
    sampler.set_state(states["sampler"])


def _as_tuples(value: Any) -> Any:
    """random.setstate wants the nested tuples it gave (a round trip may turn them into lists)."""
    if isinstance(value, (list, tuple)):
        return tuple(_as_tuples(item) for item in value)
    return value
