"""``DatasetCache``: MindSpore's client of a dataset cache server. opbuild has no cache server (its sources
hold small datasets in memory or read files directly), so the object can be created, as model zoo scripts
do unconditionally, but every dataset given it as ``cache=`` refuses it."""

from __future__ import annotations

from typing import Any

from .core import _check_int


class DatasetCache:
    """``DatasetCache(session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
    prefetch_size=None)``: the arguments are checked and kept; passing the object as a dataset's ``cache``
    raises NotImplementedError (run without ``cache``)."""

    def __init__(self, session_id: int, size: int = 0, spilling: bool = False, hostname: str | None = None,
                 port: int | None = None, num_connections: int | None = None,
                 prefetch_size: int | None = None) -> None:
        self.session_id = _check_int("session_id", session_id, 0, 2**32 - 1)
        self.size = _check_int("size", size, 0, 2**63 - 1)
        if not isinstance(spilling, bool):
            raise TypeError(f"DatasetCache: spilling must be a bool, got {spilling!r}")
        self.spilling = spilling
        self.hostname, self.port = hostname, port
        self.num_connections, self.prefetch_size = num_connections, prefetch_size

    def get_stat(self) -> Any:
        """Cache statistics: there is no server to ask."""
        raise NotImplementedError("DatasetCache: opbuild has no dataset cache server; run without cache=")


__all__ = ["DatasetCache"]
