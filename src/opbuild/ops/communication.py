"""``mindspore.ops.communication``: PyTorch-style process groups, collectives and messages on Tensors, in
place, over MPI (launch with ``mpirun -n N``; docs/distributed.md): the names of ``mint.distributed`` and three
more of MindSpore's, ``gather_into_tensor``, ``scatter_tensor`` and ``all_to_all_v_c``. The implementations live
in ``opbuild.communication`` (process_group.py, tensor_collectives.py, point_to_point.py); ``TCPStore`` in
tcp_store.py, and ``set_comm_ops_inplace`` with the forms it switches in comm_inplace.py."""

from __future__ import annotations

from ..communication.comm_inplace import (
    all_gather_into_tensor,
    all_gather_into_tensor_uneven,
    all_reduce,
    batch_isend_irecv,
    broadcast,
    gather_into_tensor,
    reduce,
    reduce_scatter_tensor,
    reduce_scatter_tensor_uneven,
    scatter_tensor,
    set_comm_ops_inplace,
)
from ..communication.point_to_point import (
    P2POp,
    all_gather_object,
    broadcast_object_list,
    gather_object,
    irecv,
    isend,
    recv,
    recv_object_list,
    scatter_object_list,
    send,
    send_object_list,
)
from ..communication.process_group import (
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_initialized,
    new_group,
)
from ..communication.tcp_store import TCPStore
from ..communication.tensor_collectives import (
    CommHandle,
    all_gather,
    all_to_all,
    all_to_all_single,
    all_to_all_v_c,
    barrier,
    gather,
    reduce_scatter,
    scatter,
)

__all__ = ["init_process_group", "destroy_process_group", "get_rank", "get_world_size", "new_group", "get_backend",
           "get_global_rank", "get_process_group_ranks", "get_group_rank", "all_reduce", "all_gather_into_tensor",
           "all_gather_into_tensor_uneven", "all_to_all", "all_to_all_single", "reduce_scatter_tensor",
           "reduce_scatter_tensor_uneven", "isend", "irecv", "send", "recv", "send_object_list", "recv_object_list",
           "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast", "reduce", "P2POp",
           "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "is_available", "is_initialized"]
#: The names of ``mint.distributed`` (MindSpore 2.10's list); ops.communication has three more, and CommHandle.
MINT_NAMES = tuple(__all__)
__all__ += ["gather_into_tensor", "scatter_tensor", "all_to_all_v_c", "CommHandle", "TCPStore",
            "set_comm_ops_inplace"]
