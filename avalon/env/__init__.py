"""The environment package: bridge protocol, simulator process, spaces, ``AvalonEnv``, wrappers."""

from avalon.env.avalon_env import AvalonEnv
from avalon.env.config import EnvConfig

__all__ = ["AvalonEnv", "EnvConfig"]
