"""When to try a failed shared tier again: exponential backoff between outages' retries.

A shared tier that fails (server down, frozen, full, directory gone) is skipped for :data:`FIRST` second,
then tried again; each further failure doubles the pause up to :data:`MOST` seconds, and one success ends the
outage and resets the pause. A frozen server thus costs one ``OPBUILD_REMOTE_TIMEOUT`` per retry, ever more
rarely, and a restarted one is used again within a minute at most.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

FIRST = 1.0
MOST = 60.0


class Backoff:
    """Thread-safe outage state of one tier. :meth:`ready` says whether to call it now; :meth:`failed` and
    :meth:`succeeded` report how a call went and say when an outage starts or ends (to warn once each)."""

    def __init__(self, first: float = FIRST, most: float = MOST, clock: Callable[[], float] = time.monotonic):
        self.first, self.most, self._clock = first, most, clock
        self._lock = threading.Lock()
        self._pause = first
        self._until = 0.0
        self.outage = False  # between a failure and the next success

    def ready(self) -> bool:
        """Whether the tier may be called now (no outage, or its pause is over: a retry)."""
        return not self.outage or self._clock() >= self._until

    def failed(self) -> tuple[bool, float]:
        """A call failed: skip the tier for the current pause, then double it. Returns (this failure starts an
        outage, seconds until the next try)."""
        with self._lock:
            started = not self.outage
            self.outage = True
            pause = self._pause
            self._until = self._clock() + pause
            self._pause = min(self.most, self._pause * 2)
            return started, pause

    def succeeded(self) -> bool:
        """A call succeeded: the outage, if any, is over. Returns True when this ended one."""
        if not self.outage:  # the common case, without the lock
            return False
        with self._lock:
            ended, self.outage, self._pause = self.outage, False, self.first
            return ended
