"""``StopRequest``: SIGINT (Ctrl-C) and SIGTERM as a request to stop at the loop's next safe point.

A training loop that is stopped by an exception at an arbitrary point loses the update in
progress: mid-update the weights match no step count, so no checkpoint can be written. Inside
``with StopRequest() as stop:`` the first signal only sets ``stop.signum``; the loop looks at
``stop.requested`` where stopping is safe, and saves before it stops. A second signal is
handled by the handlers from before (Ctrl-C: ``KeyboardInterrupt`` at once), for when the wait is
too long. Handlers are installed only in the main thread (elsewhere nothing changes and
``requested`` stays false) and the previous ones are restored on exit.
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

log = logging.getLogger(__name__)

#: The signals a StopRequest catches by default.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequest:
    """Records the first SIGINT or SIGTERM in its ``with`` block (see the module doc)."""

    def __init__(self, what: str = "stopping at the next safe point", signals: tuple[int, ...] = STOP_SIGNALS) -> None:
        #: Said when the first signal arrives, e.g. "finishing the update, then a checkpoint".
        self.what = what
        self.signals = tuple(signals)
        #: The first signal received, or None.
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def signal_name(self) -> str | None:
        return None if self.signum is None else signal.Signals(self.signum).name

    def __enter__(self) -> "StopRequest":
        if threading.current_thread() is threading.main_thread():
            for signum in self.signals:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._restore()

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
            log.warning("%s: %s (send it again to stop at once)", signal.Signals(signum).name, self.what)
            return
        # The second signal: the previous handlers take over, and get this one at once.
        self._restore()
        signal.raise_signal(signum)

    def _restore(self) -> None:
        for signum, previous in self._previous.items():
            # None: a handler not installed from Python; the default is the closest we can restore.
            signal.signal(signum, signal.SIG_DFL if previous is None else previous)
        self._previous.clear()
