"""Dreamer's defaults (Table 7) and the bad input it refuses, by name."""

from __future__ import annotations

import pytest
import torch

from avalon.agent.dreamer.config import DreamerConfig
from avalon.agent.dreamer.networks import ConvEncoder
from avalon.agent.dreamer.trainer import train_dreamer
from avalon.agent.registry import get_algorithm
from avalon.app.main import main


def test_the_defaults_are_table_7():
    config = DreamerConfig()
    assert (config.model_learning_rate, config.critic_learning_rate, config.actor_learning_rate) == (1e-4, 1e-4, 1e-5)
    assert (config.adam_epsilon, config.weight_decay, config.max_grad_norm, config.entropy_cost) == (1e-5, 1e-6, 100.0, 2e-3)
    assert (config.discount, config.return_lambda, config.batch_size, config.unroll, config.horizon) == (0.99, 0.95, 116, 30, 15)
    assert DreamerConfig.from_dict(config.to_dict()) == config
    row = get_algorithm("dreamer")
    assert row.config_class() is DreamerConfig and {option.field for option in row.options} <= set(config.to_dict())


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"actor_learning_rate": -1.0}, "actor_learning_rate"),
        ({"discount": 1.5}, "discount"),
        ({"unroll": 1}, "unroll=1 must be at least 2"),
        ({"min_std": 0.5}, "min_std=0.5, initial_std=0.3, max_std=1.0 must be in increasing order"),
        ({"max_std": 0.2}, "max_std=0.2 must be in increasing order"),
        ({"replay_gb": 0}, "replay_gb"),
    ],
)
def test_bad_settings_are_named(changes, message):
    with pytest.raises(ValueError, match=message):
        DreamerConfig(**changes)


def test_bad_devices_and_image_sizes_are_named(tmp_path):
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device 'cuda' asked for, but torch sees no CUDA GPU"):
            train_dreamer(None, tmp_path, 10, device="cuda")
    with pytest.raises(ValueError, match="images of 48 x 48 do not halve 5 times .* multiples of 32"):
        ConvEncoder((48, 48, 4), 8, 5)


def test_the_command_names_a_bad_option_before_starting_anything(tmp_path, capsys):
    assert main(["train", "dreamer", "--batch", "0", "--out", str(tmp_path / "run")]) == 2
    assert "batch_size" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_actors_std_stays_between_its_bounds():
    from avalon.agent.common.distributions import ActionLayout
    from avalon.agent.dreamer.behavior import Actor
    from avalon.env.spaces import action_space

    config = DreamerConfig(mlp_units=8, mlp_layers=1)
    actor = Actor(4, ActionLayout.from_space(action_space("vr")), config)
    assert actor(torch.zeros(1, 4)).std.sub(config.initial_std).abs().max() < 1e-3
    # Its means start at the neutral action, as PPO's: the mouse-and-keyboard jump's at its Box's low end (no jump).
    keyboard = ActionLayout.from_space(action_space("mouse_keyboard"))
    means = Actor(4, keyboard, config)(torch.zeros(1, 4)).mean
    assert torch.allclose(means, torch.from_numpy(keyboard.neutral_means()).clamp(-0.95, 0.95)[None], atol=0.01)
    with torch.no_grad():
        actor.network[-1].bias.fill_(1e3)  # raw std outputs far above the ceiling
        assert actor(torch.zeros(1, 4)).std.max() <= config.max_std
        assert actor(torch.zeros(1, 4)).mean.abs().max() <= 1.0  # and raw means far beyond the Box: inside it (tanh)
        actor.network[-1].bias.fill_(-1e3)
        assert actor(torch.zeros(1, 4)).std.min() >= config.min_std
