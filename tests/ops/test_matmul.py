"""MatMul, BatchMatMul and BiasAdd against NumPy, in PyNative and GRAPH mode, plus their error messages.

References are plain NumPy (``np.matmul`` on explicitly transposed operands, computed in float64 for float
inputs). Tolerances: float32 rtol 1e-4 and atol 1e-4 * sqrt(K) (a gemm sums K products of unit-scale values in
float32, in a different order than NumPy); float64 rtol 1e-10 atol 1e-12 * sqrt(K); integers exact.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild import Tensor, ops
from opbuild.core.errors import ShapeError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from tests.helpers import run_op

SETTINGS = settings(max_examples=20, deadline=None)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


run = run_op


def data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    if dtype.startswith("int"):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def check(out: np.ndarray, ref: np.ndarray, dtype: str, k: int) -> None:
    """Compare with the per-dtype tolerance of a length-``k`` dot product."""
    assert out.dtype == np.dtype(dtype)
    assert out.shape == ref.shape
    if dtype.startswith("int"):
        np.testing.assert_array_equal(out, ref.astype(dtype))
    elif dtype == "float32":
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * max(k, 1) ** 0.5)
    else:
        np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12 * max(k, 1) ** 0.5)


def ref_matmul(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool) -> np.ndarray:
    """np.matmul of the (optionally) transposed operands, in float64 for floats (int: NumPy's wrapping)."""
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    if a.dtype.kind == "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
    return np.matmul(a, b)


# ---- MatMul ---------------------------------------------------------------------------------------

@SETTINGS
@given(m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9), ta=st.booleans(), tb=st.booleans(),
       dtype=st.sampled_from(["float32", "float64", "int32", "int64"]), mode=st.sampled_from(MODES),
       seed=st.integers(0, 2**16))
def test_matmul_matches_numpy(m, k, n, ta, tb, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    a = data(rng, (k, m) if ta else (m, k), dtype)
    b = data(rng, (n, k) if tb else (k, n), dtype)
    out = run(ops.MatMul(transpose_a=ta, transpose_b=tb), a, b, mode=mode)
    check(out, ref_matmul(a, b, ta, tb), dtype, k)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_large_float32_exercises_blas_blocking(ta, tb):
    rng = np.random.default_rng(1)
    m, k, n = 130, 257, 67
    a = data(rng, (k, m) if ta else (m, k), "float32")
    b = data(rng, (n, k) if tb else (k, n), "float32")
    check(run(ops.MatMul(ta, tb), a, b), ref_matmul(a, b, ta, tb), "float32", k)


def test_matmul_int32_wraps_like_numpy():
    a = np.full((2, 3), 2**20, dtype=np.int32)
    b = np.full((3, 2), 2**12, dtype=np.int32)
    with np.errstate(over="ignore"):
        ref = a @ b  # 3 * 2**32 wraps to 0 in int32
    np.testing.assert_array_equal(run(ops.MatMul(), a, b), ref)


@pytest.mark.parametrize("shapes", [((0, 3), (3, 4)), ((3, 0), (0, 4)), ((3, 4), (4, 0))])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_matmul_empty_dims(shapes, dtype):
    a, b = np.ones(shapes[0], dtype), np.ones(shapes[1], dtype)
    out = run(ops.MatMul(), a, b)
    np.testing.assert_array_equal(out, a @ b)  # K = 0 gives zeros, not garbage


def test_matmul_errors_name_op_and_shapes():
    a, b = Tensor(np.ones((3, 4), np.float32)), Tensor(np.ones((3, 5), np.float32))
    with pytest.raises(ShapeError, match=r"MatMul: inner dimensions do not match.*"
                                         r"float32\[3, 4\].*float32\[3, 5\]"):
        ops.MatMul()(a, b)
    ops.MatMul(transpose_a=True)(a, b)  # (4, 3) @ (3, 5) is fine
    with pytest.raises(ShapeError, match=r"MatMul: both inputs must be 2-D.*float32\[2, 3, 4\]"):
        ops.MatMul()(Tensor(np.ones((2, 3, 4), np.float32)), b)
    with pytest.raises(ShapeError, match=r"MatMul: inputs must have the same dtype"):
        ops.MatMul()(a, Tensor(np.ones((4, 5), np.float64)))
    with pytest.raises(ShapeError, match=r"MatMul: dtype bool is not supported"):
        ops.MatMul()(Tensor(np.ones((2, 2), bool)), Tensor(np.ones((2, 2), bool)))
    with pytest.raises(ShapeError, match=r"MatMul: transpose_a must be a bool"):
        ops.MatMul(transpose_a="yes")(a, b)


# ---- BatchMatMul ----------------------------------------------------------------------------------

@st.composite
def batch_shapes(draw):
    """Two broadcast-compatible batch shapes (rank 0..3, dims 1..3, some dims broadcast or dropped)."""
    full = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    a = [d if draw(st.booleans()) else 1 for d in full]
    b = [d if draw(st.booleans()) else 1 for d in full]
    a = a[draw(st.integers(0, len(a))):]
    b = b[draw(st.integers(0, len(b))):]
    return tuple(a), tuple(b)


@SETTINGS
@given(batches=batch_shapes(), m=st.integers(1, 5), k=st.integers(1, 5), n=st.integers(1, 5),
       ta=st.booleans(), tb=st.booleans(), dtype=st.sampled_from(["float32", "float64", "int32"]),
       mode=st.sampled_from(MODES), seed=st.integers(0, 2**16))
def test_batch_matmul_broadcasts_like_numpy(batches, m, k, n, ta, tb, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    a = data(rng, batches[0] + ((k, m) if ta else (m, k)), dtype)
    b = data(rng, batches[1] + ((n, k) if tb else (k, n)), dtype)
    out = run(ops.BatchMatMul(transpose_a=ta, transpose_b=tb), a, b, mode=mode)
    check(out, ref_matmul(a, b, ta, tb), dtype, k)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sa,sb", [
    ((4, 3, 5), (5, 2)),  # b shared by every batch: folded into one tall gemm
    ((2, 1, 3, 5), (4, 5, 2)),  # broadcast on both sides
    ((5,), (5, 2)),  # 1-D a: a row vector, dim dropped
    ((2, 3, 5), (5,)),  # 1-D b: a column vector, dim dropped
    ((3, 5), (2, 5, 4)),  # 2-D a broadcast over b's batch
])
def test_batch_matmul_fold_broadcast_and_vectors(sa, sb, mode):
    rng = np.random.default_rng(2)
    a, b = data(rng, sa, "float32"), data(rng, sb, "float32")
    check(run(ops.BatchMatMul(), a, b, mode=mode), ref_matmul(a, b, False, False), "float32", 5)


