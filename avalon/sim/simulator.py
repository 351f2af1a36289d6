"""One Godot simulator process and the Python end of the lock-step protocol (the Godot end:
``godot/link/link.gd``).

Python listens on 127.0.0.1 (ephemeral port) and starts Godot, which connects and proves it is
ours with a per-process secret. Other local connections are read side by side with it and
dropped, so they cannot delay it; once the simulator has greeted, the listener closes and
nothing else can connect. Every blocking read has a deadline, and every reply must carry the
frame number Python expects. On any failure the process group is killed, the temporary folder
removed, and a :class:`SimulatorError` quotes the tail of the Godot log.
"""

from __future__ import annotations

import atexit
import hmac
import os
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import attr
import numpy as np

from avalon.errors import SimulatorError, WorldLoadError
from avalon.rules.mechanics import STEPS_PER_SECOND
from avalon.sim import protocol
from avalon.sim.display import acquire_display, acquire_window_position, release_display, release_window_position
from avalon.sim.paths import find_godot_binary, find_native_library, godot_project_dir
from avalon.sim.settings import SimulatorSettings
from avalon.sim.temp_folders import make_temp_folder

LOG_TAIL_LINES = 30
# Godot renders observations into its own offscreen viewport; the window shows nothing we read,
# but it is still cleared, blitted and swapped through the X server every frame, so keep it tiny.
WINDOW_SIZE_PX = 8
#: Start-up: connections the kernel queues for us, and how many we hold while reading their
#: HELLOs (a newer one pushes out the oldest), each for at most HELLO_TIMEOUT_S.
LISTEN_BACKLOG = 128
MAX_PENDING_HELLOS = 64
HELLO_TIMEOUT_S = 5.0
HELLO_MAX_BYTES = 1024  # a HELLO's payload: magic, version, secret and Godot's version string


