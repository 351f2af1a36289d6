"""One IMPALA update on a hand-made batch: the real network, its own samples as the behaviour."""

import numpy as np
import pytest
import torch

from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.impala.config import IMPALAConfig
from avalon.agent.impala.learner import impala_update, make_optimizer, stack_unrolls
from avalon.env.spaces import action_space, observation_space
from tests.agent.common.test_network import random_observations

STEPS, ENVS, RES = 6, 2, 16
TINY = NetworkConfig(conv_layers=((8, 4, 4),), image_features=16, proprio_features=16, hidden_features=32)


def unroll(model, rewards: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """An actor's unroll from the model itself (on-policy): (STEPS + 1) observations, STEPS steps."""
    layout = model.observation_layout
    generator = torch.Generator().manual_seed(seed)
    tensors = [layout.to_tensors(random_observations(RES, ENVS, seed=seed * 100 + t)) for t in range(STEPS + 1)]
    actions, log_probs = [], []
    with torch.inference_mode():
        for t in range(STEPS):
            distribution, _values = model(tensors[t])
            sampled = distribution.sample(generator)
            actions.append(sampled.numpy())
            log_probs.append(distribution.log_prob(sampled).numpy())
    return {
        "rgbd": np.stack([t["rgbd"].numpy() for t in tensors]),
        "proprio": np.stack([t["proprio"].numpy() for t in tensors]),
        "actions": np.stack(actions),
        "behaviour_log_probs": np.stack(log_probs),
        "rewards": rewards.astype(np.float32),
        "dones": np.zeros((STEPS, ENVS), np.float32),
    }


def make_model(config):
    torch.manual_seed(0)
    layouts = ObservationLayout.from_space(observation_space(RES)), ActionLayout.from_space(action_space("mouse_keyboard"))
    return ActorCritic(*layouts, config).eval()


def log_probs_of(model, batch) -> torch.Tensor:
    with torch.no_grad():
        distribution, _values = model({key: batch[key][:-1].flatten(0, 1) for key in ("rgbd", "proprio")})
        return distribution.log_prob(batch["actions"].flatten(0, 1)).view(STEPS, -1)


def test_rewarded_actions_grow_likelier_and_the_baseline_loss_falls():
    config = IMPALAConfig(network=TINY, learning_rate=1e-3)
    model = make_model(config)
    # Env 0 is rewarded at every step, env 1 punished: the update raises the log-probability of
    # env 0's actions and lowers env 1's.
    rewards = np.stack([np.ones(STEPS), -np.ones(STEPS)], axis=1)
    batch = stack_unrolls([unroll(model, rewards, seed=1)])
    assert batch["rgbd"].shape == (STEPS + 1, ENVS, RES, RES, 4) and batch["rgbd"].dtype == torch.uint8
    before = log_probs_of(model, batch)
    optimizer = make_optimizer(model, config)
    first = impala_update(model, optimizer, batch, config)
    after = log_probs_of(model, batch)
    assert (after[:, 0] - before[:, 0]).mean() > 0 > (after[:, 1] - before[:, 1]).mean()
    # On-policy data: every importance ratio is 1 before the step.
    assert first["rho_mean"] == pytest.approx(1.0, abs=1e-4) and first["rho_clipped_fraction"] == 0.0
    for _ in range(12):
        last = impala_update(model, optimizer, batch, config)
    assert last["baseline_loss"] < 0.5 * first["baseline_loss"]
    assert all(np.isfinite(value) for value in last.values())


def test_bad_batches_are_refused_by_name():
    config = IMPALAConfig(network=TINY)
    model = make_model(config)
    one = unroll(model, np.zeros((STEPS, ENVS)), seed=3)
    short = {key: value[1:] for key, value in one.items()}
    with pytest.raises(ValueError, match="unrolls of different lengths"):
        stack_unrolls([one, short])
    with pytest.raises(ValueError, match="at least one unroll"):
        stack_unrolls([])
    batch = stack_unrolls([one])
    batch["rgbd"] = batch["rgbd"][:-1]  # no bootstrap row
    with pytest.raises(ValueError, match=r"batch\['rgbd'\] must start with \(7, 2\)"):
        impala_update(model, make_optimizer(model, config), batch, config)
