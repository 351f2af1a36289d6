"""RLlib (Ray 2.x, new API stack) on Avalon: ``pip install -e '.[rllib]'``; see ``docs/rllib.md``.

::

    from ray.rllib.algorithms.ppo import PPOConfig
    from avalon.integrations.rllib import avalon_module_spec, build_algo, register

    config = PPOConfig().environment(register(), env_config={"tasks": ["eat"], "resolution": 64})
    config = config.rl_module(rl_module_spec=avalon_module_spec())
    config = config.env_runners(num_env_runners=2, sample_timeout_s=None).training(num_epochs=2, minibatch_size=1000)
    algo = build_algo(config)   # refuses, naming the fix, what Ray could never start
    print(algo.train()["env_runners"]["episode_return_mean"])

- :mod:`.env`: :func:`env_creator` (one simulator per env, seeds per env runner and env, the
  curriculum on request) and :func:`register`.
- :mod:`.resources`: :func:`check_resources` and :func:`build_algo`: a config whose actors ask
  for more CPUs or GPUs than the cluster has is refused, naming the fix (RLlib would wait forever).
- :mod:`.module`: :class:`AvalonCatalog` and :func:`avalon_module_spec`: the project's encoder in
  RLlib's default PPO and APPO modules, on the unmodified ``Dict`` observation and action.
"""

from importlib.util import find_spec

if find_spec("ray") is None or find_spec("ray.rllib") is None:
    raise ImportError("avalon.integrations.rllib needs RLlib: pip install -e '.[rllib]' (or pip install 'ray[rllib]')")

from avalon.integrations.rllib.env import ENV_NAME, SeedPerEnv, env_creator, env_seed, register  # noqa: E402
from avalon.integrations.rllib.module import (  # noqa: E402
    AvalonCatalog,
    AvalonEncoderConfig,
    AvalonTorchEncoder,
    avalon_module_spec,
)
from avalon.integrations.rllib.resources import ResourceRequest, build_algo, check_resources, resource_request  # noqa: E402

__all__ = [
    "ENV_NAME",
    "AvalonCatalog",
    "AvalonEncoderConfig",
    "AvalonTorchEncoder",
    "ResourceRequest",
    "SeedPerEnv",
    "avalon_module_spec",
    "build_algo",
    "check_resources",
    "env_creator",
    "env_seed",
    "register",
    "resource_request",
]
