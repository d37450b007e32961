"""The shared cache tier: kernels published by one machine or rank and fetched by the others.

Modules, none importing a sibling that imports it back:

* :mod:`.backend`: the storage interface (``RemoteBackend`` ABC, ``RemoteError``, key-id namespaces);
* :mod:`.directory` and :mod:`.redis`: one backend per file;
* :mod:`.entry`: the entry blob (descriptor, binary, build result, signature) and its verification;
* :mod:`.backoff`, :mod:`.stats`: skipping the tier after a fault, and its counters;
* :mod:`.tier`: ``SharedTier``, what a build uses (timeouts, leases, fallbacks).

:func:`open_backend` maps a URL to its backend.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ...core import config
from .backend import UNSIGNED, RemoteBackend, RemoteError, check_namespace
from .directory import DirectoryBackend
from .redis import RedisBackend


def open_backend(url: str, ttl: float = 0.0, timeout: float = 2.0, namespace: str = UNSIGNED) -> RemoteBackend:
    """The backend named by ``url``: ``file:///path`` or ``redis://host:port/db`` (also ``rediss://``).

    ``ttl`` (seconds, 0 = none) bounds the life of published entries; ``timeout`` is passed to network
    clients as their socket timeout; ``namespace`` is the key id (:func:`.entry.key_id`) whose entries
    and leases the backend reads and writes. Raises ValueError naming OPBUILD_REMOTE_CACHE for a URL no backend
    understands (a configuration error, reported as such), RemoteError when the backend's client library is
    missing.
    """
    config.check_remote_url(url)
    check_namespace(namespace)
    parts = urlsplit(url)
    if parts.scheme.lower() == "file":
        return DirectoryBackend(parts.path, ttl=ttl, namespace=namespace)
    return RedisBackend(url, ttl=ttl, timeout=timeout, namespace=namespace)


__all__ = ["RemoteBackend", "RemoteError", "open_backend"]
