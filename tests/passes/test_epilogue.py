"""Epilogue fusion (passes/epilogue.py, ops/fused_gemm.py): which chains fuse into MatMul/BatchMatMul/Conv2D
kernels, randomised producer + epilogue graphs fused against unfused (OPBUILD_FUSION=0), training graphs,
the memory plan, and the cache (one entry per fused kernel; changing one layer rebuilds only its kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core import trace
from opbuild.core.tensor import Tensor
from opbuild.ops import apply
from opbuild.ops.conv_plan import ALGOS
from opbuild.passes import DEFAULT_PIPELINE, EpilogueFusion, Fusion, plan_memory
from opbuild.runtime.session import session

from ..conftest import run_python
from .test_fusion import fusion

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("graph_mode")]  # compiled graphs (PYNATIVE_MODE is the default)

WORKER = str(Path(__file__).with_name("_epilogue_worker.py"))


def _trace(fn, *arrays):
    graph, _ = trace.trace(fn, [Tensor(a) for a in arrays])
    return graph


def _ops(graph):
    return [n.op for n in graph.nodes]


def _members(node):
    return [m["op"] for m in node.attrs["members"]]


def _passes(graph):
    return EpilogueFusion().run(Fusion().run(graph))


F32 = np.float32


# ---- which chains fuse ----------------------------------------------------------------------------------------

def test_dense_bias_activation_fuses_into_one_matmul_kernel():
    x, w, b = np.ones((3, 4), F32), np.ones((5, 4), F32), np.ones(5, F32)
    graph = _passes(_trace(lambda x, w, b: ops.gelu(ops.BiasAdd()(ops.MatMul(transpose_b=True)(x, w), b)),
                           x, w, b))
    assert _ops(graph) == ["FusedMatMul"]
    node = graph.nodes[0]
    assert node.attrs["producer"] == {"transpose_a": False, "transpose_b": True}
    assert node.attrs["views"] == [[5]] and _members(node) == ["Add", "GeLU"]
    assert node.inputs[2].type.shape == (5,) and node.outputs[0] is graph.outputs[0]


def test_conv_batchnorm_residual_relu_fuses_with_the_bias_on_the_channel_axis():
    """BiasAdd (NCHW) views its (C,) bias as (C, 1, 1); a residual of the full shape is an input as it is; the
    elementwise group (Add + ReLU) the fusion pass built is inlined."""
    x, w, b = np.ones((2, 3, 6, 6), F32), np.ones((4, 3, 3, 3), F32), np.ones(4, F32)
    r = np.ones((2, 4, 6, 6), F32)

    def fn(x, w, b, r):
        y = ops.BiasAdd()(ops.Conv2D(4, 3, pad_mode="same")(x, w), b)
        return ops.ReLU()(y + r)

    graph = _passes(_trace(fn, x, w, b, r))
    assert _ops(graph) == ["FusedConv2D"]
    node = graph.nodes[0]
    assert node.attrs["views"] == [[4, 1, 1], [2, 4, 6, 6]]
    assert _members(node) == ["Add", "Add", "ReLU"]


def test_inference_batchnorm_folds_with_parameters_and_constants():
    """Parameters (they change between calls): the per-channel factor scale / sqrt(var + eps) is the kernel's
    ``pre`` recipe, computed once per call. Constants: the factor is a constant. Computed statistics: not fused."""
    x, w = np.ones((1, 2, 4, 4), F32), np.ones((3, 2, 1, 1), F32)
    bn = nn.BatchNorm2d(3)
    bn.set_train(False)
    conv = ops.Conv2D(3, 1)
    graph = _passes(_trace(lambda x, w: ops.ReLU()(bn(conv(x, w))), x, w))
    assert _ops(graph) == ["FusedConv2D"]
    node = graph.nodes[0]
    assert _members(node) == ["Sub", "Mul", "Add", "ReLU"]
    (pre,) = node.attrs["pre"]
    assert [m["op"] for m in pre["members"]] == ["Add", "Sqrt", "RealDiv"]
    # views: variance, eps (a scalar), gamma, then mean and beta; the factor is the operand after the inputs
    assert node.attrs["views"] == [[3, 1, 1], [], [3, 1, 1], [3, 1, 1], [3, 1, 1]] and pre["inputs"] == [0, 1, 2]
    assert node.attrs["members"][1]["args"] == ["t0", "i6"]

    # Two BatchNorms with the same epsilon share one eps capture: the executor re-reads every capture's
    # address at each call, so a capture per layer would cost time per call.
    bn2 = nn.BatchNorm2d(3)
    bn2.set_train(False)
    w2 = np.ones((3, 3, 1, 1), F32)
    graph = _passes(_trace(lambda x, w, w2: bn2(conv(ops.ReLU()(bn(conv(x, w))), w2)), x, w, w2))
    assert _ops(graph).count("FusedConv2D") == 2
    assert [v.name for v, _ in graph.captures if v.name.startswith("epilogue:")] == ["epilogue:float32:1e-05"]

    stats = [Tensor(np.full(3, v, F32)) for v in (2.0, 0.5, 0.25, 4.0)]
    graph = _passes(_trace(lambda x, w: ops.BatchNorm()(conv(x, w), *stats)[0], x, w))
    assert _ops(graph) == ["FusedConv2D"] and _members(graph.nodes[0]) == ["Sub", "Mul", "Add"]

    graph = _passes(_trace(lambda x, w, s: ops.BatchNorm()(conv(x, w), s * 2.0, *stats[1:])[0], x, w,
                           np.ones(3, F32)))
    assert sorted(_ops(graph)) == ["BatchNorm", "Conv2D", "Mul"]


def test_values_read_elsewhere_or_returned_stop_the_chain():
    """A value with a second reader or returned by the graph keeps its buffer: the chain ends before it."""
    x, w, b = np.ones((3, 4), F32), np.ones((4, 4), F32), np.ones(4, F32)

    def read_twice(x, w, b):
        y = ops.BiasAdd()(ops.MatMul()(x, w), b)
        return ops.ReLU()(y), ops.MatMul()(y, w)

    graph = _passes(_trace(read_twice, x, w, b))
    assert _ops(graph) == ["FusedMatMul", "ReLU", "MatMul"]
    assert _members(graph.nodes[0]) == ["Add"]

    graph = _passes(_trace(lambda x, w: (ops.MatMul()(x, w), ops.Tanh()(ops.MatMul()(x, w))), x, w))
    assert _ops(graph) == ["MatMul", "FusedMatMul"]


def test_chains_stop_at_shape_or_dtype_changes():
    """An epilogue computes in the producer's buffer: a broadcast to a larger shape or a Cast stops it."""
    x, w = np.ones((3, 4), F32), np.ones((4, 4), F32)
    big = np.ones((2, 3, 4), F32)
    graph = _passes(_trace(lambda x, w, big: ops.MatMul()(x, w) + big, x, w, big))
    assert _ops(graph) == ["MatMul", "Add"]
    graph = _passes(_trace(lambda x, w: ops.Cast()(ops.MatMul()(x, w), ms.float64), x, w))
    assert _ops(graph) == ["MatMul", "Cast"]


