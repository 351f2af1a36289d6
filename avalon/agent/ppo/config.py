"""``PPOConfig``: every number that shapes PPO training.

Defaults are the PPO column of the paper's Table 7 (Appendix J) and, where the table is silent,
the original Avalon PPO configuration (unroll of 200 steps for 16 workers learnt as one batch,
two PPO epochs, value loss coefficient 1, Normal policy initial std 1 and minimum std 0.01).
"""

from __future__ import annotations

import attr

from avalon.agent.common.config import (
    ActorCriticConfigBase,
    NetworkConfig,
    _non_negative_number,
    _optional_non_negative_number,
    _optional_positive_int,
    _positive_int,
    _positive_number,
    _unit_interval,
)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class PPOConfig(ActorCriticConfigBase):
    """PPO hyper-parameters. Defaults: Table 7 (PPO column) of the paper.

    One update consumes ``unroll_steps`` steps of every env of the vector env (the batch:
    ``unroll_steps * num_envs`` transitions, 200 * 16 = 3,200 in the paper's set-up), makes
    ``epochs`` passes over it in ``minibatches`` shuffled minibatches each, one Adam step per
    minibatch. ``learn_chunk_size`` only changes speed and memory: gradients of a minibatch are
    accumulated over chunks of that many transitions, which gives the same step as one pass.
    """

    #: Adam learning rate (Table 7: 2.5e-4), at the first update.
    learning_rate: float = attr.ib(default=2.5e-4, validator=_positive_number)
    #: Learning rate at the run's last step: it falls linearly from ``learning_rate`` over the run's
    #: env steps (None: constant, Table 7). See :meth:`learning_rate_at`.
    learning_rate_end: float | None = attr.ib(default=None, validator=_optional_non_negative_number)
    #: Adam epsilon (Table 7: 1e-5).
    adam_epsilon: float = attr.ib(default=1e-5, validator=_positive_number)
    #: Global gradient-norm clip (Table 7: 0.5).
    max_grad_norm: float = attr.ib(default=0.5, validator=_positive_number)
    #: Weight of the value loss, the mean squared error of the value prediction ("baseline cost", Table 7: 1).
    value_cost: float = attr.ib(default=1.0, validator=_non_negative_number)
    #: Weight of the entropy bonus (Table 7: 1.5e-4).
    entropy_cost: float = attr.ib(default=1.5e-4, validator=_non_negative_number)
    #: Discount factor gamma per env step (Table 7: 0.99).
    discount: float = attr.ib(default=0.99, validator=_unit_interval)
    #: GAE lambda (Table 7: 0.83).
    gae_lambda: float = attr.ib(default=0.83, validator=_unit_interval)
    #: PPO importance-ratio clip epsilon: ratios are clipped to [1 - eps, 1 + eps] (Table 7: 0.03).
    clip_range: float = attr.ib(default=0.03, validator=_positive_number)
    #: Env steps per env between updates (Table 7: 200).
    unroll_steps: int = attr.ib(default=200, validator=_positive_int)
    #: Passes over each batch (original Avalon PPO: 2).
    epochs: int = attr.ib(default=2, validator=_positive_int)
    #: Minibatches per epoch; 1 learns from the whole batch at once (original Avalon PPO).
    minibatches: int = attr.ib(default=1, validator=_positive_int)
    #: Normalise advantages to zero mean and unit std within each minibatch.
    normalize_advantages: bool = True
    #: Std of the Normal policy over each continuous action value at initialisation (in units of
    #: the Box's half-width). Ours: 0.3, where the original Avalon PPO used 1. On eat from scratch
    #: (1M steps, 2 envs) 0.3 learned several times faster in both action spaces (docs/training.md):
    #: with 1 the random head and body motion turns the agent away from the food within a few steps.
    initial_std: float = attr.ib(default=0.3, validator=_positive_number)
    #: Lower bound of that std.
    min_std: float = attr.ib(default=0.01, validator=_positive_number)
    #: Transitions per forward/backward pass while learning (None: the whole minibatch). Only
    #: speed and memory depend on it: on this CPU chunks of 64-128 learn 1.5x faster than 800
    #: (the activations stay in cache).
    learn_chunk_size: int | None = attr.ib(default=128, validator=_optional_positive_int)
    #: The actor-critic network's sizes.
    network: NetworkConfig = attr.ib(factory=NetworkConfig)

    def __attrs_post_init__(self) -> None:
        self.check_network_and_std()
        if self.clip_range >= 1:
            raise ValueError(f"clip_range={self.clip_range!r} must be below 1 (ratios are clipped to [1 - eps, 1 + eps])")

    def batch_size(self, num_envs: int) -> int:
        """Transitions per update for ``num_envs`` envs."""
        return self.unroll_steps * num_envs

    def check_batch(self, num_envs: int) -> None:
        """Raises ``ValueError`` when the batch does not split into ``minibatches`` equal parts."""
        batch = self.batch_size(num_envs)
        if batch % self.minibatches:
            raise ValueError(
                f"minibatches={self.minibatches} does not divide the batch of {batch} transitions "
                f"(unroll_steps={self.unroll_steps} x {num_envs} envs)"
            )
