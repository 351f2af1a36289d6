"""Start-up with other local clients on the bridge port: silent, foreign, flooding. Real Godot.

Clients connect to the listening port before Godot is launched (a seam around
``Simulator._launch``), so they are all queued ahead of Godot's own connection.
"""

import select
import socket
import threading
import time

import numpy as np
import pytest

from avalon.errors import SimulatorError
from avalon.sim import protocol, simulator as simulator_module
from avalon.sim.settings import SimulatorSettings
from avalon.sim.simulator import Simulator

pytestmark = pytest.mark.godot


def _connect_without_waiting(port: int) -> socket.socket:
    """A client that connects in the background (the kernel completes it) and never speaks."""
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    client.setblocking(False)
    client.connect_ex(("127.0.0.1", port))
    return client


def _say_once_connected(clients_and_bytes: list, timeout_s: float = 30.0) -> threading.Thread:
    """Sends each client's bytes as soon as its background connection completes."""

    def run() -> None:
        deadline = time.monotonic() + timeout_s
        for client, data in clients_and_bytes:
            select.select([], [client], [], max(0.0, deadline - time.monotonic()))
            if client.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                try:
                    client.sendall(data)
                except OSError:
                    pass  # already dropped

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _not_dropped(clients: list, timeout_s: float = 10.0) -> list[int]:
    """Indices of the clients that do not see their connection end (EOF or reset) in time."""
    waiting = dict(enumerate(clients))
    deadline = time.monotonic() + timeout_s
    while waiting and time.monotonic() < deadline:
        ready, _, _ = select.select(list(waiting.values()), [], [], max(0.0, deadline - time.monotonic()))
        for client in ready:
            index = next(i for i, c in waiting.items() if c is client)
            try:
                ended = client.recv(1) == b""
            except ConnectionResetError:
                ended = True
            except BlockingIOError:
                continue
            if ended:
                del waiting[index]
    return sorted(waiting)


class _CrowdedSimulator(Simulator):
    """Silent clients, then foreign ones, connect to the bridge port before Godot does."""

    silent_count = 20
    with_foreign = True

    def _launch(self, binary, port, secret, display, *rest):
        self.port = port
        self.silent = [_connect_without_waiting(port) for _ in range(self.silent_count)]
        messages = [
            protocol.encode_hello(b"0" * protocol.SECRET_SIZE),  # wrong secret
            b"GET / HTTP/1.0\r\n\r\n",  # not the protocol at all
            protocol.encode_hello(secret.encode())[:9],  # half a HELLO, then silence
            protocol.HEADER.pack(protocol.MessageType.HELLO, 10**6),  # a HELLO far too long
        ] if self.with_foreign else []
        self.foreign = [_connect_without_waiting(port) for _ in messages]
        self.sender = _say_once_connected(list(zip(self.foreign, messages)))
        return super()._launch(binary, port, secret, display, *rest)

    def close_clients(self):
        self.sender.join()
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
        simulator.sender.join()
        assert _not_dropped(simulator.foreign) == []
        assert _not_dropped(simulator.silent) == []
        with pytest.raises(ConnectionRefusedError):  # and the listener is gone
            socket.create_connection(("127.0.0.1", simulator.port), timeout=5)
    finally:
        simulator.close()
        simulator.close_clients()


class _FloodedSimulator(_CrowdedSimulator):
    """Many more silent clients than are held at once; records how many were held."""

    silent_count = 3 * simulator_module.MAX_PENDING_HELLOS  # more than the kernel queues, too
    with_foreign = False

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


class _StaleSimulator(Simulator):
    """A HELLO with the right secret and another protocol version reaches the port first."""

    def _launch(self, binary, port, secret, display, *rest):
        self.stale = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.stale.sendall(protocol.encode_hello(secret.encode(), version=protocol.PROTOCOL_VERSION + 1))
        return super()._launch(binary, port, secret, display, *rest)


def test_a_hello_with_the_secret_and_another_protocol_version_is_a_clear_error():
    simulator = _StaleSimulator(SimulatorSettings(renderer="GLES2", startup_timeout_s=20.0))
    try:
        with pytest.raises(SimulatorError, match=rf"speaks protocol version {protocol.PROTOCOL_VERSION + 1}, Python "
                           rf"speaks {protocol.PROTOCOL_VERSION}; regenerate godot/generated/protocol.gd"):
            simulator.start()
        assert simulator.process.poll() is not None and simulator.temp_dir is None  # killed, folder gone
    finally:
        simulator.close()
        simulator.stale.close()


def test_a_process_that_exits_during_start_up_is_reported_with_its_exit_code():
    simulator = Simulator(SimulatorSettings(godot_binary="false", startup_timeout_s=20.0))
    with pytest.raises(SimulatorError, match="exited during start-up with code 1"):
        simulator.start()
    assert simulator.temp_dir is None