def test_a_residual_add_of_two_producers_joins_one_of_them():
    """relu(conv1(x) + conv2(x)): the add is one node; the first producer (graph order) takes it."""
    x, w = np.ones((1, 2, 5, 5), F32), np.ones((2, 2, 3, 3), F32)
    conv = ops.Conv2D(2, 3, pad_mode="same")
    graph = _passes(_trace(lambda x, w: ops.ReLU()(conv(x, w) + conv(ops.Neg()(x), w)), x, w))
    assert _ops(graph) == ["Neg", "Conv2D", "FusedConv2D"] or _ops(graph) == ["Conv2D", "Neg", "FusedConv2D"]
    assert _members(graph.nodes[-1]) == ["Add", "ReLU"]


def test_switch_off_and_identity(monkeypatch):
    x, w = np.ones((2, 2), F32), np.ones((2, 2), F32)
    monkeypatch.setenv("OPBUILD_FUSION", "0")
    assert "epilogue@1:off" in DEFAULT_PIPELINE.identity
    assert _ops(DEFAULT_PIPELINE.run(_trace(lambda x, w: ops.ReLU()(ops.MatMul()(x, w)), x, w))) == ["MatMul",
                                                                                                     "ReLU"]
    monkeypatch.setenv("OPBUILD_FUSION", "1")
    assert "epilogue@1:64" in DEFAULT_PIPELINE.identity


