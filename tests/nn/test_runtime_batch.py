"""Kernels that take the batch size at run time (nn/batch_runtime.py, runtime/batch_graph.py, passes/row_plan.py,
targets/cpu/runtime_batch.py): a row-wise graph declared with a free batch dim is built once, every batch size
runs it with one call per kernel and nothing built, with the results of static graphs; the run-time-batch
kernels are other cache entries than the static ones; a graph with the batch inside other dims falls back to
the chunk graphs and says which op."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.cache.admin import explain
from opbuild.cache.key import diff
from opbuild.core.errors import ConfigError
from opbuild.nn import batch_runtime, dynamic_batch
from opbuild.passes.row_plan import BATCH_DIM, RUNTIME_BATCH
from opbuild.runtime.batch_graph import BatchGraph

pytestmark = pytest.mark.usefixtures("graph_mode")

SIZES = (1, 2, 5, 7, 16, 33, 3)  # 1, odd sizes, a size above every earlier one, then a smaller one again


class ConvNet(nn.Cell):
    """Conv2D (with its fused epilogue), BatchNorm in eval mode, Pad, MaxPool, AvgPool, a global mean, Dense,
    LogSoftmax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 8, 3, pad_mode="same", has_bias=True)
        self.mpool = nn.MaxPool2d(2, 2)
        self.apool = nn.AvgPool2d(2, 2)
        self.fc = nn.Dense(8 + 8 * 2 * 2, 4)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))                      # (n, 6, 8, 8)
        x = ms.ops.pad(x, (1, 1, 1, 1))                           # (n, 6, 10, 10)
        x = self.mpool(self.relu(self.conv2(x)))                  # (n, 8, 5, 5)
        g = x.mean(axis=(2, 3))                                   # (n, 8)
        a = self.apool(x[:, :, :4, :4]).reshape(x.shape[0], -1)   # (n, 32)
        return ms.ops.log_softmax(self.fc(ms.ops.concat((g, a), 1)), -1)


