"""``file:///path``: the shared tier as a directory on a filesystem every rank and machine mounts.

Layout (``v2`` is the layout version, so a future format never reads an old one; ``<key id>`` the namespace
of one secret, :func:`.entry.key_id`)::

    <path>/v2/<key id>/entries/<name>.entry   one blob per kernel (entry.py format), written atomically
    <path>/v2/<key id>/leases/<name>.lease    a build lease: {"owner": ..., "expires": <unix time>}
    <path>/v2/<key id>/leases/<name>.lease.break   present only while a process removes that lease (a guard)

Only operations that are atomic on local filesystems and NFS are used: an entry is written to a temporary in
the same directory and renamed into place; a lease is created with ``link()`` (which fails if the name
exists, unlike ``rename``) from a fully written temporary, so nobody ever reads a half-written lease. Lease
expiry compares wall clocks, so machines sharing the directory should keep their clocks in sync (NTP).

Every file is read with :func:`.fsio.read_small`: an entry or lease that is a FIFO, a symlink, a directory or
oversized is damage (a rejected entry, an expired lease), never a hang and never a fault of the whole tier.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Sequence
from functools import wraps
from pathlib import Path

from .. import fsio
from .backend import MAX_BLOB_BYTES, NAMESPACE, UNSIGNED, RemoteBackend, RemoteError, check_namespace

log = logging.getLogger("opbuild.cache")
ENTRY_SUFFIX = ".entry"
LEASE_SUFFIX = ".lease"
BREAK_SUFFIX = ".break"
BREAK_STALE = 10.0  # seconds: a removal guard this old was left by a process that died while removing
LAYOUT = "v2"
MAX_ENTRY_BYTES = MAX_BLOB_BYTES  # compared with fstat's size before a byte is read (fsio.read_small)
MAX_LEASE_BYTES = 4096


def _remote_errors(method):
    """Turn OSError (EIO, ENOSPC, ESTALE, EACCES, ...) into RemoteError, as the backend contract requires."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except OSError as e:
            raise RemoteError(f"{self.url}: {e.strerror or e}" + (f" ({e.filename})" if e.filename else "")) from e

    return wrapper


def _has_entries(directory: Path) -> bool:
    """Whether ``directory`` holds at least one entry (stops at the first: it may hold thousands)."""
    try:
        with os.scandir(directory) as it:
            return any(e.name.endswith(ENTRY_SUFFIX) and not e.name.startswith(fsio.TMP_PREFIX) for e in it)
    except (FileNotFoundError, NotADirectoryError):
        return False


