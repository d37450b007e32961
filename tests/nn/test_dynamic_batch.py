"""A dynamic batch dimension (nn/dynamic_batch.py): a Cell declared with ``set_inputs(Tensor(shape=[None, ...]))``
or an ONNX model with a ``dim_param`` batch runs every batch size on the kernels built once (build reports show
nothing built for a new size), with the results of a static run; graphs that mix the rows fall back to one build
per size, still correct, and say why."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import opbuild as ms
import opbuild.onnx
from opbuild import nn
from opbuild.core.errors import ConfigError
from opbuild.nn import batch_chunks, batch_runtime, dynamic_batch

pytestmark = pytest.mark.usefixtures("graph_mode")


class SmallCNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 5)
        self.sm = nn.Softmax()

    def construct(self, x):
        return self.sm(self.fc(self.flat(self.pool(self.relu(self.bn(self.conv(x)))))))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8)
        self.fc2 = nn.Dense(8, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _twin(cls):
    """A cell and a static twin with the same parameter values."""
    a, b = cls(), cls()
    for p, q in zip(a.get_parameters(), b.get_parameters()):
        q.set_data(ms.Tensor(p.asnumpy().copy()))
    a.set_train(False)
    b.set_train(False)
    return a, b


def test_placeholder_tensor_declares_a_free_dimension() -> None:
    t = ms.Tensor(shape=[None, 3, 32, 32], dtype=ms.float32)
    assert t.shape == (-1, 3, 32, 32) and t.dtype == ms.float32
    with pytest.raises(ValueError, match="dtype"):
        ms.Tensor(shape=[None, 3])
    with pytest.raises(ValueError, match="not both"):
        ms.Tensor([1.0], shape=[1])
    static = ms.Tensor(shape=[2, 3], dtype=ms.int32)  # every dim given: data (zeros)
    assert static.asnumpy().dtype == np.int32 and not static.asnumpy().any() and static.shape == (2, 3)


def test_static_declarations_check_calls_and_run_static() -> None:
    net = MLP()
    net.set_inputs(ms.Tensor(shape=[2, 6], dtype=ms.float32))
    assert net(ms.Tensor(np.ones((2, 6), np.float32))).shape == (2, 3)
    with pytest.raises(ValueError, match=r"declared float32\[2, 6\]"):
        net(ms.Tensor(np.ones((3, 6), np.float32)))
    assert dynamic_batch.verdict(net._graphs) == []


@pytest.fixture(params=["runtime", "chunks"])
def batch_mode(request, monkeypatch) -> str:
    """Both ways of running a dynamic batch: run-time-batch kernels (the default) and the chunk graphs."""
    monkeypatch.setenv(batch_runtime.MODE_VARIABLE, request.param)
    return request.param


def test_cnn_runs_new_batch_sizes_without_building(batch_mode) -> None:
    net, static = _twin(SmallCNN)
    net.set_inputs(ms.Tensor(shape=[None, 3, 8, 8], dtype=ms.float32))
    rng = np.random.default_rng(0)
    for i, b in enumerate((1, 3, 8)):
        x = rng.standard_normal((b, 3, 8, 8)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        report = ms.build_report()
        if i:  # every size after the first builds nothing and reuses the batch-1 kernels
            assert report.built == 0 and report.reused > 0, report.as_dict()
        want = static(ms.Tensor(x)).asnumpy()
        assert y.shape == (b, 5)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    # The chunk graphs serve every size, or one graph of run-time-batch kernels
    assert len(net.compile_info()) == (len(batch_chunks.chunk_sizes()) if batch_mode == "chunks" else 1)
    assert dynamic_batch.verdict(net._graphs)[0].rowwise


def test_mlp_matches_numpy_for_each_batch_size(batch_mode) -> None:
    net = MLP()
    net.set_inputs(ms.Tensor(shape=[None, 6], dtype=ms.float32))
    w1, b1, w2, b2 = (p.asnumpy() for p in net.get_parameters())
    rng = np.random.default_rng(1)
    for b in (1, 3, 8, 21, 2):  # 21 = 16 + 4 + 1: every chunk size
        x = rng.standard_normal((b, 6)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        want = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
        if b != 1:
            assert ms.build_report().built == 0


class TokenSlices(nn.Cell):
    """Slices that keep every row (a transformer's class token, a window of features): row-wise."""

    def construct(self, x):
        return x[:, 0] + x[:, 1:3].sum(1) + ms.ops.Slice()(x, (0, 3, 0), (x.shape[0], 1, 4)).squeeze(1)


def test_slices_keeping_every_row_are_row_wise() -> None:
    net = TokenSlices()
    net.set_inputs(ms.Tensor(shape=[None, 5, 4], dtype=ms.float32))
    rng = np.random.default_rng(6)
    for b in (1, 6, 17):
        x = rng.standard_normal((b, 5, 4)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        if b != 1:
            assert ms.build_report().built == 0
        np.testing.assert_allclose(y, x[:, 0] + x[:, 1:3].sum(1) + x[:, 3], rtol=1e-5, atol=1e-6)
    assert dynamic_batch.verdict(net._graphs)[0].rowwise


class RowConstants(nn.Cell):
    """Values of the batch's shape made from no batched input, every row the same (position ids expanded to
    the batch, a fill): row-wise."""

    def __init__(self):
        super().__init__()
        self.pos = ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 4)), name="pos")

    def construct(self, x):
        n = x.shape[0]
        return x + ms.ops.broadcast_to(self.pos, (n, 4)) + ms.ops.Fill()(ms.float32, (n, 4), 2.0)


