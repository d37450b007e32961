"""MindSpore math functions added as table rows or compositions (ops/api/math_misc.py, math_more.py):
MindSpore's documented examples and NumPy formulas, dtypes, errors; compositions in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from tests.helpers import run_op

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.mark.parametrize(("fn", "ref", "x"), [
    (ops.sign, np.sign, np.array([-2.0, -0.0, 0.0, 3.5, np.nan], np.float32)),
    (ops.sign, np.sign, np.array([-7, 0, 9], np.int32)),
    (ops.tan, np.tan, np.array([-1.0, 0.0, 1.0], np.float32)),
    (ops.arcsin, np.arcsin, np.array([-0.5, 0.0, 1.0], np.float32)),
    (ops.acos, np.arccos, np.array([-0.5, 0.0, 1.0], np.float64)),
    (ops.arctan, np.arctan, np.array([-9.0, 0.5], np.float32)),
    (ops.sinh, np.sinh, np.array([-1.0, 2.0], np.float32)),
    (ops.cosh, np.cosh, np.array([-1.0, 2.0], np.float32)),
    (ops.asinh, np.arcsinh, np.array([-1.0, 2.0], np.float32)),
    (ops.acosh, np.arccosh, np.array([1.0, 2.0], np.float32)),
    (ops.atanh, np.arctanh, np.array([-0.5, 0.25], np.float32)),
    (ops.expm1, np.expm1, np.array([1e-7, 1.0], np.float32)),
    (ops.log1p, np.log1p, np.array([1e-7, 1.0], np.float32)),
    (ops.trunc, np.trunc, np.array([-2.7, 2.7, -0.2], np.float32)),
    (ops.isinf, np.isinf, np.array([np.inf, -np.inf, np.nan, 1.0], np.float32)),
    (ops.invert, np.invert, np.array([0, 5, -6], np.int16)),
])
@pytest.mark.parametrize("mode", MODES)
def test_elementwise_math(mode, fn, ref, x) -> None:
    got = run_op(fn, x, mode=mode)
    want = ref(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_binary_math() -> None:
    a = ms.Tensor(np.array([0, 1], np.float32))
    b = ms.Tensor(np.array([1, 1], np.float32))
    np.testing.assert_allclose(ops.atan2(a, b).asnumpy(), [0.0, 0.7853982], rtol=1e-6)
    x = ms.Tensor(np.array([0, 0, 1, -1, 1, 1, 1], np.int16))
    y = ms.Tensor(np.array([0, 1, 1, -1, -1, 2, 3], np.int16))
    np.testing.assert_array_equal(ops.bitwise_and(x, y).asnumpy(), [0, 0, 1, -1, 1, 0, 1])
    np.testing.assert_array_equal(ops.bitwise_or(x, y).asnumpy(), [0, 1, 1, -1, -1, 3, 3])
    np.testing.assert_array_equal(ops.bitwise_xor(x, y).asnumpy(), [0, 1, 0, 0, -2, 3, 2])


def test_arange_dtypes() -> None:
    out = ops.arange(1, 6)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, 3, 4, 5])
    out = ops.arange(0.0, 3, 1)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [0, 1, 2])
    out = ops.arange(7, 1, -2, dtype=ms.int32)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [7, 5, 3])
    with pytest.raises(ValueError, match="step must not be 0"):
        ops.arange(0, 3, 0)


@pytest.mark.parametrize("mode", MODES)
def test_addcdiv_addcmul_addn(mode) -> None:
    rng = np.random.default_rng(0)
    x, t1, t2 = (rng.uniform(1, 2, (2, 3)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(run_op(lambda a, b, c: ops.addcdiv(a, b, c, value=2), x, t1, t2, mode=mode),
                               x + 2 * t1 / t2, rtol=1e-6)
    np.testing.assert_allclose(run_op(lambda a, b, c: ops.addcmul(a, b, c, value=0.5), x, t1, t2, mode=mode),
                               x + 0.5 * t1 * t2, rtol=1e-6)
    np.testing.assert_allclose(run_op(lambda a, b, c: ops.addn((a, b, c)), x, t1, t2, mode=mode), x + t1 + t2,
                               rtol=1e-6)
    with pytest.raises(ValueError, match="same shape and dtype"):
        ops.addn([ms.Tensor(x), ms.Tensor(x[0])])


def test_mm_and_tensor_dot() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(ops.mm(ms.Tensor(a), ms.Tensor(b)).asnumpy(), a @ b, rtol=1e-5)
    x1, x2 = rng.standard_normal((1, 2, 3)).astype(np.float32), rng.standard_normal((3, 1, 2)).astype(np.float32)
    got = ops.tensor_dot(ms.Tensor(x1), ms.Tensor(x2), ((0, 1), (1, 2))).asnumpy()
    np.testing.assert_allclose(got, np.tensordot(x1, x2, ((0, 1), (1, 2))), rtol=1e-5)
    got = ops.tensor_dot(ms.Tensor(a), ms.Tensor(b), 1).asnumpy()
    np.testing.assert_allclose(got, np.tensordot(a, b, 1), rtol=1e-5)
    with pytest.raises(ValueError, match="must be 2-D"):
        ops.mm(ms.Tensor(x1), ms.Tensor(b))


def test_count_nonzero_repeat_interleave_sequence_mask_select() -> None:
    x = ms.Tensor(np.array([[0, 1, 0], [1, 1, 0]], np.float32))
    out = ops.count_nonzero(x)
    assert out.dtype == ms.int32 and int(out.asnumpy()) == 3
    np.testing.assert_array_equal(ops.count_nonzero(x, axis=1, keep_dims=True, dtype=ms.int64).asnumpy(),
                                  [[1], [2]])
    v = np.array([[0, 1, 2], [3, 4, 5]], np.int32)
    np.testing.assert_array_equal(ops.repeat_interleave(ms.Tensor(v), 2, 0).asnumpy(), np.repeat(v, 2, 0))
    np.testing.assert_array_equal(ops.repeat_interleave(ms.Tensor(v), [1, 0, 2], 1).asnumpy(),
                                  np.repeat(v, [1, 0, 2], 1))
    np.testing.assert_array_equal(ops.repeat_interleave(ms.Tensor(v), 2).asnumpy(), np.repeat(v, 2))
    mask = ops.sequence_mask(ms.Tensor(np.array([1, 3, 2, 5])), 5).asnumpy()
    np.testing.assert_array_equal(mask, np.arange(5)[None, :] < np.array([1, 3, 2, 5])[:, None])
    assert ops.sequence_mask(ms.Tensor(np.array([[1, 3], [2, 0]]))).shape == (2, 2, 3)
    got = ops.select(ms.Tensor(np.array([True, False])), ms.Tensor(np.array([2.0, 3.0], np.float32)), 1.0)
    np.testing.assert_array_equal(got.asnumpy(), [2.0, 1.0])


def test_logsumexp_and_norms() -> None:
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32) * 40
    np.testing.assert_allclose(ops.logsumexp(ms.Tensor(x), 1).asnumpy(),
                               np.log(np.exp(x.astype(np.float64)).sum(1)), rtol=1e-5)
    out = ops.logsumexp(ms.Tensor(x), (0, 1), keep_dims=True)
    assert out.shape == (1, 1)
    for p in (1, 2, 3.5, float("inf"), float("-inf"), 0):
        np.testing.assert_allclose(ops.vector_norm(ms.Tensor(x), p, axis=0).asnumpy(),
                                   np.linalg.norm(x.astype(np.float64), p, axis=0), rtol=1e-5)
    np.testing.assert_allclose(ops.norm(ms.Tensor(x)).asnumpy(), np.linalg.norm(x), rtol=1e-5)
    np.testing.assert_allclose(ops.norm(ms.Tensor(x), "fro", dim=(0, 1)).asnumpy(), np.linalg.norm(x), rtol=1e-5)
    for o in ("nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        np.testing.assert_allclose(ops.norm(ms.Tensor(x), o).asnumpy(), np.linalg.norm(x.astype(np.float64), o),
                                   rtol=1e-5)
    with pytest.raises(ValueError, match="matrix_norm: ord must be one of"):
        ops.norm(ms.Tensor(x), 3)
