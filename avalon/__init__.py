"""Avalon-style 3D embodied simulator and benchmark for reinforcement learning.

    from avalon import AvalonEnv, EnvConfig
    env = AvalonEnv(EnvConfig(renderer="GLES2"))            # or gymnasium.make("avalon/Avalon-v0")
    envs = gymnasium.make_vec("avalon/Avalon-v0", num_envs=4)  # a ThreadedVectorEnv
"""

import gymnasium

from avalon.env import AvalonEnv, EnvConfig

__all__ = ["AvalonEnv", "EnvConfig"]

ENV_ID = "avalon/Avalon-v0"
if ENV_ID not in gymnasium.registry:
    # make_vec gives the parallel ThreadedVectorEnv (Gymnasium's default would be a serial SyncVectorEnv).
    gymnasium.register(
        id=ENV_ID, entry_point="avalon.env.avalon_env:AvalonEnv", vector_entry_point="avalon.env.vector:make_vector_env"
    )
