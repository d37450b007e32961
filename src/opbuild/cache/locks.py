"""Entry pins: who may delete an entry, and when.

The per-kernel lock file (``KernelStore.lock_path``) is locked with ``flock``: builders (filelock) hold it
exclusively while they compile and publish, loaders hold it *shared* while they verify and ``dlopen`` an
entry (:func:`pinned`), and anything that deletes or replaces a committed entry (eviction, ``cache clear``,
``verify --repair``, ``cache import``) first takes it exclusively *without waiting* (:func:`try_exclusive`)
and leaves the entry alone when it cannot. So an entry is never deleted while another process is loading it.

A warm build loads tens to thousands of entries at once; one flock per entry would cost more than
everything else the build does per kernel. So a build's lookup-and-load phase holds ONE store-wide lock
instead, ``.locks/loading.lock``, shared (:class:`loading`), and a deleter, once it holds the entry, also
takes that lock exclusively for the few microseconds of the deletion, waiting at most
:data:`DRAIN_TIMEOUT` for the loads in flight to finish. Entry pins (:class:`pinned`) remain for long holds.

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
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import filelock

from ..core import config
from . import quarantine
from .layout import LOADING_LOCK, LOCK_DIR, LOCK_SUFFIX
from .local import KernelStore

log = logging.getLogger("opbuild.cache")

_BUSY = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES)


# O_NOFOLLOW: a symbolic link planted as a lock file must not make us create or lock a file outside the cache
# (filelock opens with O_NOFOLLOW too, so both agree on what the lock is); O_NONBLOCK: a FIFO never blocks.
_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(
    os, "O_NONBLOCK", 0)


LOADING = LOADING_LOCK
DRAIN_TIMEOUT = 2.0  # seconds a deleter waits for the loads in flight (each lasts milliseconds)


def bad_lock_file(path: str | Path) -> str | None:
    """Why ``path`` cannot serve as a lock file (a directory or symbolic link in its place), or None (absent,
    or a file that can be locked: regular, or even a FIFO, which flock accepts)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link, not a lock file"
    if stat.S_ISDIR(mode):
        return "a directory, not a lock file"
    return None


def usable_lock_path(store: KernelStore, name: str) -> Path:
    """``store.lock_path(name)``, after moving a directory or symbolic link found there into quarantine: nobody
    can hold a lock on one (filelock and :func:`_open_lock_file` refuse both), so without this every build
    of the kernel would go on unlocked and warn, for good. One ``lstat``: used where a lock is taken to build
    or delete, never on the warm path."""
    path = store.lock_path(name)
    why = bad_lock_file(path)
    if why is not None:
        quarantine.move(store.path, path, why)
    return path


def _open_lock_file(store: KernelStore, name: str) -> int | None:
    # Plain string paths: this runs on the warm path.
    path = os.path.join(str(store.path), LOCK_DIR, name + LOCK_SUFFIX)
    try:
        return os.open(path, _FLAGS, 0o644)
    except OSError as e:  # EISDIR/ELOOP: a directory or symbolic link in its place
        if e.errno not in (errno.EISDIR, errno.ELOOP) or bad_lock_file(path) is None:
            return _open_lock_file_slow(path, e)
        quarantine.move(store.path, path, bad_lock_file(path) or "not a lock file")
        try:
            return os.open(path, _FLAGS, 0o644)
        except OSError:
            return None


def _open_lock_file_slow(path: str, error: OSError) -> int | None:
    """The lock file could not be opened read-write: create its folder, or fall back to read-only."""
    if isinstance(error, FileNotFoundError):
        try:
            os.mkdir(os.path.dirname(path))
        except OSError:
            pass  # created by someone else meanwhile, or not creatable: the open below decides
        try:
            return os.open(path, _FLAGS, 0o644)
        except OSError:
            return None
    try:  # read-only cache: a shared flock works on a read-only descriptor too
        return os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
                       | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None


class pinned:  # lower case: used like a function, ``with pinned(store, name):``
    """Hold entry ``name`` of ``store`` shared while the block runs (lookup + load).

    Waits (up to ``timeout``, default ``OPBUILD_LOCK_TIMEOUT``) while a builder or a deleter holds the entry
    exclusively, then proceeds; when no lock can be had at all (read-only cache without lock files,
    filesystem without flock, timeout) the block runs unpinned, as it did before pins existed. Costs an
    open, an flock and a close (a few microseconds) when nobody else holds the entry.
    """

    __slots__ = ("_store", "_name", "_timeout", "_fd")

    def __init__(self, store: KernelStore | None, name: str, timeout: float | None = None):
        self._store, self._name, self._timeout, self._fd = store, name, timeout, None

    def __enter__(self) -> None:
        if self._store is None:
            return
        fd = self._fd = _open_lock_file(self._store, self._name)
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in _BUSY or not _wait_flock(
                    fd, config.lock_timeout() if self._timeout is None else self._timeout):
                log.debug("opbuild: loading %s without a pin", self._name)

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


class loading:  # lower case: used like a function, ``with loading(store):``
    """Hold ``store``'s load lock shared while the block verifies and loads entries (a build's warm phase).

    Deleters take it exclusively only for the moment of a deletion, so this rarely waits, and then only for
    microseconds; like :class:`pinned`, it degrades to running unlocked where no lock can be had.
    """

    __slots__ = ("_store", "_fd")

    def __init__(self, store: KernelStore | None):
        self._store, self._fd = store, None

    def __enter__(self) -> None:
        if self._store is None:
            return
        fd = self._fd = _open_lock_file(self._store, LOADING)
        if fd is None:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in _BUSY or not _wait_flock(fd, config.lock_timeout(), delay=0.0005):
                log.debug("opbuild: loading from %s without the load lock", self._store.path)

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _wait_flock(fd: int, timeout: float, delay: float = 0.002, mode: int = fcntl.LOCK_SH) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except OSError as e:
            if e.errno not in _BUSY:
                return False  # e.g. ENOLCK/EOPNOTSUPP: this filesystem has no flock
    return False


@contextlib.contextmanager
def try_exclusive(store: KernelStore, name: str) -> Iterator[bool]:
    """Try once to hold entry ``name`` exclusively; yields whether it is held. Never waits for the entry.

    A False means another process is building, loading or deleting the entry right now, so the caller must
    not touch it. Once the entry is held, the loads in flight in other processes (:class:`loading`) are
    waited for, up to :data:`DRAIN_TIMEOUT` (False after that), and kept out until the block ends.
    """
    path = usable_lock_path(store, name)
    with contextlib.suppress(OSError):  # the acquire below reports the real problem
        path.parent.mkdir(exist_ok=True)
    lock = filelock.FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except (filelock.Timeout, OSError):
        yield False
        return
    try:
        with _no_loads(store) as drained:
            yield drained
    finally:
        lock.release()


@contextlib.contextmanager
def _no_loads(store: KernelStore) -> Iterator[bool]:
    """Hold the store's load lock exclusively (see :class:`loading`); yields False if loads went on for
    longer than DRAIN_TIMEOUT. Where flock is unavailable, loaders run unlocked too: yields True."""
    fd = _open_lock_file(store, LOADING)
    if fd is None:
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = True
        except OSError as e:
            held = e.errno not in _BUSY or _wait_flock(fd, DRAIN_TIMEOUT, delay=0.0005, mode=fcntl.LOCK_EX)
        yield held
    finally:
        os.close(fd)
