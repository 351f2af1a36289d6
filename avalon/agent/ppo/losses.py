"""The pieces of PPO as pure functions of tensors (no model, no optimiser).

Conventions: time-major tensors ``(T, N)`` for T steps of N envs. ``dones[t, i]`` is 1 when env
i's episode ended at step t (terminated *or* truncated: the observation shows the frames left,
so a time limit is part of the state and its end is a true end), in which case the value of the
next observation (the next episode's first) must not be bootstrapped from.
"""

from __future__ import annotations

import torch
from torch import Tensor


def compute_gae(
    rewards: Tensor, values: Tensor, dones: Tensor, last_values: Tensor, discount: float, gae_lambda: float
) -> tuple[Tensor, Tensor]:
    """Generalised advantage estimation (Schulman et al. 2016). Returns (advantages, returns).

    ``rewards``, ``values``, ``dones``: ``(T, N)``; ``last_values``: ``(N,)``, the value of the
    observation after the last step. With ``not_done = 1 - dones[t]``::

        delta[t] = rewards[t] + discount * not_done * values[t + 1] - values[t]
        adv[t]   = delta[t] + discount * gae_lambda * not_done * adv[t + 1]
        returns  = adv + values
    """
    if not (rewards.shape == values.shape == dones.shape) or rewards.dim() != 2:
        raise ValueError(f"rewards, values and dones must share a (T, N) shape, got {rewards.shape}, {values.shape}, {dones.shape}")
    if last_values.shape != rewards.shape[1:]:
        raise ValueError(f"last_values must have shape {tuple(rewards.shape[1:])}, got {tuple(last_values.shape)}")
    not_done = 1.0 - dones.to(values.dtype)
    advantages = torch.zeros_like(values)
    next_advantage = torch.zeros_like(last_values)
    next_value = last_values
    for t in range(rewards.shape[0] - 1, -1, -1):
        delta = rewards[t] + discount * not_done[t] * next_value - values[t]
        next_advantage = delta + discount * gae_lambda * not_done[t] * next_advantage
        advantages[t] = next_advantage
        next_value = values[t]
    return advantages, advantages + values


def normalize(advantages: Tensor, epsilon: float = 1e-8) -> Tensor:
    """Zero mean, unit (unbiased) std; a batch of one only loses its mean."""
    centred = advantages - advantages.mean()
    if advantages.numel() < 2:
        return centred
    return centred / (advantages.std() + epsilon)


def clipped_policy_loss(log_probs: Tensor, old_log_probs: Tensor, advantages: Tensor, clip_range: float) -> tuple[Tensor, Tensor]:
    """PPO's clipped surrogate, to minimise. Returns (loss, fraction of ratios outside the clip range).

    ``ratio = exp(log_probs - old_log_probs)``;
    ``loss = -mean(min(ratio * adv, clip(ratio, 1 - clip_range, 1 + clip_range) * adv))``.
    """
    ratio = torch.exp(log_probs - old_log_probs)
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_range, 1.0 + clip_range) * advantages
    loss = -torch.min(unclipped, clipped).mean()
    clip_fraction = ((ratio - 1.0).abs() > clip_range).float().mean()
    return loss, clip_fraction


def value_loss(values: Tensor, returns: Tensor) -> Tensor:
    """Mean squared error of the value prediction (no factor 1/2: Table 7's "baseline cost" weighs this)."""
    return ((values - returns) ** 2).mean()


def entropy_bonus(entropy: Tensor) -> Tensor:
    """Mean policy entropy; the total loss subtracts ``entropy_cost`` times this."""
    return entropy.mean()


def total_loss(policy: Tensor, value: Tensor, entropy: Tensor, value_cost: float, entropy_cost: float) -> Tensor:
    """``policy + value_cost * value - entropy_cost * entropy`` (entropy is a bonus)."""
    return policy + value_cost * value - entropy_cost * entropy


def explained_variance(predictions: Tensor, targets: Tensor) -> float:
    """1 - Var(targets - predictions) / Var(targets); nan when the targets do not vary."""
    variance = targets.var()
    if variance.item() == 0:
        return float("nan")
    return float(1.0 - (targets - predictions).var() / variance)