def test_row_constants_are_row_wise() -> None:
    net = RowConstants()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    rng = np.random.default_rng(7)
    for b in (1, 7):
        x = rng.standard_normal((b, 4)).astype(np.float32)
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), x + np.arange(4) + 2.0, rtol=1e-6)
    assert ms.build_report().built == 0
    assert dynamic_batch.verdict(net._graphs)[0].rowwise


class BatchInside(nn.Cell):
    """The batch moved to dim 1 inside the graph (as timm's attention does) and back: still row-wise."""

    def construct(self, x):
        t = ms.ops.transpose(x, (1, 0, 2))  # (3, N, 4)
        return ms.ops.softmax(t, axis=2).sum(0) + ms.ops.transpose(t, (1, 0, 2))[:, 0]


def test_batch_moved_inside_the_graph_is_row_wise() -> None:
    net = BatchInside()
    net.set_inputs(ms.Tensor(shape=[None, 3, 4], dtype=ms.float32))
    rng = np.random.default_rng(8)
    for b in (1, 6, 21):
        x = rng.standard_normal((b, 3, 4)).astype(np.float32)
        e = np.exp(x - x.max(2, keepdims=True))
        want = (e / e.sum(2, keepdims=True)).sum(1) + x[:, 0]
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
        if b != 1:
            assert ms.build_report().built == 0
    assert dynamic_batch.verdict(net._graphs)[0].rowwise


class SoftmaxOverBatch(nn.Cell):
    """Every op is row-shaped, but Softmax along axis 0 mixes the rows: must not run row by row."""

    def construct(self, x):
        return ms.ops.softmax(x * 2.0, axis=0)


class MeanOverBatch(nn.Cell):
    def construct(self, x):
        return (x * x).mean()


class ReverseRows(nn.Cell):
    """Same shapes at every batch size, but row i reads row n-1-i."""

    def construct(self, x):
        return x[::-1] + 1.0


class DropFirstRow(nn.Cell):
    def construct(self, x):
        return x[1:] * 2.0


class FirstRowOnly(nn.Cell):
    def construct(self, x):
        return x[0:1] * 2.0


class ScrambleRows(nn.Cell):
    """The batch moved to dim 1, then a Reshape that reads it row-major as if it were first: mixes rows."""

    def construct(self, x):
        return ms.ops.transpose(x, (1, 0)).reshape(x.shape[0], 8) * 1.0


class RowIndexes(nn.Cell):
    """A value of the batch's shape whose rows differ (each row's index): must not run in chunks."""

    def construct(self, x):
        return x + ms.Tensor(np.arange(x.shape[0], dtype=np.float32).reshape(-1, 1))


