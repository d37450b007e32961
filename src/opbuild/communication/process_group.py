"""Joining, leaving and describing process groups in PyTorch's words (MindSpore's ``mint.distributed`` and
``ops.communication``: ``init_process_group``, ``new_group``, ``get_rank``, ...), and MindSpore's own
``communication`` names for created groups (``create_group``, ``destroy_group``, rank translations).

The transport is MPI whatever ``backend`` names (management.py): launch the program with ``mpirun -n N``; a
program started without a launcher is a job of one rank. ``init_method`` and ``store`` (a TCP rendezvous) are
refused: MPI's launcher already connected the ranks.
"""

from __future__ import annotations

import itertools
from typing import Any

from . import groups, management

#: The backend names init_process_group accepts (MindSpore's, and "mpi"); all mean MPI here.
BACKENDS = ("hccl", "mccl", "nccl", "mpi")

_backend = {"name": "hccl"}
_serial = itertools.count()


def init_process_group(backend: str = "hccl", init_method: str | None = None, timeout: Any = None,
                       world_size: int = -1, rank: int = -1, store: Any = None, group_name: str = "",
                       pg_options: Any = None, device_id: Any = None) -> None:
    """Join the job's process group (the world). ``world_size`` and ``rank``, when given, must be what the
    launcher made; ``init_method`` and ``store`` are refused (module docstring)."""
    if backend not in BACKENDS:
        raise ValueError(f"init_process_group: backend must be one of {BACKENDS} (each means MPI here), got "
                         f"{backend!r}")
    if init_method is not None or store is not None:
        raise ValueError("init_process_group: init_method and store are not supported: opbuild's ranks are "
                         "MPI processes connected by their launcher (mpirun -n N python script.py)")
    for name, v in (("world_size", world_size), ("rank", rank)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"init_process_group: {name} must be an int, got {v!r}")
    management.init(None)
    g = management.group()
    if world_size not in (-1, g.size):
        raise ValueError(f"init_process_group: world_size={world_size}, but the job has {g.size} ranks "
                         "(mpirun -n sets it; leave world_size=-1)")
    if rank not in (-1, g.rank):
        raise ValueError(f"init_process_group: rank={rank}, but this process is rank {g.rank} of the job")
    _backend["name"] = backend


def destroy_process_group(group: str | None = None) -> None:
    """Leave the process group (None or a world name: every created group is freed too) or free one group."""
    if group is None or group in groups.WORLD_NAMES:
        groups.destroy_all()
        management.release()
    else:
        groups.destroy(group)


def is_available() -> bool:
    """Whether the transport (mpi4py) is installed."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def is_initialized() -> bool:
    """Whether the process group was joined."""
    return management.is_initialized()


def get_rank(group: str | None = None) -> int:
    """This process's rank in ``group`` (None: the world)."""
    return groups.resolve(group).rank


def get_world_size(group: str | None = None) -> int:
    """The number of ranks of ``group`` (None: the world)."""
    return groups.resolve(group).size


def get_backend(group: str | None = None) -> str:
    """The backend name the group was joined with (its transport is MPI)."""
    groups.resolve(group)
    return _backend["name"]


def new_group(ranks: list[int] | None = None, timeout: Any = None, backend: str | None = None,
              pg_options: Any = None, use_local_synchronization: bool = False, group_desc: str | None = None
              ) -> str:
    """A group of the world ranks ``ranks`` (None: the world), by name. Every rank of the world calls it (as
    PyTorch's); the ranks not listed get the name but are not members (using it there is an error)."""
    if ranks is None:
        groups.resolve(None)
        return groups.WORLD_NAMES[0]
    if not isinstance(ranks, (list, tuple)) or not ranks:
        raise TypeError(f"new_group: ranks must be a non-empty list of world ranks or None, got {ranks!r}")
    listed = sorted(ranks)
    name = f"{group_desc or 'group'}_{'_'.join(str(r) for r in listed)}_{next(_serial)}"
    if management.group().rank in listed:
        groups.create(name, listed)
    return name


def get_process_group_ranks(group: str | None = None) -> list[int]:
    """The world ranks of ``group``, in group-rank order."""
    return list(groups.resolve(group).ranks)


def get_global_rank(group: str | None, group_rank: int) -> int:
    """The world rank of rank ``group_rank`` of ``group``."""
    g = groups.resolve(group)
    if isinstance(group_rank, bool) or not isinstance(group_rank, int) or not 0 <= group_rank < g.size:
        raise ValueError(f"get_global_rank: group_rank must be in [0, {g.size}) for group {g.name!r}, got "
                         f"{group_rank!r}")
    return g.ranks[group_rank]


def get_group_rank(group: str | None, global_rank: int) -> int:
    """The rank in ``group`` of world rank ``global_rank``."""
    return groups.resolve(group).group_rank(global_rank, "get_group_rank: global_rank")


# MindSpore's communication names for the same things.
def create_group(group: str, rank_ids: list[int], options: Any = None) -> None:
    """Create group ``group`` of the world ranks ``rank_ids``: called by each of those ranks (groups.py)."""
    groups.create(group, rank_ids)


def destroy_group(group: str) -> None:
    """Free group ``group`` (created by :func:`create_group`)."""
    groups.destroy(group)


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    """The world rank of rank ``group_rank_id`` of ``group``."""
    return get_global_rank(group, group_rank_id)


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    """The rank in ``group`` of world rank ``world_rank_id``."""
    return get_group_rank(group, world_rank_id)


def get_comm_name(group: str = "hccl_world_group") -> str:
    """The name of ``group``'s communicator (the group's own name)."""
    return groups.resolve(group).name


__all__ = ["BACKENDS", "create_group", "destroy_group", "destroy_process_group", "get_backend", "get_comm_name",
           "get_global_rank", "get_group_rank", "get_group_rank_from_world_rank", "get_process_group_ranks",
           "get_rank", "get_world_rank_from_group_rank", "get_world_size", "init_process_group", "is_available",
           "is_initialized", "new_group"]
