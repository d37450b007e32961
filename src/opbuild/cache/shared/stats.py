"""Shared-tier statistics: per-process counters, added into the kernel_meta statistics (:mod:`..stats`).

Counters (each counts distinct kernels per process; :mod:`..stats` accumulates them across processes):

* ``remote_hits``: kernels fetched from the shared tier (verified, copied into the local tier, loaded); such
  a fetch counts in neither the local ``hits`` nor ``misses`` (:mod:`..usage`);
* ``remote_misses``: kernels the shared tier did not have when first looked up (a kernel another process
  was building counts as a miss and, once fetched, as a hit);
* ``lease_waits``: kernels whose build lease another process or machine held, so this one waited for them;
* ``remote_rejected``: entries that failed verification (checksum, missing or wrong signature), not loaded;
* ``remote_published``: kernels this rank compiled and published to the shared tier;
* ``remote_fallbacks``: outages of the shared tier (down, slow, full, unreachable): each went local-only until
  a retry found the tier back (:mod:`.backoff`).

``opbuild cache stats`` shows them with the local counters; :func:`read_stats` returns just these.
"""

from __future__ import annotations

import threading
from pathlib import Path

from .. import stats

COUNTERS = ("remote_hits", "remote_misses", "lease_waits", "remote_rejected", "remote_published",
            "remote_fallbacks")


class RemoteCounters:
    """One process's counters for one shared tier; thread-safe. :meth:`flush` adds them into a kernel_meta."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, set[str]] = {c: set() for c in COUNTERS}
        self._totals = dict.fromkeys(COUNTERS, 0)
        self._unflushed = dict.fromkeys(COUNTERS, 0)

    def count(self, counter: str, key: str = "", n: int = 1) -> bool:
        """Add ``n`` to ``counter``; with a ``key`` (a kernel name), at most once per key. True if counted."""
        with self._lock:
            if key:
                if key in self._seen[counter]:
                    return False
                self._seen[counter].add(key)
            self._totals[counter] += n
            self._unflushed[counter] += n
            return True

    def totals(self) -> dict[str, int]:
        """This process's counts so far."""
        with self._lock:
            return dict(self._totals)

    def flush(self, kernel_meta: Path) -> None:
        """Add the counts not yet flushed into the statistics of ``kernel_meta``. Best effort, like every
        statistic: what cannot be written now (lock busy, read-only or full disk) is kept for the next flush."""
        with self._lock:
            delta, self._unflushed = self._unflushed, dict.fromkeys(COUNTERS, 0)
        if not stats.add(kernel_meta, **delta):
            with self._lock:
                for c in COUNTERS:
                    self._unflushed[c] += delta[c]


def read_stats(kernel_meta: Path) -> dict[str, int]:
    """The accumulated shared-tier counters of one kernel_meta directory (zeros when there are none yet).
    Raises ValueError if the statistics file is unparsable (see :func:`.stats.read`)."""
    counters = stats.read(Path(kernel_meta))["counters"]
    return {c: counters[c] for c in COUNTERS}
