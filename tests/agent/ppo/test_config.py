"""``PPOConfig``: Table 7 defaults and clear errors for bad values (and ``NetworkConfig``'s)."""

import pytest

from avalon.agent.common.config import NetworkConfig
from avalon.agent.ppo.config import PPOConfig


def test_config_defaults_are_table_7_and_the_original_ppo_except_the_initial_std():
    config = PPOConfig()
    assert (config.learning_rate, config.adam_epsilon, config.max_grad_norm) == (2.5e-4, 1e-5, 0.5)
    assert (config.value_cost, config.entropy_cost, config.discount, config.gae_lambda) == (1.0, 1.5e-4, 0.99, 0.83)
    assert (config.clip_range, config.unroll_steps, config.epochs, config.minibatches) == (0.03, 200, 2, 1)
    assert (config.initial_std, config.min_std) == (0.3, 0.01)  # original: (1.0, 0.01); see docs/agent.md
    assert config.batch_size(16) == 3200
    assert PPOConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"learning_rate": 0.0}, "learning_rate=0.0 must be a finite number > 0"),
        ({"discount": 1.5}, r"discount=1.5 must be a number in \[0, 1\]"),
        ({"unroll_steps": 0}, "unroll_steps=0 must be an int >= 1"),
        ({"epochs": 2.0}, "epochs=2.0 must be an int >= 1"),
        ({"clip_range": 1.0}, "clip_range=1.0 must be below 1"),
        ({"min_std": 0.5}, "min_std=0.5 must be below initial_std=0.3"),
        ({"entropy_cost": float("nan")}, "entropy_cost=nan"),
        ({"learning_rate_end": -1e-4}, "learning_rate_end=-0.0001 must be"),
        ({"network": NetworkConfig(conv_layers=[[16, 5, 2], [32, 3, 2]])}, None),
    ],
)
def test_config_validation(overrides, message):
    if message is None:
        PPOConfig(**overrides)
        return
    with pytest.raises(ValueError, match=message):
        PPOConfig(**overrides)


def test_minibatches_must_divide_the_batch():
    with pytest.raises(ValueError, match="minibatches=3 does not divide the batch of 400"):
        PPOConfig(minibatches=3).check_batch(2)
    with pytest.raises(ValueError, match="conv_layers"):
        NetworkConfig(conv_layers=())
    with pytest.raises(ValueError, match="conv_layers"):
        NetworkConfig(conv_layers=((16, 3, 0),))


def test_the_learning_rate_falls_linearly_to_its_end_over_the_run():
    assert PPOConfig().learning_rate_end is None and PPOConfig().learning_rate_at(50_000, 80_000) == 2.5e-4  # Table 7: constant
    falling = PPOConfig(learning_rate=1e-3, learning_rate_end=0.0)
    assert [falling.learning_rate_at(steps, 80_000) for steps in (0, 20_000, 40_000, 80_000)] == pytest.approx([1e-3, 7.5e-4, 5e-4, 0.0])
    assert falling.learning_rate_at(90_000, 80_000) == 0.0  # past the end (the first whole update at or past it)
    assert PPOConfig(learning_rate=1e-3, learning_rate_end=1e-4).learning_rate_at(40_000, 80_000) == pytest.approx(5.5e-4)
