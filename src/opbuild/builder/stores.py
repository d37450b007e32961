"""Which kernel stores a build reads and writes: the local kernel_meta, or a private temporary directory when
the cache is off, cannot be created, is read-only or fills up (one warning says why); plus the table of
shared tiers (OPBUILD_REMOTE_CACHE) and the warn-once set.

The cache never degrades a run: whatever is wrong with kernel_meta, kernels are still built (privately).
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

from ..cache import signing
from ..cache.layout import CPU_BINARY_SUFFIX
from ..cache.local import KernelStore
from ..cache.shared.tier import SharedTier
from ..cache.statmemo import StatMemo
from ..core import config, owners
from .requests import KernelRequest

log = logging.getLogger("opbuild")
PRIVATE_PREFIX = "opbuild-private-"


def sweep_private_dirs() -> None:
    """Remove private build directories of processes that died without cleaning up (SIGKILL)."""
    tmp = Path(tempfile.gettempdir())
    for d in tmp.glob(PRIVATE_PREFIX + "*"):
        # Any local user can create such a name in a shared /tmp: a malformed pid is someone else's, left alone.
        if owners.dead_here(owners.parse_private_dir(d.name, PRIVATE_PREFIX)) and not d.is_symlink():
            shutil.rmtree(d, ignore_errors=True)


class Stores:
    """The stores of one process: opened once per directory, read-only ones remembered, one private store."""

    def __init__(self) -> None:
        # (kernel_meta path, binary suffix, OPBUILD_CACHE_SECRET) -> store: a store signs and checks with the
        # secret it was opened under, so a process that changes the variable gets a store of the new one
        self._stores: dict[tuple[Path, str, bytes | None], KernelStore] = {}
        self._suffix = CPU_BINARY_SUFFIX  # of the last select(): the private store follows it
        self._readonly: set[Path] = set()
        self._private: KernelStore | None = None
        self._workdir: Path | None = None
        self._warned: set[str] = set()
        self._shared: dict[str, SharedTier] = {}
        self._memos: dict[Path | None, StatMemo] = {}
        self._lock = threading.Lock()

    def warn_once(self, key: str, message: str) -> None:
        """Log ``message`` as a warning the first time ``key`` is seen in this process."""
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning(message)

    def memo(self, directory: Path | None) -> StatMemo:
        """The file-derived values memoised in ``directory`` (compiler version, generator source digests,
        the last toolchain identity: builder/toolchain.py)."""
        with self._lock:
            memo = self._memos.get(directory)
            if memo is None:
                memo = self._memos[directory] = StatMemo(directory)
            return memo

    def workdir(self) -> Path:
        """This process's private scratch directory (removed at exit; swept if the process is killed)."""
        if self._workdir is None:
            sweep_private_dirs()
            self._workdir = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-"))
            atexit.register(shutil.rmtree, self._workdir, True)
        return self._workdir

    def private_store(self) -> KernelStore:
        """The store in this process's scratch directory (kernels not cached across processes), for the binary
        suffix of the last :meth:`select`."""
        secret = config.cache_secret()
        if (self._private is None or self._private.binary_suffix != self._suffix
                or self._private.key_id != signing.key_id(secret)):
            self._private = KernelStore(self.workdir() / "kernel_meta", binary_suffix=self._suffix, secret=secret)
        return self._private

    def select(self, binary_suffix: str = CPU_BINARY_SUFFIX) -> tuple[KernelStore | None, KernelStore]:
        """(store to read from, store to write to) for binaries named with the target's ``binary_suffix`` (the
        cache takes it as a parameter: it imports no target). The read store is None when the cache is off."""
        self._suffix = binary_suffix
        if not config.cache_enabled():
            return None, self.private_store()
        path, secret = config.cache_dir(), config.cache_secret()
        store = self._stores.get((path, binary_suffix, secret))
        if store is None:
            store = self._open(path, secret)
            if store is None:
                return None, self.private_store()
            self._stores[(path, binary_suffix, secret)] = store
        if path in self._readonly or not store.writable():
            self._readonly.add(path)
            # Same key as the disk-full warning: a store marked read-only after a failed write was already
            # explained to the user, and one warning per cache directory is the contract.
            self.warn_once(f"nocache:{path}", (
                f"opbuild: kernel cache {path} is read-only: cached kernels are still used, new kernels are built "
                f"in a private temporary directory and not cached. Make it writable or set OPBUILD_CACHE_PATH."))
            return store, self.private_store()
        return store, store

    def _open(self, path: Path, secret: bytes | None) -> KernelStore | None:
        """The store at ``path`` under ``secret``, created if need be; read-only if it exists but cannot be
        written; None (after a warning) when it can neither be created nor read."""
        try:
            return KernelStore(path, binary_suffix=self._suffix, secret=secret)
        except OSError as e:
            if path.is_dir():
                return KernelStore(path, create=False, binary_suffix=self._suffix, secret=secret)
            self.warn_once(f"create:{path}", (
                f"opbuild: kernel cache is off: cannot create {path} ({e.strerror or e}). Kernels are built "
                f"in a private temporary directory and rebuilt next run; set OPBUILD_CACHE_PATH to a "
                f"writable directory to cache them."))
            return None

    def shared(self) -> SharedTier | None:
        """The shared tier named by OPBUILD_REMOTE_CACHE (opened at first use), or None (unset, or the cache
        is off). A tier that failed stays in the table, turned off, so the run warns once and goes local-only."""
        url = config.remote_cache_url()
        if not url or not config.cache_enabled():
            return None
        with self._lock:
            if url not in self._shared:
                self._shared[url] = SharedTier.open(url)
            return self._shared[url]

    def publish(self, store: KernelStore, req: KernelRequest, binary: bytes, meta: dict,
                staged: Path | None) -> Path:
        """Publish one entry into ``store``; a store that fails to take it (read-only, full) is marked
        read-only for the rest of the run (one warning) and the entry goes to the private store."""
        try:
            return store.publish(req.name, req.info, binary, meta, link_from=staged)
        except OSError as e:
            if store is self._private:
                raise
            self._readonly.add(store.path)
            self.warn_once(f"nocache:{store.path}", (
                f"opbuild: cannot write to kernel cache {store.path} ({e.strerror or e}); caching is off for the "
                f"rest of this run and new kernels are built in a private temporary directory"))
            return self.private_store().publish(req.name, req.info, binary, meta)


