"""An X display for Godot's renderer: ``$DISPLAY`` if set, else one shared Xvfb server.

The Xvfb server is started on first use and shared by every simulator of this Python process;
it is stopped when the last user releases it, and at interpreter exit. It runs with
``-terminate`` while this process holds an X client connection to it, so even if Python is
killed outright, the server exits as soon as its last client (that connection, or a Godot) is
gone: no Xvfb outlives its users.
"""

from __future__ import annotations

import atexit
import os
import select
import signal
import socket
import struct
import subprocess
import threading
import time

from avalon.errors import SimulatorError
from avalon.sim.paths import find_xvfb_binary

XVFB_STARTUP_TIMEOUT_S = 20.0
_SCREEN_W, _SCREEN_H = 1280, 1024
_SCREEN = f"{_SCREEN_W}x{_SCREEN_H}x24"


class _SharedXvfb:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.process: subprocess.Popen | None = None
        self.display: str | None = None
        self.keepalive: socket.socket | None = None

    def acquire(self) -> str:
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self._start()
            self.users += 1
            assert self.display is not None
            return self.display

    def release(self) -> None:
        with self.lock:
            self.users = max(0, self.users - 1)
            if self.users == 0:
                self._stop()

    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def _start(self) -> None:
        binary = find_xvfb_binary()
        read_fd, write_fd = os.pipe()
        try:
            self.process = subprocess.Popen(
                [binary, "-displayfd", str(write_fd), "-screen", "0", _SCREEN, "-nolisten", "tcp", "-terminate"],
                pass_fds=(write_fd,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            os.close(write_fd)
            write_fd = -1
            number = self._read_display_number(read_fd)
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
        self.display = f":{number}"
        self.keepalive = _connect_x_client(number)

    def _read_display_number(self, read_fd: int) -> int:
        deadline = time.monotonic() + XVFB_STARTUP_TIMEOUT_S
        text = b""
        while not text.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([read_fd], [], [], max(0.0, remaining))
            if not ready:
                self._stop()
                raise SimulatorError(f"Xvfb did not report a display within {XVFB_STARTUP_TIMEOUT_S:.0f} s")
            chunk = os.read(read_fd, 64)
            if not chunk:
                code = self.process.wait() if self.process else None
                self._stop()
                raise SimulatorError(f"Xvfb exited during start-up (exit code {code})")
            text += chunk
        return int(text.strip())

    def _stop(self) -> None:
        if self.keepalive is not None:
            self.keepalive.close()
            self.keepalive = None
        if self.process is not None:
            _terminate_group(self.process)
            self.process = None
        self.display = None
        self.users = 0


def _connect_x_client(display_number: int) -> socket.socket:
    """Opens an X11 client connection (connection setup only) to keep a ``-terminate`` server up."""
    path = f"/tmp/.X11-unix/X{display_number}"
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(XVFB_STARTUP_TIMEOUT_S)
    connection.connect(path)
    # Setup request: little-endian byte order, protocol 11.0, no authorisation.
    connection.sendall(struct.pack("<BxHHHHxx", ord("l"), 11, 0, 0, 0))
    status = connection.recv(1)
    if status != b"\x01":
        connection.close()
        raise SimulatorError(f"Xvfb on :{display_number} refused an X client connection")
    return connection


def _terminate_group(process: subprocess.Popen, grace_s: float = 5.0) -> None:
    """Stops a process started with ``start_new_session=True`` and its group, and reaps it."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    process.wait()


_shared = _SharedXvfb()
atexit.register(lambda: _shared._stop())


def acquire_display() -> str:
    """The display Godot should use; starts the shared Xvfb when ``$DISPLAY`` is unset."""
    display = os.environ.get("DISPLAY")
    if display:
        return display
    return _shared.acquire()


def release_display() -> None:
    """Gives back a display from :func:`acquire_display` (the last release stops Xvfb)."""
    if not os.environ.get("DISPLAY"):
        _shared.release()


def shared_xvfb_pid() -> int | None:
    """The pid of the running shared Xvfb, if any (for tests and diagnostics)."""
    return _shared.pid()


class _WindowSlots:
    """Non-overlapping places for the simulators' windows on the display.

    Godot 3.2 on X11 stops drawing a window that another window fully covers (it treats it as
    minimised), so simulators sharing a display must not stack their windows: each gets its own
    cell of a grid over the screen. Cells are reused after release; with ``$DISPLAY`` set, the
    grid starts at an offset taken from the process id, so that simulators of other processes
    are unlikely to land on the same cells.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.taken: set[int] = set()

    def acquire(self, window_px: int) -> tuple[int, tuple[int, int]]:
        columns, rows = max(1, _SCREEN_W // window_px), max(1, _SCREEN_H // window_px)
        cells = columns * rows
        start = (os.getpid() * 7919) % cells if os.environ.get("DISPLAY") else 0
        with self.lock:
            for offset in range(cells):
                cell = (start + offset) % cells
                # Cell 0 stays empty: a new Godot window appears at (0, 0) before it moves to its
                # place, and would cover a simulator there for a moment.
                if cell != 0 and cell not in self.taken:
                    self.taken.add(cell)
                    return cell, ((cell % columns) * window_px, (cell // columns) * window_px)
        raise SimulatorError(f"no free window place left on the display for {cells} simulators")

    def release(self, cell: int) -> None:
        with self.lock:
            self.taken.discard(cell)


_windows = _WindowSlots()


def acquire_window_position(window_px: int) -> tuple[int, tuple[int, int]]:
    """(cell, (x, y)): where a simulator's ``window_px``-sized window goes so that no other covers it."""
    return _windows.acquire(window_px)


def release_window_position(cell: int) -> None:
    _windows.release(cell)
