"""Defence in depth on the wire: the frame counter of every reply, and non-finite action values.

Python's own action check refuses NaN before anything is sent, so the Godot side is tested with
raw STEPs through ``Simulator.step``. A real Godot cannot be made to send a wrong frame number,
so that check is fed hand-written replies over a socket pair.
"""

import socket
import subprocess
import threading

import numpy as np
import pytest

from avalon.errors import SimulatorError
from avalon.sim import protocol
from avalon.sim.settings import SimulatorSettings
from avalon.sim.simulator import Simulator

RESOLUTION = 16  # the smallest SimulatorSettings accepts: the frames stay small


def _answer(peer: socket.socket, frames: list[int]) -> threading.Thread:
    """Answers each request read from ``peer`` with an OBSERVATION carrying the next frame number."""

    def run() -> None:
        for frame in frames:
            header = peer.recv(protocol.HEADER.size, socket.MSG_WAITALL)
            if len(header) < protocol.HEADER.size:
                return
            _, length = protocol.decode_header(header)
            if length:
                peer.recv(length, socket.MSG_WAITALL)
            pixels = np.zeros((RESOLUTION, RESOLUTION, 4), np.uint8)
            peer.sendall(protocol.encode_observation(frame, np.zeros(protocol.FEATURE_COUNT, np.float32), pixels))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.fixture()
def connected_simulator():
    """A simulator whose connection is one end of a socket pair; a placeholder process (a real
    one, that a protocol failure must kill) stands in for Godot."""
    ours, peer = socket.socketpair()
    simulator = Simulator(SimulatorSettings(resolution=RESOLUTION, action_space="mouse_keyboard"))
    simulator.connection = ours
    simulator.process = subprocess.Popen(["sleep", "600"], start_new_session=True)
    yield simulator, peer
    simulator.kill()
    peer.close()


ACTION = np.zeros(protocol.action_size("mouse_keyboard"), np.float32)


@pytest.mark.parametrize(
    "replies, failing_request",
    [
        ([0, 1, 2, 4], "step"),  # a frame skipped
        ([0, 1, 1], "step"),  # a frame repeated
        ([0, 1, 2, 5], "reset"),  # a RESET answered by something other than frame 0
    ],
)
def test_a_reply_with_the_wrong_frame_is_a_protocol_failure(connected_simulator, replies, failing_request):
    simulator, peer = connected_simulator
    placeholder = simulator.process
    answering = _answer(peer, replies)
    assert simulator.reset("/world", 0, 10).frame == 0
    for expected in range(1, len(replies) - 1):
        assert simulator.step(ACTION).frame == expected
    expected = 0 if failing_request == "reset" else len(replies) - 1
    with pytest.raises(SimulatorError, match=rf"its reply carries frame {replies[-1]}, expected frame {expected} "
                       r"\(the reply stream is out of step\)"):
        simulator.reset("/world", 0, 10) if failing_request == "reset" else simulator.step(ACTION)
    answering.join(timeout=10)
    assert placeholder.poll() is not None  # killed, like any protocol failure
    assert not simulator.is_running and simulator.connection is None


@pytest.mark.godot
def test_godot_refuses_non_finite_action_values_naming_the_index_and_keeps_serving(trivial_world_dir):
    simulator = Simulator(SimulatorSettings(renderer="GLES2"))
    try:
        simulator.start()
        assert simulator.reset(str(trivial_world_dir), 0, 100).frame == 0
        for index, value in ((0, np.nan), (4, np.inf), (20, -np.inf)):
            action = np.zeros(21, np.float32)
            action[index] = value
            action[index + 1:] = np.nan  # only the first is named
            with pytest.raises(SimulatorError, match=rf"refused the request: STEP value at index {index} is {value}; "
                               "every action value must be finite"):
                simulator.step(action)
        # Nothing was applied: the next STEP is frame 1, and a RESET starts again at 0.
        assert simulator.step(np.zeros(21, np.float32)).frame == 1
        assert simulator.reset(str(trivial_world_dir), 1, 100).frame == 0
        assert simulator.step(np.full(21, 0.5, np.float32)).frame == 1
    finally:
        simulator.close()
