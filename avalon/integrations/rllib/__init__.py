"""RLlib (Ray 2.x, new API stack) on Avalon: ``pip install -e '.[rllib]'``; see ``docs/rllib.md``.

::

    from ray.rllib.algorithms.ppo import PPOConfig
    from avalon.integrations.rllib import avalon_module_spec, register

    config = PPOConfig().environment(register(), env_config={"task": "eat", "resolution": 64})
    algo = config.rl_module(rl_module_spec=avalon_module_spec()).env_runners(num_env_runners=2).build_algo()
    print(algo.train())

- :mod:`.env`: :func:`env_creator` (one simulator per env, seeds per env runner and env, the
  curriculum on request) and :func:`register`.
- :mod:`.module`: :class:`AvalonCatalog` and :func:`avalon_module_spec`: the project's encoder in
  RLlib's default PPO and APPO modules, on the unmodified ``Dict`` observation and action.
"""

from avalon.integrations.rllib.env import ENV_NAME, SeedPerEnv, env_creator, env_seed, register
from avalon.integrations.rllib.module import AvalonCatalog, AvalonEncoderConfig, AvalonTorchEncoder, avalon_module_spec

__all__ = [
    "ENV_NAME",
    "AvalonCatalog",
    "AvalonEncoderConfig",
    "AvalonTorchEncoder",
    "SeedPerEnv",
    "avalon_module_spec",
    "env_creator",
    "env_seed",
    "register",
]
