"""The simulator the scripted agent's tests drive: one per test module, in evaluation mode (each
world's own time limit), mouse and keyboard, 32 x 32 pixels (the agent reads no pixels)."""

from __future__ import annotations

import pytest

from avalon import AvalonEnv, EnvConfig


@pytest.fixture(scope="module")
def env():
    env = AvalonEnv(EnvConfig(renderer="GLES2", action_space="mouse_keyboard", resolution=32, is_training=False))
    yield env
    env.close()
