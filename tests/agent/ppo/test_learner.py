"""One PPO update on a rollout built from the real network's own samples."""

import copy

import attr
import pytest
import torch

from avalon.agent.common.distributions import ActionLayout
from avalon.agent.common.network import ActorCritic
from avalon.agent.common.observations import ObservationLayout
from avalon.agent.ppo.config import PPOConfig
from avalon.agent.ppo.learner import make_optimizer, ppo_update
from avalon.agent.ppo.rollout import RolloutStorage
from avalon.env.spaces import action_space, observation_space
from tests.agent.common.test_network import random_observations

STEPS, ENVS, RES = 8, 4, 16


def filled_rollout(config, reward_sign):
    """A rollout whose rewards are +1 (or -1) for the first env and 0 elsewhere."""
    torch.manual_seed(0)
    observations = ObservationLayout.from_space(observation_space(RES))
    actions = ActionLayout.from_space(action_space("mouse_keyboard"))
    model = ActorCritic(observations, actions, config).eval()
    storage = RolloutStorage(observations, ENVS, STEPS, actions.action_size)
    generator = torch.Generator().manual_seed(0)
    for t in range(STEPS + 1):
        tensors = observations.to_tensors(random_observations(RES, ENVS, seed=t))
        storage.set_observation(t, tensors)
        if t == STEPS:
            break
        with torch.no_grad():
            distribution, values = model(tensors)
            sample = distribution.sample(generator)
            rewards = torch.tensor([reward_sign, 0.0, 0.0, 0.0])
            storage.set_step(t, sample, distribution.log_prob(sample), values, rewards, torch.zeros(ENVS))
    return model, storage


def log_probs_of_first_env(model, storage):
    with torch.no_grad():
        distribution, _ = model({key: value[:-1, 0] for key, value in storage.observations.items()})
        return distribution.log_prob(storage.actions[:, 0])


@pytest.mark.parametrize("reward_sign", [1.0, -1.0])
def test_update_moves_the_policy_towards_rewarded_actions(reward_sign):
    config = PPOConfig(unroll_steps=STEPS, learning_rate=1e-3, clip_range=0.2, epochs=4)
    model, storage = filled_rollout(config, reward_sign)
    before = log_probs_of_first_env(model, storage)
    stats = ppo_update(model, make_optimizer(model, config), storage, torch.zeros(ENVS), config, torch.Generator().manual_seed(0))
    after = log_probs_of_first_env(model, storage)
    change = (after - before).mean().item()
    assert change * reward_sign > 0, (before, after)
    for name in ("loss", "policy_loss", "value_loss", "entropy", "clip_fraction", "approx_kl", "grad_norm", "std"):
        assert name in stats and torch.isfinite(torch.tensor(stats[name]))


def test_chunked_learning_takes_the_same_step_as_one_pass():
    whole = PPOConfig(unroll_steps=STEPS, learn_chunk_size=None)
    chunked = attr.evolve(whole, learn_chunk_size=5)  # 32 transitions in chunks of 5, 5, ..., 2
    model, storage = filled_rollout(whole, 1.0)
    twin = copy.deepcopy(model)
    for config, network in ((whole, model), (chunked, twin)):
        ppo_update(network, make_optimizer(network, config), storage, torch.zeros(ENVS), config, torch.Generator().manual_seed(3))
    for (name, a), (_, b) in zip(model.state_dict().items(), twin.state_dict().items()):
        assert torch.allclose(a, b, atol=1e-6), name


def test_minibatches_take_one_optimizer_step_each():
    config = PPOConfig(unroll_steps=STEPS, minibatches=4, epochs=3)
    model, storage = filled_rollout(config, 1.0)
    optimizer = make_optimizer(model, config)
    ppo_update(model, optimizer, storage, torch.zeros(ENVS), config, torch.Generator().manual_seed(0))
    steps = {int(state["step"]) for state in optimizer.state_dict()["state"].values()}
    assert steps == {12}
