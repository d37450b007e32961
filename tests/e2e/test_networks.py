"""End-to-end: the model zoo's networks in GRAPH_MODE against (a) the NumPy reference interpreter of their
traced graph, (b) independent hand-written NumPy forwards (MLP, small ResNet, transformer), (c) PYNATIVE mode;
graph caching (one trace per input signature) and the example scripts.

Tolerances (float32 kernels), with atol scaled by the output magnitude: rtol 1e-4 / atol 1e-5 against the
reference interpreter (the same graph in float32 NumPy) and against the float64 hand-written forwards (observed
errors are ~1e-6 relative; swapping the tanh GELU for the erf one, a 1e-4 change, is caught). PYNATIVE runs
the same kernels: rtol 1e-6.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import opbuild as ms
from opbuild import models
from opbuild.core import graph_breaks, trace
from opbuild.ops.fused_gemm import PRODUCER_OF
from opbuild.runtime.reference import run_reference
from tests import numpy_nn as ref
from tests.conftest import REPO, run_python

pytestmark = pytest.mark.usefixtures("graph_mode")

MLP_CFG = {"in_features": 20, "hidden": (16, 12), "num_classes": 5}
CNN_CFG = {"num_classes": 5, "width": 4, "layers": (2, 2, 2)}
CNN_IMAGE = 16
TINY_TF = models.TransformerConfig(vocab_size=50, hidden=16, heads=2, layers=2, intermediate=32, seq_len=8, batch=2)


def close(actual: np.ndarray, expect: np.ndarray, rtol: float, atol: float) -> None:
    scale = max(float(np.abs(expect).max()), 1.0)
    np.testing.assert_allclose(actual, expect, rtol=rtol, atol=atol * scale)


def params64(net: ms.nn.Cell) -> dict[str, np.ndarray]:
    return {n: p.asnumpy().astype(np.float64) for n, p in net.parameters_and_names()}


@pytest.fixture(scope="module")
def mlp_net():
    return models.mlp(**MLP_CFG, seed=3), models.mlp_input(4, MLP_CFG["in_features"], seed=3)


@pytest.fixture(scope="module")
def cnn_net():
    return models.resnet_small(**CNN_CFG, seed=5), models.resnet_input(2, CNN_IMAGE, seed=5)


@pytest.fixture(scope="module")
def tf_net():
    return models.transformer_encoder(TINY_TF, seed=9), models.transformer_input(TINY_TF, seed=9)


def graph_and_output(net, x) -> tuple:
    out = net(x).asnumpy()
    (compiled,) = net.compile_info()
    return compiled.graph, out


# ---- hand-written NumPy forwards ----------------------------------------------------------------------

def numpy_mlp(net, x: np.ndarray) -> np.ndarray:
    p = params64(net)
    y = x.astype(np.float64).reshape(x.shape[0], -1)
    for i in range(len(MLP_CFG["hidden"])):
        y = ref.relu(ref.dense(y, p[f"body.{i}.weight"], p[f"body.{i}.bias"]))
    return ref.dense(y, p["head.weight"], p["head.bias"])


def numpy_resnet_small(net, x: np.ndarray) -> np.ndarray:
    p = params64(net)

    def bn(name, y):
        return ref.batch_norm(y, p[f"{name}.gamma"], p[f"{name}.beta"], p[f"{name}.moving_mean"],
                              p[f"{name}.moving_variance"], 1e-5)

    y = ref.relu(bn("bn1", ref.conv2d(x, p["conv1.weight"], pad_mode="same")))
    y = ref.max_pool2d(y, 3, 2, "same")
    for i, n_blocks in enumerate(CNN_CFG["layers"]):
        for j in range(n_blocks):
            pre, stride = f"layer{i + 1}.{j}", (2 if i > 0 and j == 0 else 1)
            out = ref.relu(bn(f"{pre}.bn1", ref.conv2d(y, p[f"{pre}.conv1.weight"], stride=stride)))
            out = bn(f"{pre}.bn2", ref.conv2d(out, p[f"{pre}.conv2.weight"]))
            if f"{pre}.down_sample.0.weight" in p:
                y = bn(f"{pre}.down_sample.1", ref.conv2d(y, p[f"{pre}.down_sample.0.weight"], stride=stride))
            y = ref.relu(out + y)
    return ref.dense(y.mean(axis=(2, 3)), p["end_point.weight"], p["end_point.bias"])


def numpy_transformer(net, ids: np.ndarray, cfg: models.TransformerConfig) -> np.ndarray:
    p = params64(net)
    eps, nh, d = cfg.layer_norm_eps, cfg.heads, cfg.hidden // cfg.heads
    b, s = ids.shape

    def ln(name, y):
        return ref.layer_norm(y, p[f"{name}.gamma"], p[f"{name}.beta"], -1, eps)

    def lin(name, y):
        return ref.dense(y, p[f"{name}.weight"], p[f"{name}.bias"])

    x = ln("embedding_norm", p["word_embeddings.embedding_table"][ids]
           + p["position_embeddings.embedding_table"][np.arange(s)][None])
    for i in range(cfg.layers):
        pre = f"layers.{i}"
        heads = [lin(f"{pre}.attention.{n}", x).reshape(b, s, nh, d).transpose(0, 2, 1, 3)
                 for n in ("query", "key", "value")]
        q, k, v = heads
        probs = ref.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(d))
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, s, cfg.hidden)
        x = ln(f"{pre}.attention_norm", x + lin(f"{pre}.attention.output", ctx))
        h = ref.gelu_tanh(lin(f"{pre}.intermediate", x))
        x = ln(f"{pre}.output_norm", x + lin(f"{pre}.output", h))
    return x


# ---- correctness --------------------------------------------------------------------------------------

def test_mlp_matches_reference_and_numpy(mlp_net):
    net, x = mlp_net
    graph, out = graph_and_output(net, x)
    assert out.shape == (4, MLP_CFG["num_classes"])
    close(out, run_reference(graph, [x.asnumpy()])[0], 1e-4, 1e-5)
    close(out, numpy_mlp(net, x.asnumpy()), 1e-4, 1e-5)


def test_resnet_small_matches_reference_and_numpy(cnn_net):
    net, x = cnn_net
    graph, out = graph_and_output(net, x)
    assert out.shape == (2, CNN_CFG["num_classes"])
    # The traced ops, counting those the fusion passes merged into fused nodes: FusedElementwise (residual
    # add + ReLU) and the Conv2D/MatMul epilogues (BatchNorm folded into Sub/Mul/Add members, bias adds, ReLU).
    traced = [op for n in graph.nodes for op in (
        [PRODUCER_OF[n.op]] if n.op in PRODUCER_OF else []) + (
        [m["op"] for m in n.attrs["members"]] if "members" in n.attrs else [n.op])]
    assert len(traced) >= 50
    assert {"Conv2D", "ReLU", "Add", "MaxPool", "MatMul"} <= set(traced)
    close(out, run_reference(graph, [x.asnumpy()])[0], 1e-4, 1e-5)
    close(out, numpy_resnet_small(net, x.asnumpy()), 1e-4, 1e-5)


def test_transformer_matches_reference_and_numpy(tf_net):
    net, ids = tf_net
    graph, out = graph_and_output(net, ids)
    assert out.shape == (TINY_TF.batch, TINY_TF.seq_len, TINY_TF.hidden)
    count = {op: sum(1 for n in graph.nodes if op in (n.op, PRODUCER_OF.get(n.op)))
             for op in ("Softmax", "BatchMatMul", "LayerNorm", "FusedRowReduce")}
    assert TINY_TF.layers >= 2
    assert count["BatchMatMul"] == 2 * TINY_TF.layers
    # Every Softmax and LayerNorm is one row kernel: alone, or with its neighbours in a FusedRowReduce.
    assert count["Softmax"] + count["LayerNorm"] + count["FusedRowReduce"] == TINY_TF.layers + 1 + 2 * TINY_TF.layers
    close(out, run_reference(graph, [ids.asnumpy()])[0], 1e-4, 1e-5)
    close(out, numpy_transformer(net, ids.asnumpy(), TINY_TF), 1e-4, 1e-5)


def test_resnet50_structure():
    """The full [3, 4, 6, 3] bottleneck network (traced only, tiny width): 53 convolutions and batch norms,
    16 residual adds, and the ~50 convolutions fall into many distinct kernels."""
    net = models.resnet50(num_classes=10, width=2, seed=0)
    x = models.resnet_input(1, 64)
    graph, _ = trace.trace(net.construct, (x,))
    convs = [n for n in graph.nodes if n.op == "Conv2D"]
    assert len(convs) == 53
    assert sum(n.op == "BatchNorm" for n in graph.nodes) == 53
    assert sum(n.op == "Add" for n in graph.nodes) == 16
    distinct = {(repr(sorted(n.attrs.items())), tuple(v.type for v in n.inputs)) for n in convs}
    assert len(distinct) >= 20
    assert graph.outputs[0].type.shape == (1, 10)


def test_tiny_bottleneck_resnet_runs_like_reference():
    net = models.resnet50(num_classes=3, width=2, layers=(1, 1, 1, 1), seed=1)
    x = models.resnet_input(1, 32, seed=1)
    graph, out = graph_and_output(net, x)
    close(out, run_reference(graph, [x.asnumpy()])[0], 1e-4, 1e-5)


@pytest.mark.parametrize("name", ["mlp_net", "cnn_net", "tf_net"])
def test_pynative_matches_graph(name, request):
    net, x = request.getfixturevalue(name)
    graph_out = net(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = net(x).asnumpy()
    # Graph mode runs fused kernels: gcc may contract a * b + c across what PyNative runs as two kernels
    # (one FMA, one rounding fewer), and the epilogue pass folds an inference BatchNorm into the convolution's
    # kernel with its factor scale / sqrt(var + eps) computed once per channel, so values near a cancellation
    # differ in their last float32 bits (relative to the outputs' scale, ~10 here).
    np.testing.assert_allclose(eager, graph_out, rtol=1e-5, atol=1e-5)


def test_seed_makes_models_reproducible(mlp_net):
    net, x = mlp_net
    again = models.mlp(**MLP_CFG, seed=3)
    np.testing.assert_array_equal(again(x).asnumpy(), net(x).asnumpy())
    other = models.mlp(**MLP_CFG, seed=4)
    assert not np.array_equal(other(x).asnumpy(), net(x).asnumpy())


# ---- graph caching ------------------------------------------------------------------------------------

def test_second_call_reuses_graph_and_new_shape_builds_new_one(monkeypatch):
    traces = []
    real_trace = graph_breaks.BreakTracer.trace

    def counting_trace(tracer):
        traces.append(tuple(a.shape for a in tracer.args))
        return real_trace(tracer)

    monkeypatch.setattr(graph_breaks.BreakTracer, "trace", counting_trace)
    net = models.mlp(**MLP_CFG, seed=11)
    x4, x2 = models.mlp_input(4, MLP_CFG["in_features"]), models.mlp_input(2, MLP_CFG["in_features"])
    np.testing.assert_array_equal(x2.asnumpy(), x4.asnumpy()[:2])  # same generator stream
    first = net(x4).asnumpy()
    np.testing.assert_array_equal(net(x4).asnumpy(), first)
    assert traces == [((4, 20),)] and len(net._graphs) == 1

    out2 = net(x2).asnumpy()  # a new input shape: a new trace and graph
    assert traces == [((4, 20),), ((2, 20),)] and len(net._graphs) == 2
    close(out2, first[:2], 1e-5, 1e-6)
    close(out2, numpy_mlp(net, x2.asnumpy()), 1e-4, 1e-5)
    net(x2)
    net(x4)
    assert len(traces) == 2 and len(net.compile_info()) == 2

    fresh = models.mlp(**MLP_CFG, seed=12)  # same shapes, new weights: new trace, every kernel reused
    fresh(x4)
    assert len(traces) == 3
    report = ms.build_report()
    assert report.built == 0 and report.reused == len(report.kernels) > 0


# ---- example scripts ----------------------------------------------------------------------------------

EXAMPLES = {
    "mlp.py": ["--batch", "4", "--in-features", "20", "--hidden", "16", "12", "--classes", "5"],
    "resnet.py": ["--width", "4", "--image-size", "16", "--batch", "2", "--classes", "5"],
    "transformer.py": ["--layers", "2", "--hidden", "16", "--heads", "2", "--seq", "8", "--batch", "2",
                       "--vocab", "50"],
}


def _reports(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if "build report:" in line]


def test_example_mlp_cold_then_warm(tmp_path):
    """A cold cache: the first process builds every kernel, a fresh instance and a second process reuse them."""
    path, args = str(REPO / "examples" / "mlp.py"), EXAMPLES["mlp.py"]
    env = {"OPBUILD_CACHE_PATH": str(tmp_path)}
    first = run_python(path, *args, env=env).stdout
    reports = _reports(first)
    assert len(reports) == 2
    assert re.search(r": 0 reused, [1-9]\d* built", reports[0]), first  # cold: all built
    assert re.search(r": [1-9]\d* reused, 0 built", reports[1]), first  # fresh instance: all reused
    assert any(tmp_path.glob("rank_0/kernel_meta/*matmul_*.so"))  # MatMul, or FusedMatMul with its epilogue
    second = run_python(path, *args, env=env).stdout
    assert re.search(r": [1-9]\d* reused, 0 built", _reports(second)[0]), second  # new process: all reused


@pytest.mark.parametrize("script", sorted(EXAMPLES))
def test_example_script(script):
    """Each example runs (on the test session's cache), prints its summary, and its calls agree."""
    out = run_python(str(REPO / "examples" / script), *EXAMPLES[script]).stdout
    assert "model:" in out and "call 2:" in out
    assert out.count("same result: True") == 2, out
    assert len(_reports(out)) == 2
    assert re.search(r": [1-9]\d* reused, 0 built", _reports(out)[1]), out
    call1 = next(line for line in out.splitlines() if line.startswith("call 1:"))
    expect = {"mlp.py": "(4, 5)", "resnet.py": "(2, 5)", "transformer.py": "(2, 8, 16)"}[script]
    assert f"output shape {expect}" in call1
