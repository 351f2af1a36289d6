"""The ``avalon`` command: ``train``, ``eval``, ``evalset``, ``run``, ``replay``, ``play``, ``human``, ``benchmark``, ``world``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading

from avalon.app import benchmark, eval as eval_command, evalset, human, replay, run, train, world
from avalon.app.play import command as play
from avalon.errors import AvalonError

#: The command groups in the order ``avalon --help`` lists them; each module's ``add_parser``.
GROUPS = (run, replay, play, human, benchmark, train, eval_command, evalset, world)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="avalon", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parser(commands)
    return parser


@contextlib.contextmanager
def _terminate_cleanly():
    """SIGTERM (``kill PID``, a job scheduler's stop) raises ``SystemExit(143)`` in the main thread.

    Python's default for SIGTERM ends the process at once, without ``finally`` blocks or
    ``atexit``: the simulators die with their sockets, but their temporary folders, the world
    supply's folders and a half-written run would be left behind. As an exception, everything
    unwinds as on Ctrl-C. Only installed over the default handler, from the main thread. While
    a trainer runs, its own handler (``avalon.agent.common.stopping.StopRequest``) takes precedence:
    the update in progress is finished and checkpointed, and this one is put back afterwards.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with _terminate_cleanly():
        try:
            return args.handler(args)
        except (AvalonError, ValueError, FileExistsError) as error:
            print(f"avalon {args.command}: error: {error}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # Ctrl-C outside training (which handles it itself): no traceback
            print(f"avalon {args.command}: interrupted", file=sys.stderr)
            return 128 + signal.SIGINT


if __name__ == "__main__":
    sys.exit(main())
