"""The policy's distribution over a Gymnasium ``Dict`` action space.

Each ``Box`` part gets a diagonal Normal, each ``Discrete`` part a Categorical; the parts are
independent, so the log-probability and the entropy of an action are sums over the parts.

Actions live in two forms:

- the **flat action**, a float32 tensor ``(batch, action_size)`` that the learner stores and
  scores: first every Box value as an unclipped *normalised* sample ``z`` (in part order), then
  every Discrete part as its index ``0 .. n-1`` (an exact small integer in float32);
- the **env action**, a dict of batched numpy arrays for ``VectorEnv.step``: a Box part becomes
  ``clip(centre + half_width * z, low, high)`` as float32 ``(batch, size)``, a Discrete part
  ``start + index`` as int64 ``(batch,)``.

For the ``Box(-1, 1)`` parts of both Avalon action spaces ``centre = 0`` and ``half_width = 1``,
so ``z`` is the env value before clipping. Log-probabilities are always of the unclipped ``z``:
clipping is part of the environment, not of the policy (so ``z`` far outside the bounds is a
legitimate sample whose probability the learner can still compute).

The Normal's std comes from the network: ``std = softplus(raw + b) + min_std`` with
``b = softplus^-1(initial_std - min_std)``, so a raw output of 0 gives ``initial_std`` and no
output goes below ``min_std``.
"""

from __future__ import annotations

import math
from typing import Any

import attr
import numpy as np
import torch
from gymnasium import spaces
from torch import Tensor
from torch.nn import functional as F

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
#: How close to a Box's bound a ``tanh``-bounded mean starts (:meth:`ActionLayout.neutral_raw_means`).
BOUNDED_MEAN_REACH = 0.95


@attr.s(frozen=True, auto_attribs=True)
class ActionPart:
    """One key of the Dict action space.

    ``kind`` is "normal" (a Box of ``size`` values in [low, high]) or "categorical" (a Discrete
    of ``categories`` values starting at ``start``).
    """

    name: str
    kind: str
    size: int
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    categories: int = 0
    start: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {**attr.asdict(self), "low": list(self.low), "high": list(self.high)}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "ActionPart":
        values = dict(values)
        return cls(**{**values, "low": tuple(values["low"]), "high": tuple(values["high"])})


def _part_from_space(name: str, space: spaces.Space) -> ActionPart:
    if isinstance(space, spaces.Box):
        if len(space.shape) != 1:
            raise ValueError(f"action part {name!r}: Box of shape {space.shape} is not supported; expected one dimension")
        low, high = np.asarray(space.low, np.float64), np.asarray(space.high, np.float64)
        if not (np.isfinite(low).all() and np.isfinite(high).all() and (high > low).all()):
            raise ValueError(f"action part {name!r}: Box bounds [{low.tolist()}, {high.tolist()}] must be finite with low < high")
        return ActionPart(name, "normal", int(space.shape[0]), tuple(low.tolist()), tuple(high.tolist()))
    if isinstance(space, spaces.Discrete):
        if int(space.n) < 2:
            raise ValueError(f"action part {name!r}: Discrete({space.n}) needs at least 2 choices")
        return ActionPart(name, "categorical", 1, categories=int(space.n), start=int(space.start))
    raise ValueError(f"action part {name!r}: {type(space).__name__} is not supported; expected Box or Discrete")


