"""FusedMatMul / FusedBatchMatMul / FusedConv2D (ops/fused_gemm.py) as ops: against torch, their attribute
checks, their descriptors (canonical, distinct per recipe) and their optimisation class."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.core.errors import ShapeError
from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops import apply
from opbuild.ops.registry import get
from opbuild.targets.cpu.kernels import emit, emitter, opt_class
from tests.helpers import TORCH_MISSING

torch = pytest.importorskip("torch", reason=TORCH_MISSING)


def _m(op, *args):
    return {"op": op, "attrs": {}, "args": list(args)}


def _run(op, attrs, *arrays):
    return apply(op, attrs, [Tensor(a) for a in arrays]).asnumpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_matmul_bias_gelu_matches_torch(dtype):
    rng = np.random.default_rng(0)
    a, w, b = (rng.standard_normal(s).astype(dtype) for s in ((7, 5), (9, 5), (9,)))
    attrs = {"producer": {"transpose_b": True}, "views": [[9]], "members": [_m("Add", "i0", "i1"), _m("GeLU", "t0")]}
    got = _run("FusedMatMul", attrs, a, w, b)
    want = torch.nn.functional.gelu(torch.nn.functional.linear(*(torch.from_numpy(v) for v in (a, w, b))))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


def test_fused_batch_matmul_scale_residual_matches_torch():
    rng = np.random.default_rng(1)
    a, b, r = (rng.standard_normal(s).astype(np.float32) for s in ((3, 4, 6), (3, 6, 5), (1, 4, 5)))
    s = np.array(0.25, np.float32)
    attrs = {"producer": {}, "views": [[], [1, 4, 5]], "members": [_m("Mul", "i0", "i1"), _m("Add", "t0", "i2")]}
    got = _run("FusedBatchMatMul", attrs, a, b, s, r)
    np.testing.assert_allclose(got, (torch.from_numpy(a) @ torch.from_numpy(b) * 0.25 + torch.from_numpy(r)).numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("algo", ["direct", "im2col", "gemm"])
def test_fused_conv_bias_residual_relu6_matches_torch(algo):
    rng = np.random.default_rng(2)
    k = 1 if algo == "gemm" else 3
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 9, 9), (4, 3, k, k), (4,)))
    r = rng.standard_normal((2, 4, 9, 9)).astype(np.float32)
    attrs = {"producer": {"out_channel": 4, "kernel_size": k, "pad_mode": "same", "algo": algo},
             "views": [[4, 1, 1], [2, 4, 9, 9]],
             "members": [_m("Add", "i0", "i1"), _m("Add", "t0", "i2"), _m("ReLU6", "t1")]}
    got = _run("FusedConv2D", attrs, x, w, b, r)
    tx = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding="same")
    np.testing.assert_allclose(got, torch.clamp(tx + torch.from_numpy(r), 0, 6).numpy(), rtol=1e-5, atol=1e-5)


def test_per_channel_pre_recipe_is_computed_once_and_read_as_an_operand():
    """``pre``: scale / sqrt(var + eps) over (C, 1, 1) vectors, then (y - mean) * a: a folded BatchNorm."""
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((2, 3, 6, 6)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    var, scale, mean = rng.uniform(0.5, 2, 4).astype(np.float32), rng.standard_normal(4).astype(np.float32), \
        rng.standard_normal(4).astype(np.float32)
    eps = np.array(1e-3, np.float32)
    attrs = {"producer": {"out_channel": 4, "kernel_size": 3}, "views": [[4, 1, 1], [], [4, 1, 1], [4, 1, 1]],
             "pre": [{"inputs": [0, 1, 2], "members": [_m("Add", "i0", "i1"), _m("Sqrt", "t0"),
                                                       _m("RealDiv", "i2", "t1")]}],
             "members": [_m("Sub", "i0", "i4"), _m("Mul", "t0", "i5")]}
    got = _run("FusedConv2D", attrs, x, w, var, eps, scale, mean)
    y = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w)).numpy()
    a = (scale / np.sqrt(var + eps)).reshape(4, 1, 1)
    np.testing.assert_allclose(got, (y - mean.reshape(4, 1, 1)) * a, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("scale_shape", [[], [1, 1, 256]])
def test_large_epilogues_split_over_threads_compile_and_match(scale_shape):
    """Above codegen's PARALLEL_MIN_ELEMENTS the epilogue loop is split over threads and vectorised (``omp
    parallel for simd``), whether it collapses into one loop (a scalar operand) or not (a broadcast row)."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((12, 128, 64)).astype(np.float32), rng.standard_normal((12, 64, 256)).astype(np.float32)
    s = rng.standard_normal(scale_shape).astype(np.float32)
    attrs = {"producer": {}, "views": [scale_shape], "members": [_m("Mul", "i0", "i1"), _m("Tanh", "t0")]}
    spec = get("FusedBatchMatMul").spec(attrs, [TensorType(a.shape, "float32"), TensorType(b.shape, "float32"),
                                                TensorType(tuple(scale_shape), "float32")])
    assert "simd" in emit(spec) and "omp parallel for" in emit(spec)
    got = _run("FusedBatchMatMul", attrs, a, b, s)
    np.testing.assert_allclose(got, np.tanh((a @ b) * s), rtol=1e-4, atol=1e-5)


