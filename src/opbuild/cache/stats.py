"""Persistent cache statistics (ccache's ``--show-stats``): one small JSON file per kernel_meta directory.

``<kernel_meta>/.stats.json`` holds counters that only ever grow until ``opbuild cache stats --zero``.
Updates are read-modify-write under a lock file (``.locks/stats.lock``) and published with an atomic
rename, so concurrent processes never lose an increment and readers never see a torn file. The build driver
updates the file once per build (not per kernel). Statistics are advisory: when the lock cannot be had in a
few seconds or the file cannot be written (read-only or full disk), the update is dropped with a debug log
instead of slowing down or failing a build.
"""

from __future__ import annotations

import json
import logging
import math
import time
from pathlib import Path

import filelock

from . import fsio, locks, quarantine
from .layout import LOCK_DIR, LOCK_SUFFIX, STATS_FILE, STATS_LOCK, TMP_DIR

log = logging.getLogger("opbuild.cache")

FORMAT = 1
#: Counter names and their meaning (the order in which ``opbuild cache stats`` prints them).
COUNTERS = {
    "hits": "kernels found in the local cache and loaded",
    "misses": "kernels not found (or found broken) in the local cache nor fetched from the shared tier",
    "builds": "kernels compiled",
    "repairs": "broken entries found and rebuilt",
    "compile_seconds": "compiler seconds spent on builds",
    "saved_seconds": "compiler seconds saved by hits (their recorded build time)",
    "evictions": "entries removed by prune or the size bound",
    "evicted_bytes": "bytes freed by evictions",
    # The shared tier (OPBUILD_REMOTE_CACHE), counted by cache/shared/stats.py:
    "remote_hits": "kernels fetched from the shared tier",
    "remote_misses": "kernels the shared tier did not have when first looked up",
    "lease_waits": "kernels waited for while another process or machine built them",
    "remote_rejected": "shared-tier entries rejected (checksum or signature), never loaded",
    "remote_published": "kernels published to the shared tier",
    "remote_fallbacks": "outages of the shared tier (local-only until it was back)",
}
FLOAT_COUNTERS = ("compile_seconds", "saved_seconds")
UPDATE_TIMEOUT = 5.0


def stats_path(directory: Path) -> Path:
    """The statistics file of a kernel_meta directory."""
    return Path(directory) / STATS_FILE


def _lock(directory: Path) -> filelock.FileLock:
    path = Path(directory) / LOCK_DIR / (STATS_LOCK + LOCK_SUFFIX)
    if locks.bad_lock_file(path):  # a directory or symlink there would stop every update for good
        quarantine.move(directory, path, locks.bad_lock_file(path) or "not a lock file")
    return filelock.FileLock(str(path))


def _empty(now: float) -> dict:
    return {"format": FORMAT, "since": now, "updated": None,
            "counters": {k: (0.0 if k in FLOAT_COUNTERS else 0) for k in COUNTERS}}


def empty() -> dict:
    """All-zero statistics that were never started (``since`` None)."""
    data = _empty(0.0)
    data["since"] = None
    return data


def _dump(data: dict) -> bytes:
    return (json.dumps(data, indent=1) + "\n").encode()


def _number(v: object) -> bool:
    """A finite JSON number (math.isfinite itself overflows on an int beyond a float's range)."""
    if isinstance(v, float):
        return math.isfinite(v)
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < 1 << 63


def _parse(raw: bytes) -> dict:
    """The statistics in ``raw``; ValueError (never RecursionError or TypeError) if they are not."""
    try:
        data = fsio.parse_json(raw, "the statistics")
    except fsio.CorruptFile as e:
        raise ValueError(e.strerror) from None
    if not isinstance(data.get("counters"), dict):
        raise ValueError("not a statistics object")
    since, updated = data.get("since"), data.get("updated")
    if not (since is None or _number(since)) or not (updated is None or _number(updated)):
        raise ValueError("since/updated are not times")
    out = _empty(float(since or 0.0))
    out["updated"] = updated
    for k in COUNTERS:
        v = data["counters"].get(k, 0)
        if not _number(v):  # the type only in the message: repr of a deeply nested value may recurse
            raise ValueError(f"counter {k} is not a finite number ({type(v).__name__})")
        out["counters"][k] = float(v) if k in FLOAT_COUNTERS else int(v)
    return out


