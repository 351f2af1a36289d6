"""Simulator start-up time, alone and with silent local clients on the simulator's port.

Usage: avalon benchmark startup [--rounds 5] [--clients 20] [--renderer GLES2] [--timeout 120]

Each round times ``Simulator.start()`` (launch, Godot's connection and handshake) once without
and once with ``--clients`` clients that connect to the listening port before Godot is launched
and never send a byte. One shared display is held throughout, so Xvfb's own start-up is not
counted. Prints every round and the median of each, and their difference.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import time

from avalon.sim.display import acquire_display, release_display
from avalon.sim.settings import SimulatorSettings
from avalon.sim.simulator import Simulator


class _SilentlyCrowdedSimulator(Simulator):
    """Opens ``clients`` silent connections to the simulator's port just before Godot is launched."""

    clients = 0

    def _launch(self, binary, port, secret, display, *rest):
        self.silent = []
        for _ in range(self.clients):
            client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            client.setblocking(False)  # the kernel completes the connection; we never wait for it
            client.connect_ex(("127.0.0.1", port))
            self.silent.append(client)
        return super()._launch(binary, port, secret, display, *rest)


def time_start(settings: SimulatorSettings, clients: int) -> float:
    simulator = _SilentlyCrowdedSimulator(settings)
    simulator.clients = clients
    started = time.perf_counter()
    try:
        simulator.start()
        return time.perf_counter() - started
    finally:
        simulator.close()
        for client in getattr(simulator, "silent", []):
            client.close()


def main(argv: list[str] | None = None, prog: str | None = None) -> None:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", type=int, default=20, help="silent local clients in the crowded runs")
    parser.add_argument("--renderer", default="GLES2")
    parser.add_argument("--timeout", type=float, default=120.0, help="startup_timeout_s, seconds")
    args = parser.parse_args(argv)

    settings = SimulatorSettings(renderer=args.renderer, startup_timeout_s=args.timeout)
    acquire_display()
    try:
        time_start(settings, 0)  # warm-up: file caches, shader caches
        alone, crowded = [], []
        for round_index in range(args.rounds):
            alone.append(time_start(settings, 0))
            crowded.append(time_start(settings, args.clients))
            print(f"round {round_index + 1}/{args.rounds}: alone {alone[-1]:.3f} s, "
                  f"with {args.clients} silent clients {crowded[-1]:.3f} s", flush=True)
    finally:
        release_display()
    median_alone, median_crowded = statistics.median(alone), statistics.median(crowded)
    print(f"\nstart-up, median of {args.rounds}: alone {median_alone:.3f} s, with {args.clients} silent clients "
          f"{median_crowded:.3f} s: {median_crowded - median_alone:+.3f} s")


if __name__ == "__main__":
    main()
