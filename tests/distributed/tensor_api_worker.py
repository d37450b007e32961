"""The program every rank of tests/distributed/test_tensor_api.py runs (``mpirun -n N python
tensor_api_worker.py OUT``): each function of ``mint.distributed`` / ``ops.communication`` once or more, on
data that depends on the rank (:func:`data`), written to ``OUT/rank<r>.npz`` (arrays) and ``OUT/rank<r>.json``
(Python values), which the test checks against NumPy on the data of every rank."""

from __future__ import annotations

import json
import sys

import numpy as np

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild import communication as comm
from opbuild.mint import distributed as dist
from opbuild.ops import communication as opscomm


def data(rank: int, dtype: str = "float32", rows: int = 2) -> np.ndarray:
    """Rank ``rank``'s (rows, 3) input: distinct per rank, exact in every dtype used."""
    return (np.arange(rows * 3).reshape(rows, 3) + 10 * rank + 1).astype(dtype)


class GroupSum(nn.Cell):
    """A GRAPH_MODE AllReduce and AllGather over a named group."""

    def __init__(self, group: str) -> None:
        super().__init__()
        self.reduce = ops.AllReduce(group=group)
        self.gather = ops.AllGather(group=group)

    def construct(self, x):
        return self.reduce(x), self.gather(x)


def _switched_off(r: int, n: int, arrays: dict, values: dict) -> None:
    """ops.communication's forms with set_comm_ops_inplace(False): results returned, arguments kept; mint's
    functions stay in place."""
    opscomm.set_comm_ops_inplace(False)
    try:
        x = Tensor(data(r))
        out, handle = opscomm.all_reduce(x)
        arrays["returned_all_reduce"], arrays["returned_all_reduce_input"] = out.asnumpy(), x.asnumpy()
        values["returned_all_reduce_handle"] = handle
        out, handle = opscomm.all_gather_into_tensor(None, Tensor(data(r)), async_op=True)
        handle.wait()
        arrays["returned_all_gather"] = out.asnumpy()
        out, _ = opscomm.reduce_scatter_tensor(None, Tensor(data(r, rows=2 * n)), "max")
        arrays["returned_reduce_scatter_max"] = out.asnumpy()
        t = Tensor(data(r))
        dist.all_reduce(t)
        arrays["mint_still_in_place"] = t.asnumpy()
    finally:
        opscomm.set_comm_ops_inplace(True)


