"""Learning agents. PPO (the paper's section 6.2, Table 7): ``train_ppo`` and ``load_policy``.

    from avalon.agent import PPOConfig, train_ppo, load_policy
    result = train_ppo(envs, "runs/ppo", total_steps=1_000_000, config=PPOConfig(), curriculum=curriculum)
    policy = load_policy(result.final_checkpoint)
    actions = policy.act(observations, deterministic=True)

See docs/agent.md.
"""

from avalon.agent.checkpoint import latest_checkpoint, load_checkpoint
from avalon.agent.config import NetworkConfig, PPOConfig
from avalon.agent.policy import Policy, load_policy
from avalon.agent.trainer import CurriculumState, TrainingInterrupted, TrainResult, train_ppo

__all__ = [
    "CurriculumState",
    "NetworkConfig",
    "PPOConfig",
    "Policy",
    "TrainResult",
    "TrainingInterrupted",
    "latest_checkpoint",
    "load_checkpoint",
    "load_policy",
    "train_ppo",
]