class Mixer(nn.Cell):
    """Elementwise chains against constants, an embedding Gather, LayerNorm, Transpose keeping the batch first,
    Split, reductions over other axes, a BatchMatMul of two batched values, Tanh."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.ln = nn.LayerNorm((8,))
        self.proj = nn.Dense(4, 4)
        self.scale = ms.Parameter(ms.Tensor(np.linspace(0.5, 1.5, 8, dtype=np.float32)), name="scale")

    def construct(self, ids, x):
        h = self.ln(self.emb(ids) + x * self.scale)               # (n, 6, 8)
        a, b = ms.ops.split(h, 4, axis=2)                         # (n, 6, 4) twice
        att = ms.ops.softmax(ms.ops.bmm(a, ms.ops.transpose(b, (0, 2, 1))), -1)  # (n, 6, 6)
        y = ms.ops.tanh(ms.ops.bmm(att, a)).sum(1) - ms.ops.amax(h, 1)[:, :4]    # (n, 4)
        return self.proj(y), h.mean(-1)


def _twin(cls):
    a, b = cls(), cls()
    for p, q in zip(a.get_parameters(), b.get_parameters()):
        q.set_data(ms.Tensor(p.asnumpy().copy()))
    a.set_train(False)
    b.set_train(False)
    return a, b


def _runtime(net) -> batch_runtime.RuntimeBatch:
    (verdict,) = dynamic_batch.verdict(net._graphs)
    assert isinstance(verdict.runtime, batch_runtime.RuntimeBatch), verdict.runtime
    return verdict.runtime


def test_convnet_runs_every_size_with_one_build() -> None:
    net, static = _twin(ConvNet)
    net.set_inputs(ms.Tensor(shape=[None, 3, 10, 10], dtype=ms.float32))
    rng = np.random.default_rng(0)
    kernels = None
    for i, b in enumerate(SIZES):
        x = rng.standard_normal((b, 3, 10, 10)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        report = ms.build_report()
        if i == 0:
            kernels = len(report.kernels)
            assert kernels > 0
        else:  # a new size: nothing built, every kernel of the one graph reused
            assert report.built == 0 and report.reused == kernels, report.as_dict()
        np.testing.assert_allclose(y, static(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)
        assert y.shape == (b, 4)
    compiled = _runtime(net).compiled
    assert net.compile_info() == [compiled] and isinstance(compiled, BatchGraph)
    # The rows arena is sized for the largest batch seen and kept for the smaller ones after it.
    assert compiled._capacity == max(SIZES) and compiled._rows.nbytes == compiled.plan.row_bytes * max(SIZES)


def test_mixer_with_two_inputs_and_two_outputs() -> None:
    net, static = _twin(Mixer)
    net.set_inputs(ms.Tensor(shape=[None, 6], dtype=ms.int32), ms.Tensor(shape=[None, 6, 8], dtype=ms.float32))
    rng = np.random.default_rng(1)
    for i, b in enumerate(SIZES):
        ids = rng.integers(0, 20, (b, 6)).astype(np.int32)
        x = rng.standard_normal((b, 6, 8)).astype(np.float32)
        got = [t.asnumpy() for t in net(ms.Tensor(ids), ms.Tensor(x))]
        if i:
            assert ms.build_report().built == 0
        want = [t.asnumpy() for t in static(ms.Tensor(ids), ms.Tensor(x))]
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    _runtime(net)


def _info(name: str) -> dict:
    root = Path(os.environ["OPBUILD_CACHE_PATH"])
    (path,) = root.glob(f"rank_*/kernel_meta/{name}.info")
    return json.loads(path.read_text())


def test_runtime_batch_kernels_are_other_cache_entries(tmp_path) -> None:
    """The same MLP, static and with a run-time batch: MatMul kernels of different names whose .info differ
    in the runtime_batch attribute and the batch dim (-1) of the batched operands."""

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(7, 5)

        def construct(self, x):
            return ms.ops.sigmoid(self.fc(x))

    net, static = _twin(MLP)
    net.set_inputs(ms.Tensor(shape=[None, 7], dtype=ms.float32))
    x = np.ones((1, 7), np.float32)
    net(ms.Tensor(x))
    dynamic_kernels = ms.build_report().kernels
    static(ms.Tensor(x))
    static_kernels = ms.build_report().kernels
    assert {k.name for k in dynamic_kernels}.isdisjoint({k.name for k in static_kernels})
    (dyn,) = [k for k in dynamic_kernels if "MatMul" in k.op]
    (sta,) = [k for k in static_kernels if k.op == dyn.op]
    d_info, s_info = _info(dyn.name), _info(sta.name)
    assert set(d_info["attrs"][RUNTIME_BATCH]) == {"generator"}
    assert d_info["inputs"][0]["shape"] == [BATCH_DIM, 7] and d_info["outputs"][0]["shape"] == [BATCH_DIM, 5]
    assert d_info["inputs"][1]["shape"] == s_info["inputs"][1]["shape"]  # the weight is not batched
    fields = {f for f, _, _ in diff(s_info, d_info)}
    assert f"attrs.{RUNTIME_BATCH}.generator" in fields and "input[0].shape" in fields, fields
    # `opbuild cache explain` of the run-time kernel, next to the static one only, names the same fields.
    meta = tmp_path / "kernel_meta"
    meta.mkdir()
    for name in (dyn.name, sta.name):
        for f in Path(os.environ["OPBUILD_CACHE_PATH"]).glob(f"rank_*/kernel_meta/{name}.*"):
            shutil.copy(f, meta / f.name)
    why = explain.explain(meta, d_info, dyn.name)
    assert why.closest == sta.name
    assert f"input[0].shape [1,7] -> [{BATCH_DIM},7]" in why.lines(), why.lines()
    assert any(line.startswith(f"attrs.{RUNTIME_BATCH}.generator (absent) -> ") for line in why.lines()), why.lines()


class BatchInside(nn.Cell):
    """The batch moved to dim 1 inside the graph (as timm's attention does) and back: the kernels reading or
    writing it there copy each row between the strided value and a contiguous scratch row."""

    def construct(self, x):
        t = ms.ops.transpose(x, (1, 0, 2)) * 2.0                    # (3, n, 4): batch in dim 1
        return ms.ops.softmax(t, axis=2).sum(0) + ms.ops.transpose(t, (1, 0, 2))[:, 1]


def _batch_inside(x: np.ndarray) -> np.ndarray:
    e = np.exp(2 * x - (2 * x).max(2, keepdims=True))
    return (e / e.sum(2, keepdims=True)).sum(1) + 2 * x[:, 1]


def test_batch_inside_other_dims_runs_with_run_time_kernels() -> None:
    net = BatchInside()
    net.set_inputs(ms.Tensor(shape=[None, 3, 4], dtype=ms.float32))
    rng = np.random.default_rng(2)
    for b in (1, 6, 21, 2):
        x = rng.standard_normal((b, 3, 4)).astype(np.float32)
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), _batch_inside(x), rtol=1e-5, atol=1e-6)
        if b != 1:
            assert ms.build_report().built == 0
    _runtime(net)


def test_a_target_without_run_time_kernels_falls_back_to_chunks(monkeypatch) -> None:
    """Where the graph cannot take the batch at run time, the chunk graphs run it (nothing built for a new
    size either) and the verdict says why."""
    from opbuild.targets.cpu import CpuTarget

    monkeypatch.delattr(CpuTarget, "runtime_batch_tag")
    net = BatchInside()
    net.set_inputs(ms.Tensor(shape=[None, 3, 4], dtype=ms.float32))
    rng = np.random.default_rng(3)
    for b in (1, 6, 21):
        x = rng.standard_normal((b, 3, 4)).astype(np.float32)
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), _batch_inside(x), rtol=1e-5, atol=1e-6)
        if b != 1:
            assert ms.build_report().built == 0  # the chunk graphs serve it
    (verdict,) = dynamic_batch.verdict(net._graphs)
    assert verdict.rowwise and verdict.chunks
    assert verdict.runtime == "the CPU target has no run-time-batch kernels"


def test_chunks_mode_and_bad_mode(monkeypatch) -> None:
    monkeypatch.setenv(batch_runtime.MODE_VARIABLE, "chunks")
    assert batch_runtime.mode() == "chunks"
    net = BatchInside()
    net.set_inputs(ms.Tensor(shape=[None, 3, 4], dtype=ms.float32))
    net(ms.Tensor(np.ones((2, 3, 4), np.float32)))
    (verdict,) = dynamic_batch.verdict(net._graphs)
    assert verdict.runtime == f"{batch_runtime.MODE_VARIABLE}=chunks" and verdict.chunks
    monkeypatch.setenv(batch_runtime.MODE_VARIABLE, "sometimes")
    with pytest.raises(ConfigError, match=batch_runtime.MODE_VARIABLE):
        batch_runtime.mode()


class Block(nn.Cell):
    """An attention block on (n, s, d) inputs: nn.Dense on a 3-D value reshapes it to (n * s, d), folding the
    batch with the sequence (s rows per batch row), and back."""

    def __init__(self):
        super().__init__()
        self.qkv, self.o = nn.Dense(8, 24), nn.Dense(8, 8)
        self.ln = nn.LayerNorm((8,))

    def construct(self, x):
        q, k, v = ms.ops.split(self.qkv(x), 8, axis=-1)
        att = ms.ops.softmax(ms.ops.bmm(q, ms.ops.transpose(k, (0, 2, 1))) * 0.35, -1)
        return self.ln(x + self.o(ms.ops.bmm(att, v)))


def test_batch_folded_with_the_sequence_by_dense() -> None:
    net, static = _twin(Block)
    net.set_inputs(ms.Tensor(shape=[None, 5, 8], dtype=ms.float32))
    rng = np.random.default_rng(4)
    built = []
    for i, b in enumerate((1, 4, 9, 2)):
        x = rng.standard_normal((b, 5, 8)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        report = ms.build_report()
        if i:
            assert report.built == 0
        else:
            built = report.kernels
        np.testing.assert_allclose(y, static(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)
    _runtime(net)
    # The folded values' descriptors say so: 5 rows per batch row, written -5.
    shapes = [t["shape"] for k in built if "MatMul" in k.op for t in _info(k.name)["inputs"]]
    assert [BATCH_DIM * 5, 8] in shapes, shapes


class TileRows(nn.Cell):
    """Tile along the batch repeats the rows: (n, d) -> (2n, d) is not n blocks of 2 rows."""

    def construct(self, x):
        return ms.ops.tile(x, (2, 1)).reshape(x.shape[0], -1) * 1.0


def test_tile_along_the_batch_is_not_row_wise() -> None:
    net = TileRows()
    net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
    for b in (1, 4):
        x = np.arange(b * 3, dtype=np.float32).reshape(b, 3)
        with pytest.warns(UserWarning, match="falls back") if b == 1 else _no_warning():
            y = net(ms.Tensor(x)).asnumpy()
        np.testing.assert_array_equal(y, np.tile(x, (2, 1)).reshape(b, -1))
    (verdict,) = dynamic_batch.verdict(net._graphs)
    assert not verdict.rowwise and "Tile" in verdict.reason, verdict.reason


def _no_warning():
    import contextlib

    return contextlib.nullcontext()


class ReuseAcross(nn.Cell):
    """An unbatched value computed in the graph, dead at an elementwise op with a batched output of its batch-1
    size: at batch 1 the output could be written over it, at batch n it would overrun it (and be read as the
    broadcast operand of later rows)."""

    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4)), name="p")

    def construct(self, x):
        t = ms.ops.exp(self.p)
        s = t.sum()
        return x * t, s


def test_batched_values_never_reuse_unbatched_buffers() -> None:
    net = ReuseAcross()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    p = np.exp(np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4))
    for b in (1, 6, 3):
        x = np.arange(b * 4, dtype=np.float32).reshape(b, 4) + 1.0
        y, s = (t.asnumpy() for t in net(ms.Tensor(x)))
        np.testing.assert_allclose(y, x * p, rtol=1e-6)
        np.testing.assert_allclose(s, p.sum(), rtol=1e-6)
    plan = _runtime(net).compiled.plan
    kinds = {id(v): loc.kind for v, loc in plan.locations.items()}
    for node in plan.kernel_nodes:
        for v in (*node.inputs, *node.outputs):
            assert (kinds[id(v)] == "rows") == (id(v) in plan.batched) or kinds[id(v)] in ("input", "capture")


class SharedWeight(nn.Cell):
    """ops.matmul of (n, 5, 8) by a (8, 6) weight with a bias and ReLU: a FusedBatchMatMul whose run-time
    kernel is one GEMM of 5n rows, then the epilogue per row."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.random.default_rng(0).standard_normal((8, 6)).astype(np.float32)),
                              name="w")
        self.b = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 6, dtype=np.float32)), name="b")

    def construct(self, x):
        return ms.ops.relu(ms.ops.matmul(x, self.w) + self.b)


