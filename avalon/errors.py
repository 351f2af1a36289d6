"""Errors the environment raises; each says what went wrong and what to do."""


class AvalonError(RuntimeError):
    """Base class of this package's runtime errors."""


class SimulatorNotInstalledError(AvalonError):
    """Godot, Xvfb or the simulator's native library is missing: run ``make setup``."""


class SimulatorError(AvalonError):
    """The Godot process crashed, hung, or broke the protocol. The next ``reset()`` starts a fresh one."""


class WorldLoadError(AvalonError, ValueError):
    """A world folder is missing or corrupt; the message names the path and the problem."""
