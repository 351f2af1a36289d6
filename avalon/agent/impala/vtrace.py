"""V-trace (Espeholt et al. 2018, section 4.1) as a pure function of tensors.

Conventions as PPO's (``avalon/agent/ppo/losses.py``): time-major ``(T, N)`` tensors for T steps of
N envs; ``dones[t, i]`` is 1 when env i's episode ended at step t (terminated or truncated), and the
value of the observation after such a step (the next episode's first) is not bootstrapped from.
With the discount ``g_t = discount * (1 - dones[t])``, the importance ratios
``r_t = exp(target_log_probs[t] - behaviour_log_probs[t])``, ``rho_t = min(clip_rho, r_t)`` and
``c_t = lambda_ * min(clip_c, r_t)``::

    delta_t  = rho_t * (rewards[t] + g_t * V[t + 1] - V[t])          (V[T] = bootstrap_values)
    vs_t     = V[t] + delta_t + g_t * c_t * (vs_{t+1} - V[t + 1])     (vs_T = V[T])
    pg_adv_t = min(clip_pg_rho, r_t) * (rewards[t] + g_t * vs_{t+1} - V[t])

``vs`` is the value target, ``pg_adv`` the advantage of the policy gradient. On-policy (r = 1)
with the clips at 1 or more and ``lambda_`` = 1, ``vs`` is the discounted return bootstrapped from
the last value. Everything is computed without gradients: these are targets.
"""

from __future__ import annotations

import attr
import torch
from torch import Tensor


@attr.s(frozen=True, auto_attribs=True)
class VTraceTargets:
    vs: Tensor  # (T, N) value targets
    pg_advantages: Tensor  # (T, N) policy-gradient advantages
    rhos: Tensor  # (T, N) the unclipped importance ratios (for logging how far off-policy the data is)


def vtrace(
    behaviour_log_probs: Tensor,
    target_log_probs: Tensor,
    rewards: Tensor,
    dones: Tensor,
    values: Tensor,
    bootstrap_values: Tensor,
    discount: float,
    *,
    clip_rho: float = 1.0,
    clip_c: float = 1.0,
    clip_pg_rho: float = 1.0,
    lambda_: float = 1.0,
) -> VTraceTargets:
    """V-trace targets of an unroll (see the module doc). ``bootstrap_values``: ``(N,)``, the value
    of the observation after the last step."""
    shape = rewards.shape
    if rewards.dim() != 2 or not all(t.shape == shape for t in (behaviour_log_probs, target_log_probs, dones, values)):
        raise ValueError(
            "behaviour_log_probs, target_log_probs, rewards, dones and values must share a (T, N) shape, got "
            f"{[tuple(t.shape) for t in (behaviour_log_probs, target_log_probs, rewards, dones, values)]}"
        )
    if bootstrap_values.shape != shape[1:]:
        raise ValueError(f"bootstrap_values must have shape {tuple(shape[1:])}, got {tuple(bootstrap_values.shape)}")
    for name, value in (("clip_rho", clip_rho), ("clip_c", clip_c), ("clip_pg_rho", clip_pg_rho), ("lambda_", lambda_)):
        if not value > 0:
            raise ValueError(f"{name} = {value!r} must be above 0")
    with torch.no_grad():
        ratios = torch.exp(target_log_probs - behaviour_log_probs)
        rhos = torch.clamp(ratios, max=clip_rho)
        cs = lambda_ * torch.clamp(ratios, max=clip_c)
        discounts = discount * (1.0 - dones.to(values.dtype))
        next_values = torch.cat([values[1:], bootstrap_values.unsqueeze(0)], dim=0)
        deltas = rhos * (rewards + discounts * next_values - values)
        corrections = torch.zeros_like(values)
        correction = torch.zeros_like(bootstrap_values)  # vs_{t+1} - V[t+1], 0 at T
        for t in range(shape[0] - 1, -1, -1):
            correction = deltas[t] + discounts[t] * cs[t] * correction
            corrections[t] = correction
        vs = values + corrections
        next_vs = torch.cat([vs[1:], bootstrap_values.unsqueeze(0)], dim=0)
        pg_advantages = torch.clamp(ratios, max=clip_pg_rho) * (rewards + discounts * next_vs - values)
    return VTraceTargets(vs, pg_advantages, ratios)
