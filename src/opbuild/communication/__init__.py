"""``opbuild.communication`` (MindSpore's ``mindspore.communication``): the job's process group over MPI, named
sub-groups, the collectives' NumPy implementations, and the parallel context. See management.py for what init()
sets up and groups.py for the groups."""

from __future__ import annotations

from . import collective, comm_func  # noqa: F401 - comm_func: an attribute in MindSpore, not in its __all__
from .auto_parallel import get_auto_parallel_context, reset_auto_parallel_context, set_auto_parallel_context
from .groups import resolve as _resolve
from .management import GlobalComm, init, is_initialized, release
from .process_group import (
    create_group,
    destroy_group,
    get_comm_name,
    get_group_rank_from_world_rank,
    get_world_rank_from_group_rank,
)

# MindSpore's names of the world group (opbuild's own is "world_group"; groups.WORLD_NAMES accepts each).
HCCL_WORLD_COMM_GROUP, NCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP = ("hccl_world_group", "nccl_world_group",
                                                                      "mccl_world_group")


def get_rank(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """This process's rank in ``group`` (a world name or None: the job; else a group of create_group)."""
    return _resolve(group).rank


def get_group_size(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """The number of ranks of ``group``."""
    return _resolve(group).size


def get_local_rank(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """This process's rank among the ranks of ``group`` on this machine."""
    return _resolve(group).local_rank


def get_local_rank_size(group: str = HCCL_WORLD_COMM_GROUP) -> int:
    """The number of ranks of ``group`` on this machine."""
    return _resolve(group).local_size


def get_process_group_ranks(group: str = HCCL_WORLD_COMM_GROUP) -> list[int]:
    """The world ranks of ``group``, in group-rank order."""
    return list(_resolve(group).ranks)


__all__ = ["collective", "init", "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size",
           "is_initialized", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
           "MCCL_WORLD_COMM_GROUP", "create_group", "destroy_group", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "get_comm_name", "get_process_group_ranks"]
