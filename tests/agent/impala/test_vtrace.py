"""V-trace against values worked out by hand (Espeholt et al. 2018, section 4.1)."""

from __future__ import annotations

import math

import pytest
import torch

from avalon.agent.impala.vtrace import vtrace
from avalon.agent.ppo.losses import compute_gae


def column(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64).unsqueeze(1)


def test_on_policy_the_targets_are_discounted_returns_bootstrapped_from_the_last_value():
    zeros = column(0.0, 0.0, 0.0)
    targets = vtrace(zeros, zeros, column(1.0, 2.0, 3.0), zeros, column(0.5, 0.4, 0.3), torch.tensor([0.2], dtype=torch.float64), 0.9)
    # vs_2 = 3 + 0.9 * 0.2; vs_1 = 2 + 0.9 * vs_2; vs_0 = 1 + 0.9 * vs_1
    assert targets.vs[:, 0].tolist() == pytest.approx([5.3758, 4.862, 3.18])
    # pg_t = r_t + 0.9 * vs_{t+1} - V_t
    assert targets.pg_advantages[:, 0].tolist() == pytest.approx([1 + 0.9 * 4.862 - 0.5, 2 + 0.9 * 3.18 - 0.4, 3 + 0.9 * 0.2 - 0.3])


def test_truncated_importance_weights_and_an_episode_end_inside_the_unroll():
    ratios = (2.0, 0.5, 1.5)
    behaviour = column(0.0, 0.0, 0.0)
    target = column(*(math.log(r) for r in ratios))
    rewards, dones, values = column(1.0, 0.0, 2.0), column(0.0, 1.0, 0.0), column(1.0, 2.0, 3.0)
    bootstrap = torch.tensor([4.0], dtype=torch.float64)
    # By hand, discount 0.5, so g = (0.5, 0, 0.5): step 1 ends its episode.
    # clip_rho = clip_c = 1: rho = c = (1, 0.5, 1); deltas = (1 * (1 + 0.5 * 2 - 1), 0.5 * (0 - 2), 1 * (2 + 0.5 * 4 - 3)) = (1, -1, 1)
    # vs_2 - V_2 = 1; vs_1 - V_1 = -1 (no carry over the episode's end); vs_0 - V_0 = 1 + 0.5 * 1 * -1 = 0.5
    targets = vtrace(behaviour, target, rewards, dones, values, bootstrap, 0.5)
    assert targets.vs[:, 0].tolist() == pytest.approx([1.5, 1.0, 4.0])
    # pg = min(1, r) * (r_t + g_t * vs_{t+1} - V_t) = (1 * (1 + 0.5 * 1 - 1), 0.5 * (0 - 2), 1 * (2 + 0.5 * 4 - 3))
    assert targets.pg_advantages[:, 0].tolist() == pytest.approx([0.5, -1.0, 1.0])
    assert targets.rhos[:, 0].tolist() == pytest.approx(list(ratios))
    # Untruncated rho (clip_rho = 3, c still clipped at 1): deltas (2, -1, 1.5); vs - V = (2 - 0.5, -1, 1.5)
    loose = vtrace(behaviour, target, rewards, dones, values, bootstrap, 0.5, clip_rho=3.0)
    assert loose.vs[:, 0].tolist() == pytest.approx([2.5, 1.0, 4.5])


def test_on_policy_value_targets_are_gae_returns_with_lambda():
    torch.manual_seed(0)
    rewards, values = torch.randn(7, 3, dtype=torch.float64), torch.randn(7, 3, dtype=torch.float64)
    dones = (torch.rand(7, 3) < 0.2).to(torch.float64)
    bootstrap = torch.randn(3, dtype=torch.float64)
    log_probs = torch.randn(7, 3, dtype=torch.float64)
    targets = vtrace(log_probs, log_probs, rewards, dones, values, bootstrap, 0.95, lambda_=0.8)
    _, returns = compute_gae(rewards, values, dones, bootstrap, 0.95, 0.8)
    torch.testing.assert_close(targets.vs, returns)


def test_bad_shapes_and_clips_are_refused():
    a = torch.zeros(3, 2)
    with pytest.raises(ValueError, match=r"must share a \(T, N\) shape"):
        vtrace(a, a, a, a, torch.zeros(3, 1), torch.zeros(2), 0.9)
    with pytest.raises(ValueError, match=r"bootstrap_values must have shape \(2,\), got \(3,\)"):
        vtrace(a, a, a, a, a, torch.zeros(3), 0.9)
    with pytest.raises(ValueError, match="clip_rho = 0 must be above 0"):
        vtrace(a, a, a, a, a, torch.zeros(2), 0.9, clip_rho=0)
