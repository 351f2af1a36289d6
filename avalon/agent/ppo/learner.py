"""One PPO update from a filled :class:`RolloutStorage`."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from avalon.agent.common.network import ActorCritic
from avalon.agent.ppo.config import PPOConfig
from avalon.agent.ppo.losses import (
    clipped_policy_loss,
    compute_gae,
    entropy_bonus,
    explained_variance,
    normalize,
    total_loss,
    value_loss,
)
from avalon.agent.ppo.rollout import RolloutStorage


def make_optimizer(model: nn.Module, config: PPOConfig) -> torch.optim.Adam:
    return torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=config.adam_epsilon)


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    storage: RolloutStorage,
    last_values: Tensor,
    config: PPOConfig,
    generator: torch.Generator,
) -> dict[str, float]:
    """``config.epochs`` passes of clipped PPO over the unroll in ``storage``; returns mean statistics.

    Each minibatch is one optimiser step on ``policy + value_cost * value - entropy_cost *
    entropy`` after clipping the global gradient norm to ``max_grad_norm``. A minibatch larger
    than ``learn_chunk_size`` is processed in chunks whose gradients add up to the same step.
    """
    with torch.no_grad():
        advantages, returns = compute_gae(
            storage.rewards, storage.values, storage.dones, last_values, config.discount, config.gae_lambda
        )
    observations = storage.flat_observations()
    actions = storage.actions.flatten(0, 1)
    old_log_probs = storage.log_probs.flatten(0, 1)
    advantages, returns = advantages.flatten(), returns.flatten()
    batch = advantages.numel()
    config.check_batch(storage.num_envs)
    device = next(model.parameters()).device  # the storage stays on the CPU; each chunk moves
    minibatch = batch // config.minibatches
    chunk = min(config.learn_chunk_size or minibatch, minibatch)
    totals: dict[str, float] = {}
    steps = 0
    model.train()
    for _epoch in range(config.epochs):
        order = torch.randperm(batch, generator=generator)
        for start in range(0, batch, minibatch):
            indices = order[start : start + minibatch]
            minibatch_advantages = advantages[indices]
            if config.normalize_advantages:
                minibatch_advantages = normalize(minibatch_advantages)
            optimizer.zero_grad(set_to_none=True)
            sums = dict.fromkeys(("loss", "policy_loss", "value_loss", "entropy", "clip_fraction", "approx_kl", "std"), 0.0)
            for chunk_start in range(0, minibatch, chunk):
                part = slice(chunk_start, chunk_start + chunk)
                chunk_indices = indices[part]
                weight = chunk_indices.numel() / minibatch
                distribution, values = model({key: value[chunk_indices].to(device) for key, value in observations.items()})
                old = old_log_probs[chunk_indices].to(device)
                log_probs = distribution.log_prob(actions[chunk_indices].to(device))
                policy, clip_fraction = clipped_policy_loss(log_probs, old, minibatch_advantages[part].to(device), config.clip_range)
                value = value_loss(values, returns[chunk_indices].to(device))
                entropy = entropy_bonus(distribution.entropy())
                loss = total_loss(policy, value, entropy, config.value_cost, config.entropy_cost)
                (loss * weight).backward()
                with torch.no_grad():
                    approx_kl = (old - log_probs).mean()
                    std = distribution.std.mean() if distribution.std.numel() else torch.zeros(())
                for name, tensor in (
                    ("loss", loss), ("policy_loss", policy), ("value_loss", value), ("entropy", entropy),
                    ("clip_fraction", clip_fraction), ("approx_kl", approx_kl), ("std", std),
                ):
                    sums[name] += float(tensor.detach()) * weight
            grad_norm = nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            sums["grad_norm"] = float(grad_norm)
            for name, value in sums.items():
                totals[name] = totals.get(name, 0.0) + value
            steps += 1
    model.eval()
    stats = {name: value / steps for name, value in totals.items()}
    stats["explained_variance"] = explained_variance(storage.values.flatten(), returns)
    stats["advantage_mean"] = float(advantages.mean())
    stats["return_mean"] = float(returns.mean())
    return stats
