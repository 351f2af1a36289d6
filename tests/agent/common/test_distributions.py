"""The Dict action distribution: log-probabilities, entropy, sampling, modes and env actions."""

import math

import numpy as np
import pytest
import torch
from gymnasium import spaces

from avalon.agent.common.distributions import ActionLayout, softplus_inverse
from avalon.env.spaces import action_space

LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)  # 0.918939


@pytest.fixture
def layout():
    # Parts (Dict sorts its keys): Box(-1, 1, (2,)), Discrete(3), Box(0, 1, (1,)) -> 3 Normal values, 1 Categorical.
    return ActionLayout.from_space(
        spaces.Dict(
            {
                "arm": spaces.Box(-1, 1, (2,), np.float32),
                "choice": spaces.Discrete(3),
                "push": spaces.Box(0, 1, (1,), np.float32),
            }
        )
    )


def parameters(means, raw_std, logits):
    return torch.tensor([means + raw_std + logits], dtype=torch.float32)


def test_layout_sizes(layout):
    assert layout.normal_size == 3 and layout.categorical_count == 1
    assert layout.action_size == 4  # 3 z values + 1 index
    assert layout.parameter_size == 2 * 3 + 3  # mean and raw std per value, 3 logits


def test_log_prob_and_entropy_by_hand(layout):
    # raw std 0 gives std = initial_std = 1; logits (0, ln 2, 0) give probabilities (1/4, 1/2, 1/4).
    distribution = layout.distribution(parameters([0.5, -0.2, 0.1], [0.0, 0.0, 0.0], [0.0, math.log(2), 0.0]), 1.0, 0.01)
    assert distribution.std.tolist()[0] == pytest.approx([1.0, 1.0, 1.0])
    action = torch.tensor([[0.5, 0.8, 0.1, 1.0]])  # z = (0.5, 0.8, 0.1), choice 1
    # Normal: squared distances (0, 1.0, 0) -> -0.5 * 1.0 - 3 * log(sqrt(2 pi)); Categorical: log(1/2)
    expected = -0.5 - 3 * LOG_SQRT_2PI + math.log(0.5)
    assert distribution.log_prob(action).item() == pytest.approx(expected, rel=1e-6)
    # Normal entropy 3 * (0.5 + log(sqrt(2 pi))); Categorical -(2 * 1/4 * log(1/4) + 1/2 * log(1/2))
    expected_entropy = 3 * (0.5 + LOG_SQRT_2PI) + (0.5 * math.log(4) + 0.5 * math.log(2))
    assert distribution.entropy().item() == pytest.approx(expected_entropy, rel=1e-6)
    normal, categorical = distribution.entropy_parts()  # Dreamer weighs the two apart
    assert (normal.item(), categorical.item()) == pytest.approx((3 * (0.5 + LOG_SQRT_2PI), 0.5 * math.log(4) + 0.5 * math.log(2)))


def test_log_prob_and_entropy_match_torch_distributions(layout):
    generator = torch.Generator().manual_seed(1)
    params = torch.randn(5, layout.parameter_size, generator=generator)
    distribution = layout.distribution(params, 1.0, 0.01)
    actions = distribution.sample(generator)
    normal = torch.distributions.Normal(distribution.mean, distribution.std)
    categorical = torch.distributions.Categorical(logits=params[:, 6:9])
    expected = normal.log_prob(actions[:, :3]).sum(1) + categorical.log_prob(actions[:, 3].long())
    assert torch.allclose(distribution.log_prob(actions), expected, atol=1e-5)
    assert torch.allclose(distribution.entropy(), normal.entropy().sum(1) + categorical.entropy(), atol=1e-5)


def test_std_starts_at_initial_std_and_never_goes_below_min_std(layout):
    assert math.log1p(math.exp(softplus_inverse(0.99))) == pytest.approx(0.99)
    low = layout.distribution(parameters([0, 0, 0], [-100.0, 0.0, 100.0], [0, 0, 0]), 1.0, 0.01)
    std = low.std.tolist()[0]
    assert std[0] == pytest.approx(0.01)  # raw -100: softplus ~ 0, std = min_std
    assert std[1] == pytest.approx(1.0)  # raw 0: initial std
    assert std[2] == pytest.approx(100.0 + softplus_inverse(0.99) + 0.01, rel=1e-4)  # large raw grows linearly


def test_sampling_statistics(layout):
    generator = torch.Generator().manual_seed(0)
    # std = softplus(raw + softplus^-1(1 - 0.01)) + 0.01 = 0.5 for the second value
    raw = softplus_inverse(0.5 - 0.01) - softplus_inverse(1.0 - 0.01)
    params = parameters([0.5, -0.2, 0.1], [0.0, raw, 0.0], [0.0, math.log(2), 0.0])
    distribution = layout.distribution(params.expand(20000, -1), 1.0, 0.01)
    samples = distribution.sample(generator)
    assert samples[:, 0].mean().item() == pytest.approx(0.5, abs=0.03)
    assert samples[:, 1].std().item() == pytest.approx(0.5, abs=0.02)
    frequencies = torch.bincount(samples[:, 3].long(), minlength=3).float() / len(samples)
    assert frequencies.tolist() == pytest.approx([0.25, 0.5, 0.25], abs=0.02)


