"""Learning agents. PPO and IMPALA (the paper's section 6.2, Table 7): ``train_ppo``, ``train_impala`` and ``load_policy``.

    from avalon.agent import PPOConfig, train_ppo, load_policy
    result = train_ppo(envs, "runs/ppo", total_steps=1_000_000, config=PPOConfig(), curriculum=curriculum)
    policy = load_policy(result.final_checkpoint)
    actions = policy.act(observations, deterministic=True)

``common/`` holds what every algorithm shares (observation encoding, network pieces,
distributions, episodes, the checkpoint format, the training loop), ``ppo/`` is PPO, and
``registry.py`` lists the algorithms by name (``avalon train <name>``; ``load_policy`` picks the
one a checkpoint names). The names below load on first use, so that importing the registry (as
``avalon``'s parser does) loads no torch. See docs/agent.md.
"""

import importlib

#: Each public name and the module that defines it.
_EXPORTS = {
    "ActorCriticPolicy": "avalon.agent.common.policy",
    "Algorithm": "avalon.agent.registry",
    "CurriculumState": "avalon.agent.common.loop",
    "IMPALAConfig": "avalon.agent.impala.config",
    "NetworkConfig": "avalon.agent.common.config",
    "PPOConfig": "avalon.agent.ppo.config",
    "TrainResult": "avalon.agent.common.loop",
    "TrainingInterrupted": "avalon.agent.common.loop",
    "get_algorithm": "avalon.agent.registry",
    "latest_checkpoint": "avalon.agent.common.checkpoint",
    "load_checkpoint": "avalon.agent.registry",
    "load_policy": "avalon.agent.registry",
    "train_impala": "avalon.agent.impala.trainer",
    "train_ppo": "avalon.agent.ppo.trainer",
}

__all__ = [  # the keys of _EXPORTS (tests/agent/test_registry.py checks)
    "ActorCriticPolicy",
    "Algorithm",
    "CurriculumState",
    "IMPALAConfig",
    "NetworkConfig",
    "PPOConfig",
    "TrainResult",
    "TrainingInterrupted",
    "get_algorithm",
    "latest_checkpoint",
    "load_checkpoint",
    "load_policy",
    "train_impala",
    "train_ppo",
]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'avalon.agent' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
