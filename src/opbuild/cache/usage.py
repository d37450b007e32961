"""Build-time observability: the hooks the build driver calls (kept out of build.py on purpose).

* :meth:`UsageRecorder.on_miss`: with ``OPBUILD_EXPLAIN_MISSES=1``, log at WARNING why a kernel missed.
* :meth:`UsageRecorder.after_build`: once per build, add the build's hits/misses/builds/repairs and compile
  seconds spent/saved to the persistent statistics, refresh the "last used" time of the entries the build
  loaded (a ``stat`` each; a write at most once per :data:`USE_RESOLUTION`), and, when the build
  compiled something and ``OPBUILD_CACHE_MAX_SIZE`` is set, evict least recently used entries to honour the
  bound. Nothing here can fail a build: I/O problems are logged at debug level.

Writing statistics costs a locked file update plus a read of each loaded entry's ``.json`` (about a
millisecond or two). A build that compiled writes at once (the compile dwarfs it). A warm build only records
names in memory, so a warm start does no statistics I/O at all: what it observed is written at interpreter
exit, or by a later build once it is :data:`FLUSH_DELAY` old (PyNative mode builds each new op on first use:
those builds share one write a second at most).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core import config
from ..core.units import format_size
from ..report import BuildReport
from . import fsio, stats
from .admin import evict
from .admin.explain import explain
from .admin.scan import Listing, scan
from .layout import JSON_SUFFIX
from .local import KernelStore, Lookup

log = logging.getLogger("opbuild")
USE_RESOLUTION = 3600.0  # seconds: "last used" (an entry's .json mtime) is refreshed at most this often
LISTING_TTL = 5.0  # seconds a directory scan is reused to explain further misses of the same build
FLUSH_DELAY = 1.0  # seconds: warm builds' statistics older than this are written by the next build


@dataclass
class _Pending:
    """What builds observed that the statistics file does not have yet."""

    counters: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("hits", "misses", "builds", "repairs"), 0))
    compiled: list[str] = field(default_factory=list)  # .json of entries this process compiled
    hits: list[str] = field(default_factory=list)  # .json of entries loaded from the cache


def _note(json_path: str, now: float) -> float:
    try:
        return note_use(json_path, now)
    except OSError as e:  # evicted or repaired meanwhile: it just does not count
        log.debug("opbuild: cannot read %s (%s)", json_path, e)
        return 0.0


def note_use(json_path: str | Path, now: float) -> float:
    """Refresh an entry's "last used" time if it is older than USE_RESOLUTION; return its recorded build
    seconds (0.0 if unknown). Raises OSError if the ``.json`` cannot be read."""
    mtime = os.lstat(json_path).st_mtime
    raw = fsio.read_small(str(json_path))  # a regular file or CorruptFile (an OSError): never blocks on a FIFO
    # abs: a time in the future (a clock set back, a file server's clock ahead, files copied from a machine
    # whose clock was) would otherwise never be refreshed, and such an entry outranks every used one in LRU.
    if abs(now - mtime) > USE_RESOLUTION:
        try:
            os.utime(json_path)
        except OSError as e:  # read-only or someone else's file: the entry just looks older than it is
            log.debug("opbuild: cannot refresh last-used time of %s (%s)", json_path, e)
    try:
        seconds = fsio.parse_json(raw, str(json_path)).get("build_seconds", 0.0)
    except fsio.CorruptFile:
        return 0.0
    ok = isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 <= seconds < 1e9
    return float(seconds) if ok else 0.0


class UsageRecorder:
    """The build hooks of one Builder. ``totals`` accumulates every build report of the process
    (``opbuild run`` prints it at exit)."""

    def __init__(self) -> None:
        self.totals = BuildReport()
        self._warned_bound = False
        self._lock = threading.Lock()
        self._listing: tuple[Path, float, Listing] | None = None  # a recent scan, for explaining misses
        self._pending: dict[Path, _Pending] = {}  # observed by builds, not yet written, per directory
        self._pending_since: float | None = None  # monotonic time of the oldest unwritten observation
        self._exit_hook = False

    def _recent_listing(self, store: KernelStore) -> Listing:
        """A scan of ``store`` no older than a few seconds: the misses of one build share it."""
        directory = store.path
        with self._lock:
            cached = self._listing
            if cached is None or cached[0] != directory or time.monotonic() - cached[1] > LISTING_TTL:
                cached = self._listing = (directory, time.monotonic(), scan(directory, store.binary_suffix))
            return cached[2]

    def on_miss(self, store: KernelStore | None, name: str, info: bytes, found: Lookup) -> None:
        """Called for each kernel not found in ``store``; explains it when OPBUILD_EXPLAIN_MISSES is on."""
        if store is None or not config.explain_misses():
            return
        desc = json.loads(info)
        if found.status == "corrupt":
            why = f"the entry exists but is broken ({found.reason})"
        else:
            try:
                why = explain(store.path, desc, name, self._recent_listing(store)).summary()
            except OSError as e:
                why = f"cannot compare with the cache ({e.strerror or e})"
        log.warning("opbuild: cache miss %s (%s): %s", name, desc.get("op", "?"), why)

    def after_build(self, read_store: KernelStore | None, write_store: KernelStore, report: BuildReport,
                    looked_up: Sequence[str], missed: Sequence[str]) -> None:
        """Called once at the end of every build, before its time is taken (then :meth:`record`).
        ``looked_up``: names searched in ``read_store`` (the rest of the report came from this process's
        memory); ``missed``: those not found there valid."""
        with self._lock:
            self._listing = None  # this build may have added entries: the next miss rescans
        max_size = config.cache_max_size()  # parsed on every build so a bad value fails early and always
        if read_store is None or read_store is not write_store or not looked_up:
            return  # no persistent writable cache involved (cache off, read-only, or all from memory)
        status = {k.name: k.status for k in report.kernels}
        # A kernel fetched from the shared tier is one fetch (the tier counts it as remote_hits), not a local
        # miss plus a local hit; its compile time still counts as saved.
        fetched = {k.name for k in report.kernels if k.source == "remote"}
        compiled = [n for n in dict.fromkeys(missed) if status.get(n) in ("built", "repaired") and n not in fetched]
        hits = [n for n in dict.fromkeys(looked_up) if n not in compiled]
        repairs = sum(1 for n in set(looked_up) if status.get(n) == "repaired")  # fetched in place of a broken one too
        with self._lock:
            p = self._pending.setdefault(write_store.path, _Pending())
            p.counters["hits"] += sum(1 for n in hits if n not in fetched)
            p.counters["misses"] += len(set(missed) - fetched)
            p.counters["builds"] += len(compiled)
            p.counters["repairs"] += repairs
            prefix = os.path.join(str(write_store.path), "")  # string paths: this runs on the warm path
            p.compiled += [prefix + n + JSON_SUFFIX for n in compiled]
            p.hits += [prefix + n + JSON_SUFFIX for n in hits]
            now = time.monotonic()
            if self._pending_since is None:
                self._pending_since = now
            # A build that compiled writes at once (the compile dwarfs it, and the size bound follows);
            # a warm build leaves it to exit, or to a later build once the pending data is FLUSH_DELAY old.
            due = bool(compiled) or now - self._pending_since >= FLUSH_DELAY
            if not due and not self._exit_hook:
                self._exit_hook = True
                atexit.register(self.flush)
        if due:
            self.flush()
        if compiled and max_size:
            self._bound(write_store, max_size, {k.name for k in report.kernels})

    def record(self, report: BuildReport) -> None:
        """Add a finished build's report (its time taken) to this process's totals (``opbuild run``)."""
        with self._lock:
            self.totals.extend(report)

    def flush(self) -> None:
        """Write what the builds since the last flush observed: counters, compile seconds spent and saved
        (read from the entries' ``.json``), and refreshed last-used times."""
        with self._lock:
            pending, self._pending, self._pending_since = self._pending, {}, None
        now = time.time()
        for directory, p in pending.items():
            spent = sum(_note(j, now) for j in p.compiled)
            saved = sum(_note(j, now) for j in p.hits)
            stats.add(directory, **p.counters, compile_seconds=spent, saved_seconds=saved)

    def _bound(self, store: KernelStore, max_size: int, protect: set[str]) -> None:
        try:
            result = evict.prune(store.path, max_size, protect=protect, binary_suffix=store.binary_suffix)
        except OSError as e:
            log.debug("opbuild: size bound of %s not applied (%s)", store.path, e)
            return
        if result.removed:
            log.info("opbuild: evicted %d cache entries (%s) to keep %s under OPBUILD_CACHE_MAX_SIZE=%s",
                     result.entries_removed, format_size(result.freed), store.path, format_size(max_size))
        if result.bytes_after > max_size and not self._warned_bound:
            self._warned_bound = True
            log.warning("opbuild: kernel cache %s holds %s, over OPBUILD_CACHE_MAX_SIZE=%s: the kernels of "
                        "the current build (or entries in use by other processes) cannot be evicted; raise "
                        "the bound", store.path, format_size(result.bytes_after), format_size(max_size))