def warn_repairs(store: KernelStore, swept: set[str], repairs: list[tuple[str, str]]) -> None:
    """ONE warning per build for everything it found broken and repaired, however many entries that was (a
    stray temporary and the incomplete entry of one interrupted build, or every entry sharing one damaged
    batch binary, are one incident for the user)."""
    parts = []
    if repairs:
        # Entries broken for one reason are named together: the first build under a new OPBUILD_CACHE_SECRET
        # refuses every unsigned entry it needs, and one reason said once reads better than fifty times.
        by_reason: dict[str, list[str]] = {}
        for name, reason in repairs:
            by_reason.setdefault(reason, []).append(name)
        shown = "; ".join(f"{', '.join(names[:5])}{f' and {len(names) - 5} more' if len(names) > 5 else ''} "
                          f"({reason})" for reason, names in list(by_reason.items())[:5])
        more = f"; and {len(by_reason) - 5} more reasons" if len(by_reason) > 5 else ""
        parts.append(f"{len(repairs)} broken entr{'y' if len(repairs) == 1 else 'ies'} moved to quarantine and "
                     f"rebuilt: {shown}{more}")
    if swept:
        shown = ", ".join(sorted(swept)[:5]) + (", ..." if len(swept) > 5 else "")
        parts.append(f"stray temporary files of interrupted builds ({shown}) moved to quarantine")
    log.warning("opbuild: repaired kernel cache %s: %s", store.path, "; ".join(parts))


__all__ = ["PRIVATE_PREFIX", "Stores", "sweep_private_dirs", "warn_repairs"]
