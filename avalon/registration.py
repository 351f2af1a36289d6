"""``avalon/Avalon-v0`` in Gymnasium's registry, without importing Gymnasium before anyone needs it.

``import avalon`` must stay light (world generation imports ``avalon.datagen`` in processes that
never touch Gymnasium, torch or the simulator), yet ``import avalon`` followed by
``gymnasium.make("avalon/Avalon-v0")`` must work. So the id is registered at once when Gymnasium
is already imported, and otherwise right after Gymnasium's own import finishes (a one-shot import
hook, :func:`register_when_gymnasium_loads`).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading

ENV_ID = "avalon/Avalon-v0"
_lock = threading.Lock()


def register_envs() -> None:
    """Registers ``avalon/Avalon-v0`` (``make_vec`` gives the parallel ``ThreadedVectorEnv``,
    where Gymnasium's default would be a serial ``SyncVectorEnv``). Idempotent."""
    import gymnasium

    with _lock:
        if ENV_ID not in gymnasium.registry:
            gymnasium.register(
                id=ENV_ID,
                entry_point="avalon.env.avalon_env:AvalonEnv",
                vector_entry_point="avalon.env.vector:make_vector_env",
            )


class _ThenRegister(importlib.abc.Loader):
    """Gymnasium's own loader, followed by :func:`register_envs`."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        register_envs()


class _GymnasiumImportHook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        _remove_hook(self)  # one shot: the spec below comes from the other finders
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader)
        return spec


def _remove_hook(hook: _GymnasiumImportHook) -> None:
    try:
        sys.meta_path.remove(hook)
    except ValueError:
        pass


def register_when_gymnasium_loads() -> None:
    """Registers now if Gymnasium is imported, else as soon as it is."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(finder, _GymnasiumImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _GymnasiumImportHook())
