"""The simulator draws each frame itself (``VisualServer.force_draw`` in godot/main.gd), so what
becomes of its window does not matter: Godot 3.2's main loop skips drawing for a window that
another one covers, which once froze every simulator of a process but the newest."""

import hashlib

import numpy as np
import pytest

import avalon.sim.simulator as simulator_module
from avalon import AvalonEnv
from tests.conftest import zero_action

pytestmark = pytest.mark.godot

STEPS = 6


def test_simulators_whose_windows_are_stacked_all_keep_rendering(long_trivial_world_dir, monkeypatch):
    # Both windows at the same place on the shared display: the newer covers the older.
    monkeypatch.setattr(simulator_module, "acquire_window_position", lambda window_px: (None, (0, 0)))
    envs = [AvalonEnv(renderer="GLES2", resolution=32, world_dir=str(long_trivial_world_dir)) for _ in range(2)]
    try:
        for env in envs:
            env.reset(seed=0)
        turning = zero_action(head_rotation=np.array([0.0, 1.0, 0.0], np.float32))  # every frame differs
        frames = [set(), set()]
        for _ in range(STEPS):
            for env, seen in zip(envs, frames):
                seen.add(hashlib.sha1(env.step(turning)[0]["rgbd"].tobytes()).hexdigest())
        assert [len(seen) for seen in frames] == [STEPS, STEPS]
    finally:
        for env in envs:
            env.close()
