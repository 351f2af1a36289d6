"""DreamerV2's lambda-returns and balanced KL against values worked out by hand."""

from __future__ import annotations

import math

import pytest
import torch
from torch.distributions import Normal

from avalon.agent.dreamer.objectives import balanced_kl_loss, lambda_returns


def test_lambda_returns_by_hand():
    rewards = torch.tensor([1.0, 0.0, 2.0])
    values = torch.tensor([0.0, 4.0, 2.0, 10.0])
    continues = torch.tensor([1.0, 0.5, 1.0])
    # discount 0.9, lambda 0.5:
    # R_3 = 10; R_2 = 2 + 0.9 * 1 * (0.5 * 10 + 0.5 * 10) = 11
    # R_1 = 0 + 0.9 * 0.5 * (0.5 * 2 + 0.5 * 11) = 2.925
    # R_0 = 1 + 0.9 * 1 * (0.5 * 4 + 0.5 * 2.925) = 4.11625
    assert lambda_returns(rewards, values, continues, 0.9, 0.5).tolist() == pytest.approx([4.11625, 2.925, 11.0])
    # lambda 1: discounted rewards bootstrapped from the last value; lambda 0: one-step targets.
    assert lambda_returns(rewards, values, continues, 0.9, 1.0)[1].item() == pytest.approx(0.9 * 0.5 * (2 + 0.9 * 10))
    assert lambda_returns(rewards, values, continues, 0.9, 0.0).tolist() == pytest.approx([1 + 0.9 * 4, 0.9 * 0.5 * 2, 2 + 0.9 * 10])


def test_lambda_returns_refuse_mismatched_shapes_and_lambda():
    with pytest.raises(ValueError, match=r"values \(H \+ 1, ...\)"):
        lambda_returns(torch.zeros(3), torch.zeros(3), torch.zeros(3), 0.9, 0.5)
    with pytest.raises(ValueError, match="lambda_ = 1.5 must be in"):
        lambda_returns(torch.zeros(3), torch.zeros(4), torch.zeros(3), 0.9, 1.5)


def test_the_balanced_kl_has_the_kls_value_and_splits_its_gradient():
    q_mean, q_scale = torch.tensor([[1.0]], requires_grad=True), torch.tensor([[1.0]])
    p_mean, p_scale = torch.tensor([[0.0]], requires_grad=True), torch.tensor([[2.0]])
    loss, kl = balanced_kl_loss(Normal(q_mean, q_scale), Normal(p_mean, p_scale), balance=0.8, free_nats=0.0)
    # KL(N(1, 1) || N(0, 2)) = log 2 + (1 + 1) / 8 - 1/2
    expected = math.log(2.0) + 0.25 - 0.5
    assert kl.item() == pytest.approx(expected) and loss.item() == pytest.approx(expected)
    loss.backward()
    # d KL / d mu_q = (mu_q - mu_p) / sigma_p^2 = 0.25: the posterior gets 1 - 0.8 of it, the prior 0.8 of its -0.25.
    assert q_mean.grad.item() == pytest.approx(0.2 * 0.25) and p_mean.grad.item() == pytest.approx(0.8 * -0.25)


def test_below_the_free_nats_the_kl_costs_nothing():
    q_mean = torch.tensor([[0.1, 0.0]], requires_grad=True)
    loss, kl = balanced_kl_loss(Normal(q_mean, torch.ones(1, 2)), Normal(torch.zeros(1, 2), torch.ones(1, 2)), free_nats=1.0)
    assert kl.item() == pytest.approx(0.005) and loss.item() == pytest.approx(1.0)
    loss.backward()
    assert q_mean.grad.abs().sum().item() == 0.0
