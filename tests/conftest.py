"""Shared fixtures. Tests marked ``godot`` drive the real Godot process (Xvfb is started by the
package when DISPLAY is unset); everything else is pure Python."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from avalon.datagen.export import export_world
from avalon.sim.protocol import ACTION_SPACES
from avalon.tasks.trivial import trivial_world


def pytest_collection_modifyitems(items) -> None:
    """Under pytest-xdist (``--dist loadgroup``), each test module runs on one worker, so its
    caches and module fixtures (worlds built once, reused by the module's tests) are built once;
    a module that names its own group (the Ray tests share "ray") keeps it."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.fixture(scope="session")
def trivial_world_dir(tmp_path_factory) -> Path:
    return export_world(trivial_world(), tmp_path_factory.mktemp("worlds") / "trivial")


@pytest.fixture(scope="session")
def long_trivial_world_dir(tmp_path_factory) -> Path:
    """The trivial world with a time limit long enough for any scripted test."""
    return export_world(trivial_world(time_limit_frames=100_000), tmp_path_factory.mktemp("worlds") / "trivial-long")


def zero_action(action_space: str = "vr", **parts) -> dict:
    """An action that does nothing, with some parts overridden (e.g. head_position=[0, 0, -1])."""
    action = {}
    for field in ACTION_SPACES[action_space]:
        action[field.name] = 0 if field.kind == "binary" else np.zeros(field.size, np.float32)
    for name, value in parts.items():
        action[name] = value if isinstance(value, int) else np.asarray(value, np.float32)
    return action
