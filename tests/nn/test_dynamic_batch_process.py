"""A dynamic batch across processes: the run-time-batch kernels (or chunk graphs) one process built are reused
from kernel_meta by the next, which runs batch sizes never seen before with nothing built (Cell.set_inputs and
an ONNX dim_param)."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest

import opbuild as ms
import opbuild.onnx
from opbuild.nn import batch_runtime, dynamic_batch
from tests.conftest import REPO, execution_mode, run_python

pytestmark = pytest.mark.slow

SCRIPT = r"""
import json, sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import opbuild as ms
import opbuild.onnx
from opbuild import nn
from opbuild.nn import batch_runtime, dynamic_batch

ms.set_context(mode=ms.GRAPH_MODE)


class CNN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, weight_init="ones")
        self.relu = nn.ReLU()
        self.pool = nn.AvgPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 3, weight_init="ones")

    def construct(self, x):
        return self.fc(self.flat(self.pool(self.relu(self.conv(x)))))


w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Tanh", ["h"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
                          initializer=[numpy_helper.from_array(w, "w")])
proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
proto.ir_version = 10
net = CNN()
net.set_inputs(ms.Tensor(shape=[None, 3, 8, 8], dtype=ms.float32))
model = opbuild.onnx.load(proto)
out = []
for b in map(int, sys.argv[1:]):
    x = np.random.default_rng(b).standard_normal((b, 3, 8, 8)).astype(np.float32)
    y = net(ms.Tensor(x)).asnumpy()
    cnn_built = ms.build_report().built
    static = CNN()
    for p, q in zip(net.get_parameters(), static.get_parameters()):
        q.set_data(ms.Tensor(p.asnumpy().copy()))
    want = static(ms.Tensor(x)).asnumpy()
    xo = x.reshape(b, -1)[:, :4].copy()
    (yo,) = model.run([xo])
    kinds = [type(dynamic_batch.verdict(g)[0].runtime).__name__ for g in (net._graphs, model._graphs)]
    out.append({"batch": b, "cnn_built": cnn_built, "onnx_built": ms.build_report().built, "runtime": kinds,
                "cnn_ok": bool(np.allclose(y, want, rtol=1e-5)),
                "onnx_ok": bool(np.allclose(yo, np.tanh(xo @ w), rtol=1e-5, atol=1e-6))})