class BranchOnBatchSize(nn.Cell):
    """Python code reading the batch size: the chunk graphs (16, 4, 1) would compute other functions."""

    def construct(self, x):
        return x * 2.0 if x.shape[0] > 4 else x * 3.0


@pytest.mark.parametrize("cls", [SoftmaxOverBatch, MeanOverBatch, ReverseRows, BranchOnBatchSize, DropFirstRow,
                                 FirstRowOnly, RowIndexes, ScrambleRows])
def test_graphs_mixing_rows_fall_back_to_static_builds(cls) -> None:
    net = cls()
    net.set_inputs(ms.Tensor(shape=[None, 8 if cls is ScrambleRows else 4], dtype=ms.float32))
    rng = np.random.default_rng(2)
    with pytest.warns(UserWarning, match="falls back to one build per batch size"):
        for b in (2, 5):
            x = rng.standard_normal((b, 8 if cls is ScrambleRows else 4)).astype(np.float32)
            y = net(ms.Tensor(x)).asnumpy()
            if cls is ScrambleRows:
                np.testing.assert_allclose(y, x.T.reshape(b, 8), rtol=1e-6)
            elif cls is SoftmaxOverBatch:
                e = np.exp(2 * x - (2 * x).max(0))
                np.testing.assert_allclose(y, e / e.sum(0), rtol=1e-5)
            elif cls is ReverseRows:
                np.testing.assert_allclose(y, x[::-1] + 1.0, rtol=1e-6)
            elif cls is DropFirstRow:
                np.testing.assert_allclose(y, x[1:] * 2.0, rtol=1e-6)
            elif cls is RowIndexes:
                np.testing.assert_allclose(y, x + np.arange(b).reshape(-1, 1), rtol=1e-6)
            elif cls is FirstRowOnly:
                np.testing.assert_allclose(y, x[0:1] * 2.0, rtol=1e-6)
            elif cls is BranchOnBatchSize:
                np.testing.assert_allclose(y, x * (2.0 if b > 4 else 3.0), rtol=1e-6)
            else:
                np.testing.assert_allclose(y, (x * x).mean(), rtol=1e-5)
    verdict = dynamic_batch.verdict(net._graphs)[0]
    assert not verdict.rowwise and verdict.reason
    assert len(net.compile_info()) == 2  # one static graph per size


def test_calls_are_checked_against_the_declaration() -> None:
    net = MLP()
    net.set_inputs(ms.Tensor(shape=[None, 6], dtype=ms.float32))
    with pytest.raises(ValueError, match=r"declared float32\[None, 6\]"):
        net(ms.Tensor(np.zeros((2, 5), np.float32)))
    with pytest.raises(ValueError, match="declared 1 input"):
        net(ms.Tensor(np.zeros((2, 6), np.float32)), ms.Tensor(np.zeros((2, 6), np.float32)))


def _onnx_mlp(rng) -> tuple[onnx.ModelProto, list[np.ndarray]]:
    w1 = rng.standard_normal((6, 8)).astype(np.float32)
    b1 = rng.standard_normal(8).astype(np.float32)
    w2 = rng.standard_normal((8, 3)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["a"]),
             helper.make_node("Relu", ["a"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["z"]),
             helper.make_node("Softmax", ["z"], ["y"], axis=-1)]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
                              initializer=[numpy_helper.from_array(v, k) for k, v in
                                           (("w1", w1), ("b1", b1), ("w2", w2))])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    proto.ir_version = 10
    return proto, [w1, b1, w2]


