"""How the simulator's Python end reads replies, over a real socket pair, without Godot.

The step path reads a whole OBSERVATION frame into one reused buffer; these cover what a
normal run rarely shows: frames arriving in pieces, replies longer than that buffer, and a
reply followed by bytes that should not be there.
"""

import socket
import threading
import time

import numpy as np
import pytest

from avalon.sim import protocol
from avalon.sim.settings import SimulatorSettings
from avalon.sim.simulator import Simulator

RESOLUTION = 16  # the smallest SimulatorSettings accepts: the frames stay small


@pytest.fixture()
def simulator_and_peer():
    ours, peer = socket.socketpair()
    simulator = Simulator(SimulatorSettings(resolution=RESOLUTION))
    simulator.connection = ours
    ours.settimeout(5.0)
    simulator._socket_timeout_s = 5.0
    yield simulator, peer
    ours.close()
    peer.close()


def _send_in_pieces(peer: socket.socket, frame: bytes, cuts: list[int]) -> threading.Thread:
    def send() -> None:
        start = 0
        for cut in cuts + [len(frame)]:
            peer.sendall(frame[start:cut])
            start = cut
            time.sleep(0.02)

    thread = threading.Thread(target=send)
    thread.start()
    return thread


def test_an_observation_arriving_in_pieces_is_read_whole(simulator_and_peer):
    simulator, peer = simulator_and_peer
    features = np.arange(protocol.FEATURE_COUNT, dtype=np.float32)
    pixels = np.arange(RESOLUTION * RESOLUTION * 4, dtype=np.uint8).reshape(RESOLUTION, RESOLUTION, 4)
    frame = protocol.encode_observation(7, features, pixels)
    sender = _send_in_pieces(peer, frame, [2, 5, 40])  # inside the header, at its end, in the features
    message_type, payload = simulator._receive(time.monotonic() + 5.0)
    sender.join()
    assert message_type == protocol.MessageType.OBSERVATION
    observation = protocol.decode_observation(payload, RESOLUTION)
    assert observation.frame == 7
    np.testing.assert_array_equal(observation.features, features)
    np.testing.assert_array_equal(observation.rgbd, pixels[::-1])


def test_an_error_longer_than_an_observation_is_read_whole(simulator_and_peer):
    simulator, peer = simulator_and_peer
    text = "x" * (protocol.observation_payload_size(RESOLUTION) * 3)
    sender = _send_in_pieces(peer, protocol.encode_error(text), [3, 100])
    message_type, payload = simulator._receive(time.monotonic() + 5.0)
    sender.join()
    assert message_type == protocol.MessageType.ERROR
    assert bytes(payload).decode() == text


def test_bytes_after_a_short_reply_break_the_protocol(simulator_and_peer):
    simulator, peer = simulator_and_peer
    peer.sendall(protocol.encode_error("no") + b"junk")
    time.sleep(0.05)  # both in the socket before the first receive
    with pytest.raises(protocol.ProtocolError, match="followed by more data"):
        simulator._receive(time.monotonic() + 5.0)


def test_a_reply_that_stops_halfway_hits_the_deadline(simulator_and_peer):
    simulator, peer = simulator_and_peer
    peer.sendall(protocol.encode_error("a reply that never ends")[:8])
    with pytest.raises(socket.timeout):
        simulator._receive(time.monotonic() + 1.0)
    assert simulator._socket_timeout_s <= 1.0  # it waited out the deadline, not the socket's 5 s