class DirectoryBackend(RemoteBackend):
    """Entries and leases of one namespace as files under ``root`` (created if missing)."""

    def __init__(self, root: str | Path, ttl: float = 0.0, namespace: str = UNSIGNED):
        self.root = Path(root)
        self.url = self.root.as_uri()
        self.ttl = ttl
        self.namespace = check_namespace(namespace)
        self.spaces = self.root / LAYOUT
        self.entries = self.spaces / namespace / "entries"
        self.leases = self.spaces / namespace / "leases"
        self._ready = False
        self._cancels = 0  # bumped by cancel(): a get_many in flight stops before its next file

    def cancel(self) -> None:
        """Stop the ``get_many`` calls in flight before their next file (each file is bounded by
        MAX_ENTRY_BYTES; a read already inside the filesystem cannot be interrupted)."""
        self._cancels += 1

    def get_many(self, names: Sequence[str]) -> dict[str, bytes]:
        seen, out = self._cancels, {}
        for name in names:
            if self._cancels != seen:
                raise RemoteError(f"{self.url}: cancelled after OPBUILD_REMOTE_TIMEOUT")
            blob = self.get(name)
            if blob is not None:
                out[name] = blob
        return out

    def _setup(self) -> None:
        """Create the layout and sweep temporaries of dead writers, once (lazily, so that opening the backend
        never touches a possibly hung filesystem outside a timed call)."""
        if self._ready:
            return
        self.entries.mkdir(parents=True, exist_ok=True)
        self.leases.mkdir(exist_ok=True)
        now = time.time()
        for d in (self.entries, self.leases):
            for entry in os.scandir(d):
                if entry.name.startswith(fsio.TMP_PREFIX) and fsio.is_stale_tmp(entry, now):
                    try:
                        os.unlink(entry.path)
                    except OSError as e:  # gone already, or a read-only mirror: it can still be read
                        log.debug("opbuild: cannot remove stale temporary %s (%s)", entry.path, e)
        self._ready = True

    # ---- entries ----------------------------------------------------------------------------------
    def _entry(self, name: str) -> Path:
        return self.entries / (name + ENTRY_SUFFIX)

    @_remote_errors
    def get(self, name: str) -> bytes | None:
        self._setup()
        path = self._entry(name)
        try:
            if self.ttl:
                st = os.stat(path, follow_symlinks=False)
                if time.time() - st.st_mtime > self.ttl:
                    self._expire(path, st)
                    return None
            return fsio.read_small(str(path), MAX_ENTRY_BYTES)
        except FileNotFoundError:
            return None
        except fsio.CorruptFile as e:
            # Not a fault of the tier: this one entry is damaged. An empty blob is rejected by the reader
            # (and replaced when the kernel is rebuilt and published).
            log.debug("opbuild: shared-tier entry %s is unreadable (%s)", path, e.strerror)
            return b""
    def _expire(self, path: Path, st: os.stat_result) -> None:
        """Remove an expired entry unless it was replaced meanwhile (a lost race only costs a rebuild)."""
        try:
            now = os.stat(path)
            if (now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns):
                os.unlink(path)
        except FileNotFoundError:
            pass

    @_remote_errors
    def put(self, name: str, blob: bytes) -> None:
        self._setup()
        try:
            fsio.atomic_write(self._entry(name), blob)
        except IsADirectoryError:  # a directory planted in place of the entry: damage of one entry, not a fault
            log.warning("opbuild: cannot publish %s to %s: %s is a directory; remove it", name, self.url,
                        self._entry(name))

    @_remote_errors
    def namespaces(self) -> list[str]:
        try:
            names = os.listdir(self.spaces)
        except FileNotFoundError:
            return []
        return sorted(n for n in names if NAMESPACE.fullmatch(n) and _has_entries(self.spaces / n / "entries"))

    @_remote_errors
    def count_in(self, namespace: str, names: Sequence[str]) -> int:
        entries = self.spaces / check_namespace(namespace) / "entries"
        return sum(1 for n in names if os.path.lexists(entries / (n + ENTRY_SUFFIX)))

    # ---- leases -----------------------------------------------------------------------------------
    def _lease(self, name: str) -> Path:
        return self.leases / (name + LEASE_SUFFIX)

    @staticmethod
    def _read_lease(path: Path) -> tuple[str, float] | None:
        """(owner, expiry) of a lease; None if there is none; an unreadable one counts as long expired."""
        try:
            data = fsio.read_json(str(path), MAX_LEASE_BYTES)
            owner, expires = str(data["owner"]), float(data["expires"])
            return (owner, expires) if math.isfinite(expires) else ("", 0.0)  # inf would never expire
        except FileNotFoundError:
            return None
        except (fsio.CorruptFile, ValueError, KeyError, TypeError):
            return "", 0.0

    @staticmethod
    def _lease_bytes(owner: str, ttl: float) -> bytes:
        return json.dumps({"owner": owner, "expires": time.time() + ttl}).encode()

    def _create(self, path: Path, data: bytes) -> bool:
        """Create ``path`` holding ``data`` only if it does not exist (link is atomic and never replaces)."""
        tmp = path.with_name(fsio.tmp_name(path.name))
        fsio.atomic_write(tmp, data, fsync=False)
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)

    def _break(self, path: Path, seen: tuple[str, float]) -> bool:
        """Remove the lease at ``path`` if it is still the one ``seen``; False if it changed meanwhile, or if
        another process is removing it right now.

        Removals are serialised by a guard file next to the lease, created with ``link()``: without it, a
        process that read an expired lease could remove the fresh lease another process had just taken over,
        and a third could then take it too. A guard left by a process that died is removed once it is
        :data:`BREAK_STALE` seconds old.
        """
        guard = path.with_name(path.name + BREAK_SUFFIX)
        if not self._create(guard, b""):
            try:
                if time.time() - guard.stat().st_mtime > BREAK_STALE:
                    guard.unlink(missing_ok=True)
            except FileNotFoundError:
                pass
            return False
        try:
            if self._read_lease(path) != seen:
                return False
            try:
                path.unlink(missing_ok=True)
            except IsADirectoryError:  # planted damage: the lease stays taken; waiters build after the timeout
                return False
            return True
        finally:
            guard.unlink(missing_ok=True)

    @_remote_errors
    def acquire(self, name: str, owner: str, ttl: float) -> str:
        self._setup()
        path = self._lease(name)
        holder = ""
        for _ in range(4):
            if self._create(path, self._lease_bytes(owner, ttl)):
                return owner
            current = self._read_lease(path)
            if current is None:
                continue  # released between our create and our read: try again
            holder, expires = current
            if expires > time.time():
                return holder
            self._break(path, current)  # expired: remove it (unless someone else is) and try again
        return holder  # still contended: the caller sees it held and asks again later

    @_remote_errors
    def renew(self, name: str, owner: str, ttl: float) -> bool:
        path = self._lease(name)
        current = self._read_lease(path)
        if current is None or current[0] != owner:
            return False
        fsio.atomic_write(path, self._lease_bytes(owner, ttl), fsync=False)
        return True

    @_remote_errors
    def release(self, name: str, owner: str) -> None:
        path = self._lease(name)
        for _ in range(20):  # only a concurrent removal of the same lease (its guard) makes us retry
            current = self._read_lease(path)
            if current is None or current[0] != owner or self._break(path, current):
                return
            time.sleep(0.005)

    @_remote_errors
    def stats(self) -> dict:
        self._setup()
        entries = size = 0
        for entry in os.scandir(self.entries):
            if entry.name.endswith(ENTRY_SUFFIX) and not entry.name.startswith(fsio.TMP_PREFIX):
                entries += 1
                size += entry.stat().st_size
        leases = sum(1 for e in os.scandir(self.leases) if e.name.endswith(LEASE_SUFFIX)
                     and not e.name.startswith(fsio.TMP_PREFIX))
        return {"url": self.url, "backend": "directory", "key_id": self.namespace, "entries": entries,
                "bytes": size, "leases": leases, "ttl": self.ttl or None}