def test_onnx_dim_param_batch_builds_once() -> None:
    rng = np.random.default_rng(3)
    proto, (w1, b1, w2) = _onnx_mlp(rng)
    m = opbuild.onnx.load(proto)
    for b in (1, 3, 8):
        x = rng.standard_normal((b, 6)).astype(np.float32)
        (y,) = m.run([x])
        if b != 1:
            assert ms.build_report().built == 0
        z = np.maximum(x @ w1 + b1, 0) @ w2
        e = np.exp(z - z.max(-1, keepdims=True))
        np.testing.assert_allclose(y, e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert dynamic_batch.verdict(m._graphs)[0].rowwise


def test_chunk_sizes_setting(monkeypatch) -> None:
    monkeypatch.setenv(batch_chunks.CHUNKS_VARIABLE, "8, 2")
    assert batch_chunks.chunk_sizes() == (8, 2, 1)
    monkeypatch.setenv(batch_chunks.CHUNKS_VARIABLE, "0,4")
    with pytest.raises(ConfigError, match="OPBUILD_DYNAMIC_BATCH_CHUNKS='0,4'"):
        batch_chunks.chunk_sizes()
    monkeypatch.delenv(batch_chunks.CHUNKS_VARIABLE)
    assert batch_chunks.chunk_sizes() == batch_chunks.DEFAULT_CHUNKS


class CountingCell(nn.Cell):
    """Row-wise, but it updates a Parameter once per call: run per chunk it would count several times."""

    def __init__(self):
        super().__init__()
        self.calls = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="calls", requires_grad=False)

    def construct(self, x):
        ms.ops.AssignAdd()(self.calls, ms.Tensor(np.ones(1, np.float32)))
        return x * 2.0


def test_in_place_updates_run_once_per_call() -> None:
    net = CountingCell()
    net.set_inputs(ms.Tensor(shape=[None, 2], dtype=ms.float32))
    with pytest.warns(UserWarning, match="updates a Parameter in place"):
        for b in (5, 7):
            np.testing.assert_allclose(net(ms.Tensor(np.ones((b, 2), np.float32))).asnumpy(), 2.0)
    assert net.calls.asnumpy()[0] == 2.0


def test_inputs_with_different_free_sizes_run_static() -> None:
    class Outer(nn.Cell):
        def construct(self, a, b):
            return a.sum(1, keepdims=True) * b.sum(1)

    net = Outer()
    net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32), ms.Tensor(shape=[None, 2], dtype=ms.float32))
    a, b = np.ones((4, 3), np.float32), np.ones((5, 2), np.float32)
    y = net(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(y, a.sum(1, keepdims=True) * b.sum(1))


def test_cover_weighs_calls_against_padded_rows() -> None:
    def chunks(cost):
        return [batch_chunks.Chunk(s, None, [], lambda x: x, cost(s)) for s in (16, 4, 1)]

    overhead_bound = chunks(lambda s: 1.0 + 0.01 * s)  # a call costs the same at every size: pad
    assert [c.size for c in batch_chunks.cover(13, overhead_bound)] == [16]
    row_bound = chunks(lambda s: 0.01 + 1.0 * s)  # every row costs: no padding
    assert sorted(c.size for c in batch_chunks.cover(13, row_bound)) == [1, 4, 4, 4]
    assert batch_chunks.cover(0, row_bound) == []


@pytest.mark.parametrize("pad", [True, False])
def test_padded_and_exact_covers_give_the_same_rows(pad, monkeypatch) -> None:
    monkeypatch.setenv(batch_runtime.MODE_VARIABLE, "chunks")
    net = MLP()
    net.set_inputs(ms.Tensor(shape=[None, 6], dtype=ms.float32))
    w1, b1, w2, b2 = (p.asnumpy() for p in net.get_parameters())
    rng = np.random.default_rng(5)
    net(ms.Tensor(rng.standard_normal((1, 6)).astype(np.float32)))
    verdict = dynamic_batch.verdict(net._graphs)[0]
    for c in verdict.chunks:  # pretend the calls cost the same at every size (pad) or per row (exact)
        c.seconds = 1.0 if pad else float(c.size)
    verdict.plans.clear()
    for b in (13, 35, 2):
        x = rng.standard_normal((b, 6)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        assert ms.build_report().built == 0
        np.testing.assert_allclose(y, np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, rtol=1e-5, atol=1e-5)
    sizes = {rest: [c.size for c in plan] for rest, plan in verdict.plans.items()}
    assert sizes[13] == ([16] if pad else [4, 4, 4, 1])
