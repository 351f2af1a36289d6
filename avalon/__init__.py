"""Avalon-style 3D embodied simulator and benchmark for reinforcement learning.

    from avalon import AvalonEnv, EnvConfig
    env = AvalonEnv(EnvConfig(renderer="GLES2"))            # or gymnasium.make("avalon/Avalon-v0")
"""

import gymnasium

from avalon.env import AvalonEnv, EnvConfig

__all__ = ["AvalonEnv", "EnvConfig"]

ENV_ID = "avalon/Avalon-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="avalon.env.avalon_env:AvalonEnv")
