"""GAE and the PPO losses against values worked out by hand."""

import math

import pytest
import torch

from avalon.agent.ppo.losses import (
    clipped_policy_loss,
    compute_gae,
    entropy_bonus,
    explained_variance,
    normalize,
    total_loss,
    value_loss,
)


def test_gae_by_hand_with_an_episode_end():
    # One env, three steps; the episode ends at step 1 (so step 2 starts a new one).
    rewards = torch.tensor([[1.0], [0.0], [2.0]])
    values = torch.tensor([[0.5], [1.0], [1.5]])
    dones = torch.tensor([[0.0], [1.0], [0.0]])
    last_values = torch.tensor([2.0])
    advantages, returns = compute_gae(rewards, values, dones, last_values, discount=0.9, gae_lambda=0.5)
    # t=2: delta = 2 + 0.9 * 2.0 - 1.5 = 2.3;            A2 = 2.3
    # t=1: done, no bootstrap: delta = 0 - 1.0 = -1.0;   A1 = -1.0 (nothing flows back across the end)
    # t=0: delta = 1 + 0.9 * 1.0 - 0.5 = 1.4;            A0 = 1.4 + 0.9 * 0.5 * (-1.0) = 0.95
    assert advantages.squeeze(1).tolist() == pytest.approx([0.95, -1.0, 2.3])
    # returns = advantages + values
    assert returns.squeeze(1).tolist() == pytest.approx([1.45, 0.0, 3.8])


def test_gae_is_per_env_and_lambda_one_gives_discounted_returns():
    # Env 0: no end; with lambda = 1 the return is the discounted sum plus the bootstrapped tail.
    # Env 1: ends at the last step, so its last value is ignored.
    rewards = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
    values = torch.tensor([[0.3, 0.7], [0.2, 0.1]])
    dones = torch.tensor([[0.0, 0.0], [0.0, 1.0]])
    last_values = torch.tensor([10.0, 10.0])
    _, returns = compute_gae(rewards, values, dones, last_values, discount=0.5, gae_lambda=1.0)
    # env 0: R1 = 1 + 0.5 * 10 = 6;  R0 = 1 + 0.5 * 6 = 4
    # env 1: R1 = 1 (ends);          R0 = 1 + 0.5 * 1 = 1.5
    assert returns[:, 0].tolist() == pytest.approx([4.0, 6.0])
    assert returns[:, 1].tolist() == pytest.approx([1.5, 1.0])


def test_gae_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="last_values"):
        compute_gae(torch.zeros(3, 2), torch.zeros(3, 2), torch.zeros(3, 2), torch.zeros(3), 0.99, 0.9)
    with pytest.raises(ValueError, match="share"):
        compute_gae(torch.zeros(3, 2), torch.zeros(3, 1), torch.zeros(3, 2), torch.zeros(2), 0.99, 0.9)


def test_clipped_policy_loss_by_hand():
    old = torch.zeros(3)
    new = torch.log(torch.tensor([1.1, 0.95, 1.0]))
    advantages = torch.tensor([2.0, -1.0, 3.0])
    loss, clip_fraction = clipped_policy_loss(new, old, advantages, clip_range=0.03)
    # ratio 1.1,  adv  2: min(2.2, 1.03 * 2 = 2.06)   = 2.06
    # ratio 0.95, adv -1: min(-0.95, 0.97 * -1 = -0.97) = -0.97 (pessimistic side)
    # ratio 1.0,  adv  3: 3
    # loss = -(2.06 - 0.97 + 3) / 3 = -1.363333...; two of three ratios lie outside [0.97, 1.03]
    assert loss.item() == pytest.approx(-4.09 / 3, rel=1e-6)
    assert clip_fraction.item() == pytest.approx(2 / 3)


def test_clipped_policy_loss_gradient_vanishes_beyond_the_clip():
    # Ratio 1.1 with a positive advantage is already past 1 + eps: no gradient pushes it further.
    new = torch.log(torch.tensor([1.1])).requires_grad_()
    loss, _ = clipped_policy_loss(new, torch.zeros(1), torch.tensor([2.0]), clip_range=0.03)
    loss.backward()
    assert new.grad.item() == 0.0
    # Inside the clip range the gradient of -ratio * adv w.r.t. the log-prob is -ratio * adv.
    new = torch.log(torch.tensor([1.01])).requires_grad_()
    loss, _ = clipped_policy_loss(new, torch.zeros(1), torch.tensor([2.0]), clip_range=0.03)
    loss.backward()
    assert new.grad.item() == pytest.approx(-1.01 * 2.0)


def test_value_loss_entropy_bonus_and_total_by_hand():
    # ((1 - 0)^2 + (2 - 4)^2) / 2 = (1 + 4) / 2 = 2.5
    assert value_loss(torch.tensor([1.0, 2.0]), torch.tensor([0.0, 4.0])).item() == pytest.approx(2.5)
    # mean(1, 3) = 2
    assert entropy_bonus(torch.tensor([1.0, 3.0])).item() == pytest.approx(2.0)
    # 0.5 + 1 * 2.5 - 0.1 * 2 = 2.8
    total = total_loss(torch.tensor(0.5), torch.tensor(2.5), torch.tensor(2.0), value_cost=1.0, entropy_cost=0.1)
    assert total.item() == pytest.approx(2.8)


def test_normalize_and_explained_variance():
    # mean 2, unbiased std 1
    assert normalize(torch.tensor([1.0, 2.0, 3.0])).tolist() == pytest.approx([-1.0, 0.0, 1.0], abs=1e-6)
    assert normalize(torch.tensor([5.0])).tolist() == [0.0]
    targets = torch.tensor([1.0, 2.0, 3.0])
    assert explained_variance(targets, targets) == pytest.approx(1.0)
    # residual [1, 1, 1] has no variance: EV = 1 as well; a constant prediction of the mean gives 0
    assert explained_variance(targets - 1, targets) == pytest.approx(1.0)
    assert explained_variance(torch.full((3,), 2.0), targets) == pytest.approx(0.0)
    assert math.isnan(explained_variance(targets, torch.ones(3)))
