"""``opbuild.communication`` (MindSpore's ``mindspore.communication``): the job's process group over MPI, the
collectives' NumPy implementations, and the parallel context. See management.py for what init() sets up."""

from __future__ import annotations

from . import collective
from .auto_parallel import get_auto_parallel_context, reset_auto_parallel_context, set_auto_parallel_context
from .management import (
    get_group_size,
    get_local_rank,
    get_local_rank_size,
    get_rank,
    init,
    is_initialized,
    release,
)

# MindSpore's name of the world group: the only group here.
GlobalComm = type("GlobalComm", (), {"WORLD_COMM_GROUP": "world_group", "BACKEND": "mpi"})
HCCL_WORLD_COMM_GROUP = NCCL_WORLD_COMM_GROUP = "world_group"

__all__ = ["collective", "init", "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size",
           "is_initialized", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context", "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP"]
