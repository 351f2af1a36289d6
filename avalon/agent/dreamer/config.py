"""``DreamerConfig``: every number that shapes DreamerV2 training.

Defaults are the Dreamer column of the paper's Table 7 (Appendix J) and, where the table is
silent, DreamerV2's own continuous-control settings (Hafner et al. 2021): a GRU of 600 units,
Gaussian latents of 32 values (the paper used no discrete latents), MLP heads of 4 x 400 ELU
units, convolutions 48-96-192-384 wide with 4 x 4 kernels and stride 2, KL balance 0.8 with one
free nat and scale 1, an imagination horizon of 15 steps, a slow critic copied every 100 updates.
They are sized for a GPU: ``avalon train dreamer`` has options to shrink them for a CPU.
"""

from __future__ import annotations

from typing import Any

import attr

from avalon.agent.common.config import (
    _non_negative_number,
    _optional_non_negative_number,
    _positive_int,
    _positive_number,
    _unit_interval,
)
from avalon.errors import int_validator

_non_negative_int = int_validator(low=0)


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class DreamerConfig:
    """DreamerV2 hyper-parameters. Defaults: Table 7 (Dreamer column) of the paper.

    A cycle of the training loop steps every env ``collect_steps`` times with the actor (the
    world model filtering its latent state online), adding the steps to the replay buffer, then
    makes ``updates_per_collect`` updates, each on ``batch_size`` sequences of ``unroll`` steps
    sampled from the replay: one world-model step, then one actor and one critic step on
    trajectories imagined ``horizon`` steps ahead from every posterior state of the batch.
    Learning starts once the replay holds ``prefill_steps`` env steps (random actions until then).
    """

    #: Adam(W) learning rate of the world model (Table 7: 1e-4).
    model_learning_rate: float = attr.ib(default=1e-4, validator=_positive_number)
    #: ... of the critic ("value", Table 7: 1e-4).
    critic_learning_rate: float = attr.ib(default=1e-4, validator=_positive_number)
    #: ... of the actor (Table 7: 1e-5).
    actor_learning_rate: float = attr.ib(default=1e-5, validator=_positive_number)
    #: Adam epsilon (Table 7: 1e-5).
    adam_epsilon: float = attr.ib(default=1e-5, validator=_positive_number)
    #: Decoupled weight decay of all three optimisers (Table 7: 1e-6).
    weight_decay: float = attr.ib(default=1e-6, validator=_non_negative_number)
    #: Global gradient-norm clip of each optimiser (Table 7: 100).
    max_grad_norm: float = attr.ib(default=100.0, validator=_positive_number)
    #: Weight of the actor's entropy bonus (Table 7: 2e-3).
    entropy_cost: float = attr.ib(default=2e-3, validator=_non_negative_number)
    #: Weight of the bonus on the continuous (Normal) parts' entropy; None: ``entropy_cost`` (Table 7
    #: has one). DreamerV2 used 1e-3 for discrete actions and 1e-4 for continuous ones; a Dict action
    #: with both parts may need both (docs/agent.md, "DreamerV2 learning eat on a CPU").
    continuous_entropy_cost: float | None = attr.ib(default=None, validator=_optional_non_negative_number)
    #: Discount per env step (Table 7: 0.99).
    discount: float = attr.ib(default=0.99, validator=_unit_interval)
    #: Lambda of the lambda-returns (Table 7: 0.95).
    return_lambda: float = attr.ib(default=0.95, validator=_unit_interval)
    #: Sequences per update (Table 7: 116).
    batch_size: int = attr.ib(default=116, validator=_positive_int)
    #: Steps per sequence (Table 7: 30).
    unroll: int = attr.ib(default=30, validator=_positive_int)
    #: Imagined steps per trajectory of the actor-critic (DreamerV2: 15).
    horizon: int = attr.ib(default=15, validator=_positive_int)
    #: Env steps per env between updates.
    collect_steps: int = attr.ib(default=5, validator=_positive_int)
    #: Updates after each collect (with ``collect_steps`` and the number of envs: the train ratio).
    updates_per_collect: int = attr.ib(default=1, validator=_positive_int)
    #: Env steps (over all envs) in the replay before the first update; random actions until then.
    prefill_steps: int = attr.ib(default=5_000, validator=_non_negative_int)
    #: Memory limit of the replay buffer, gigabytes (10^9 bytes); the oldest steps go first.
    replay_gb: float = attr.ib(default=4.0, validator=_positive_number)
    #: Units of the GRU's deterministic state (DreamerV2: 600).
    deter_size: int = attr.ib(default=600, validator=_positive_int)
    #: Values of the Gaussian stochastic latent (DreamerV2 continuous: 32).
    stoch_size: int = attr.ib(default=32, validator=_positive_int)
    #: Units of the RSSM's hidden layers (DreamerV2: 600).
    rssm_hidden: int = attr.ib(default=600, validator=_positive_int)
    #: Channels of the first convolution, doubled at each of the next (DreamerV2: 48).
    cnn_depth: int = attr.ib(default=48, validator=_positive_int)
    #: Convolutions of the image encoder (and transposed ones of its decoder), each halving the side (DreamerV2: 4).
    cnn_layers: int = attr.ib(default=4, validator=_positive_int)
    #: Units of each layer of the MLPs (proprioception encoder and decoder, reward, continuation, actor, critic; DreamerV2: 400).
    mlp_units: int = attr.ib(default=400, validator=_positive_int)
    #: Layers of those MLPs (DreamerV2: 4).
    mlp_layers: int = attr.ib(default=4, validator=_positive_int)
    #: Weight of the KL term of the world model's loss (DreamerV2 continuous: 1).
    kl_scale: float = attr.ib(default=1.0, validator=_non_negative_number)
    #: Share of the KL gradient that trains the prior (DreamerV2: 0.8).
    kl_balance: float = attr.ib(default=0.8, validator=_unit_interval)
    #: KL below this many nats costs nothing (DreamerV2: 1).
    free_nats: float = attr.ib(default=1.0, validator=_non_negative_number)
    #: Lower bound of the latents' std (DreamerV2: 0.1).
    min_latent_std: float = attr.ib(default=0.1, validator=_positive_number)
    #: Updates between copies of the critic into the slow (target) critic (DreamerV2: 100).
    slow_critic_interval: int = attr.ib(default=100, validator=_positive_int)
    #: Std of the actor's continuous actions at the start, in units of each Box's half-width
    #: (as PPO's ``initial_std``: 0.3; see avalon/agent/ppo/config.py).
    initial_std: float = attr.ib(default=0.3, validator=_positive_number)
    #: Lower bound of that std (DreamerV2: 0.1).
    min_std: float = attr.ib(default=0.1, validator=_positive_number)
    #: Upper bound of that std (ours: 1, the Box's half-width; DreamerV2 bounds its truncated
    #: Normal's std by 2.1 for the same reason: see ``behavior.Actor``).
    max_std: float = attr.ib(default=1.0, validator=_positive_number)

    def __attrs_post_init__(self) -> None:
        if not self.min_std < self.initial_std < self.max_std:
            raise ValueError(
                f"min_std={self.min_std!r}, initial_std={self.initial_std!r}, max_std={self.max_std!r} must be in increasing order"
            )
        if self.unroll < 2:
            raise ValueError(f"unroll={self.unroll!r} must be at least 2 (a sequence needs a step after its first)")

    def collect_batch(self, num_envs: int) -> int:
        """Env steps (over all envs) of one collect after the prefill."""
        return self.collect_steps * num_envs

    def check_batch(self, num_envs: int) -> None:
        """Any number of envs trains (the replay's size is checked when it is built); ``ValueError`` below one."""
        if num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (for checkpoints and logs); :meth:`from_dict` reverses it."""
        return attr.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> "DreamerConfig":
        return cls(**values)