def test_batched_product_with_a_shared_weight() -> None:
    net = SharedWeight()
    net.set_inputs(ms.Tensor(shape=[None, 5, 8], dtype=ms.float32))
    w, b = net.w.asnumpy(), net.b.asnumpy()
    for i, n in enumerate((1, 3, 7)):
        x = np.random.default_rng(n).standard_normal((n, 5, 8)).astype(np.float32)
        y = net(ms.Tensor(x)).asnumpy()
        report = ms.build_report()
        assert report.built == 0 if i else [k.op for k in report.kernels] == ["FusedBatchMatMul"]
        np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
    _runtime(net)


class Wide(nn.Cell):
    def construct(self, x):
        return ms.ops.exp(x * 0.01) * 0.5 + ms.ops.softmax(x, -1)


def test_many_small_rows_run_on_threads() -> None:
    """300 rows of 1000 elements: above the threading threshold, so the row loop of the elementwise kernel
    is split over OpenMP's threads (each row's body is below it)."""
    net = Wide()
    net.set_inputs(ms.Tensor(shape=[None, 1000], dtype=ms.float32))
    for n in (1, 300, 2):
        x = np.random.default_rng(n).standard_normal((n, 1000)).astype(np.float32)
        e = np.exp(x - x.max(-1, keepdims=True))
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), np.exp(x * 0.01) * 0.5 + e / e.sum(-1, keepdims=True),
                                   rtol=1e-5, atol=1e-6)
    _runtime(net)


class Half(nn.Cell):
    """float16: a MatMul (the rows kind: the gemm kind is for float32/float64) and a row reduction."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.random.default_rng(0).standard_normal((8, 6)).astype(np.float16)),
                              name="w")

    def construct(self, x):
        return ms.ops.relu(ms.ops.matmul(x, self.w)) * 0.5 + ms.ops.softmax(x, -1).sum(-1, keepdims=True)


def test_float16_rows_equal_static_bits() -> None:
    net, static = _twin(Half)
    net.set_inputs(ms.Tensor(shape=[None, 8], dtype=ms.float16))
    for i, n in enumerate((1, 3, 7)):
        x = np.random.default_rng(n).standard_normal((n, 8)).astype(np.float16)
        y = net(ms.Tensor(x)).asnumpy()
        if i:
            assert ms.build_report().built == 0
        assert y.dtype == np.float16
        np.testing.assert_array_equal(y, static(ms.Tensor(x)).asnumpy())
    _runtime(net)
