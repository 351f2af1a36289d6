"""Avalon-style 3D embodied simulator and benchmark for reinforcement learning.

    from avalon import AvalonEnv, EnvConfig
    env = AvalonEnv(EnvConfig(renderer="GLES2"))            # or gymnasium.make("avalon/Avalon-v0")
    envs = gymnasium.make_vec("avalon/Avalon-v0", num_envs=4)  # a ThreadedVectorEnv

Importing ``avalon`` (or ``avalon.datagen``) loads neither Gymnasium, torch nor the simulator:
``AvalonEnv`` and ``EnvConfig`` load on first use, and ``avalon/Avalon-v0`` is registered when
Gymnasium is imported (:mod:`avalon.registration`).
"""

from avalon.registration import ENV_ID, register_when_gymnasium_loads

__all__ = ["AvalonEnv", "EnvConfig", "ENV_ID"]

register_when_gymnasium_loads()


def __getattr__(name: str):
    if name in ("AvalonEnv", "EnvConfig"):
        from avalon import env

        return getattr(env, name)
    raise AttributeError(f"module 'avalon' has no attribute {name!r}")
