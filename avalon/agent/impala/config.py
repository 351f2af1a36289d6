"""``IMPALAConfig``: every number that shapes IMPALA training, and where its actors run.

Defaults are the IMPALA column of the paper's Table 7 (Appendix J), except the batch: Table 7
learns from 32 unrolls at once, which on a 2-core machine would make each update wait for 16
unrolls of each of 2 simulators. By default a batch is one unroll of every simulator
(``batch_unrolls=None``); ``--batch-unrolls 32`` is Table 7's.
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
from avalon.training.ray_cluster import LOCAL_RAY


def _ray_address(_instance, attribute, value) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{attribute.name}={value!r} must be {LOCAL_RAY!r} or a Ray cluster address such as 'ray://host:10001'")


@attr.s(frozen=True, auto_attribs=True, kw_only=True)
class IMPALAConfig(ActorCriticConfigBase):
    """IMPALA hyper-parameters (Table 7, IMPALA column) and the actors' layout.

    The simulators (``avalon train --envs``) are split over ``num_envs / envs_per_actor`` Ray
    actors. One update learns from ``batch_unrolls`` unrolls of ``unroll_steps`` steps of one
    simulator each (``None``: one per simulator), with RMSProp on
    ``policy + baseline_cost * baseline - entropy_cost * entropy``, each a sum over the batch's
    transitions (as in the IMPALA paper's implementation, the scale Table 7's clip of 200 is in).
    """

    #: RMSProp learning rate (Table 7: 1.5e-4).
    learning_rate: float = attr.ib(default=1.5e-4, validator=_positive_number)
    #: Learning rate at the run's last step: it falls linearly from ``learning_rate`` over the run's
    #: env steps (None: constant, Table 7). See :meth:`learning_rate_at`.
    learning_rate_end: float | None = attr.ib(default=None, validator=_optional_non_negative_number)
    #: RMSProp smoothing constant (Table 7: 0.95).
    rmsprop_alpha: float = attr.ib(default=0.95, validator=_unit_interval)
    #: RMSProp epsilon (Table 7: 0.005).
    rmsprop_epsilon: float = attr.ib(default=0.005, validator=_positive_number)
    #: Global gradient-norm clip (Table 7: 200).
    max_grad_norm: float = attr.ib(default=200.0, validator=_positive_number)
    #: Weight of the baseline loss ``0.5 * (vs - V)^2`` (Table 7: 2).
    baseline_cost: float = attr.ib(default=2.0, validator=_non_negative_number)
    #: Weight of the entropy bonus (Table 7: 5e-3).
    entropy_cost: float = attr.ib(default=5e-3, validator=_non_negative_number)
    #: Discount factor gamma per env step (Table 7: 0.998).
    discount: float = attr.ib(default=0.998, validator=_unit_interval)
    #: Env steps of one simulator per unroll (Table 7: 100).
    unroll_steps: int = attr.ib(default=100, validator=_positive_int)
    #: Unrolls per update (Table 7: 32); None: one per simulator.
    batch_unrolls: int | None = attr.ib(default=None, validator=_optional_positive_int)
    #: V-trace truncation of the importance weights in the value targets (rho bar) and in the
    #: policy-gradient advantages (the IMPALA paper: 1 and 1).
    clip_rho: float = attr.ib(default=1.0, validator=_positive_number)
    clip_pg_rho: float = attr.ib(default=1.0, validator=_positive_number)
    #: Simulators each Ray actor steps (in threads, as PPO's envs are stepped); None: all of them
    #: in one actor. On one machine that is the fastest: the actor chooses the actions of all its
    #: simulators in one batch (at 96 px, 2 ms of CPU for one observation; docs/agent.md).
    envs_per_actor: int | None = attr.ib(default=None, validator=_optional_positive_int)
    #: Where the actors run: "local" starts a Ray on this machine for the run (one CPU per actor)
    #: and shuts it down at the end; anything else is an existing cluster's address.
    ray_address: str = attr.ib(default=LOCAL_RAY, validator=_ray_address)
    #: Std of the Normal policy over each continuous action value at initialisation (as PPO's, 0.3).
    initial_std: float = attr.ib(default=0.3, validator=_positive_number)
    #: Lower bound of that std.
    min_std: float = attr.ib(default=0.01, validator=_positive_number)
    #: Upper bound of that std (None: none). With Table 7's entropy cost and no bound the std of
    #: the continuous actions grew from 0.3 to 78 within 80k steps on eat and nothing was learned;
    #: beyond 1 (a Box's half-width) a wider Normal only clips more actions to the bounds.
    max_std: float | None = attr.ib(default=1.0)
    #: The actor-critic network's sizes (PPO's network).
    network: NetworkConfig = attr.ib(factory=NetworkConfig)

    def __attrs_post_init__(self) -> None:
        self.check_network_and_std()
        if self.max_std is not None and not (isinstance(self.max_std, (int, float)) and self.max_std > self.initial_std):
            raise ValueError(f"max_std={self.max_std!r} must be None or a number above initial_std={self.initial_std!r}")
        if self.batch_unrolls is not None and self.envs_per_actor is not None and self.batch_unrolls % self.envs_per_actor:
            raise ValueError(
                f"batch_unrolls={self.batch_unrolls} must be a multiple of envs_per_actor={self.envs_per_actor} "
                "(each actor returns one unroll of each of its simulators)"
            )

    def actor_size(self, num_envs: int) -> int:
        """Simulators per actor for ``num_envs`` simulators."""
        return self.envs_per_actor if self.envs_per_actor is not None else num_envs

    def num_actors(self, num_envs: int) -> int:
        """Ray actors for ``num_envs`` simulators."""
        self.check_batch(num_envs)
        return num_envs // self.actor_size(num_envs)

    def unrolls(self, num_envs: int) -> int:
        """Unrolls of one simulator per update."""
        return self.batch_unrolls if self.batch_unrolls is not None else num_envs

    def batch_size(self, num_envs: int) -> int:
        """Env steps per update."""
        return self.unroll_steps * self.unrolls(num_envs)

    def check_batch(self, num_envs: int) -> None:
        """Raises ``ValueError`` when ``num_envs`` simulators do not split into whole actors, or a
        batch into whole unrolls of actors."""
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} must be an int >= 1 (simulators, --envs)")
        size = self.actor_size(num_envs)
        if num_envs % size:
            raise ValueError(
                f"{num_envs} simulators (--envs) do not split into actors of envs_per_actor={size} "
                "(--envs-per-actor) each: give a multiple of it"
            )
        if self.unrolls(num_envs) % size:
            raise ValueError(
                f"batch_unrolls={self.batch_unrolls} must be a multiple of the {size} simulators of an actor "
                "(each actor returns one unroll of each of its simulators)"
            )
