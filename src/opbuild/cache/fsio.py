"""Crash-safe file primitives: atomic writes and sweeping of temporaries left by killed processes.

Every temporary is named ``.tmp.<host>.<pid>.<token>.<final name>`` (in a kernel_meta, inside its ``.tmp/``
folder; elsewhere in the directory of its final name), so a sweep can tell whose it is: a temporary of a
dead process on this host is removed at once, one of another host (shared filesystems) only once it is old.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
import time
from pathlib import Path

from ..core import owners

TMP_PREFIX = ".tmp."
FOREIGN_TMP_MAX_AGE = 3600.0
# gethostname() without importing socket, in the strict form that parse_tmp accepts back
_HOST = owners.name_host(os.uname().nodename)


def tmp_name(final_name: str) -> str:
    """A temporary file name for ``final_name`` owned by this process."""
    return f"{TMP_PREFIX}{_HOST}.{os.getpid()}.{secrets.token_hex(4)}.{final_name}"


def fsync_dir(path: Path) -> None:
    """Make renames in ``path`` durable (best effort: some filesystems refuse directory fsync)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # e.g. some network filesystems; the rename itself is still atomic
    finally:
        os.close(fd)


def tmp_path(path: Path, tmp_dir: Path | None = None) -> Path:
    """A fresh temporary name for ``path``, in ``tmp_dir`` (same filesystem) or else next to ``path``."""
    return (tmp_dir if tmp_dir is not None else path.parent) / tmp_name(path.name)


def _create(tmp: Path) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        return os.open(tmp, flags, 0o644)
    except FileNotFoundError:  # a temporaries folder not created yet (or removed by ``cache clear``)
        os.makedirs(tmp.parent, exist_ok=True)
        return os.open(tmp, flags, 0o644)


def atomic_write(path: Path, data: bytes, fsync: bool = True, tmp_dir: Path | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see either the old file or the whole new one.

    The temporary lives in ``tmp_dir`` when given (a kernel_meta keeps its temporaries in ``.tmp/``, so that
    sweeping them after a crash never has to list the whole cache), else next to ``path``. It is removed if
    anything fails (ENOSPC, EROFS, ...), and the error is re-raised.
    """
    tmp = tmp_path(path, tmp_dir)
    try:
        fd = _create(tmp)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: opening a FIFO planted in place of a file must not wait for a writer (the fstat check below then
# rejects it); O_NOFOLLOW: a symlink in place of a file is corrupt, never followed out of the cache.
_HARDENED_FLAGS = _READ_FLAGS | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
_SMALL = 16384
# Every metadata file of a cache (.info, .json, manifests, memo, statistics) is far below this; a larger one
# is damage or an attack, not something to read into memory.
MAX_METADATA_BYTES = 8 << 20


class CorruptFile(OSError):
    """A cache file exists but is not an acceptable one: not a regular file (FIFO, device, directory, symlink),
    larger than its bound, or not parseable as what it should hold. A subclass of OSError so that every reader
    that already treats an unreadable file as damage treats these the same way; ``FileNotFoundError`` still
    means absent."""


def read_small(path: str, limit: int = MAX_METADATA_BYTES) -> bytes:
    """The bytes of a cache metadata file, read defensively.

    Only a regular file is read: a symlink (``O_NOFOLLOW``), FIFO (opened non-blocking, then rejected by
    ``fstat``), device or directory raises :class:`CorruptFile`, as does a file over ``limit`` bytes. A
    missing file raises ``FileNotFoundError``. The warm path reads two metadata files per kernel, so this is a
    plain open/fstat/read/close (a buffered ``open().read()`` costs about three times as much)."""
    try:
        fd = os.open(path, _HARDENED_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            raise CorruptFile(e.errno, f"not a regular file ({e.strerror})", str(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CorruptFile(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > limit:
            raise CorruptFile(errno.EFBIG, f"{st.st_size} bytes, over the {limit}-byte bound", str(path))
        data = os.read(fd, _SMALL)
        if len(data) < _SMALL:
            return data
        chunks = [data]
        total = len(data)
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:  # grew while being read
                raise CorruptFile(errno.EFBIG, f"over the {limit}-byte bound", str(path))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_json(data: bytes | str, what: str = "JSON") -> dict:
    """``data`` parsed as a JSON object, or :class:`CorruptFile`: never any other exception.

    json's C scanner recurses once per nesting level; a file of 100,000 ``[`` raises RecursionError, which is
    damage like any other here (as are invalid UTF-8, invalid JSON and a top level that is not an object)."""
    try:
        value = json.loads(data)
    except (ValueError, RecursionError, TypeError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise CorruptFile(errno.EINVAL, f"{what} is not valid JSON ({type(e).__name__})") from None
    if not isinstance(value, dict):
        raise CorruptFile(errno.EINVAL, f"{what} is not a JSON object")
    return value


def read_json(path: str, limit: int = MAX_METADATA_BYTES) -> dict:
    """:func:`read_small` then :func:`parse_json`: a JSON object, ``FileNotFoundError``, or ``CorruptFile``."""
    data = read_small(path, limit)
    try:
        return parse_json(data, str(path))
    except CorruptFile as e:
        raise CorruptFile(e.errno, e.strerror, str(path)) from None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host (core/owners.py: a pid out of range is none)."""
    return owners.pid_alive(pid)


def parse_tmp(name: str) -> tuple[str, int, str] | None:
    """(host, pid, final name) of a temporary's file name, or None if it is not one of ours: the name is
    parsed as data (core/owners.py), so a pid of 20 digits is foreign debris, never an OverflowError."""
    return owners.parse_tmp_name(name)


def is_stale_tmp(entry: os.DirEntry | Path, now: float | None = None) -> bool:
    """A temporary whose owner is dead (same host) or that is older than an hour (another host's, or one whose
    name does not parse: foreign debris, whose owner nobody can ask)."""
    if not entry.name.startswith(TMP_PREFIX):
        return False
    parsed = parse_tmp(entry.name)
    if parsed is not None and parsed[0] == _HOST:
        return owners.dead_here(parsed[1])
    try:
        age = (now or time.time()) - entry.stat().st_mtime
    except OSError:
        return False
    return age > FOREIGN_TMP_MAX_AGE