class ActionLayout:
    """Where each part of a Dict action lives in the flat action and in the network's output."""

    def __init__(self, parts: list[ActionPart]) -> None:
        if not parts:
            raise ValueError("an action space needs at least one part")
        self.parts = list(parts)
        normal = [part for part in self.parts if part.kind == "normal"]
        categorical = [part for part in self.parts if part.kind == "categorical"]
        #: Continuous values (Normal dimensions) and Discrete parts.
        self.normal_size = sum(part.size for part in normal)
        self.categorical_count = len(categorical)
        #: Width of the flat action.
        self.action_size = self.normal_size + self.categorical_count
        #: Outputs the network's policy head produces: mean and raw std per continuous value, logits per choice.
        self.parameter_size = 2 * self.normal_size + sum(part.categories for part in categorical)
        self._categorical_sizes = [part.categories for part in categorical]
        self._uniform_categories = len(set(self._categorical_sizes)) == 1
        low = np.concatenate([part.low for part in normal]) if normal else np.zeros(0)
        high = np.concatenate([part.high for part in normal]) if normal else np.zeros(0)
        self._centre = ((low + high) / 2).astype(np.float32)
        self._half_width = ((high - low) / 2).astype(np.float32)
        self._low, self._high = low.astype(np.float32), high.astype(np.float32)
        self._normal_slices, self._categorical_columns = {}, {}
        offset = 0
        for part in normal:
            self._normal_slices[part.name] = slice(offset, offset + part.size)
            offset += part.size
        for column, part in enumerate(categorical):
            self._categorical_columns[part.name] = self.normal_size + column

    @classmethod
    def from_space(cls, space: spaces.Space) -> "ActionLayout":
        if not isinstance(space, spaces.Dict):
            raise ValueError(f"the action space must be a gymnasium Dict, not {type(space).__name__}")
        return cls([_part_from_space(name, part) for name, part in space.spaces.items()])

    def to_dict(self) -> dict[str, Any]:
        return {"parts": [part.to_dict() for part in self.parts]}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "ActionLayout":
        return cls([ActionPart.from_dict(part) for part in values["parts"]])

    def distribution(
        self, parameters: Tensor, initial_std: float, min_std: float, max_std: float | None = None, bounded_means: bool = False
    ) -> "DictActionDistribution":
        """The distribution whose parameters are the policy head's ``(batch, parameter_size)`` output."""
        if parameters.shape[-1] != self.parameter_size:
            raise ValueError(f"expected {self.parameter_size} policy parameters, got {parameters.shape[-1]}")
        return DictActionDistribution(self, parameters, initial_std, min_std, max_std, bounded_means)

    def neutral_raw_means(self, bounded: bool) -> np.ndarray:
        """The policy head's mean outputs that give :meth:`neutral_means`: the means themselves, or,
        for means bounded by ``tanh``, their ``atanh`` with the means kept 0.05 inside the Box
        (the jump's then is -0.95: 3 stds below its threshold at std 0.3)."""
        means = self.neutral_means()
        return np.arctanh(np.clip(means, -BOUNDED_MEAN_REACH, BOUNDED_MEAN_REACH)).astype(np.float32) if bounded else means

    def neutral_means(self) -> np.ndarray:
        """``(normal_size,)`` float32: each Box value's normalised ``z`` of the env value nearest 0
        (no motion, no jump): 0 for a ``Box(-1, 1)``, -1 for the mouse-and-keyboard ``jump``'s
        ``Box(0, 1)``. The policy heads start their means here, so that an untrained policy does
        nothing on average. Centred on the Box instead, the jump's mean sits on its 0.5 threshold and
        an untrained agent jumps in half its steps, which spoils most grasps (docs/agent.md)."""
        neutral = np.clip(0.0, self._low, self._high)
        return ((neutral - self._centre) / self._half_width).astype(np.float32)

    def to_env(self, flat_actions: np.ndarray) -> dict[str, np.ndarray]:
        """Batched env actions (clipped Box values, Discrete values) from ``(batch, action_size)`` flat actions."""
        flat_actions = np.asarray(flat_actions, np.float32)
        if flat_actions.ndim != 2 or flat_actions.shape[1] != self.action_size:
            raise ValueError(f"flat actions must have shape (batch, {self.action_size}), got {flat_actions.shape}")
        continuous = np.clip(
            self._centre + self._half_width * flat_actions[:, : self.normal_size], self._low, self._high
        ).astype(np.float32)
        result: dict[str, np.ndarray] = {}
        for part in self.parts:
            if part.kind == "normal":
                result[part.name] = np.ascontiguousarray(continuous[:, self._normal_slices[part.name]])
            else:
                index = flat_actions[:, self._categorical_columns[part.name]]
                result[part.name] = index.astype(np.int64) + part.start
        return result

    def split_parameters(self, parameters: Tensor) -> tuple[Tensor, Tensor, list[Tensor]]:
        """(means, raw stds, logits of each categorical part) from the policy head's output."""
        n = self.normal_size
        means, raw_std = parameters[:, :n], parameters[:, n : 2 * n]
        logits = list(torch.split(parameters[:, 2 * n :], self._categorical_sizes, dim=1)) if self._categorical_sizes else []
        return means, raw_std, logits


