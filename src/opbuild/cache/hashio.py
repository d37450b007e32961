"""Bounded, streamed reads of binaries: hash while reading in chunks, never read more than a documented limit.

A binary's size is compared (with the size the entry records, and with :data:`MAX_BINARY_BYTES`) from
``fstat`` on the open descriptor before a byte is read, so a 2 GiB sparse file planted with a matching
``.json`` costs a ``stat``, not 2 GiB of memory. What is read goes into one buffer of the ``fstat`` size
(the ELF check needs the bytes: cache/elf.py), hashed chunk by chunk as it arrives; a file that grows while
being read is refused rather than followed.

Limits (docs/cache.md, "Limits"):

* :data:`MAX_BINARY_BYTES`: a kernel binary (a batch of kernels shares one); applies to lookups, graph
  manifests, ``cache verify``, ``cache export``/``import`` members, shared-tier blobs and compiler outputs.
* :data:`CHUNK`: what is read (and, for streams, held) at a time.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from typing import BinaryIO

from .fsio import CorruptFile

#: The largest binary opbuild reads, hashes, loads, imports or commits: far above any batch of kernels (a few
#: MB), far below what would hurt a machine's memory.
MAX_BINARY_BYTES = 256 << 20
CHUNK = 1 << 20
_FLAGS = (os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
          | getattr(os, "O_NOFOLLOW", 0))


def too_large(size: int, limit: int | None = None) -> str | None:
    """Why a binary of ``size`` bytes is refused (over ``limit``, default :data:`MAX_BINARY_BYTES`), or None."""
    limit = MAX_BINARY_BYTES if limit is None else limit
    if size > limit:
        return f"{size} bytes, over the {limit}-byte bound on binaries"
    return None


def read_hashed(path: str, expected_size: int | None = None, limit: int | None = None) -> tuple[bytearray, str]:
    """(content, sha256 hex) of the regular file ``path``, never following a symbolic link and never blocking on
    a FIFO. The size from ``fstat`` must equal ``expected_size`` (when given) and be at most ``limit`` (default
    :data:`MAX_BINARY_BYTES`) before anything is read: otherwise :class:`~.fsio.CorruptFile`.
    ``FileNotFoundError`` if absent. The content is the one buffer it was read into (a bytearray: ``bytes()``
    of it would double the peak memory)."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            raise CorruptFile(e.errno, f"not a regular file ({e.strerror})", path) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CorruptFile(errno.EINVAL, "not a regular file", path)
        if expected_size is not None and st.st_size != expected_size:
            raise CorruptFile(errno.EINVAL, f"{st.st_size} bytes, not the {expected_size} recorded", path)
        if why := too_large(st.st_size, limit):
            raise CorruptFile(errno.EFBIG, why, path)
        with open(fd, "rb", buffering=0, closefd=False) as f:
            return _read_exactly(f, st.st_size, path)
    finally:
        os.close(fd)


def _read_exactly(f: BinaryIO, size: int, what: str) -> tuple[bytearray, str]:
    buf = bytearray(size)
    view = memoryview(buf)
    h = hashlib.sha256()
    done = 0
    while done < size:
        n = f.readinto(view[done:done + CHUNK])
        if not n:
            raise CorruptFile(errno.EINVAL, f"shrank to {done} bytes while being read", what)
        h.update(view[done:done + n])
        done += n
    if f.read(1):
        raise CorruptFile(errno.EFBIG, f"grew past its {size} bytes while being read", what)
    view.release()
    return buf, h.hexdigest()


def copy_hashed(src: BinaryIO, dst: BinaryIO | None, size: int, limit: int | None = None,
                what: str = "stream") -> str:
    """Copy exactly ``size`` bytes from the stream ``src`` to ``dst`` (or only hash them, when None) one
    :data:`CHUNK` at a time, and return their sha256; :class:`~.fsio.CorruptFile` if ``size`` is over
    ``limit`` (before anything is read) or the stream ends early."""
    if why := too_large(size, limit):
        raise CorruptFile(errno.EFBIG, why, what)
    h = hashlib.sha256()
    left = size
    while left:
        chunk = src.read(min(CHUNK, left))
        if not chunk:
            raise CorruptFile(errno.EINVAL, f"ends {left} bytes early", what)
        h.update(chunk)
        if dst is not None:
            dst.write(chunk)
        left -= len(chunk)
    return h.hexdigest()


def read_stream(src: BinaryIO, size: int, limit: int | None = None,
                what: str = "stream") -> tuple[bytearray, str]:
    """(content, sha256) of exactly ``size`` bytes of the stream ``src``, read in chunks into one buffer, after
    checking ``size`` against ``limit``."""
    if why := too_large(size, limit):
        raise CorruptFile(errno.EFBIG, why, what)
    buf = bytearray(size)
    view = memoryview(buf)
    h = hashlib.sha256()
    done = 0
    while done < size:
        chunk = src.read(min(CHUNK, size - done))
        if not chunk:
            raise CorruptFile(errno.EINVAL, f"ends {size - done} bytes early", what)
        view[done:done + len(chunk)] = chunk
        h.update(chunk)
        done += len(chunk)
    view.release()
    return buf, h.hexdigest()


__all__ = ["CHUNK", "MAX_BINARY_BYTES", "copy_hashed", "read_hashed", "read_stream", "too_large"]
