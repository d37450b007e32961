"""Shared-tier statistics, ccache style: per-process counters added into ``kernel_meta/.remote_stats.json``.

Counters (each counts distinct kernels per process, then accumulates across processes and runs):

* ``hits``: kernels fetched from the shared tier (verified, copied into the local tier, loaded);
* ``misses``: kernels the shared tier did not have when first looked up (a kernel another process was
  building counts as a miss and, once fetched, as a hit);
* ``lease_waits``: kernels whose build lease another process or machine held, so this one waited for them;
* ``rejected``: entries that failed verification (bad checksum, missing or wrong signature) and were not loaded;
* ``published``: kernels this rank compiled and published to the shared tier;
* ``fallbacks``: runs that lost the shared tier (down, slow, full, unreachable) and went on local-only.

Interface for ``opbuild cache stats``: :func:`read_stats` (totals of one kernel_meta directory) and
:func:`reset_stats`; the shared tier's own content comes from ``open_backend(url).stats()``
(see :func:`opbuild.cache.shared.describe`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path

import filelock

from . import fsio
from .local import LOCK_DIR

COUNTERS = ("hits", "misses", "lease_waits", "rejected", "published", "fallbacks")
STATS_FILE = ".remote_stats.json"
log = logging.getLogger("opbuild.cache")


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
        """Add the counts not yet flushed into ``kernel_meta/.remote_stats.json`` (under a file lock). Best
        effort: statistics never fail or stall a run; what cannot be written now is tried at the next flush."""
        with self._lock:
            delta = dict(self._unflushed)
            if not any(delta.values()):
                return
            self._unflushed = dict.fromkeys(COUNTERS, 0)
        try:
            lock_dir = kernel_meta / LOCK_DIR
            lock_dir.mkdir(exist_ok=True)
            with filelock.FileLock(str(lock_dir / "remote_stats.lock"), timeout=5):
                stats = read_stats(kernel_meta)
                for c in COUNTERS:
                    stats[c] += delta[c]
                stats["updated_at"] = time.time()
                fsio.atomic_write(kernel_meta / STATS_FILE, (json.dumps(stats, indent=1, sort_keys=True) + "\n")
                                  .encode(), fsync=False)
        except (OSError, filelock.Timeout) as e:
            log.debug("opbuild: shared-tier statistics not written to %s (%s); kept for the next flush",
                      kernel_meta, e)
            with self._lock:
                for c in COUNTERS:
                    self._unflushed[c] += delta[c]


def read_stats(kernel_meta: Path) -> dict:
    """The accumulated counters of one kernel_meta directory (zeros when there are none yet), plus
    ``updated_at`` (unix time of the last flush, or None)."""
    stats: dict = dict.fromkeys(COUNTERS, 0)
    stats["updated_at"] = None
    try:
        data = json.loads((Path(kernel_meta) / STATS_FILE).read_text())
    except (OSError, ValueError):
        return stats
    if isinstance(data, dict):
        for c in COUNTERS:
            if isinstance(data.get(c), int) and data[c] >= 0:
                stats[c] = data[c]
        if isinstance(data.get("updated_at"), (int, float)):
            stats["updated_at"] = data["updated_at"]
    return stats


def reset_stats(kernel_meta: Path) -> None:
    """Zero the counters of one kernel_meta directory (``opbuild cache stats --zero``)."""
    (Path(kernel_meta) / STATS_FILE).unlink(missing_ok=True)