def softplus_inverse(value: float) -> float:
    """``x`` with ``softplus(x) == value`` (for value > 0)."""
    if value <= 0:
        raise ValueError(f"softplus only reaches values > 0, not {value!r}")
    return value + math.log(-math.expm1(-value))


class DictActionDistribution:
    """Independent Normals (Box values) and Categoricals (Discrete parts) over a flat action.

    All methods work on batches: ``sample``/``mode`` return ``(batch, action_size)``, ``log_prob``
    and ``entropy`` return ``(batch,)`` (sums over every part).

    The Normals' std is ``initial_std`` for a raw output of 0, at least ``min_std`` and, with a
    ``max_std``, at most that (a sigmoid between the two instead of a softplus above the lower
    bound): an entropy bonus can then not spread the actions without limit. With
    ``bounded_means`` each mean is ``tanh`` of its raw output, inside the Box (as DreamerV2's
    actor): beyond a bound every sample clips to the same env action, so nothing would pull a
    mean back from there.
    """

    def __init__(
        self, layout: ActionLayout, parameters: Tensor, initial_std: float, min_std: float, max_std: float | None = None,
        bounded_means: bool = False,
    ) -> None:
        self.layout = layout
        means, raw_std, logits = layout.split_parameters(parameters)
        self.mean = torch.tanh(means) if bounded_means else means
        if max_std is None:
            self.std = F.softplus(raw_std + softplus_inverse(initial_std - min_std)) + min_std
        else:
            if not min_std < initial_std < max_std:
                raise ValueError(f"need min_std < initial_std < max_std, got {min_std!r}, {initial_std!r}, {max_std!r}")
            share = (initial_std - min_std) / (max_std - min_std)
            self.std = min_std + (max_std - min_std) * torch.sigmoid(raw_std + math.log(share / (1.0 - share)))
        self._log_std = torch.log(self.std)
        if logits and layout._uniform_categories:
            # All Discrete parts have the same number of choices (both Avalon spaces): one batched op.
            stacked = torch.stack(logits, dim=1)  # (batch, parts, choices)
            self._log_probs = [torch.log_softmax(stacked, dim=-1)]
        else:
            self._log_probs = [torch.log_softmax(part, dim=-1).unsqueeze(1) for part in logits]

    def sample(self, generator: torch.Generator | None = None) -> Tensor:
        noise = torch.randn(self.mean.shape, generator=generator, dtype=self.mean.dtype, device=self.mean.device)
        columns = [self.mean + self.std * noise]
        for log_probs in self._log_probs:
            batch, parts, choices = log_probs.shape
            drawn = torch.multinomial(log_probs.exp().reshape(batch * parts, choices), 1, generator=generator)
            columns.append(drawn.reshape(batch, parts).to(self.mean.dtype))
        return torch.cat(columns, dim=1)

    def mode(self) -> Tensor:
        """The most likely action: Normal means and Categorical argmaxes."""
        columns = [self.mean] + [log_probs.argmax(dim=-1).to(self.mean.dtype) for log_probs in self._log_probs]
        return torch.cat(columns, dim=1)

    def log_prob(self, actions: Tensor) -> Tensor:
        n = self.layout.normal_size
        z = actions[:, :n]
        normal = -(((z - self.mean) / self.std) ** 2) / 2 - self._log_std - _LOG_SQRT_2PI
        total = normal.sum(dim=1)
        column = n
        for log_probs in self._log_probs:
            parts = log_probs.shape[1]
            index = actions[:, column : column + parts].long().unsqueeze(-1)
            total = total + log_probs.gather(-1, index).squeeze(-1).sum(dim=1)
            column += parts
        return total

    def entropy(self) -> Tensor:
        normal, categorical = self.entropy_parts()
        return normal + categorical

    def entropy_parts(self) -> tuple[Tensor, Tensor]:
        """``(batch,)`` entropies of the Normal parts and of the Categorical parts (their sum is :meth:`entropy`)."""
        normal = (self._log_std + 0.5 + _LOG_SQRT_2PI).sum(dim=1)
        categorical = torch.zeros_like(normal)
        for log_probs in self._log_probs:
            categorical = categorical - (log_probs.exp() * log_probs).sum(dim=(1, 2))
        return normal, categorical
