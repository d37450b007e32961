"""The generated small GEMM (targets/cpu/kernels/gemm_tiled.py) against NumPy in float64: row and column tiles
with their tails (rows past the last whole tile, vectors past the last whole block, columns past the last whole
vector), transposed operands (``b``'s through the panel), float64, batched products folded into one tall GEMM
or run per batch, and a fused epilogue; and the shapes that keep the BLAS call."""

import numpy as np
import pytest

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import gemm_plan
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op
from opbuild.targets.cpu.kernels import gemm_tiled
from opbuild.targets.cpu.kernels.registry import emit, opt_class

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _spec(op: str, attrs: dict, arrays) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(a.shape, a.dtype.name) for a in arrays])


SHAPES = [(2, 128, 16), (7, 40, 17), (65, 128, 130), (13, 1, 48), (33, 70, 95), (6, 40, 64), (29, 33, 200)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)],
                         ids=["a.b", "aT.b", "a.bT", "aT.bT"])
@pytest.mark.parametrize("m,k,n", SHAPES, ids=[f"{m}x{k}x{n}" for m, k, n in SHAPES])
def test_matmul_tiles_and_tails(m, k, n, ta, tb, dtype):
    rng = np.random.default_rng(m * 1000 + n)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    attrs = {"transpose_a": ta, "transpose_b": tb}
    spec = _spec("MatMul", attrs, [a, b])
    lanes = 64 // np.dtype(dtype).itemsize
    tiled = gemm_tiled.pays(np.dtype(dtype).name, m, n, k, tb)
    assert tiled == (n >= lanes and m * n * k >= gemm_plan.MIN_MACS)  # every panel here fits
    assert ("ob_gv" in emit(spec)) == tiled and (opt_class(spec) == "compute") == tiled
    got = apply("MatMul", attrs, [ms.Tensor(a), ms.Tensor(b)]).asnumpy()
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(k))


@pytest.mark.parametrize("tb", [False, True], ids=["b", "bT"])
def test_large_products_split_over_threads(tb):
    # 2^22+ multiply-adds: the row tiles of each column block go to OpenMP's threads; a transposed b this deep
    # has its panel in the kernel's planned workspace (never allocated in the kernel)
    rng = np.random.default_rng(11)
    a = rng.standard_normal((70, 2100)).astype(np.float32)
    b = rng.standard_normal((40, 2100) if tb else (2100, 40)).astype(np.float32)
    attrs = {"transpose_a": False, "transpose_b": tb}
    src = emit(_spec("MatMul", attrs, [a, b]))
    assert "ob_gv" in src and "omp parallel for" in src
    assert ("ob_panel = (float *)(ob_ws + 0);" in src) == tb and "alloc" not in src
    got = apply("MatMul", attrs, [ms.Tensor(a), ms.Tensor(b)]).asnumpy()
    want = a.astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


def test_what_keeps_the_blas():
    b = np.ones((128, 128), np.float32)
    row = np.ones((1, 128), np.float32)  # one row: gemv
    assert "ob_gv" not in emit(_spec("MatMul", {"transpose_a": False, "transpose_b": False}, [row, b]))
    narrow = np.ones((128, 8), np.float32)  # fewer columns than a vector
    assert "ob_gv" not in emit(_spec("MatMul", {"transpose_a": False, "transpose_b": False}, [b, narrow]))
    assert not gemm_tiled.pays("int32", 64, 64, 64, False)


@pytest.mark.parametrize("b_shape", [(48, 40), (3, 48, 40)], ids=["shared-b", "batched-b"])
def test_batch_matmul(b_shape):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 21, 48)).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    attrs = {"transpose_a": False, "transpose_b": False}
    spec = _spec("BatchMatMul", attrs, [a, b])
    assert "ob_gv" in emit(spec) and opt_class(spec) == "compute"
    got = apply("BatchMatMul", attrs, [ms.Tensor(a), ms.Tensor(b)]).asnumpy()
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_dense_relu_fuses_onto_the_generated_gemm():
    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(7)
    net = nn.SequentialCell([nn.Dense(96, 80), nn.ReLU()])
    x = rng.standard_normal((24, 96)).astype(np.float32)
    got = net(ms.Tensor(x)).asnumpy()
    w, bias = net[0].weight.asnumpy(), net[0].bias.asnumpy()
    np.testing.assert_allclose(got, np.maximum(x @ w.T + bias, 0), rtol=1e-4, atol=1e-4)
    # nn.Dense multiplies by the transposed weight (its panel copied per call), ops.matmul by a stored
    # (K, N) matrix: both take the generated kernel with the epilogue after it.
    wt = ms.Tensor(np.ascontiguousarray(w.T))

    @ms.jit
    def dense(x):
        return ops.relu(ops.matmul(x, wt) + ms.Tensor(bias))

    np.testing.assert_allclose(dense(ms.Tensor(x)).asnumpy(), np.maximum(x @ w.T + bias, 0), rtol=1e-4,
                               atol=1e-4)
