"""The RLlib integration without a simulator: the module built from :func:`avalon_module_spec` for
RLlib's PPO and APPO on the env's own spaces, and the env creator's seeds and checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.env.env_context import EnvContext
from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space, unsquash_action

from avalon.agent.common.config import NetworkConfig
from avalon.agent.common.network import ObservationEncoder
from avalon.env.spaces import RGBD_KEY, ActionCodec, action_space, observation_space
from avalon.integrations.rllib import avalon_module_spec, check_resources, env_creator, env_seed, resource_request

TINY = NetworkConfig(conv_layers=((8, 4, 4),), image_features=16, proprio_features=16, proprio_layers=1, hidden_features=16)


def _module(algorithm_config, action_space_name: str = "vr", **model_config):
    spec = algorithm_config.rl_module(rl_module_spec=avalon_module_spec(TINY, **model_config)).rl_module_spec
    spec.observation_space, spec.action_space = observation_space(32), action_space(action_space_name)
    return spec.build()


def _batch(size: int, seed: int = 0) -> dict[str, torch.Tensor]:
    space = observation_space(32)
    space.seed(seed)
    samples = [space.sample() for _ in range(size)]
    # Finite proprioception (the space's unbounded parts sample huge values): what the env gives.
    return {
        name: torch.from_numpy(np.stack([s[name] for s in samples]) if name == RGBD_KEY else np.stack([np.tanh(s[name]) for s in samples]))
        for name in space.spaces
    }


@pytest.mark.parametrize("algorithm_config", [PPOConfig, APPOConfig], ids=["PPO", "APPO"])
@pytest.mark.parametrize("action_space_name", ["vr", "mouse_keyboard"])
def test_rllib_default_modules_run_the_project_encoder_on_the_raw_dict_observation(algorithm_config, action_space_name):
    module = _module(algorithm_config(), action_space_name)
    encoder = module.encoder.encoder  # shared by the policy and value heads
    assert isinstance(encoder.net, ObservationEncoder)
    assert not hasattr(module.encoder, "critic_encoder")
    batch = _batch(5)
    assert batch[RGBD_KEY].dtype == torch.uint8
    out = module.forward_exploration({Columns.OBS: batch})
    distribution = module.get_exploration_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    actions = distribution.sample()
    space = action_space(action_space_name)
    codec = ActionCodec(action_space_name)
    for index in range(5):
        # What RLlib's module-to-env connector does with normalize_actions=True (its default).
        action = unsquash_action({name: part[index].numpy() for name, part in actions.items()}, get_base_struct_from_space(space))
        assert space.contains({name: np.asarray(value, space[name].dtype) for name, value in action.items()})
        codec.encode(action)  # the env accepts it
    values = module.compute_values({Columns.OBS: batch})
    assert values.shape == (5,) and torch.isfinite(values).all()
    # The features change with the image: the CNN sees it (scaled from uint8 inside the network).
    other = dict(batch, **{RGBD_KEY: 255 - batch[RGBD_KEY]})
    assert not torch.equal(encoder({Columns.OBS: batch})["encoder_out"], encoder({Columns.OBS: other})["encoder_out"])


def test_the_encoder_refuses_a_float_image_and_a_flattened_observation():
    encoder = _module(PPOConfig()).encoder.encoder
    batch = _batch(2)
    with pytest.raises(ValueError, match="must stay uint8"):
        encoder({Columns.OBS: dict(batch, **{RGBD_KEY: batch[RGBD_KEY].float()})})
    with pytest.raises(ValueError, match="Dict observation as it is"):
        encoder({Columns.OBS: torch.zeros(2, 10)})


def test_the_catalog_refuses_lstm_and_other_observation_spaces():
    with pytest.raises(ValueError, match="use_lstm"):
        _module(PPOConfig(), use_lstm=True)
    spec = PPOConfig().rl_module(rl_module_spec=avalon_module_spec(TINY)).rl_module_spec
    spec.observation_space, spec.action_space = spaces.Box(0, 1, (4,)), action_space("vr")
    with pytest.raises(ValueError, match="AvalonCatalog needs"):
        spec.build()
    with pytest.raises(ValueError, match="NetworkConfig"):
        avalon_module_spec({"hidden_features": 8})


def test_the_spec_sets_the_network_sizes_and_lets_rllib_options_through():
    module = _module(PPOConfig(), head_fcnet_hiddens=[8])
    assert module.encoder.encoder.net.features_size == 16
    assert [layer.out_features for layer in module.pi.modules() if isinstance(layer, torch.nn.Linear)][0] == 8


def test_env_seeds_differ_across_workers_and_vector_indices_and_repeat():
    seeds = {(w, v): env_seed(5, w, v) for w in range(4) for v in range(4)}
    assert len(set(seeds.values())) == 16
    assert all(0 <= seed < 2**63 for seed in seeds.values())
    assert env_seed(5, 2, 1) == seeds[(2, 1)] and env_seed(6, 2, 1) != seeds[(2, 1)]
    with pytest.raises(ValueError, match="seed"):
        env_seed(-1, 0, 0)


def test_the_creator_gives_each_env_it_makes_for_a_worker_its_own_seed():
    made = [env_creator(EnvContext({"task": "eat", "resolution": 32, "seed": 9}, worker_index=7)) for _ in range(2)]
    try:
        configs = [env.unwrapped.config for env in made]
        assert configs[0].seed != configs[1].seed
        assert [env.worker_index for env in made] == [7, 7] and made[1].vector_index == made[0].vector_index + 1
        assert configs[0].task == "eat" and configs[0].resolution == 32
        assert made[0].observation_space == observation_space(32)
    finally:
        for env in made:
            env.close()


def test_the_creator_builds_the_curriculum_envs_and_checks_its_keys():
    env = env_creator({"tasks": ["eat"], "curriculum": {"initial_difficulty": 0.25}, "worlds_ahead": 1, "resolution": 32})
    try:
        curriculum_env = env.env
        assert curriculum_env.curriculum.max_difficulty("eat") == 0.25 and curriculum_env.worlds_ahead == 1
    finally:
        env.close()
    for bad, message in [
        ({"resolutoin": 32}, "unknown env_config key.*resolutoin"),
        ({"num_envs": 2}, "vector_entry_point"),
        ({"curriculum": {"step_size": 0.1}}, "need 'tasks'"),
        ({"tasks": "eat"}, "list of task names"),
        ({"tasks": ["eat"], "curriculum": {"speed": 1}}, "curriculum.*speed"),
        ({"tasks": ["no-such-task"]}, "no-such-task"),
        ({"resolution": -3}, "resolution"),
        ({"seed": -1}, "seed"),
        ({"tasks": ["eat"], "worlds_ahead": 0}, "worlds_ahead"),
    ]:
        with pytest.raises(ValueError, match=message):
            env_creator(EnvContext(bad, worker_index=8))
    env = env_creator(EnvContext({}, worker_index=8))  # the refused configs made no env, so counted none
    assert env.vector_index == 0
    env.close()


def test_a_config_asking_for_more_cpus_than_the_cluster_has_is_refused_naming_the_fix():
    two_runners = {"num_env_runners": 2}
    appo = APPOConfig().environment("CartPole-v1").env_runners(**two_runners)  # one remote learner by default
    request = resource_request(appo)
    assert request.actors == (("env runner", 2, 1.0, 0.0), ("learner", 1, 1.0, 0.0))
    assert request.total("CPU") == 3 and request.total("GPU") == 0
    with pytest.raises(ValueError) as refused:
        check_resources(appo, {"CPU": 2, "GPU": 0})
    message = str(refused.value)
    assert "APPOConfig asks Ray for 3 CPU (2 env runners x 1 CPU, 1 learner x 1 CPU) and the cluster has 2 CPU" in message
    assert "wait forever" in message and "config.learners(num_learners=0)" in message
    # The fixes it names fit: learning in the driver, or a bigger cluster; PPO learns in the driver by default.
    in_the_driver = APPOConfig().environment("CartPole-v1").env_runners(**two_runners).learners(num_learners=0)
    assert check_resources(in_the_driver, {"CPU": 2}).total("CPU") == 2
    assert check_resources(appo, {"CPU": 3}).total("CPU") == 3
    assert check_resources(PPOConfig().environment("CartPole-v1").env_runners(**two_runners), {"CPU": 2}).total("CPU") == 2


def test_a_config_asking_for_a_gpu_the_cluster_lacks_is_refused():
    config = PPOConfig().environment("CartPole-v1").learners(num_learners=1, num_gpus_per_learner=1)
    refusal = r"asks Ray for 1 GPU \(.*1 learner x 0 CPU and 1 GPU\) and the cluster has 0 GPU.*Fix: ask for no GPU \(num_gpus"
    with pytest.raises(ValueError, match=refusal):
        check_resources(config, {"CPU": 2, "GPU": 0})