def test_max_members_bounds_the_epilogue():
    x, w = np.ones((2, 2), F32), np.ones((2, 2), F32)

    def fn(x, w):
        y = ops.MatMul()(x, w)
        for _ in range(3):
            y = ops.Neg()(ops.MatMul()(ops.Neg()(y), w))
        return y

    graph = EpilogueFusion(max_members=1).run(_trace(fn, x, w))
    assert all(len(n.attrs.get("members", [])) <= 1 for n in graph.nodes)
    assert _ops(graph).count("FusedMatMul") == 4


# ---- randomised producers + epilogues: fused == unfused ---------------------------------------------------------

ACTS = ["relu", "relu6", "gelu", "sigmoid", "tanh", "silu"]
STEPS = ["bias", "biasadd", "bn", "residual", "residual_bcast", "scale", *ACTS]
HALF_STEPS = ["bias", "biasadd", "residual", "residual_bcast", "scale", *ACTS]


@st.composite
def cases(draw):
    """(producer kind, dtype, producer attrs and shapes, epilogue steps, exposed step or None)."""
    kind = draw(st.sampled_from(["matmul", "batchmatmul", "conv"]))
    dtype = draw(st.sampled_from(["float32", "float64"] + (["float16", "bfloat16"] if kind != "conv" else [])))
    dim = st.integers(1, 6)
    if kind == "matmul":
        m, k, n = draw(dim), draw(dim), draw(dim)
        ta, tb = draw(st.booleans()), draw(st.booleans())
        prod = {"attrs": {"transpose_a": ta, "transpose_b": tb},
                "shapes": [(k, m) if ta else (m, k), (n, k) if tb else (k, n)]}
    elif kind == "batchmatmul":
        bsz, m, k, n = draw(st.integers(1, 3)), draw(dim), draw(dim), draw(dim)
        shared = draw(st.booleans())  # b without batch dims: the one-tall-GEMM path
        prod = {"attrs": {}, "shapes": [(bsz, m, k), (k, n) if shared else (bsz, k, n)]}
    else:
        g = draw(st.sampled_from([1, 2]))
        c, o = g * draw(st.integers(1, 3)), g * draw(st.integers(1, 3))
        kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        h, w = draw(st.integers(kh, 7)), draw(st.integers(kw, 7))
        stride = draw(st.sampled_from([1, 2]))
        attrs = {"out_channel": o, "kernel_size": [kh, kw], "pad_mode": draw(st.sampled_from(["valid", "same"])),
                 "stride": stride, "group": g, "algo": draw(st.sampled_from(ALGOS))}
        prod = {"attrs": attrs, "shapes": [(draw(st.integers(1, 2)), c, h, w), (o, c // g, kh, kw)]}
    allowed = HALF_STEPS if dtype in ("float16", "bfloat16") else STEPS
    steps = draw(st.lists(st.sampled_from(allowed), min_size=1, max_size=5))
    expose = draw(st.one_of(st.none(), st.integers(0, len(steps) - 1)))
    return kind, dtype, prod, steps, expose


def _np_dtype(dtype):
    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


def _build(kind, dtype, prod, steps, expose, out_shape, rng):
    """(fn, extra input arrays): the producer, then ``steps``; returns the result (and the exposed value)."""
    dt = _np_dtype(dtype)
    rank = len(out_shape)
    c_axis = 1 if kind != "batchmatmul" else rank - 1  # the channel axis: BiasAdd NCHW, or NHWC for rank 3
    c = out_shape[c_axis]
    vec_shape = (c,) + (1,) * (rank - 1 - c_axis)
    extras, plan = [], []
    for s in steps:
        if s == "bn" and rank not in (2, 4):
            s = "bias"
        if s in ("bias", "biasadd"):
            extras.append(rng.uniform(-1, 1, c).astype(dt))
            plan.append((s, len(extras) + 1))
        elif s in ("residual", "residual_bcast"):
            shape = tuple(d if (s == "residual" or rng.random() < 0.5) else 1 for d in out_shape)
            extras.append(rng.uniform(-1, 1, shape).astype(dt))
            plan.append((s, len(extras) + 1))
        elif s == "bn":
            stats = [Tensor(rng.uniform(lo, hi, c).astype(dt)) for lo, hi in ((0.5, 2), (-1, 1), (-1, 1), (0.2, 2))]
            params = [ms.Parameter(t, name=f"bn{len(plan)}.{k}") if rng.random() < 0.5 else t
                      for k, t in enumerate(stats)]
            plan.append((s, params))
        else:
            plan.append((s, None))

    def fn(x, w, *ext):
        xs = (x, w, *ext)
        y = apply({"matmul": "MatMul", "batchmatmul": "BatchMatMul", "conv": "Conv2D"}[kind], prod["attrs"], [x, w])
        exposed = None
        for i, (s, arg) in enumerate(plan):
            if s == "bias":
                y = y + ops.Reshape()(xs[arg], vec_shape)
            elif s == "biasadd":
                y = ops.BiasAdd("NHWC" if kind == "batchmatmul" else "NCHW")(y, xs[arg])
            elif s in ("residual", "residual_bcast"):
                y = y + xs[arg]
            elif s == "bn":
                y = ops.BatchNorm()(y, *arg)[0]  # MindSpore's five outputs; y first
            elif s == "scale":
                y = y * Tensor(np.array(0.5, dt))
            elif s == "relu":
                y = ops.ReLU()(y)
            elif s == "relu6":
                y = ops.ReLU6()(y * Tensor(np.array(4.0, dt)))
            elif s == "gelu":
                y = ops.gelu(y)
            elif s == "sigmoid":
                y = ops.Sigmoid()(y)
            elif s == "tanh":
                y = ops.Tanh()(y)
            else:  # silu: x * sigmoid(x), the fusion pass makes it one group
                y = y * ops.Sigmoid()(y)
            if i == expose:
                exposed = y
        return (y, exposed) if exposed is not None else y

    return fn, extras


TOL = {"float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12), "float16": (1e-2, 1e-2), "bfloat16": (2e-2, 5e-2)}
PRODUCER = {"matmul": "MatMul", "batchmatmul": "BatchMatMul", "conv": "Conv2D"}


@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases(), st.integers(0, 2**31 - 1))
def test_random_producer_epilogues_fused_match_unfused(case, seed):
    kind, dtype, prod, steps, expose = case
    rng = np.random.default_rng(seed)
    dt = _np_dtype(dtype)
    x, w = (rng.uniform(-1, 1, s).astype(dt) for s in prod["shapes"])
    out_shape = apply(PRODUCER[kind], prod["attrs"], [Tensor(x), Tensor(w)]).shape  # PyNative: the shape
    fn, extras = _build(kind, dtype, prod, steps, expose, tuple(out_shape), rng)
    arrays = [x, w, *extras]
    with fusion(False):
        unfused_graph = _trace(fn, *arrays)
        unfused = session().compile_graph(unfused_graph)(arrays)
    with fusion(True):
        fused_graph = _trace(fn, *arrays)
        fused = session().compile_graph(fused_graph)(arrays)
    fused_ops = _ops(fused_graph)
    assert f"Fused{PRODUCER[kind]}" in fused_ops, (fused_ops, steps)
    assert PRODUCER[kind] not in fused_ops
    if expose is not None:  # the exposed value is a graph output: computed, never inside an epilogue
        assert fused_graph.outputs[1].producer is not None
    rtol, atol = TOL[dtype]
    for want, got in zip(unfused, fused, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)


# ---- training graphs ---------------------------------------------------------------------------------------------

class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(6, 8, activation="relu", weight_init="normal")
        self.fc2 = nn.Dense(8, 3, weight_init="normal")

    def construct(self, x):
        return self.fc2(ops.gelu(self.fc1(x)))


def test_training_step_fuses_only_what_the_backward_does_not_read(monkeypatch):
    """A train step (forward, backward, optimizer) with fusion matches it without; the values the backward
    reads (ReLU's output, GeLU's input) stay buffers of their own, and nothing crosses an update."""
    x = np.linspace(-1, 1, 24, dtype=F32).reshape(4, 6)
    y = np.arange(4, dtype=np.int32) % 3
    results = {}
    for flag in ("0", "1"):
        monkeypatch.setenv("OPBUILD_FUSION", flag)
        ms.set_seed(1)
        net = _Mlp()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train(True)
        losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for _ in range(3)]
        (compiled,) = step.compile_info()
        results[flag] = (losses, net.fc1.weight.asnumpy().copy(), compiled.graph)
    np.testing.assert_allclose(results["1"][0], results["0"][0], rtol=1e-5)
    np.testing.assert_allclose(results["1"][1], results["0"][1], rtol=1e-5, atol=1e-6)
    graph = results["1"][2]
    fused = [n for n in graph.nodes if n.op == "FusedMatMul"]
    assert fused, _ops(graph)
    # GeLU's input is read by GeLUGrad, so fc1's chain (bias, ReLU) stops before GeLU; GeLU keeps its node.
    assert ["Add", "ReLU"] in [_members(n) for n in fused]
    assert not any("GeLU" in _members(n) for n in fused) and "GeLU" in _ops(graph)


# ---- memory ------------------------------------------------------------------------------------------------------

def test_memory_plan_has_no_intermediate_for_the_epilogue():
    """The fused kernel writes the producer's buffer only: the plan places fewer, not more, bytes."""
    x, w, b = np.ones((64, 32), F32), np.ones((32, 48), F32), np.ones(48, F32)

    def fn(x, w, b):
        return ops.MatMul()(ops.Tanh()(ops.BiasAdd()(ops.MatMul()(x, w), b)), ops.Transpose()(w, (1, 0)))

    with fusion(False):
        unfused = plan_memory(DEFAULT_PIPELINE.run(_trace(fn, x, w, b)), share=False)
    with fusion(True):
        graph = DEFAULT_PIPELINE.run(_trace(fn, x, w, b))
    fused = plan_memory(graph, share=False)
    assert _ops(graph) == ["FusedMatMul", "Transpose", "MatMul"]
    assert len(fused.kernel_nodes) == 3 and len(unfused.kernel_nodes) == 5
    # Two (64, 48) float32 intermediates fewer (MatMul's and BiasAdd's results), in the sum and the arena.
    assert unfused.intermediate_bytes - fused.intermediate_bytes == 2 * 64 * 48 * 4
    assert graph.memory_plan.arena_bytes <= unfused.arena_bytes
    graph.memory_plan.verify(graph)


# ---- the cache ---------------------------------------------------------------------------------------------------

def _worker(act: str, root: Path) -> dict:
    proc = run_python(WORKER, act, env={"OPBUILD_CACHE_PATH": str(root), "OPBUILD_FUSION": "1"})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_fused_conv_kernels_are_entries_listing_members_and_rebuilt_per_layer(tmp_path):
    first = _worker("relu", tmp_path)
    built = sorted(op for _, op, status in first["kernels"] if status == "built")
    assert built.count("FusedConv2D") == 2 and "Conv2D" not in built and "BatchNorm" not in built
    assert "FusedElementwise" not in built  # the BatchNorm factor is computed inside the conv kernel
    conv_members = sorted(m["members"] for m in first["info"].values() if "producer" in m)
    assert ["Add", "ReLU"] in [m[-2:] for m in conv_members]

    again = _worker("relu", tmp_path)  # another process: the same names, all reused
    assert sorted(k[0] for k in again["kernels"]) == sorted(k[0] for k in first["kernels"])
    assert {status for _, _, status in again["kernels"]} == {"reused"}

    changed = _worker("tanh", tmp_path)  # layer 2's activation: only its fused kernel is built
    built = [(name, op) for name, op, status in changed["kernels"] if status == "built"]
    assert [op for _, op in built] == ["FusedConv2D"]
    info = changed["info"][built[0][0]]
    assert info["members"][-1] == "Tanh" and info["producer"]["kernel_size"] == [3, 3]
    reused = {name for name, _, status in changed["kernels"] if status == "reused"}
    assert len(reused) == len(first["kernels"]) - 1 and built[0][0] not in {k[0] for k in first["kernels"]}


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
