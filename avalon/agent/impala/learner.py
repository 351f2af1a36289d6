"""One IMPALA update: V-trace targets from the learner's own values, then one RMSProp step.

A batch is time-major, ``T`` steps of ``B`` unrolls (:func:`stack_unrolls` builds it from the
actors' unrolls): observations with ``T + 1`` rows (row ``T`` bootstraps the value), and per step
the flat action taken, its log-probability under the actor's (behaviour) policy, the reward and
whether the episode ended there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from avalon.agent.common.network import ActorCritic
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.vtrace import vtrace
from avalon.env.spaces import RGBD_KEY

#: Relative excess over the clip that float32 rounding alone can give a ratio (some 100 ulps); only
#: ratios beyond it count as clipped in the stats.
RHO_ROUNDING = 1e-5
#: The keys of an unroll and of a batch (observations: ``RGBD_KEY`` and "proprio").
STEP_KEYS = ("actions", "behaviour_log_probs", "rewards", "dones")
OBSERVATION_KEYS = (RGBD_KEY, "proprio")


def make_optimizer(model: nn.Module, config: IMPALAConfig) -> torch.optim.RMSprop:
    return torch.optim.RMSprop(
        model.parameters(), lr=config.learning_rate, alpha=config.rmsprop_alpha, eps=config.rmsprop_epsilon
    )


def stack_unrolls(unrolls: Sequence[Mapping[str, np.ndarray]], device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """The actors' unrolls (each ``(T [+ 1], n, ...)`` arrays) side by side: ``(T [+ 1], B, ...)`` tensors on ``device``."""
    if not unrolls:
        raise ValueError("an update needs at least one unroll")
    lengths = {unroll["rewards"].shape[0] for unroll in unrolls}
    if len(lengths) != 1:
        raise ValueError(f"unrolls of different lengths {sorted(lengths)} cannot share a batch")
    return {
        key: torch.from_numpy(np.concatenate([unroll[key] for unroll in unrolls], axis=1)).to(device)
        for key in OBSERVATION_KEYS + STEP_KEYS
    }


def impala_update(
    model: ActorCritic, optimizer: torch.optim.Optimizer, batch: Mapping[str, Tensor], config: IMPALAConfig
) -> dict[str, float]:
    """One gradient step on ``batch`` (see the module doc); returns the losses and diagnostics.

    The network sees all ``(T + 1) * B`` observations at once; V-trace turns its values (no
    gradient) into targets ``vs`` and advantages; the loss is
    ``-sum(adv * log pi(a)) + baseline_cost * 0.5 * sum((vs - V)^2) - entropy_cost * sum(H)``,
    its gradient clipped to a global norm of ``max_grad_norm``.
    """
    rewards = batch["rewards"]
    if rewards.dim() != 2:
        raise ValueError(f"batch['rewards'] must be (T, B), got shape {tuple(rewards.shape)}")
    steps, width = rewards.shape
    for key in OBSERVATION_KEYS:
        if batch[key].shape[:2] != (steps + 1, width):
            raise ValueError(f"batch[{key!r}] must start with ({steps + 1}, {width}) (T + 1 rows), got {tuple(batch[key].shape)}")
    model.train()
    observations = {key: batch[key].flatten(0, 1) for key in OBSERVATION_KEYS}
    hidden = model.features(observations)
    values = model.value_head(hidden).squeeze(1).view(steps + 1, width)
    acted = hidden[: steps * width]  # rows 0 .. T-1: the observations actions were taken in
    distribution = model.action_distribution(acted)
    log_probs = distribution.log_prob(batch["actions"].flatten(0, 1)).view(steps, width)
    targets = vtrace(
        batch["behaviour_log_probs"], log_probs.detach(), rewards, batch["dones"], values[:-1].detach(), values[-1].detach(),
        config.discount, clip_rho=config.clip_rho, clip_pg_rho=config.clip_pg_rho,
    )
    policy_loss = -(targets.pg_advantages * log_probs).sum()
    baseline_loss = 0.5 * (targets.vs - values[:-1]).pow(2).sum()
    entropy = distribution.entropy().sum()
    loss = policy_loss + config.baseline_cost * baseline_loss - config.entropy_cost * entropy
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
    optimizer.step()
    model.eval()
    transitions = steps * width
    with torch.no_grad():
        std = distribution.std.mean() if distribution.std.numel() else torch.zeros(())
        return {
            "loss": float(loss) / transitions,
            "policy_loss": float(policy_loss) / transitions,
            "baseline_loss": float(baseline_loss) / transitions,
            "entropy": float(entropy) / transitions,
            "grad_norm": float(grad_norm),
            "rho_mean": float(targets.rhos.mean()),
            # Beyond float32 rounding: the ratios of an on-policy batch are 1 to within float32 rounding
            # (the learner's batched pass and the actor's per-step one round differently).
            "rho_clipped_fraction": float((targets.rhos > config.clip_rho * (1.0 + RHO_ROUNDING)).float().mean()),
            "vs_mean": float(targets.vs.mean()),
            "value_mean": float(values[:-1].mean()),
            "std": float(std),
        }