def test_half_matmul_epilogue_rounds_like_the_unfused_ops():
    """float16: the product rounded once (f32 BLAS), then each member rounded to float16, as unfused."""
    rng = np.random.default_rng(3)
    a, w, b = (rng.standard_normal(s).astype(np.float16) for s in ((5, 8), (8, 6), (6,)))
    attrs = {"producer": {}, "views": [[6]], "members": [_m("Add", "i0", "i1"), _m("Sigmoid", "t0")]}
    got = _run("FusedMatMul", attrs, a, w, b)
    y = (a.astype(np.float32) @ w.astype(np.float32)).astype(np.float16)
    y = (y.astype(np.float32) + b.astype(np.float32)).astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), (1 / (1 + np.exp(-y))).astype(np.float16), atol=1e-3)


@pytest.mark.parametrize("attrs, match", [
    ({"producer": {}, "views": [[3]], "members": [_m("Add", "i0", "i1")]}, "view"),
    ({"producer": {}, "views": [], "members": [_m("Add", "i0", "i1")]}, "views"),
    ({"producer": {}, "views": [[4]], "members": [_m("MatMul", "i0", "i1")]}, "epilogue"),
    ({"producer": {}, "views": [[4]], "members": [_m("Add", "i0", "i1"), _m("Greater", "t0", "i0")]},
     "producer's type"),
    ({"producer": {"transpose_a": True}, "views": [[4]], "members": [_m("Add", "i0", "i1")]}, "inner dimensions"),
    ({"producer": {}, "views": [[4]], "pre": [{"inputs": [3], "members": [_m("Neg", "i0")]}],
      "members": [_m("Add", "i0", "i2")]}, "pre recipe"),
])
def test_bad_recipes_are_shape_errors_naming_the_problem(attrs, match):
    a, w, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(4, np.float32)
    with pytest.raises(ShapeError, match=match):
        _run("FusedMatMul", attrs, a, w, b)


def test_descriptors_are_canonical_and_distinct_per_recipe():
    """Equal recipes written differently share one spec (producer attrs normalised as the producer does,
    Conv2D's algo included); another member or view is another kernel."""
    x, w = TensorType((1, 2, 6, 6), "float32"), TensorType((3, 2, 3, 3), "float32")
    b = TensorType((3,), "float32")
    op = get("FusedConv2D")
    members = [_m("Add", "i0", "i1"), _m("ReLU", "t0")]
    one = op.spec({"producer": {"out_channel": 3, "kernel_size": 3}, "views": [[3, 1, 1]], "members": members},
                  [x, w, b])
    two = op.spec({"producer": {"out_channel": 3, "kernel_size": (3, 3), "stride": 1, "pad_mode": "valid"},
                   "views": [[3, 1, 1]], "members": members}, [x, w, b])
    assert one == two and one.attrs["producer"]["algo"] in ("direct", "im2col", "tiled")
    other = op.spec({"producer": {"out_channel": 3, "kernel_size": 3}, "views": [[3, 1, 1]],
                     "members": [_m("Add", "i0", "i1"), _m("Tanh", "t0")]}, [x, w, b])
    assert other.memo_key() != one.memo_key()
    # The class is the producer's: -O3 slows the im2col copies; the epilogue loop is `omp simd` at any level.
    for algo in ("direct", "im2col"):
        spec = op.spec({"producer": {"out_channel": 3, "kernel_size": 3, "algo": algo}, "views": [[3, 1, 1]],
                        "members": members}, [x, w, b])
        assert opt_class(spec) == opt_class(get("Conv2D").spec(spec.attrs["producer"], [x, w]))
        assert "#pragma omp simd" in emit(spec)
    assert opt_class(spec) == "glue"


def test_each_fused_op_hashes_only_its_producers_code():
    """FusedMatMul's key follows matmul.py, not the convolution kernels (sources.py walks each emitter)."""
    files = {name: {f.rsplit("/", 1)[-1] for f in emitter(name).files()}
             for name in ("FusedMatMul", "FusedConv2D")}
    assert {"matmul.py", "fused_gemm.py", "fused.py"} <= files["FusedMatMul"]
    assert "conv_kernels.py" not in files["FusedMatMul"]
    assert {"convolution.py", "conv_kernels.py", "fused_gemm.py"} <= files["FusedConv2D"]
