"""Start-up with other local clients on the bridge port: silent, foreign, flooding. Real Godot.

Clients connect to the listening port before Godot is launched (a seam around
``Simulator._launch``), so they are all queued ahead of Godot's own connection.
"""

import socket

import numpy as np
import pytest

from avalon.env import protocol, simulator as simulator_module
from avalon.env.simulator import Simulator, SimulatorSettings

pytestmark = pytest.mark.godot


def _connect_without_waiting(port: int) -> socket.socket:
    """A client that connects (in the background: the kernel completes it) and never speaks."""
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setblocking(False)
    client.connect_ex(("127.0.0.1", port))
    return client


def _was_dropped(client: socket.socket, timeout_s: float = 10.0) -> bool:
    """True when we see the end of the stream (or a reset): the simulator closed its end."""
    client.setblocking(True)
    client.settimeout(timeout_s)
    try:
        return client.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


class _CrowdedSimulator(Simulator):
    """Silent clients, then foreign ones, connect to the bridge port before Godot does."""

    silent_count = 20
    foreign_count = 4

    def _launch(self, binary, port, secret, display, *rest):
        self.port = port
        self.silent = [_connect_without_waiting(port) for _ in range(self.silent_count)]
        self.foreign = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(self.foreign_count)]
        if not self.foreign:
            return super()._launch(binary, port, secret, display, *rest)
        self.foreign[0].sendall(protocol.encode_hello(b"0" * protocol.SECRET_SIZE))  # wrong secret
        self.foreign[1].sendall(b"GET / HTTP/1.0\r\n\r\n")  # not the protocol at all
        self.foreign[2].sendall(protocol.encode_hello(secret.encode())[:9])  # half a HELLO, then silence
        self.foreign[3].sendall(protocol.HEADER.pack(protocol.MessageType.HELLO, 10**6))  # a HELLO too long
        return super()._launch(binary, port, secret, display, *rest)

    def close_clients(self):
        for client in self.silent + self.foreign:
            client.close()


def test_twenty_silent_local_clients_do_not_delay_start_up_and_foreign_ones_are_dropped(trivial_world_dir):
    # One HELLO read at a time with 5 s each needs 100 s for 20 silent clients; 20 s is far
    # more than a start-up takes, even on a busy machine.
    simulator = _CrowdedSimulator(SimulatorSettings(renderer="GLES2", startup_timeout_s=20.0))
    try:
        simulator.start()
        assert simulator.reset(str(trivial_world_dir), 0, 10).frame == 0
        assert simulator.step(np.zeros(21, np.float32)).frame == 1
        # Nothing of them is held once Godot has greeted: every client sees its connection end.
        assert [index for index, client in enumerate(simulator.foreign) if not _was_dropped(client)] == []
        assert [index for index, client in enumerate(simulator.silent) if not _was_dropped(client)] == []
        with pytest.raises(ConnectionRefusedError):  # and the listener is gone
            socket.create_connection(("127.0.0.1", simulator.port), timeout=5)
    finally:
        simulator.close()
        simulator.close_clients()


class _FloodedSimulator(_CrowdedSimulator):
    """Many more silent clients than are held at once; records how many were held."""

    silent_count = 3 * simulator_module.MAX_PENDING_HELLOS  # more than the kernel queues, too
    foreign_count = 0

    @staticmethod
    def _take_connections(listener, selector, pending):
        Simulator._take_connections(listener, selector, pending)
        _FloodedSimulator.most_held = max(_FloodedSimulator.most_held, len(pending))

    most_held = 0


def test_a_flood_of_local_clients_is_held_within_bounds_and_godot_still_connects(trivial_world_dir):
    simulator = _FloodedSimulator(SimulatorSettings(renderer="GLES2", startup_timeout_s=60.0))
    try:
        simulator.start()
        assert 0 < _FloodedSimulator.most_held <= simulator_module.MAX_PENDING_HELLOS
        assert simulator.reset(str(trivial_world_dir), 0, 10).frame == 0
    finally:
        simulator.close()
        simulator.close_clients()