def main() -> None:
    out = sys.argv[1]
    dist.init_process_group()
    r, n = dist.get_rank(), dist.get_world_size()
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, object] = {"rank": r, "size": n, "backend": dist.get_backend(),
                                 "initialized": dist.is_initialized(), "available": dist.is_available()}

    for op in ("sum", "max", "min", "prod"):
        t = Tensor(data(r))
        dist.all_reduce(t, op)
        arrays[f"all_reduce_{op}"] = t.asnumpy()
    for dt in ("int32", "float16", "float64"):
        t = Tensor(data(r, dt))
        assert dist.all_reduce(t) is None
        arrays[f"all_reduce_sum_{dt}"] = t.asnumpy()
    flags = Tensor(np.array([r == 1, False, True]))
    handle = dist.all_reduce(flags, "max", async_op=True)
    handle.wait()
    arrays["all_reduce_max_bool"] = flags.asnumpy()

    t = Tensor(data(r))
    dist.reduce(t, dst=1)
    arrays["reduce_sum_to_1"] = t.asnumpy()
    t = Tensor(data(r))
    dist.broadcast(t, src=n - 1)
    arrays["broadcast_from_last"] = t.asnumpy()

    t = Tensor(np.zeros((2 * n, 3), np.float32))
    dist.all_gather_into_tensor(t, Tensor(data(r)))
    arrays["all_gather_into_tensor"] = t.asnumpy()
    outs = [Tensor(np.zeros((2, 3), np.float32)) for _ in range(n)]
    dist.all_gather(outs, Tensor(data(r)))
    arrays["all_gather"] = np.stack([o.asnumpy() for o in outs])
    rows = list(range(1, n + 1))  # rank i contributes i + 1 rows
    t = Tensor(np.zeros((sum(rows), 3), np.float32))
    dist.all_gather_into_tensor_uneven(t, Tensor(data(r, rows=r + 1)), output_split_sizes=rows)
    arrays["all_gather_uneven"] = t.asnumpy()

    t = Tensor(np.zeros((2, 3), np.float32))
    dist.reduce_scatter_tensor(t, Tensor(data(r, rows=2 * n)))
    arrays["reduce_scatter_tensor"] = t.asnumpy()
    t = Tensor(np.zeros((2, 3), np.float32))
    dist.reduce_scatter(t, [Tensor(data(r) * (j + 1)) for j in range(n)], op="max")
    arrays["reduce_scatter_max"] = t.asnumpy()
    t = Tensor(np.zeros((r + 1, 3), np.float32))
    dist.reduce_scatter_tensor_uneven(t, Tensor(data(r, rows=sum(rows))), input_split_sizes=rows)
    arrays["reduce_scatter_uneven"] = t.asnumpy()

    t = Tensor(np.zeros((n, 3), np.float32))
    dist.all_to_all_single(t, Tensor(data(r, rows=n)))
    arrays["all_to_all_single"] = t.asnumpy()
    # rank i sends j + 1 rows to rank j, so receives i + 1 rows from each rank
    send_rows = [j + 1 for j in range(n)]
    t = Tensor(np.zeros(((r + 1) * n, 3), np.float32))
    dist.all_to_all_single(t, Tensor(data(r, rows=sum(send_rows))), [r + 1] * n, send_rows)
    arrays["all_to_all_single_uneven"] = t.asnumpy()
    ins = [Tensor(np.full((j + 1,), 100 * r + j, np.float32)) for j in range(n)]
    outs = [Tensor(np.zeros((r + 1,), np.float32)) for _ in range(n)]
    dist.all_to_all(outs, ins)
    arrays["all_to_all"] = np.concatenate([o.asnumpy() for o in outs])

    outs = [Tensor(np.zeros((2, 3), np.float32)) for _ in range(n)] if r == 0 else None
    dist.gather(Tensor(data(r)), outs, dst=0)
    if r == 0:
        arrays["gather_to_0"] = np.stack([o.asnumpy() for o in outs])
    t = Tensor(np.zeros((2, 3), np.float32))
    dist.scatter(t, [Tensor(data(j) * 2) for j in range(n)] if r == 1 else None, src=1)
    arrays["scatter_from_1"] = t.asnumpy()
    t = Tensor(np.zeros((2 * n, 3), np.float32))
    opscomm.gather_into_tensor(t, Tensor(data(r)), dst=n - 1)
    arrays["gather_into_tensor"] = t.asnumpy()
    t = Tensor(np.zeros((2, 3), np.float32))
    opscomm.scatter_tensor(t, Tensor(data(0, rows=2 * n)), src=0)
    arrays["scatter_tensor"] = t.asnumpy()
    matrix = [[i + j + 1 for j in range(n)] for i in range(n)]  # rank i sends i + j + 1 values to rank j
    t = Tensor(np.zeros(sum(matrix[i][r] for i in range(n)), np.float32))
    opscomm.all_to_all_v_c(t, Tensor(np.arange(sum(matrix[r]), dtype=np.float32) + 100 * r), matrix)
    arrays["all_to_all_v_c"] = t.asnumpy()

    # a ring: each rank sends its data to the next and receives the previous one's
    nxt, prev = (r + 1) % n, (r - 1) % n
    t = Tensor(np.zeros((2, 3), np.float32))
    h = dist.isend(Tensor(data(r)), dst=nxt, tag=3)
    values["recv_returns"] = dist.recv(t, src=prev, tag=3)
    h.wait()
    arrays["ring_send_recv"] = t.asnumpy()
    t = Tensor(np.zeros((2, 3), np.float32))
    handles = dist.batch_isend_irecv([dist.P2POp(dist.isend, Tensor(data(r) * 3), nxt),
                                      dist.P2POp("irecv", t, prev)])
    for h in handles:
        h.wait()
    arrays["ring_batch"] = t.asnumpy()
    if r == 0:
        dist.send(Tensor(np.ones(3, np.float32)), dst=1)
    elif r == 1:
        try:
            dist.recv(Tensor(np.zeros(5, np.float32)), src=0)
        except ValueError as e:
            values["recv_wrong_size"] = str(e)

    got = [None] * n
    dist.all_gather_object(got, {"rank": r, "name": f"r{r}"})
    values["all_gather_object"] = got
    objs = [f"from {r}", r * 2]
    dist.broadcast_object_list(objs, src=n - 1)
    values["broadcast_object_list"] = objs
    got = [None] * n if r == 0 else None
    dist.gather_object((r, "x"), got, dst=0)
    values["gather_object"] = got
    slot = [None]
    dist.scatter_object_list(slot, [{"to": j} for j in range(n)] if r == 1 else None, src=1)
    values["scatter_object_list"] = slot
    if r == 0:
        dist.send_object_list([1, "two", {"three": 3}], dst=n - 1)
    elif r == n - 1:
        got = [None, None, None]
        dist.recv_object_list(got, src=0)
        values["recv_object_list"] = got

    # a sub-group of the first and last rank: every rank calls new_group, only members use it
    ends = dist.new_group([0, n - 1])
    values["group_ranks"] = None
    if r in (0, n - 1):
        values["group_ranks"] = dist.get_process_group_ranks(ends)
        values["group_rank"] = dist.get_rank(ends)
        values["group_size"] = dist.get_world_size(ends)
        values["global_of_group_1"] = dist.get_global_rank(ends, 1)
        values["group_of_last"] = dist.get_group_rank(ends, n - 1)
    t = Tensor(data(r))
    if r in (0, n - 1):
        dist.all_reduce(t, group=ends)
    arrays["group_all_reduce"] = t.asnumpy()
    dist.barrier()

    # MindSpore's communication.create_group, and the graph collectives over it
    if r < 2:
        comm.create_group("first_two", [0, 1])
        values["comm_rank"] = comm.get_rank("first_two")
        values["comm_world_of_1"] = comm.get_world_rank_from_group_rank("first_two", 1)
        ms.set_context(mode=ms.GRAPH_MODE)
        total, gathered = GroupSum("first_two")(Tensor(data(r)))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        arrays["graph_group_all_reduce"] = total.asnumpy()
        arrays["graph_group_all_gather"] = gathered.asnumpy()
        comm.destroy_group("first_two")
    dist.barrier()
    _switched_off(r, n, arrays, values)

    np.savez(f"{out}/rank{r}.npz", **arrays)
    with open(f"{out}/rank{r}.json", "w") as f:
        json.dump(values, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