class Simulator:
    """A running Godot process. Use :meth:`start`, then :meth:`reset` and :meth:`step`."""

    def __init__(self, settings: SimulatorSettings) -> None:
        self.settings = settings
        self.process: subprocess.Popen | None = None
        self.connection: socket.socket | None = None
        self.temp_dir: Path | None = None
        self.log_path: Path | None = None
        self._display_held = False
        self._window_cell: int | None = None
        # One buffer for a whole OBSERVATION frame (header and payload): usually one recv per step.
        self._observation_size = protocol.observation_payload_size(settings.resolution)
        self._reply_buffer = bytearray(protocol.HEADER.size + self._observation_size)
        self._action_size = protocol.action_size(settings.action_space)
        self._socket_timeout_s: float | None = None
        self._log_offset = 0  # the log's size at the last RESET or ERROR: "Godot said" quotes what follows
        # The frame of the last OBSERVATION (None before a successful RESET): a RESET's reply
        # must carry frame 0 and a STEP's this + 1, or the reply stream is out of step.
        self._frame: int | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    @property
    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None and self.connection is not None

    def start(self) -> None:
        """Launches Godot and waits for its handshake (at most ``startup_timeout_s``).

        Raises :class:`ValueError` when ``log_dir`` cannot be created or written,
        :class:`SimulatorNotInstalledError` when Godot or its native library is missing, and
        :class:`SimulatorError` when Godot does not greet in time; nothing is left behind.
        """
        binary = find_godot_binary(self.settings.godot_binary)
        find_native_library()
        log_root = _prepare_log_dir(self.settings.log_dir)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.temp_dir = make_temp_folder("sim")
            self.log_path = (log_root or self.temp_dir) / f"godot-{os.getpid()}-{time.time_ns()}.log"
            secret = secrets.token_hex(protocol.SECRET_SIZE // 2)
            listener.bind(("127.0.0.1", 0))
            # Room for a local flood in the kernel's queue: Godot's connection waits behind it
            # only until _accept takes the queue in (all of it at once), not for a retried SYN.
            listener.listen(LISTEN_BACKLOG)
            display = acquire_display()
            self._display_held = True
            self._window_cell, position = acquire_window_position(WINDOW_SIZE_PX)
            self.process = self._launch(binary, listener.getsockname()[1], secret, display, position)
            _live_simulators.add(self)
            self.connection = self._accept(listener, secret.encode())
        except BaseException:
            self.kill()
            raise
        finally:
            listener.close()

    def _launch(self, binary: str, port: int, secret: str, display: str, position: tuple[int, int]) -> subprocess.Popen:
        settings = self.settings
        command = [
            binary, "--path", str(godot_project_dir()),
            "--video-driver", settings.renderer,
            "--resolution", f"{WINDOW_SIZE_PX}x{WINDOW_SIZE_PX}",
            # A window of its own on the shared display: Godot stops drawing a covered window.
            "--position", f"{position[0]},{position[1]}",
            "--fixed-fps", str(STEPS_PER_SECOND),
            "--audio-driver", "Dummy",
        ]
        env = dict(
            os.environ,
            DISPLAY=display,
            AVALON_PORT=str(port),
            AVALON_SECRET=secret,
            AVALON_RESOLUTION=str(settings.resolution),
            AVALON_ACTION_SPACE=settings.action_space,
        )
        if settings.llvmpipe_threads is not None:
            env["LP_NUM_THREADS"] = str(settings.llvmpipe_threads)
        # Mesa skips GL error checking: the same frames, byte for byte, for ~13% less CPU (GLES2).
        env.setdefault("MESA_NO_ERROR", "1")
        with open(self.log_path, "wb") as log:
            log.write(("$ " + " ".join(command) + "\n").encode())
            log.flush()
            return subprocess.Popen(
                command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.temp_dir, start_new_session=True,
            )

    def _accept(self, listener: socket.socket, secret: bytes) -> socket.socket:
        """The first connection whose HELLO carries ``secret``; every other one is closed.

        Pending connections are taken in all at once and their HELLOs read side by side (one
        selector, non-blocking sockets), each with its own ``HELLO_TIMEOUT_S``: a silent or
        foreign client costs Godot nothing. At most ``MAX_PENDING_HELLOS`` are held; a newer
        one pushes out the oldest, so a local flood can neither exhaust file descriptors nor
        keep Godot's connection out.
        """
        deadline = time.monotonic() + self.settings.startup_timeout_s
        pending: dict[socket.socket, _PendingHello] = {}  # insertion order: oldest first
        listener.setblocking(False)
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            try:
                while True:
                    now = time.monotonic()
                    if now >= deadline:
                        raise self._failure(f"did not connect within {self.settings.startup_timeout_s:.0f} s")
                    if self.process.poll() is not None:
                        raise self._failure(f"exited during start-up with code {self.process.returncode}")
                    for connection in [c for c, hello in pending.items() if hello.deadline <= now]:
                        _drop(selector, pending, connection)  # silent too long
                    wait_s = min([0.2, deadline - now] + [hello.deadline - now for hello in pending.values()])
                    for key, _ in selector.select(max(0.0, wait_s)):
                        if key.fileobj is listener:
                            self._take_connections(listener, selector, pending)
                            continue
                        connection = key.fileobj
                        if connection not in pending:
                            continue  # pushed out by a newer one in this same round
                        hello = self._read_pending_hello(connection, pending[connection])
                        if hello is None:
                            continue  # not complete yet
                        if hello is _REFUSED or hello.magic != protocol.MAGIC or not hmac.compare_digest(hello.secret, secret):
                            _drop(selector, pending, connection)  # not our simulator
                            continue
                        _drop(selector, pending, connection, close=False)
                        if hello.version != protocol.PROTOCOL_VERSION:
                            connection.close()
                            raise self._failure(
                                f"speaks protocol version {hello.version}, Python speaks {protocol.PROTOCOL_VERSION}; "
                                "regenerate godot/generated/protocol.gd with `python -m avalon.dev.codegen`"
                            )
                        connection.setblocking(True)
                        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        return connection
            finally:
                for connection in list(pending):
                    _drop(selector, pending, connection)

    @staticmethod
    def _take_connections(listener: socket.socket, selector: selectors.BaseSelector, pending: dict) -> None:
        """Accepts every connection the kernel has queued."""
        while True:
            try:
                connection, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # e.g. out of file descriptors: serve what we hold, retry shortly
                time.sleep(0.01)
                return
            if len(pending) >= MAX_PENDING_HELLOS:
                _drop(selector, pending, next(iter(pending)))
            connection.setblocking(False)
            pending[connection] = _PendingHello(time.monotonic() + HELLO_TIMEOUT_S)
            selector.register(connection, selectors.EVENT_READ)

    @staticmethod
    def _read_pending_hello(connection: socket.socket, state: "_PendingHello") -> "protocol.Hello | object | None":
        """Reads what has arrived: the decoded HELLO once complete, None while incomplete,
        ``_REFUSED`` for a closed connection or anything that is not a HELLO."""
        try:
            chunk = connection.recv(HELLO_MAX_BYTES + protocol.HEADER.size - len(state.received))
        except (BlockingIOError, InterruptedError):
            return None
        except OSError:
            return _REFUSED
        if not chunk:
            return _REFUSED
        state.received += chunk
        if len(state.received) < protocol.HEADER.size:
            return None
        try:
            message_type, length = protocol.decode_header(state.received[: protocol.HEADER.size])
        except protocol.ProtocolError:
            return _REFUSED
        if message_type != protocol.MessageType.HELLO or length > HELLO_MAX_BYTES:
            return _REFUSED
        end = protocol.HEADER.size + length
        if len(state.received) < end:
            return None
        if len(state.received) > end:
            return _REFUSED  # Godot says nothing more before we answer
        try:
            return protocol.decode_hello(bytes(state.received[protocol.HEADER.size:end]))
        except protocol.ProtocolError:
            return _REFUSED

    def close(self) -> None:
        """Tells Godot the session is over, then ends it at once and removes its files.

        Godot's own quit spends about 0.6 s tearing down its servers, none of which leaves
        anything behind that the kill does not (its process group, window and temp folder go),
        so it is not waited for: a run that restarts or closes many simulators saves that each time.
        """
        if self.connection is not None and self.process is not None and self.process.poll() is None:
            try:
                self.connection.sendall(protocol.encode_close())
            except OSError:
                pass
        self.kill()

    def kill(self) -> None:
        """Kills the process group, reaps it, releases the display and removes the temp folder."""
        self._frame = None
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.process is not None:
            if self.process.poll() is None:
                try:
                    os.killpg(self.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.process.wait()
        _live_simulators.discard(self)
        if self._window_cell is not None:
            release_window_position(self._window_cell)
            self._window_cell = None
        if self._display_held:
            self._display_held = False
            release_display()
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    # ------------------------------------------------------------------ requests

    def reset(
        self, world_dir: str, seed: int, time_limit_frames: int, movement_coefficient: float = 0.0
    ) -> protocol.Observation:
        """Loads a world folder and returns its first observation.

        ``movement_coefficient`` is C_move of the paper's Appendix B for this episode (0 in
        evaluation mode): it scales the movement penalty the simulator reports.
        """
        message = protocol.encode_reset(seed, time_limit_frames, world_dir, movement_coefficient)
        return self._request(message, self.settings.reset_timeout_s, world_dir=world_dir)

    def step(self, action: np.ndarray) -> protocol.Observation:
        """Sends one action (float32 values in the layout of the action space) and returns the result."""
        if action.shape != (self._action_size,):
            raise ValueError(f"action has shape {action.shape}, expected ({self._action_size},)")
        return self._request(protocol.encode_step(action), self.settings.step_timeout_s)

    def render(self, size_px: int) -> protocol.Picture:
        """The current state (the last observation's) drawn from the agent's camera into a
        ``size_px`` square, RGB and depth; it changes nothing and costs the steps nothing."""
        if self.connection is None or self.process is None:
            raise self._failure("is not running")
        timeout_s = self.settings.step_timeout_s
        deadline = time.monotonic() + timeout_s
        try:
            if self._socket_timeout_s != timeout_s:
                self.connection.settimeout(timeout_s)
                self._socket_timeout_s = timeout_s
            self.connection.sendall(protocol.encode_render(size_px))
            message_type, payload = self._receive(deadline)
            if message_type == protocol.MessageType.PICTURE:
                return protocol.decode_picture(payload, size_px)
        except socket.timeout:
            raise self._failure(f"did not answer a RENDER within {timeout_s:.0f} s (hung?)") from None
        except (OSError, ConnectionError, protocol.ProtocolError) as error:
            raise self._failure(f"broke the connection ({error})", grace_s=2.0) from None
        if message_type == protocol.MessageType.ERROR:
            raise SimulatorError(f"simulator refused the RENDER: {bytes(payload).decode('utf-8', 'replace')}")
        raise self._failure(f"sent unexpected message {message_type.name} for a RENDER")

    def _request(self, message: bytes, timeout_s: float, world_dir: str | None = None) -> protocol.Observation:
        # The hot path of every step: no system call beyond one send and (usually) one poll and
        # one receive. A dead process shows up as a broken connection (with its exit code).
        if self.connection is None or self.process is None:
            raise self._failure("is not running")
        if world_dir is not None:
            self._log_offset = self._log_size()
        deadline = time.monotonic() + timeout_s
        try:
            if self._socket_timeout_s != timeout_s:
                self.connection.settimeout(timeout_s)
                self._socket_timeout_s = timeout_s
            self.connection.sendall(message)
            message_type, payload = self._receive(deadline)
            if message_type == protocol.MessageType.OBSERVATION:
                observation = protocol.decode_observation(payload, self.settings.resolution)
                expected = 0 if world_dir is not None else None if self._frame is None else self._frame + 1
                if expected is None or observation.frame == expected:
                    self._frame = observation.frame
                    return observation
        except socket.timeout:
            raise self._failure(f"did not answer within {timeout_s:.0f} s (hung?)") from None
        except (OSError, ConnectionError, protocol.ProtocolError) as error:
            raise self._failure(f"broke the connection ({error})", grace_s=2.0) from None
        if message_type == protocol.MessageType.OBSERVATION:
            self._frame = None
            raise self._failure(
                f"broke the protocol: its reply carries frame {observation.frame}, expected frame {expected} "
                "(the reply stream is out of step)"
            )
        if message_type == protocol.MessageType.ERROR:
            text = bytes(payload).decode("utf-8", "replace")
            said = self._log_since(self._log_offset)
            self._log_offset = self._log_size()
            details = f"\nGodot said:\n{said}" if said else ""
            if world_dir is not None:
                self._frame = None  # the episode is gone, and a new one did not begin
                raise WorldLoadError(f"world folder {world_dir} could not be loaded: {text}{details}")
            raise SimulatorError(f"simulator refused the request: {text}{details}")
        raise self._failure(f"sent unexpected message {message_type.name}")

    def _receive(self, deadline: float) -> tuple[protocol.MessageType, memoryview]:
        """Reads one reply frame; returns its type and payload (a view into a reused buffer
        for an OBSERVATION). Lock-step: nothing follows the reply, so reading up to a whole
        observation frame at once never takes bytes of a later message."""
        header_size = protocol.HEADER.size
        view = memoryview(self._reply_buffer)
        received = 0
        while received < header_size:
            received += self._receive_into(view[received:], deadline)
        message_type, length = protocol.decode_header(bytes(view[:header_size]))
        if message_type == protocol.MessageType.OBSERVATION:
            if length != self._observation_size:
                raise protocol.ProtocolError(f"OBSERVATION of {length} bytes, expected {self._observation_size}")
        elif received > header_size + length:
            raise protocol.ProtocolError(f"{message_type.name} of {length} bytes was followed by more data")
        elif header_size + length > len(view):
            view = memoryview(bytearray(header_size + length))
            view[:received] = self._reply_buffer[:received]
        end = header_size + length
        while received < end:
            received += self._receive_into(view[received:end], deadline)
        return message_type, view[header_size:end]

    def _receive_into(self, view: memoryview, deadline: float) -> int:
        """One receive; the socket's timeout is narrowed to what is left of the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout()
        if remaining < self._socket_timeout_s - 0.5:  # a slow reply arriving in pieces
            self.connection.settimeout(remaining)
            self._socket_timeout_s = remaining
        count = self.connection.recv_into(view)
        if count == 0:
            raise ConnectionError("connection closed by the simulator")
        return count

    # ------------------------------------------------------------------ diagnostics

    def _log_size(self) -> int:
        try:
            return self.log_path.stat().st_size if self.log_path else 0
        except OSError:
            return 0

    def _log_since(self, offset: int, lines: int = LOG_TAIL_LINES) -> str:
        """What Godot logged after ``offset`` (its errors go to unbuffered stderr), last lines only."""
        try:
            with open(self.log_path, "rb") as log:
                log.seek(offset)
                text = log.read().decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""
        return "\n".join(line for line in text.splitlines()[-lines:] if line.strip())

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        try:
            text = self.log_path.read_text(errors="replace") if self.log_path else ""
        except OSError:
            return "(log unavailable)"
        return "\n".join(text.splitlines()[-lines:])

    def _failure(self, what: str, grace_s: float = 0.0) -> SimulatorError:
        """Kills the simulator and builds the error to raise, quoting its log.

        ``grace_s`` lets a simulator that closed the connection finish exiting first, so that its
        exit code and last log lines are known.
        """
        pid = self.pid
        if grace_s > 0 and self.process is not None:
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
        if self.process is not None and self.process.poll() is not None:
            code = self.process.returncode
            what += f" (exit code {code}{', killed by signal ' + str(-code) if code < 0 else ''})"
        tail = self.log_tail()
        log_path = self.log_path
        kept = self.settings.log_dir is not None
        self.kill()
        where = f"log kept at {log_path}" if kept else "set EnvConfig.log_dir to keep logs"
        return SimulatorError(f"Godot simulator (pid {pid}) {what}. Last lines of its log ({where}):\n{tail}")


@attr.s(auto_attribs=True)
class _PendingHello:
    """A connection accepted during start-up whose HELLO is not complete yet."""

    deadline: float  # time.monotonic() after which it is dropped
    received: bytearray = attr.Factory(bytearray)


_REFUSED = object()  # _read_pending_hello's verdict on a connection that is not our simulator


def _drop(selector: selectors.BaseSelector, pending: dict, connection: socket.socket, close: bool = True) -> None:
    selector.unregister(connection)
    del pending[connection]
    if close:
        connection.close()


def _prepare_log_dir(log_dir: str | None) -> Path | None:
    """``log_dir`` created and proved writable, or a ValueError naming it and the reason."""
    if log_dir is None:
        return None
    path = Path(log_dir)
    probe = path / f".avalon-write-test-{os.getpid()}-{time.time_ns()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe.touch()
        probe.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(
            f"log_dir={log_dir!r} cannot be used for Godot logs: {reason}"
            + (f" ({error.filename})" if error.filename and str(error.filename) != log_dir else "")
            + "; expected a folder that exists or can be created, and is writable"
        ) from None
    return path


# Every simulator that has a process (strong references: a simulator dropped without close()
# is still killed at interpreter exit, so none outlives Python).
_live_simulators: "set[Simulator]" = set()
_exit_lock = threading.Lock()


@atexit.register
def _kill_all_at_exit() -> None:
    with _exit_lock:
        for simulator in list(_live_simulators):
            simulator.kill()
