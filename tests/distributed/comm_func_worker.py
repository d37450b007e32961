"""The program every rank of tests/distributed/test_comm_func.py runs (``mpirun -n N python comm_func_worker.py
OUT``): each function of ``mindspore.communication.comm_func`` (imported under the MindSpore alias, as a model
zoo does) on data that depends on the rank (tensor_api_worker.data), written to ``OUT/rank<r>.npz`` (arrays) and
``OUT/rank<r>.json`` (Python values), which the test checks against NumPy on the data of every rank."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np

import opbuild

sys.path.insert(0, str(Path(__file__).parent))  # run as a script: tensor_api_worker is a sibling file
from tensor_api_worker import data  # noqa: E402

opbuild.alias_mindspore()
import mindspore as ms  # noqa: E402
import mindspore.communication.comm_func as cf  # noqa: E402
from mindspore import Tensor  # noqa: E402
from mindspore import communication as comm  # noqa: E402
from mindspore.communication.comm_func import P2POp  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)  # test_comm_func.py checks them in one process


def _collectives(r: int, n: int, arrays: dict, values: dict) -> None:
    x = Tensor(data(r))
    for op in ("sum", "max", "prod"):
        out, handle = cf.all_reduce(x, op)
        arrays[f"all_reduce_{op}"] = out.asnumpy()
        values[f"all_reduce_{op}_handle"] = handle
    out, handle = cf.all_reduce(Tensor(data(r, "int32")), "min", async_op=True)
    handle.wait()
    arrays["all_reduce_min_int32"] = out.asnumpy()
    arrays["all_reduce_input_after"] = x.asnumpy()
    out, handle = cf.all_gather_into_tensor(x, async_op=True)
    handle.wait()
    arrays["all_gather_into_tensor"] = out.asnumpy()
    out, handle = cf.reduce_scatter_tensor(Tensor(data(r, rows=2 * n)))
    arrays["reduce_scatter_tensor"], values["reduce_scatter_handle"] = out.asnumpy(), handle
    arrays["reduce_scatter_max"] = cf.reduce_scatter_tensor(Tensor(data(r, rows=n)), "max")[0].asnumpy()
    arrays["reduce_to_1"] = cf.reduce(x, 1).asnumpy()
    arrays["reduce_max_to_0"] = cf.reduce(x, dst=0, op="max").asnumpy()
    arrays["broadcast_from_last"] = cf.broadcast(x, src=n - 1).asnumpy()
    arrays["broadcast_default"] = cf.broadcast(x).asnumpy()
    arrays["scatter_tensor"] = cf.scatter_tensor(Tensor(data(r, rows=2 * n)), src=0).asnumpy()
    arrays["gather_into_tensor"] = cf.gather_into_tensor(x, dst=n - 1).asnumpy()
    arrays["input_after"] = x.asnumpy()
    values["barrier"] = cf.barrier()


def _point_to_point(r: int, n: int, arrays: dict, values: dict) -> None:
    nxt, prev = (r + 1) % n, (r - 1) % n
    like = Tensor(np.full((2, 3), -1, np.float32))
    handle = cf.isend(Tensor(data(r)), dst=nxt, tag=5)
    arrays["recv"] = cf.recv(like, src=prev, tag=5).asnumpy()
    handle.wait()
    arrays["recv_like_after"] = like.asnumpy()
    out, handle = cf.irecv(like, src=prev)
    values["send_returns"] = cf.send(Tensor(data(r) * 2), dst=nxt)
    handle.wait()
    arrays["irecv"] = out.asnumpy()
    outs = cf.batch_isend_irecv([P2POp(cf.isend, Tensor(data(r, "int32") * 3), nxt),
                                 P2POp("irecv", (2, 3), prev, recv_dtype=ms.int32),
                                 P2POp(cf.irecv, Tensor(np.zeros((2, 3), np.float64)), nxt),
                                 P2POp("isend", Tensor(data(r, "float64") * 4), prev)])
    values["batch_types"] = [type(o).__name__ for o in outs]
    values["batch_send_placeholder"] = [outs[0].asnumpy().tolist(), str(outs[0].asnumpy().dtype)]
    arrays["batch_from_prev"], arrays["batch_from_next"] = outs[1].asnumpy(), outs[2].asnumpy()


def _all_to_all(r: int, n: int, arrays: dict, values: dict) -> None:
    ins = [Tensor(np.full((j + 1,), 100 * r + j, np.float32)) for j in range(n)]
    shapes = [(r + 1,) if q % 2 == 0 else Tensor(np.zeros((1, r + 1), np.float32)) for q in range(n)]
    outs, handle = cf.all_to_all_with_output_shape(shapes, ins)
    values["a2a_shapes"], values["a2a_handle"] = [list(o.shape) for o in outs], handle
    arrays["a2a"] = np.concatenate([o.asnumpy().reshape(-1) for o in outs])
    out, handle = cf.all_to_all_single_with_output_shape((n, 3), Tensor(data(r, rows=n)), async_op=True)
    handle.wait()
    arrays["a2a_single"] = out.asnumpy()
    send_rows = [j + 1 for j in range(n)]  # rank i sends j + 1 rows to rank j: receives r + 1 from each
    out, _ = cf.all_to_all_single_with_output_shape(Tensor(np.zeros(((r + 1) * n, 3), np.float32)),
                                                    Tensor(data(r, rows=sum(send_rows))), [r + 1] * n, send_rows)
    arrays["a2a_single_uneven"] = out.asnumpy()
    # rank i has n * (i + 1) rows and no input_split_sizes: it sends i + 1 rows to each rank
    out, _ = cf.all_to_all_single_with_output_shape((sum(send_rows), 3), Tensor(data(r, rows=n * (r + 1))),
                                                    output_split_sizes=send_rows)
    arrays["a2a_single_input_splits_none"] = out.asnumpy()
    matrix = [[i + j + 1 for j in range(n)] for i in range(n)]  # rank i sends i + j + 1 rows to rank j
    src = np.arange(2 * sum(matrix[r]), dtype=np.float32).reshape(-1, 2) + 100 * r
    dst = Tensor(np.zeros((sum(matrix[i][r] for i in range(n)), 2), np.float32))
    values["a2a_v_c_returns"] = cf.all_to_all_v_c(dst, Tensor(src), sum(matrix, []))
    arrays["a2a_v_c"] = dst.asnumpy()


def main() -> None:
    out = sys.argv[1]
    comm.init()
    r, n = comm.get_rank(), comm.get_group_size()
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, object] = {"same_module": cf is opbuild.communication.comm_func,
                                 "via_attribute": comm.comm_func is cf}
    _collectives(r, n, arrays, values)
    _point_to_point(r, n, arrays, values)
    _all_to_all(r, n, arrays, values)
    if r in (0, n - 1):  # a group of the first and last rank, created by its members as MindSpore's is
        comm.create_group("ends", [0, n - 1])
        arrays["group_all_reduce"] = cf.all_reduce(Tensor(data(r)), group="ends")[0].asnumpy()
        arrays["group_gather_to_last"] = cf.gather_into_tensor(Tensor(data(r)), dst=n - 1, group="ends").asnumpy()
        comm.destroy_group("ends")
    cf.barrier("hccl_world_group")
    np.savez(f"{out}/rank{r}.npz", **arrays)
    with open(f"{out}/rank{r}.json", "w") as f:
        json.dump(values, f)
    comm.release()


if __name__ == "__main__":
    main()
