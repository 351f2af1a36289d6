"""What the entity tests share: a module's simulator (GLES2, 32 x 32 frames), started once per module."""

from __future__ import annotations

import pytest

from avalon import EnvConfig
from avalon.sim.simulator import Simulator


@pytest.fixture(scope="module")
def sim():
    simulator = Simulator(EnvConfig(renderer="GLES2", resolution=32).simulator)
    simulator.start()
    yield simulator
    simulator.close()
