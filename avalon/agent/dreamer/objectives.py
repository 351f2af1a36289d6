"""DreamerV2's objectives as pure functions of tensors (Hafner et al. 2021, equations 4-6 and
section 2.1 "KL balancing").

Conventions: time-major tensors; a latent distribution is a ``torch.distributions.Normal`` over
``(..., latent)`` whose last dimension is the latent's (its KL is summed over it).
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.distributions import Normal, kl_divergence

#: DreamerV2's balance between training the prior toward the posterior (this share) and the
#: posterior toward the prior (the rest).
KL_BALANCE = 0.8
#: Free nats: a KL below this costs nothing (DreamerV2's continuous-control setting).
FREE_NATS = 1.0


def lambda_returns(rewards: Tensor, values: Tensor, continues: Tensor, discount: float, lambda_: float) -> Tensor:
    """The lambda-returns of an imagined trajectory of H steps: ``rewards`` and ``continues``
    ``(H, ...)`` (the reward of step t and the probability the episode goes on after it),
    ``values`` ``(H + 1, ...)`` (the critic at each state, the last after step H)::

        R_H = values[H]
        R_t = rewards[t] + discount * continues[t] * ((1 - lambda_) * values[t + 1] + lambda_ * R_{t+1})

    Returns ``(H, ...)``.
    """
    if rewards.shape != continues.shape or values.shape != (rewards.shape[0] + 1, *rewards.shape[1:]):
        raise ValueError(
            f"rewards and continues must be (H, ...) and values (H + 1, ...), got {tuple(rewards.shape)}, "
            f"{tuple(continues.shape)} and {tuple(values.shape)}"
        )
    if not 0.0 <= lambda_ <= 1.0:
        raise ValueError(f"lambda_ = {lambda_!r} must be in [0, 1]")
    returns = torch.empty_like(rewards)
    following = values[-1]
    for t in range(rewards.shape[0] - 1, -1, -1):
        following = rewards[t] + discount * continues[t] * ((1.0 - lambda_) * values[t + 1] + lambda_ * following)
        returns[t] = following
    return returns


def _normal(distribution: Normal, detach: bool) -> Normal:
    if not detach:
        return distribution
    return Normal(distribution.loc.detach(), distribution.scale.detach())


def balanced_kl_loss(posterior: Normal, prior: Normal, balance: float = KL_BALANCE, free_nats: float = FREE_NATS) -> tuple[Tensor, Tensor]:
    """The world model's KL loss with KL balancing and free nats, and the KL itself (for logging).

    ``KL(q || p)`` summed over the latent and averaged over the rest; the loss is
    ``balance * max(KL(sg(q) || p), free) + (1 - balance) * max(KL(q || sg(p)), free)``: its
    value is ``max(KL, free)``, but the prior learns ``balance`` of it and the posterior the rest,
    so the prior moves toward the posterior more than the other way.
    """
    if not 0.0 <= balance <= 1.0:
        raise ValueError(f"balance = {balance!r} must be in [0, 1]")
    kl = kl_divergence(posterior, prior).sum(-1).mean()
    prior_side = kl_divergence(_normal(posterior, True), prior).sum(-1).mean()
    posterior_side = kl_divergence(posterior, _normal(prior, True)).sum(-1).mean()
    free = torch.as_tensor(free_nats, dtype=kl.dtype)
    loss = balance * torch.maximum(prior_side, free) + (1.0 - balance) * torch.maximum(posterior_side, free)
    return loss, kl.detach()
