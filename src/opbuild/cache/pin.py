"""Entry pins: who may delete an entry, and when.

The per-kernel lock file (``KernelStore.lock_path``) is locked with ``flock``: builders (filelock) hold it
exclusively while they compile and publish, loaders hold it *shared* while they verify and ``dlopen`` an
entry (:func:`pinned`), and anything that deletes or replaces a committed entry (eviction, ``cache clear``,
``verify --repair``, ``cache import``) first takes it exclusively *without waiting* (:func:`try_exclusive`)
and leaves the entry alone when it cannot. So an entry is never deleted while another process is loading it.

Locks of dead processes vanish with them (the kernel drops ``flock`` locks on exit), and a filesystem without
``flock`` degrades to no pinning rather than to an error. Lock files are never deleted: unlinking a lock file
while another process waits on it would let two processes "hold" the same lock.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import time
from collections.abc import Iterator

import filelock

from .. import config
from .local import KernelStore

log = logging.getLogger("opbuild.cache")

_BUSY = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES)


def _open_lock_file(store: KernelStore, name: str) -> int | None:
    path = store.lock_path(name)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except FileNotFoundError:
        try:
            path.parent.mkdir(exist_ok=True)
            return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return None
    except OSError:  # read-only cache: a shared flock works on a read-only descriptor too
        try:
            return os.open(path, os.O_RDONLY)
        except OSError:
            return None


@contextlib.contextmanager
def pinned(store: KernelStore | None, name: str, timeout: float | None = None) -> Iterator[None]:
    """Hold entry ``name`` of ``store`` shared while the block runs (lookup + load).

    Waits (up to ``timeout``, default ``OPBUILD_LOCK_TIMEOUT``) while a builder or a deleter holds the entry
    exclusively, then proceeds; when no lock can be had at all (read-only cache without lock files,
    filesystem without flock, timeout) the block runs unpinned, as it did before pins existed.
    """
    fd = _open_lock_file(store, name) if store is not None else None
    if fd is None:
        yield
        return
    try:
        locked = _lock_shared(fd, config.lock_timeout() if timeout is None else timeout)
        if not locked:
            log.debug("opbuild: loading %s without a pin", name)
        yield
    finally:
        os.close(fd)  # closing the descriptor drops the flock


def _lock_shared(fd: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return True
        except OSError as e:
            if e.errno not in _BUSY:
                return False  # e.g. ENOLCK/EOPNOTSUPP: this filesystem has no flock
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


@contextlib.contextmanager
def try_exclusive(store: KernelStore, name: str) -> Iterator[bool]:
    """Try once to hold entry ``name`` exclusively; yields whether it is held. Never waits.

    A False means another process is building, loading or deleting the entry right now, so the caller must
    not touch it.
    """
    path = store.lock_path(name)
    with contextlib.suppress(OSError):  # the acquire below reports the real problem
        path.parent.mkdir(exist_ok=True)
    lock = filelock.FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except (filelock.Timeout, OSError):
        yield False
        return
    try:
        yield True
    finally:
        lock.release()
