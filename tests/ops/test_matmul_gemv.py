"""Products with one row or one column call the BLAS's gemv, not gemm (targets/cpu/kernels/matmul.py): the
generated C names the gemv symbol, and the results match NumPy for every transpose combination, float32,
float64 and the half types, batched products and a fused bias epilogue (a batch-1 classifier head)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

from opbuild import Tensor, ops
from opbuild.core.ir import TensorType
from opbuild.ops import apply
from opbuild.ops.registry import get
from opbuild.targets.cpu.kernels import emit
from tests.helpers import run_op
from tests.ops.test_matmul import check, ref_matmul


def _source(op: str, attrs: dict, shapes, dtype: str) -> str:
    return emit(get(op).spec(attrs, [TensorType(s, dtype) for s in shapes]))


@pytest.mark.parametrize("dtype,gemv", [("float32", "OB_BLAS_SGEMV"), ("float64", "OB_BLAS_DGEMV")])
def test_classifier_head_calls_gemv_and_matches_numpy(dtype, gemv):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 1280)).astype(dtype)
    b = rng.standard_normal((1280, 1000)).astype(dtype)
    c = _source("MatMul", {}, [a.shape, b.shape], dtype)
    assert gemv in c and "GEMM" not in c
    check(run_op(ops.MatMul(), a, b), ref_matmul(a, b, False, False), dtype, 1280)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("m,k,n", [(1, 37, 23), (19, 41, 1), (1, 17, 1), (1, 1, 9)])
def test_one_row_or_one_column_every_transpose(m, k, n, ta, tb):
    rng = np.random.default_rng(m * 100 + n)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    attrs = {"transpose_a": ta, "transpose_b": tb}
    c = _source("MatMul", attrs, [a.shape, b.shape], "float32")
    assert "OB_BLAS_SGEMV" in c and "OB_BLAS_SGEMM" not in c
    check(run_op(ops.MatMul(transpose_a=ta, transpose_b=tb), a, b), ref_matmul(a, b, ta, tb), "float32", k)


def test_two_rows_and_columns_still_call_gemm():
    c = _source("MatMul", {}, [(2, 8), (8, 2)], "float32")
    assert "OB_BLAS_SGEMM" in c and "GEMV" not in c


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_single_row_rounds_the_float32_gemv_once(dtype):
    npt = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(3)
    a = rng.standard_normal((1, 64)).astype(npt)
    b = rng.standard_normal((64, 30)).astype(npt)
    assert "OB_BLAS_SGEMV" in _source("MatMul", {}, [a.shape, b.shape], dtype)
    got = run_op(ops.MatMul(), a, b).astype(np.float32)
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(npt).astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10, atol=1e-2)


@pytest.mark.parametrize("sa,sb,gemv", [
    ((5, 1, 16), (5, 16, 7), True),   # one row per batch: a gemv per batch
    ((4, 6, 16), (16, 1), True),      # shared column: the batches fold into one 24-row gemv
    ((3, 1, 8), (8, 5), False),       # shared b: the single rows fold into one 3-row gemm
])
def test_batched_single_row_or_column(sa, sb, gemv):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
    c = _source("BatchMatMul", {}, [sa, sb], "float32")
    assert ("OB_BLAS_SGEMV" in c) == gemv and ("OB_BLAS_SGEMM" in c) != gemv
    check(run_op(ops.BatchMatMul(), a, b), np.matmul(a.astype(np.float64), b), "float32", sa[-1])


def test_fused_bias_relu_head_calls_gemv_and_matches_torch():
    rng = np.random.default_rng(5)
    x, w, bias = (rng.standard_normal(s).astype(np.float32) for s in ((1, 96), (40, 96), (40,)))
    attrs = {"producer": {"transpose_b": True}, "views": [[40]],
             "members": [{"op": "Add", "attrs": {}, "args": ["i0", "i1"]}, {"op": "ReLU", "attrs": {}, "args": ["t0"]}]}
    c = _source("FusedMatMul", attrs, [x.shape, w.shape, bias.shape], "float32")
    assert "OB_BLAS_SGEMV" in c and "OB_BLAS_SGEMM" not in c
    got = apply("FusedMatMul", attrs, [Tensor(x), Tensor(w), Tensor(bias)]).asnumpy()
    want = torch.relu(torch.nn.functional.linear(*(torch.from_numpy(v) for v in (x, w, bias)))).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
