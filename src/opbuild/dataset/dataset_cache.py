"""What needs a server opbuild does not have: ``DatasetCache`` (MindSpore's client of a dataset cache server:
it can be created, as model zoo scripts do unconditionally, but every dataset given it as ``cache=`` refuses
it), ``OBSMindDataset`` and ``sync_wait_for_dataset`` (Huawei OBS cloud storage: refused when called). They
exist so that scripts importing them load, and fail with a clear message only where they are used."""

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


_OBS = ("reads MindRecord files from Huawei OBS object storage, which opbuild does not reach; download the "
        "files and read them with MindDataset")


class OBSMindDataset:
    """``OBSMindDataset(dataset_files, server, ak, sk, sync_obs_path, columns_list=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, shard_equal_rows=True)``: refused with NotImplementedError (it reads from
    OBS cloud storage); download the files and use ``MindDataset``."""

    def __init__(self, dataset_files: Any, server: str, ak: str, sk: str, sync_obs_path: str,
                 columns_list: Any = None, shuffle: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, shard_equal_rows: bool = True) -> None:
        raise NotImplementedError(f"OBSMindDataset {_OBS}")


def sync_wait_for_dataset(rank_id: int, rank_size: int, current_epoch: int, obs_runtime: Any) -> None:
    """MindSpore's wait for the OBS download of an epoch's data (``OBSMindDataset``): refused with
    NotImplementedError, as ``OBSMindDataset`` is."""
    raise NotImplementedError(f"sync_wait_for_dataset serves OBSMindDataset, which {_OBS}")


__all__ = ["DatasetCache", "OBSMindDataset", "sync_wait_for_dataset"]
