"""The shared cache tier's storage interface (Triton's ``RemoteCacheBackend`` style).

A backend stores opaque entry blobs under kernel names and hands out build leases. It knows nothing about
kernels, checksums, signatures, timeouts or fallbacks: :mod:`.entry` defines and verifies the blob,
:mod:`.tier` enforces timeouts, renews leases and skips the tier for a while after a fault.

Backends, one per file: ``file:///path`` (:mod:`.directory`, a directory on a shared filesystem) and
``redis://host:port/db`` (:mod:`.redis`, a Redis server through the ``redis`` client package); the package
(:func:`opbuild.cache.shared.open_backend`) opens the one a URL names.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

from ...core.errors import OpbuildError
from .. import signing
from ..hashio import MAX_BINARY_BYTES

#: The largest blob a backend returns (a binary of at most MAX_BINARY_BYTES, cache/hashio.py, plus its .info,
#: .json and header); a larger one is absent to the reader, never downloaded or read into memory.
MAX_BLOB_BYTES = MAX_BINARY_BYTES + (16 << 20)
UNSIGNED = signing.UNSIGNED  # the key id of entries written without OPBUILD_CACHE_SECRET (signing.key_id)
NAMESPACE = re.compile(r"[0-9a-f]{16}|unsigned")


class RemoteError(OpbuildError, RuntimeError):
    """The shared tier could not be reached or used (down, slow, full, unreachable, misbehaving).

    Backends raise only this (wrapping ``OSError``, ``redis.RedisError``, ...), so the tier layer can skip the
    shared tier for a while (and retry it later) instead of failing the run.
    """


class RemoteBackend(ABC):
    """Storage of the shared tier.

    Contract (every backend):

    * :meth:`get` returns the blob last :meth:`put` under ``name``, whole, or None when there is none (never
      put, expired after ``ttl``, evicted). A put replaces the previous blob atomically: a reader never sees a
      torn or mixed blob.
    * A lease is the right to build ``name``. :meth:`acquire` takes it for ``owner`` when nobody holds it or
      the holder's lease expired, and returns whoever holds it afterwards (``owner`` itself when taken). A
      lease expires ``ttl`` seconds after it was taken or last :meth:`renew`-ed, so a dead holder never blocks
      anyone for longer than that. :meth:`release` drops ``owner``'s lease and never anybody else's.
      Leases only avoid duplicate work: correctness never depends on them (a put is atomic and the content is
      verified by the reader), so a backend may, rarely, hand one lease to two owners.
    * A backend reads and writes one namespace (a key id, given when it is opened): entries and leases of
      other namespaces are invisible to it, so writers with different secrets never overwrite each other.
      :meth:`namespaces` lists the namespaces that hold entries and :meth:`count_in` looks into another one,
      so that a rank can tell that its secret differs from the others'.
    * :meth:`stats` describes what the backend holds (in its namespace), for ``opbuild cache stats``.
    * Every failure to reach or use the storage raises :class:`RemoteError`, nothing else. Calls may block
      (the tier layer bounds them with ``OPBUILD_REMOTE_TIMEOUT``) and may come from several threads at once.

    The ``*_many`` methods are batched forms (one round trip where the backend can) with loop defaults.
    """

    url: str
    namespace: str  # the key id this backend reads and writes

    @abstractmethod
    def get(self, name: str) -> bytes | None:
        """The blob stored under ``name``, or None."""

    @abstractmethod
    def put(self, name: str, blob: bytes) -> None:
        """Store ``blob`` under ``name`` atomically (replacing any previous blob)."""

    @abstractmethod
    def acquire(self, name: str, owner: str, ttl: float) -> str:
        """Take the build lease of ``name`` for ``owner`` if it is free or expired; return its holder."""

    @abstractmethod
    def renew(self, name: str, owner: str, ttl: float) -> bool:
        """Extend ``owner``'s lease of ``name`` to ``ttl`` seconds from now; False if ``owner`` lost it."""

    @abstractmethod
    def release(self, name: str, owner: str) -> None:
        """Drop the lease of ``name`` if ``owner`` holds it."""

    @abstractmethod
    def stats(self) -> dict:
        """What the backend holds: at least ``url``, ``entries`` and ``bytes`` (None where unknown)."""

    @abstractmethod
    def namespaces(self) -> list[str]:
        """The key ids that hold entries (this backend's own included when it has any)."""

    @abstractmethod
    def count_in(self, namespace: str, names: Sequence[str]) -> int:
        """How many of ``names`` have an entry in ``namespace`` (a key id of :meth:`namespaces`)."""

    def get_many(self, names: Sequence[str]) -> dict[str, bytes]:
        """The blobs of those ``names`` that have one."""
        out = {}
        for name in names:
            blob = self.get(name)
            if blob is not None:
                out[name] = blob
        return out

    def put_many(self, items: Iterable[tuple[str, bytes]]) -> None:
        """:meth:`put` each ``(name, blob)``."""
        for name, blob in items:
            self.put(name, blob)

    def acquire_many(self, names: Sequence[str], owner: str, ttl: float) -> dict[str, str]:
        """:meth:`acquire` each name; returns ``name -> holder``."""
        return {name: self.acquire(name, owner, ttl) for name in names}

    def close(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing to close
        """Release connections (optional)."""

    def cancel(self) -> None:  # noqa: B027 - optional hook
        """Abort the calls in flight from other threads (the tier calls it when one ran past its timeout, so
        that an abandoned download stops instead of running on); they raise :class:`RemoteError`. Optional:
        a backend whose reads are bounded otherwise may do nothing."""


def check_namespace(namespace: str) -> str:
    """``namespace`` if it is a key id (16 lower-case hex digits, or ``unsigned``); ValueError otherwise. Key
    ids become file and key names, so nothing else may get there."""
    if not NAMESPACE.fullmatch(namespace):
        raise ValueError(f"shared-tier namespace {namespace!r} is not a key id (16 hex digits or 'unsigned')")
    return namespace