def read(directory: Path) -> dict:
    """The statistics of a kernel_meta directory: ``{"since", "updated", "counters": {...}}``.

    A missing file reads as all zeros (``since`` None). Raises ValueError if the file is unparsable
    (``opbuild cache verify`` reports it; ``--zero`` or ``verify --repair`` resets it).
    """
    try:
        return _parse(fsio.read_small(str(stats_path(directory))))
    except FileNotFoundError:
        return empty()
    except fsio.CorruptFile as e:  # a directory, FIFO or symbolic link in its place, or far too large
        raise ValueError(f"{stats_path(directory)} is not a valid statistics file ({e.strerror})") from None
    except OSError as e:
        raise ValueError(f"{stats_path(directory)} cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise ValueError(f"{stats_path(directory)} is not a valid statistics file ({e})") from None


def _fresh(directory: Path, now: float, why: str) -> dict:
    """Zero statistics to replace an unreadable file (warned: the counts are lost). What is in the file's
    place is moved to quarantine first when a rename could not replace it (a directory) or must not write
    through it (a symbolic link)."""
    log.warning("opbuild: statistics file %s was unreadable (%s); counting starts again", stats_path(directory),
                why)
    if quarantine.is_regular(stats_path(directory)) is False:
        quarantine.move(directory, stats_path(directory), f"unreadable statistics file: {why}")
    return _empty(now)


def add(directory: Path, **deltas: float) -> bool:
    """Add ``deltas`` (counter name -> amount) to the counters; True when recorded.

    Never raises for I/O trouble: statistics must not break a build. An unparsable file is started afresh.
    """
    unknown = set(deltas) - set(COUNTERS)
    if unknown:
        raise KeyError(f"unknown statistics counters: {', '.join(sorted(unknown))}")
    if not any(deltas.values()):
        return True
    directory = Path(directory)
    try:
        (directory / LOCK_DIR).mkdir(exist_ok=True)
        with _lock(directory).acquire(timeout=UPDATE_TIMEOUT):
            now = time.time()
            try:
                data = _parse(fsio.read_small(str(stats_path(directory))))
            except FileNotFoundError:
                data = _empty(now)
            except fsio.CorruptFile as e:
                data = _fresh(directory, now, e.strerror)
            except ValueError as e:
                data = _fresh(directory, now, str(e))
            for k, v in deltas.items():
                data["counters"][k] += v
            data["updated"] = now
            # No fsync: losing the last increments in a power cut is fine; a torn file is not (atomic rename).
            fsio.atomic_write(stats_path(directory), _dump(data), fsync=False, tmp_dir=Path(directory) / TMP_DIR)
        return True
    except (filelock.Timeout, OSError) as e:
        log.debug("opbuild: statistics of %s not updated (%s)", directory, e)
        return False


def zero(directory: Path) -> None:
    """Reset every counter to zero and ``since`` to now. Raises OSError if the file cannot be written."""
    directory = Path(directory)
    (directory / LOCK_DIR).mkdir(parents=True, exist_ok=True)
    with _lock(directory).acquire(timeout=UPDATE_TIMEOUT):
        data = _empty(time.time())
        if quarantine.is_regular(stats_path(directory)) is False:  # a rename cannot replace a directory
            quarantine.move(directory, stats_path(directory), "not a regular file (statistics reset)")
        fsio.atomic_write(stats_path(directory), _dump(data), fsync=False, tmp_dir=Path(directory) / TMP_DIR)