print(json.dumps(out))
"""


@pytest.mark.parametrize("mode", ["runtime", "chunks"])
def test_second_process_runs_new_batch_sizes_with_nothing_built(tmp_path, mode) -> None:
    """Run-time-batch kernels (the default) or the chunk graphs, built by one process, serve new sizes in the
    next from kernel_meta."""
    env = {"OPBUILD_CACHE_PATH": str(tmp_path), batch_runtime.MODE_VARIABLE: mode}
    first = json.loads(run_python(SCRIPT, "2", env=env).stdout.strip().splitlines()[-1])
    assert first[0]["cnn_built"] > 0 and first[0]["onnx_built"] > 0, first
    assert first[0]["cnn_ok"] and first[0]["onnx_ok"], first
    kind = "RuntimeBatch" if mode == "runtime" else "str"  # str: the reason the chunks run
    assert first[0]["runtime"] == [kind, kind], first
    second = json.loads(run_python(SCRIPT, "5", "13", env=env).stdout.strip().splitlines()[-1])
    for row in second:  # new sizes in a new process: every kernel comes from kernel_meta
        assert row["cnn_built"] == 0 and row["onnx_built"] == 0, row
        assert row["cnn_ok"] and row["onnx_ok"] and row["runtime"] == [kind, kind], row


def test_resnet_fixture_with_a_symbolic_batch_runs_new_sizes_unbuilt() -> None:
    """The committed ResNet fixture (convolutions, BatchNorm, residual adds, pooling) with its batch dim made a
    dim_param: row-wise, and batches of 3 and 5 copies of the recorded input give the recorded outputs with
    nothing built."""
    proto = onnx.load(REPO / "tests/fixtures/onnx/resnet.onnx")
    for vi in [*proto.graph.input, *proto.graph.output]:
        vi.type.tensor_type.shape.dim[0].dim_param = "batch"
    del proto.graph.value_info[:]
    data = np.load(REPO / "tests/fixtures/onnx/resnet.npz")
    x = data["input:pixel_values"]
    want = [data["output:last_hidden_state"], data["output:pooler_output"]]
    with execution_mode("graph"):
        model = opbuild.onnx.load(proto)
        got = model.run([x])
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        assert dynamic_batch.verdict(model._graphs)[0].rowwise
        assert isinstance(dynamic_batch.verdict(model._graphs)[0].runtime, batch_runtime.RuntimeBatch)
        for copies in (3, 5):
            outs = model.run([np.concatenate([x] * copies)])
            assert ms.build_report().built == 0
            for g, w in zip(outs, got):
                np.testing.assert_allclose(g, np.concatenate([w] * copies), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layout", ["batch_first", "timm"])
def test_exported_transformer_with_a_dynamic_batch_axis(layout) -> None:
    """A small transformer exported by torch with ``dynamic_axes`` on the batch (embedding lookup, a position
    slice, multi-head attention, LayerNorm, the class token): row-wise, new batch sizes build nothing and match
    torch. ``batch_first`` splits the heads as Hugging Face's BERT does (the batch stays dim 0), ``timm`` as
    timm's attention does (``permute(2, 0, 3, 1, 4)``: the batch is dim 1 until the q/k/v split)."""
    import io

    import torch

    class Tiny(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(50, 32)
            self.pos = torch.nn.Parameter(torch.randn(1, 16, 32))
            self.qkv, self.o = torch.nn.Linear(32, 96), torch.nn.Linear(32, 32)
            self.ln, self.fc = torch.nn.LayerNorm(32), torch.nn.Linear(32, 8)

        def forward(self, ids):
            x = self.emb(ids) + self.pos[:, :ids.shape[1]]
            b, s, _ = x.shape
            if layout == "timm":
                q, k, v = self.qkv(x).reshape(b, s, 3, 4, 8).permute(2, 0, 3, 1, 4)
            else:
                q, k, v = [t.reshape(b, s, 4, 8).permute(0, 2, 1, 3) for t in self.qkv(x).split(32, dim=-1)]
            att = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, dim=-1)
            x = self.ln(x + self.o((att @ v).transpose(1, 2).reshape(b, s, 32)))
            return self.fc(x[:, 0])

    torch.manual_seed(0)
    net = Tiny().eval()
    buf = io.BytesIO()
    torch.onnx.export(net, (torch.zeros(2, 16, dtype=torch.int64),), buf, input_names=["ids"], output_names=["y"],
                      dynamic_axes={"ids": {0: "batch"}, "y": {0: "batch"}}, opset_version=17, dynamo=False)
    with execution_mode("graph"):
        model = opbuild.onnx.load(onnx.load_from_string(buf.getvalue()))
        for b in (2, 5, 9):
            ids = np.random.default_rng(b).integers(0, 50, (b, 16)).astype(np.int64)
            (y,) = model.run([ids])
            if b != 2:
                assert ms.build_report().built == 0
            with torch.no_grad():
                want = net(torch.from_numpy(ids)).numpy()
            np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
        assert dynamic_batch.verdict(model._graphs)[0].rowwise
        # One graph of run-time-batch kernels (timm's layout: rows copied where the batch is dim 1)
        assert isinstance(dynamic_batch.verdict(model._graphs)[0].runtime, batch_runtime.RuntimeBatch)


def test_bench_dynamic_batch_smoke(tmp_path) -> None:
    """benchmarks/bench_dynamic_batch.py measures what it says: the static instance builds at a new size,
    the dynamic one does not, and both give the same results (never how fast anything is)."""
    out = tmp_path / "dyn.json"
    run_python(str(REPO / "benchmarks" / "bench_dynamic_batch.py"), "--sizes", "3", "--calls", "2", "--json",
               str(out), env={"PYTHONPATH": str(REPO / "src")})
    rows = json.loads(out.read_text())
    firsts = [r for r in rows if not isinstance(r["batch"], int)]
    sizes = [r for r in rows if isinstance(r["batch"], int)]
    assert len(firsts) == 4 and all(r["dynamic_built"] > 0 and r["runtime_built"] > 0 for r in firsts)
    assert len(sizes) == 4
    for r in sizes:
        assert r["static_built"] > 0 and r["dynamic_built"] == 0 and r["runtime_built"] == 0, r
        assert r["max_abs_diff"] < 1e-5 and r["static_steady_ms"] > 0 and r["dynamic_steady_ms"] > 0
        assert r["runtime_steady_ms"] > 0
