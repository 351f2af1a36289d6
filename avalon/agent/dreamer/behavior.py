"""DreamerV2's actor-critic, learnt on trajectories the world model imagines.

From every posterior state of a replayed batch, :func:`imagine` rolls the RSSM's prior forward
``horizon`` steps with actions sampled from the actor: the rollout reads no observation, only
the start state. The reward and continuation heads score the imagined states, the slow critic
values them, and :func:`~avalon.agent.dreamer.objectives.lambda_returns` gives the targets::

    R_h = r(s_{h+1}) + discount * c(s_{h+1}) * ((1 - lambda) * v_slow(s_{h+1}) + lambda * R_{h+1}),  R_H = v_slow(s_H)

Each state h < H weighs ``w_h = c_start * prod_{k=1..h} discount * c(s_k)`` (no gradient), so that
steps after a likely episode end count less. The actor's loss is REINFORCE with the slow critic
as baseline plus the entropy bonus (Table 7: REINFORCE actor gradients, entropy 2e-3),
``-mean(w_h * (log pi(a_h | s_h) * (R_h - v_slow(s_h)) + entropy_cost * H[pi(. | s_h)]))`` (with a
``continuous_entropy_cost``, that weighs the Normal parts' entropy and ``entropy_cost`` the choices'); the
critic's is ``mean(w_h * (v(s_h) - R_h)^2 / 2)``. The slow critic is a copy of the critic taken
every ``slow_critic_interval`` updates.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from avalon.agent.common.distributions import ActionLayout, DictActionDistribution
from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.networks import mlp
from avalon.agent.dreamer.objectives import lambda_returns
from avalon.agent.dreamer.world_model import State, WorldModel


class Actor(nn.Module):
    """Model features ``(N, F)`` -> the distribution over the Dict action (via :class:`ActionLayout`).

    The std of each continuous value stays between ``min_std`` and ``max_std``, as DreamerV2's
    truncated Normal's: the env clips actions to their bounds, so a wider Normal costs nothing in
    reward while the entropy bonus keeps paying for it (unbounded, it grew past 15 in a few
    thousand updates on eat). The std is ``min_std + (max_std - min_std) * sigmoid(raw + c)``
    (``initial_std`` at ``raw = 0``; the distribution's ``max_std``). Its means are bounded to the
    Box by ``tanh``, as DreamerV2's: the world model is fed the clipped action, so beyond a bound the
    imagined outcome no longer depends on the mean, which then drifted freely (on eat, after 36k
    steps: a walking mean of 3.2 and a turning one of -1.2, walking and turning at full speed; docs/agent.md).
    """

    def __init__(self, feature_size: int, action_layout: ActionLayout, config: DreamerConfig) -> None:
        super().__init__()
        self.action_layout, self.initial_std, self.min_std, self.max_std = action_layout, config.initial_std, config.min_std, config.max_std
        self.network = mlp(feature_size, config.mlp_units, config.mlp_layers, action_layout.parameter_size)
        with torch.no_grad():  # small outputs at first: means near the neutral action, stds near initial_std, uniform categoricals
            self.network[-1].weight.mul_(0.01)
            self.network[-1].bias.zero_()
            self.network[-1].bias[: action_layout.normal_size] = torch.from_numpy(action_layout.neutral_raw_means(bounded=True))

    def forward(self, features: Tensor) -> DictActionDistribution:
        parameters = self.network(features)
        return self.action_layout.distribution(parameters, self.initial_std, self.min_std, self.max_std, bounded_means=True)


class Critic(nn.Module):
    """Model features ``(..., F)`` -> the value ``(...)``."""

    def __init__(self, feature_size: int, config: DreamerConfig) -> None:
        super().__init__()
        self.network = mlp(feature_size, config.mlp_units, config.mlp_layers, 1)

    def forward(self, features: Tensor) -> Tensor:
        return self.network(features).squeeze(-1)


class Imagined(NamedTuple):
    """An imagined rollout of N trajectories: ``features`` ``(H + 1, N, F)`` (the start state
    first), ``actions`` ``(H, N, A)`` flat actions (the one taken in each state but the last)."""

    features: Tensor
    actions: Tensor


def imagine(world_model: WorldModel, actor: Actor, start: State, horizon: int, generator: torch.Generator | None = None) -> Imagined:
    """Rolls the prior forward ``horizon`` steps from ``start`` (a :class:`State` of ``(N, ...)``)
    with the actor's sampled actions. Without gradients: the actor learns through log-probabilities
    (REINFORCE), the critic from fixed targets."""
    features, actions = [start.feature()], []
    state = start
    with torch.no_grad():
        for _ in range(horizon):
            action = actor(features[-1]).sample(generator)
            state = world_model.rssm.imagine_step(state, world_model.action_encoding(action), generator)
            features.append(state.feature())
            actions.append(action)
    return Imagined(torch.stack(features), torch.stack(actions))


def behavior_losses(
    world_model: WorldModel, actor: Actor, critic: Critic, slow_critic: Critic, imagined: Imagined, start_continues: Tensor,
    config: DreamerConfig,
) -> tuple[Tensor, Tensor, dict[str, float]]:
    """(actor loss, critic loss, statistics) of an imagined rollout; ``start_continues`` ``(N,)``
    is 0 where the start state is an episode's last (its imagined future counts for nothing)."""
    features, actions = imagined
    horizon, count = actions.shape[:2]
    with torch.no_grad():
        rewards = world_model.reward_head(features[1:]).squeeze(-1)
        continues = torch.sigmoid(world_model.continue_head(features[1:]).squeeze(-1))
        values = slow_critic(features)
        returns = lambda_returns(rewards, values, continues, config.discount, config.return_lambda)
        reach = torch.cat([start_continues[None], config.discount * continues[:-1]], dim=0)
        weights = torch.cumprod(reach, dim=0)  # (H, N)
        advantages = returns - values[:-1]
    distribution = actor(features[:-1].flatten(0, 1))
    log_probs = distribution.log_prob(actions.flatten(0, 1)).unflatten(0, (horizon, count))
    normal_entropy, categorical_entropy = (part.unflatten(0, (horizon, count)) for part in distribution.entropy_parts())
    entropy = normal_entropy + categorical_entropy
    continuous_cost = config.entropy_cost if config.continuous_entropy_cost is None else config.continuous_entropy_cost
    bonus = continuous_cost * normal_entropy + config.entropy_cost * categorical_entropy
    actor_loss = -(weights * (log_probs * advantages + bonus)).mean()
    critic_loss = (weights * 0.5 * (critic(features[:-1]) - returns).pow(2)).mean()
    stats = {
        "actor_loss": float(actor_loss.detach()),
        "critic_loss": float(critic_loss.detach()),
        "entropy": float(entropy.detach().mean()),
        "imagined_return": float(returns.mean()),
        "imagined_reward": float(rewards.mean()),
        "imagined_continue": float(continues.mean()),
        "value": float(values.mean()),
    }
    if distribution.std.numel():
        stats["action_std"] = float(distribution.std.detach().mean())
    return actor_loss, critic_loss, stats
