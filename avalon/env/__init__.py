"""The Gymnasium face: ``AvalonEnv``, ``EnvConfig``, the spaces and the wrappers."""

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig
from avalon.registration import register_envs

__all__ = ["AvalonEnv", "EnvConfig"]

register_envs()
