"""Scans (CumSum, CumProd) and scatters (TensorScatter*, TensorScatterElements): kernels against independent
NumPy formulas in both modes, their error messages, and their gradients against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.errors import ShapeError
from opbuild.ops.primitive import apply
from tests.helpers import run_op
from tests.ops.test_grads import check as grad_check
from tests.ops.test_grads import rand

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


def flip_cumsum(x, axis, exclusive, reverse, fn=np.cumsum):
    y = np.flip(x, axis) if reverse else x
    out = fn(y, axis=axis, dtype=x.dtype)
    if exclusive:
        ident = 0 if fn is np.cumsum else 1
        pad = np.full_like(np.take(out, [0], axis=axis), ident)
        out = np.concatenate([pad, np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("exclusive", "reverse"), [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum_cumprod_match_numpy(mode, exclusive, reverse, axis) -> None:
    x = np.random.default_rng(0).uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    got = run_op(lambda t: ops.CumSum(exclusive, reverse)(t, axis), x, mode=mode)
    np.testing.assert_allclose(got, flip_cumsum(x, axis % 3, exclusive, reverse), rtol=1e-6)
    got = run_op(lambda t: ops.CumProd(exclusive, reverse)(t, axis), x, mode=mode)
    np.testing.assert_allclose(got, flip_cumsum(x, axis % 3, exclusive, reverse, np.cumprod), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float64", "uint8"])
def test_cumsum_dtypes_are_exact(dtype) -> None:
    x = np.arange(1, 13).reshape(3, 4).astype(dtype)
    got = ops.CumSum()(ms.Tensor(x), 1).asnumpy()
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, np.cumsum(x, axis=1, dtype=x.dtype))


def test_functional_cumsum_cumprod() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(ops.cumsum(ms.Tensor(x), axis=0).asnumpy(), [[1, 2, 3], [5, 7, 9]])
    y = ops.cumsum(ms.Tensor(x), 1, dtype=ms.float32)
    assert y.dtype == ms.float32
    np.testing.assert_array_equal(y.asnumpy(), [[1, 3, 6], [4, 9, 15]])
    np.testing.assert_array_equal(ops.cumprod(ms.Tensor(x), 1).asnumpy(), [[1, 2, 6], [4, 20, 120]])


def test_scan_errors_name_the_problem() -> None:
    with pytest.raises(ShapeError, match="axis 2 is out of range"):
        ops.CumSum()(ms.Tensor(np.ones((2, 2), np.float32)), 2)
    with pytest.raises(ShapeError, match="bool is not supported"):
        ops.CumSum()(ms.Tensor(np.ones((2,), bool)), 0)
    with pytest.raises(TypeError, match="exclusive and reverse must be bool"):
        ops.CumSum(exclusive=1)


def nd_formula(x, idx, upd, fn):
    out = x.copy()
    for j, row in enumerate(idx.reshape(-1, idx.shape[-1])):
        row = [int(r) + (x.shape[d] if r < 0 else 0) for d, r in enumerate(row)]
        if all(0 <= r < x.shape[d] for d, r in enumerate(row)):
            out[tuple(row)] = fn(out[tuple(row)], upd.reshape((-1,) + x.shape[idx.shape[-1]:])[j])
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("op", "fn"), [("TensorScatterUpdate", lambda a, b: b), ("TensorScatterAdd", np.add),
                                        ("TensorScatterSub", np.subtract), ("TensorScatterMul", np.multiply),
                                        ("TensorScatterDiv", np.divide), ("TensorScatterMax", np.maximum),
                                        ("TensorScatterMin", np.minimum)])
def test_tensor_scatter_nd(mode, op, fn) -> None:
    """Repeated rows apply in order. The composition form (bounds="ignore") counts a negative index from the
    end and skips an out-of-range row; the primitive raises for those (tests/ops/test_index_bounds.py)."""
    rng = np.random.default_rng(1)
    x = rng.uniform(1, 2, (4, 3, 2)).astype(np.float32)
    idx = np.array([[0, 1], [3, 2], [0, 1], [3, 0], [2, 2]], np.int32)
    upd = rng.uniform(1, 2, (5, 2)).astype(np.float32)
    got = run_op(lambda a, i, u: getattr(ops, op)()(a, i, u), x, idx, upd, mode=mode)
    np.testing.assert_allclose(got, nd_formula(x, idx, upd, fn), rtol=1e-6)
    idx = np.array([[0, 1], [3, 2], [0, 1], [-1, 0], [5, 0]], np.int32)
    got = run_op(lambda a, i, u: apply(op, {}, [a, i, u]), x, idx, upd, mode=mode)
    np.testing.assert_allclose(got, nd_formula(x, idx, upd, fn), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_tensor_scatter_elements(mode, reduction) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(1, 2, (3, 4)).astype(np.float32)
    idx = np.array([[1, -1, 1], [0, 0, 9]], np.int64)  # shorter than x along axis 0 and 1, repeated, out of range
    upd = rng.uniform(1, 2, (2, 3)).astype(np.float32)
    fns = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    want = x.copy()
    for p in np.ndindex(*idx.shape):
        i = idx[p] + 4 if idx[p] < 0 else idx[p]
        if 0 <= i < 4:
            want[p[0], i] = fns[reduction](want[p[0], i], upd[p])
    got = run_op(lambda a, i, u: ops.TensorScatterElements(1, reduction)(a, i, u), x, idx, upd, mode=mode)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_scatter_errors_name_the_problem() -> None:
    x = ms.Tensor(np.zeros((3, 2), np.float32))
    with pytest.raises(ShapeError, match=r"updates must have shape .* \[2, 2\]"):
        ops.TensorScatterUpdate()(x, ms.Tensor(np.zeros((2, 1), np.int32)), ms.Tensor(np.zeros((2,), np.float32)))
    with pytest.raises(ShapeError, match="indices must be int32 or int64"):
        ops.TensorScatterAdd()(x, ms.Tensor(np.zeros((2, 1), np.float32)), ms.Tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(ShapeError, match="reduction must be one of"):
        ops.TensorScatterElements(0, "mean")(x, ms.Tensor(np.zeros((1, 1), np.int32)),
                                             ms.Tensor(np.zeros((1, 1), np.float32)))


@pytest.mark.parametrize(("exclusive", "reverse"), [(False, False), (True, True)])
def test_scan_gradients(graph_mode, exclusive, reverse) -> None:
    x = rand(3, 4, low=0.5, high=1.5)
    grad_check(lambda a: ops.CumSum(exclusive, reverse)(a, 1), x)
    grad_check(lambda a: ops.CumProd(exclusive, reverse)(a, 0), x)


@pytest.mark.parametrize("op", ["TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMul",
                                "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin"])
def test_scatter_nd_gradients(graph_mode, op) -> None:
    # The composition form (bounds="ignore"): -1 is row 2 again; 7 is skipped.
    idx = ms.Tensor(np.array([[2], [0], [-1], [7]], np.int64))
    x, upd = rand(3, 2, low=0.5, high=1.5, seed=3), rand(4, 2, low=0.5, high=1.5, seed=4)
    grad_check(lambda a, u: apply(op, {}, [a, idx, u]), x, upd)
    idx = ms.Tensor(np.array([[2], [0], [2], [1]], np.int64))
    grad_check(lambda a, u: getattr(ops, op)()(a, idx, u), x, upd)


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max"])
def test_scatter_elements_gradients(graph_mode, reduction) -> None:
    idx = ms.Tensor(np.array([[1, 0], [3, 3]], np.int32))
    x, upd = rand(2, 4, low=0.5, high=1.5, seed=5), rand(2, 2, low=0.5, high=1.5, seed=6)
    grad_check(lambda a, u: ops.TensorScatterElements(1, reduction)(a, idx, u), x, upd)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8"])
def test_cummax_cummin_match_the_reference(mode, dtype) -> None:
    """Ties take the later index, a NaN sticks and a later NaN takes its index (MindSpore's rules; the values
    are checked against MindSpore itself in tests/compat/test_ms_math_ops.py)."""
    from opbuild.ops.scan import extremum_reference

    x = np.random.default_rng(3).integers(0, 4, (3, 7, 2)).astype(dtype)
    if dtype.startswith("float"):
        x[1, 3, 0] = np.nan
    for op, fn in (("Cummax", ops.cummax), ("Cummin", ops.cummin)):
        vals, idx = (run_op(lambda t, i=i, fn=fn: fn(t, 1)[i], x, mode=mode) for i in (0, 1))
        want_v, want_i = extremum_reference(op, {"axis": 1}, x)
        np.testing.assert_array_equal(vals, want_v)
        np.testing.assert_array_equal(idx, want_i)
        assert idx.dtype == (np.int64 if op == "Cummax" else np.int32)


def test_cummax_cummin_gradients(graph_mode) -> None:
    x = rand(3, 5, seed=9)
    grad_check(lambda a: ops.cummax(a, 1)[0], x)
    grad_check(lambda a: ops.cummin(a, 0)[0], x)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cummax_cummin_a_later_nan_takes_the_index(mode, dtype) -> None:
    """After a NaN the running value stays NaN, and each later NaN takes over the index (torch's rule, and
    MindSpore 2.10's: cummin([3, nan, 1, -inf, nan, 2]) has indices [0, 1, 1, 1, 4, 4])."""
    torch = pytest.importorskip("torch")
    nan, inf = np.nan, np.inf
    x = np.array([[3, nan, 1, -inf, nan, 2], [nan, 1, nan, nan, 0, 0], [1, 1, nan, 5, nan, 7]], dtype)
    for fn, ref in ((ops.cummax, torch.cummax), (ops.cummin, torch.cummin)):
        want = ref(torch.from_numpy(x.T.copy()), 0)  # along axis 0 of the transposed array too
        for t, axis, w in ((x, 1, ref(torch.from_numpy(x), 1)), (x.T.copy(), 0, want)):
            vals, idx = (run_op(lambda a, i=i, fn=fn, axis=axis: fn(a, axis)[i], t, mode=mode) for i in (0, 1))
            np.testing.assert_array_equal(vals, w.values.numpy())
            np.testing.assert_array_equal(idx, w.indices.numpy())