def test_batch_matmul_vector_dot_infers_a_scalar():
    a = np.arange(4, dtype=np.float64)
    spec = get("BatchMatMul").spec({}, [TensorType((4,), "float64")] * 2)
    assert spec.outputs[0].shape == ()
    out = run(ops.BatchMatMul(), a, a)
    assert float(out.reshape(-1)[0]) == float(a @ a)


@pytest.mark.parametrize("mode", MODES)
def test_matmul_operator_uses_batch_matmul(mode):
    rng = np.random.default_rng(3)
    a, b = data(rng, (3, 4), "float32"), data(rng, (4, 2), "float32")
    check(run(lambda x, y: x @ y, a, b, mode=mode), ref_matmul(a, b, False, False), "float32", 4)


def test_batch_matmul_empty_batch_and_k():
    a, b = np.ones((2, 0, 3, 4), np.float32), np.ones((4, 5), np.float32)
    assert run(ops.BatchMatMul(), a, b).shape == (2, 0, 3, 5)
    a, b = np.ones((2, 3, 0), np.float32), np.ones((2, 0, 5), np.float32)
    np.testing.assert_array_equal(run(ops.BatchMatMul(), a, b), np.zeros((2, 3, 5), np.float32))


def test_batch_matmul_errors_name_op_and_shapes():
    def t(*shape):
        return Tensor(np.ones(shape, np.float32))

    with pytest.raises(ShapeError, match=r"BatchMatMul: inner dimensions.*float32\[2, 3, 4\].*float32\[2, 5"):
        ops.BatchMatMul()(t(2, 3, 4), t(2, 5, 6))
    with pytest.raises(ShapeError, match=r"BatchMatMul: batch dimensions \[2\] and \[3\] cannot be"):
        ops.BatchMatMul()(t(2, 3, 4), t(3, 4, 6))
    with pytest.raises(ShapeError, match=r"BatchMatMul: transpose_a needs a of rank >= 2"):
        ops.BatchMatMul(transpose_a=True)(t(4), t(4, 2))
    with pytest.raises(ShapeError, match=r"BatchMatMul: inputs must have rank >= 1"):
        get("BatchMatMul").spec({}, [TensorType((), "float32"), TensorType((4, 2), "float32")])
    with pytest.raises(ShapeError, match=r"BatchMatMul: inner dimensions"):
        t(3, 4) @ t(3, 4)


# ---- BiasAdd --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape,fmt", [((5, 3), "NCHW"), ((2, 3, 4), "NCHW"), ((2, 3, 4, 5), "NCHW"),
                                       ((2, 3, 2, 2, 2), "NCDHW"), ((2, 4, 5, 3), "NHWC")])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_bias_add(shape, fmt, dtype, mode):
    rng = np.random.default_rng(4)
    x = data(rng, shape, dtype)
    axis = len(shape) - 1 if fmt == "NHWC" else 1
    bias = data(rng, (shape[axis],), dtype)
    ref = x + bias.reshape([-1 if d == axis else 1 for d in range(len(shape))])
    out = run(ops.BiasAdd(data_format=fmt), x, bias, mode=mode)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, ref)  # one addition per element: exact


def test_bias_add_errors():
    x = Tensor(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ShapeError, match=r"BiasAdd: bias must be 1-D with 3 elements.*float32\[4\]"):
        ops.BiasAdd()(x, Tensor(np.ones(4, np.float32)))
    with pytest.raises(ShapeError, match=r"BiasAdd: x must have rank >= 2"):
        ops.BiasAdd()(Tensor(np.ones(3, np.float32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ShapeError, match=r"BiasAdd: data_format must be one of"):
        ops.BiasAdd(data_format="CHWN")(x, Tensor(np.ones(3, np.float32)))