def test_mode_is_means_and_argmax(layout):
    distribution = layout.distribution(parameters([0.5, -0.2, 3.0], [0.0, 0.0, 0.0], [0.0, 0.1, 2.0]), 1.0, 0.01)
    assert distribution.mode().tolist() == [pytest.approx([0.5, -0.2, 3.0, 2.0])]


def test_env_actions_are_clipped_and_typed_but_log_prob_uses_the_raw_sample(layout):
    flat = np.array([[0.5, 1.7, 3.0, 2.0], [-2.0, 0.0, -1.0, 0.0]], np.float32)
    env = layout.to_env(flat)
    # Box(-1, 1): z itself, clipped; Box(0, 1): 0.5 + 0.5 * z = 2.0 -> 1.0 and 0.0 -> 0.0
    assert env["arm"].dtype == np.float32 and env["arm"].tolist() == [[0.5, 1.0], [-1.0, 0.0]]
    assert env["push"].tolist() == [[1.0], [0.0]]
    assert env["choice"].dtype == np.int64 and env["choice"].tolist() == [2, 0]
    # The probability of the unclipped z = 1.7 differs from that of the clipped 1.0.
    distribution = layout.distribution(torch.zeros(1, layout.parameter_size), 1.0, 0.01)
    raw = distribution.log_prob(torch.tensor(flat[:1]))
    clipped = distribution.log_prob(torch.tensor([[0.5, 1.0, 3.0, 2.0]]))
    assert raw.item() == pytest.approx(clipped.item() - (1.7**2 - 1.0**2) / 2, rel=1e-5)


def test_discrete_start_is_added():
    layout = ActionLayout.from_space(spaces.Dict({"a": spaces.Discrete(3, start=-1), "b": spaces.Discrete(2)}))
    env = layout.to_env(np.array([[0.0, 1.0]], np.float32))
    assert env["a"].tolist() == [-1] and env["b"].tolist() == [1]
    # Different numbers of choices still score each part separately.
    distribution = layout.distribution(torch.zeros(1, 5), 1.0, 0.01)
    assert distribution.log_prob(torch.tensor([[2.0, 0.0]])).item() == pytest.approx(math.log(1 / 3) + math.log(1 / 2))


@pytest.mark.parametrize("name", ["vr", "mouse_keyboard"])
def test_avalon_spaces_round_trip_and_valid_env_actions(name):
    space = action_space(name)
    layout = ActionLayout.from_space(space)
    assert ActionLayout.from_dict(layout.to_dict()).to_dict() == layout.to_dict()
    generator = torch.Generator().manual_seed(0)
    distribution = layout.distribution(torch.randn(8, layout.parameter_size, generator=generator) * 3, 1.0, 0.01)
    env = layout.to_env(distribution.sample(generator).numpy())
    for index in range(8):
        single = {key: value[index] for key, value in env.items()}
        assert space.contains(single), single


def test_unsupported_spaces_are_named():
    with pytest.raises(ValueError, match="'x'.*MultiBinary"):
        ActionLayout.from_space(spaces.Dict({"x": spaces.MultiBinary(2)}))
    with pytest.raises(ValueError, match="'y'.*finite"):
        ActionLayout.from_space(spaces.Dict({"y": spaces.Box(-np.inf, np.inf, (1,))}))
    with pytest.raises(ValueError, match="Dict"):
        ActionLayout.from_space(spaces.Box(-1, 1, (2,)))
    with pytest.raises(ValueError, match=r"shape \(batch, 4\)"):
        ActionLayout.from_space(spaces.Dict({"m": spaces.Box(-1, 1, (4,))})).to_env(np.zeros((2, 3)))


def test_a_max_std_bounds_the_std_and_keeps_initial_std_at_a_raw_output_of_zero(layout):
    bounded = layout.distribution(parameters([0, 0, 0], [-100.0, 0.0, 100.0], [0, 0, 0]), 0.3, 0.01, 1.0)
    assert bounded.std.tolist()[0] == pytest.approx([0.01, 0.3, 1.0], rel=1e-5)
    # Without the bound the same raw output spreads the actions a hundredfold.
    assert layout.distribution(parameters([0, 0, 0], [0.0, 0.0, 100.0], [0, 0, 0]), 0.3, 0.01).std[0, 2] > 90
    with pytest.raises(ValueError, match="need min_std < initial_std < max_std, got 0.01, 0.3, 0.2"):
        layout.distribution(parameters([0, 0, 0], [0, 0, 0], [0, 0, 0]), 0.3, 0.01, 0.2)
