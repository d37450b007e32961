"""Reductions (ReduceSum/Mean/Max/Min/Prod, ArgMax/ArgMin) against NumPy, in PYNATIVE mode (direct calls) and in
GRAPH mode (inside a Cell), over a small pool of shapes (0-d, size-1 axes, rows long enough for the SIMD-lane
path, innermost axis kept or reduced), every axis form (int, negative, tuple, ()) and keep_dims.

Every result is checked twice: against the op's registered NumPy reference (the oracle of the reference
interpreter) and against an independent formula written here (reduced axes moved last and each row reduced
with math.fsum / math.prod / sorting in float64).

Tolerances, per dtype (u = unit roundoff: 2**-24 for float32, 2**-53 for float64):
  * integer results, ReduceMax/ReduceMin and ArgMax/ArgMin: exact (NaN == NaN). Integer sums and products wrap
    around like NumPy with ``dtype=x.dtype``.
  * float sums: |got - exact| <= 2 n u sum|x| (n = elements reduced), the rigorous bound of any summation
    order, so the test does not depend on how the kernel associates the additions; means: that bound / n plus
    2 u |mean| for the division.
  * float products: |got - exact| <= 3 n u |exact| (each multiplication adds one rounding; the float64
    oracle adds its own n roundings, which matters only for float64 inputs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import ShapeError
from opbuild.ops.registry import get

pytestmark = pytest.mark.slow

SETTINGS = settings(max_examples=20, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

# (4, 70): rows of 70 use the SIMD-lane path (>= 2 * lanes for every dtype); (3, 5, 6) and (2, 3, 4, 5) mix
# kept and reduced groups in both innermost positions; (1, 33, 1) has size-1 axes; () is 0-d.
SHAPES = [(), (7,), (4, 70), (3, 5, 6), (2, 3, 4, 5), (1, 33, 1)]
REDUCE_DTYPES = {"ReduceSum": ("float32", "float64", "int32", "int64"), "ReduceMean": ("float32", "float64"),
                 "ReduceProd": ("float32", "float64", "int32", "int64"),
                 "ReduceMax": ("float32", "float64", "int32", "int64"),
                 "ReduceMin": ("float32", "float64", "int32", "int64")}
U = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}


class ReduceNet(nn.Cell):
    """One reduction inside a Cell: in GRAPH_MODE it is traced and compiled as a graph."""

    def __init__(self, prim, *args):
        super().__init__()
        self.prim = prim
        self.args = args

    def construct(self, x):
        return self.prim(x, *self.args)


def run(prim, x: np.ndarray, *args) -> np.ndarray:
    """Apply ``prim`` to ``x`` in the current mode: a direct call in PyNative, a Cell's graph in GRAPH mode."""
    out = ReduceNet(prim, *args)(ms.Tensor(x)) if ms.get_context("mode") == ms.GRAPH_MODE else prim(ms.Tensor(x), *args)
    assert isinstance(out, ms.Tensor)
    return out.asnumpy()


def canonical(axis, rank: int) -> tuple[int, ...]:
    """The axes a reduction covers, worked out independently of the op's normalize."""
    if axis == () or axis == []:
        return tuple(range(rank))
    return tuple(sorted({a % rank for a in ((axis,) if isinstance(axis, int) else axis)}))


def rows(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """x with the reduced axes moved last and flattened: shape (kept..., n), float64/int64 copy."""
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + list(axes))
    return moved.reshape(tuple(x.shape[d] for d in kept) + (-1,))


def expected_shape(shape, axes, keep_dims) -> tuple[int, ...]:
    return tuple(1 if d in axes else s for d, s in enumerate(shape) if keep_dims or d not in axes)


def wrap(values: np.ndarray, dtype: str) -> np.ndarray:
    """Python ints reduced modulo 2**bits into ``dtype`` (two's complement), like C unsigned arithmetic."""
    bits = np.dtype(dtype).itemsize * 8
    return np.array([((int(v) + 2 ** (bits - 1)) % 2 ** bits) - 2 ** (bits - 1) for v in values.ravel()],
                    dtype=dtype).reshape(values.shape)


def make_input(rng: np.random.Generator, op: str, shape, dtype: str, nan: bool) -> np.ndarray:
    if dtype.startswith("int"):
        # Small values make ties (ArgMax) and, for products of 70 factors, int32/int64 overflow (wrap-around).
        return rng.integers(-3 if op != "ReduceSum" else -(2 ** 30), 4 if op != "ReduceSum" else 2 ** 30,
                            shape).astype(dtype)
    x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape) if op == "ReduceProd" else rng.normal(0, 3, shape)
    x = np.asarray(x, dtype=dtype)
    if nan and x.size:
        x.reshape(-1)[rng.integers(0, x.size, max(1, x.size // 20))] = np.nan
    return x


def independent(op: str, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The reduction by an independent formula (row by row in Python / float64)."""
    r = rows(x, axes)
    flat = r.reshape(-1, r.shape[-1])
    if op in ("ReduceSum", "ReduceMean", "ReduceProd") and x.dtype.kind == "i":
        fn = sum if op == "ReduceSum" else math.prod
        exact = np.array([fn(int(v) for v in row) for row in flat], dtype=object)
        return wrap(exact, x.dtype.name).reshape(r.shape[:-1])
    if op in ("ReduceSum", "ReduceMean"):
        s = np.array([math.fsum(row) for row in flat.astype(np.float64)])
        return (s / r.shape[-1] if op == "ReduceMean" else s).reshape(r.shape[:-1])
    if op == "ReduceProd":
        return np.array([math.prod(row) for row in flat.astype(np.float64)]).reshape(r.shape[:-1])
    srt = np.sort(flat, axis=-1)  # NaN sorts last
    has_nan = np.isnan(flat).any(axis=-1) if x.dtype.kind == "f" else np.zeros(len(flat), bool)
    pick = srt[:, -1] if op == "ReduceMax" else srt[:, 0]
    return np.where(has_nan, np.nan, pick).astype(x.dtype).reshape(r.shape[:-1])


def check_reduction(op: str, x: np.ndarray, got: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> None:
    want_shape = expected_shape(x.shape, axes, keep_dims)
    assert got.shape == want_shape and got.dtype == x.dtype, (got.shape, got.dtype, want_shape)
    oracle = get(op).reference({"axis": axes, "keep_dims": keep_dims}, x)
    exact = independent(op, x, axes).reshape(want_shape)
    if x.dtype.kind == "i" or op in ("ReduceMax", "ReduceMin"):
        np.testing.assert_array_equal(got, np.asarray(oracle).reshape(want_shape))
        np.testing.assert_array_equal(got, exact)
        return
    n = max(1, x.size // max(1, got.size))
    u = U[x.dtype.name]
    if op == "ReduceProd":
        bound = 3 * n * u * np.abs(exact)
    else:
        bound = 2 * n * u * independent("ReduceSum", np.abs(x), axes).reshape(want_shape)
        if op == "ReduceMean":
            bound = bound / n + 2 * u * np.abs(exact)
    assert np.all(np.abs(got - exact) <= bound + 1e-300), np.max(np.abs(got - exact) - bound)
    assert np.all(np.abs(got - np.asarray(oracle).reshape(want_shape)) <= 2 * bound + 1e-300)


@st.composite
def reduction_case(draw, ops_=tuple(REDUCE_DTYPES)):
    op = draw(st.sampled_from(ops_))
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(REDUCE_DTYPES[op]))
    rank = len(shape)
    if rank == 0:
        axis = ()
    else:
        kind = draw(st.sampled_from(["all", "int", "tuple"]))
        if kind == "all":
            axis = ()
        elif kind == "int":
            axis = draw(st.integers(-rank, rank - 1))
        else:
            picked = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
            axis = tuple(a - rank if draw(st.booleans()) else a for a in picked)  # some written negative
    keep_dims = draw(st.booleans())
    nan = draw(st.booleans()) and op in ("ReduceMax", "ReduceMin") and dtype.startswith("float")
    return op, shape, dtype, axis, keep_dims, nan, draw(st.integers(0, 2 ** 32 - 1))


@SETTINGS
@given(case=reduction_case())
def test_reductions_match_numpy(mode, case):
    op, shape, dtype, axis, keep_dims, nan, seed = case
    x = make_input(np.random.default_rng(seed), op, shape, dtype, nan)
    got = run(getattr(ops, op)(keep_dims=keep_dims), x, axis)
    check_reduction(op, x, got, canonical(axis, x.ndim), keep_dims)


@SETTINGS
@given(case=reduction_case(("ReduceMax", "ReduceMin")))
def test_max_min_propagate_nan(mode, case):
    op, shape, dtype, axis, keep_dims, _, seed = case
    x = make_input(np.random.default_rng(seed), op, shape, "float32", True)
    got = run(getattr(ops, op)(keep_dims), x, axis)
    check_reduction(op, x, got, canonical(axis, x.ndim), keep_dims)


@st.composite
def arg_case(draw):
    op = draw(st.sampled_from(["ArgMax", "ArgMin"]))
    shape = draw(st.sampled_from([s for s in SHAPES if s] + [(3, 300)]))  # (3, 300): several search blocks
    dtype = draw(st.sampled_from(["float32", "float64", "int32", "int64"]))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    out_type = draw(st.sampled_from([ms.int32, ms.int64]))
    return op, shape, dtype, axis, out_type, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1))


def first_extreme(row: np.ndarray, is_max: bool) -> int:
    """Index of the first largest (smallest) element, the first NaN if any: a plain Python scan."""
    best = 0
    for i, v in enumerate(row):
        if v != v:
            return i
        if (v > row[best]) if is_max else (v < row[best]):
            best = i
    return best


@SETTINGS
@given(case=arg_case())
def test_argmax_argmin_match_numpy(mode, case):
    op, shape, dtype, axis, out_type, nan, seed = case
    rng = np.random.default_rng(seed)
    x = make_input(rng, op, shape, dtype, nan and dtype.startswith("float"))
    if dtype.startswith("float") and not nan:
        x = np.round(x)  # many ties: the first occurrence must win
    got = run(getattr(ops, op)(axis=axis, output_type=out_type), x)
    ax = axis % len(shape)
    assert got.dtype == out_type.name and got.shape == shape[:ax] + shape[ax + 1:]
    np.testing.assert_array_equal(got, getattr(np, op.lower())(x, axis=axis))
    r = rows(x, (ax,))
    indep = np.array([first_extreme(row, op == "ArgMax") for row in r.reshape(-1, r.shape[-1])])
    np.testing.assert_array_equal(got.reshape(-1), indep)


# ---- specific behaviour ---------------------------------------------------------------------------------------

def test_equal_reductions_share_one_kernel():
    """axis () / all axes listed in any order and sign normalise to the same attrs, hence one kernel."""
    x = ms.Tensor(np.ones((2, 3), np.float32))
    opdef = get("ReduceSum")
    specs = [opdef.spec({"axis": a, "keep_dims": False}, [x._type]) for a in [(), (0, 1), (1, 0), (-1, -2), [0, -1]]]
    assert all(s.attrs == {"axis": (0, 1), "keep_dims": False} for s in specs)
    assert len({s.memo_key() for s in specs}) == 1
    assert get("ArgMax").spec({"axis": -1}, [x._type]).attrs == {"axis": 1, "output_type": "int32"}
    assert get("ArgMax").spec({"axis": 1, "output_type": ms.int32}, [x._type]).memo_key() == \
        get("ArgMax").spec({"axis": -1}, [x._type]).memo_key()


def test_primitives_follow_mindspore_signatures(pynative_mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(ops.ReduceSum()(ms.Tensor(x)).asnumpy(), np.float32(276))
    assert ops.ReduceSum()(ms.Tensor(x)).shape == ()
    np.testing.assert_array_equal(ops.ReduceMean(keep_dims=True)(ms.Tensor(x), axis=(0, 2)).asnumpy(),
                                  x.mean(axis=(0, 2), keepdims=True))
    assert ops.Argmax is ops.ArgMax and ops.Argmin is ops.ArgMin
    np.testing.assert_array_equal(ops.Argmax(axis=1, output_type=ms.int64)(ms.Tensor(x)).asnumpy(), np.full((2, 4), 2))
    assert repr(ops.ReduceMax(keep_dims=True)) == "Prim[ReduceMax]<keep_dims=True>"


def test_int32_sum_wraps_like_numpy(mode):
    x = np.full((3, 70), 2 ** 30, dtype=np.int32)
    got = run(ops.ReduceSum(), x, 1)
    np.testing.assert_array_equal(got, np.sum(x, axis=1, dtype=np.int32))
    assert got[0] == wrap(np.array([70 * 2 ** 30], dtype=object), "int32")[0]


def test_reducing_size_one_and_empty_axes(mode):
    x = np.arange(6, dtype=np.float64).reshape(1, 6, 1)
    np.testing.assert_array_equal(run(ops.ReduceMax(True), x, (0, 2)), x)  # only size-1 axes: a copy
    e = np.zeros((2, 0, 3), np.float32)
    np.testing.assert_array_equal(run(ops.ReduceSum(), e, 1), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(run(ops.ReduceProd(), e, 1), np.ones((2, 3), np.float32))
    assert np.isnan(run(ops.ReduceMean(), e, 1)).all()
    assert run(ops.ReduceSum(), e, 0).shape == (0, 3)
    s = np.array(2.5, np.float32)
    assert run(ops.ReduceSum(), s).shape == () and run(ops.ReduceSum(True), s) == np.float32(2.5)


def test_reference_interpreter_agrees_with_kernels(graph_mode):
    """The reference interpreter (NumPy) and the compiled graph give the same reductions."""
    from opbuild.core import trace
    from opbuild.runtime.reference import run_reference

    class Net(nn.Cell):
        def construct(self, x):
            return (ops.ReduceSum()(ops.ReduceMax(True)(x, 2), (0, -1)), ops.ArgMin(0)(x), ops.ReduceProd()(x, 1))

    x = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32)
    graph, _ = trace.trace(Net().construct, (ms.Tensor(x),))
    want = run_reference(graph, [x])
    got = Net()(ms.Tensor(x))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


# ---- errors: raised at call/trace time, naming the op and the input shapes -----------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda x: ops.ReduceSum()(x, 2), r"ReduceSum: axis 2 is out of range for rank 2 \(input\[0\]: float32\[2, 3\]\)"),
    (lambda x: ops.ReduceMax()(x, (0, -2)), r"ReduceMax: axis \(0, -2\) names the same axis twice .*float32\[2, 3\]"),
    (lambda x: ops.ReduceSum()(x, 1.0), r"ReduceSum: axis must be an int or a tuple of ints, got 1.0"),
    (lambda x: ops.ReduceSum(keep_dims=1)(x), r"ReduceSum: keep_dims must be a bool, got 1"),
    (lambda x: ops.ArgMax(axis=-3)(x), r"ArgMax: axis -3 is out of range for rank 2 \(input\[0\]: float32\[2, 3\]\)"),
    (lambda x: ops.ArgMin(output_type=ms.float32)(x), r"ArgMin: output_type must be int32 or int64, got float32"),
])
def test_bad_arguments_raise_shape_error(pynative_mode, call, message):
    with pytest.raises(ShapeError, match=message):
        call(ms.Tensor(np.zeros((2, 3), np.float32)))


def test_bad_dtypes_and_empty_extrema_raise(pynative_mode):
    # An integer ReduceMean is MindSpore's truncated mean in the input's dtype (tests/core/int_input_cases.py).
    got = ops.ReduceMean()(ms.Tensor(np.array([-3, 0, 2, 5], np.int32)))
    assert str(got.dtype) == "Int32" and int(got.asnumpy()) == 1
    with pytest.raises(ShapeError, match=r"ReduceMean: dtype bool is not supported .*bool\[4\]"):
        ops.ReduceMean()(ms.Tensor(np.zeros(4, bool)))  # ReduceSum of bools is their any (MindSpore's)
    with pytest.raises(ShapeError, match=r"ReduceMax: cannot reduce over axis \(1,\): it has size 0.*float32\[2, 0\]"):
        ops.ReduceMax()(ms.Tensor(np.zeros((2, 0), np.float32)), 1)
    with pytest.raises(ShapeError, match=r"ArgMax: axis 0 has size 0.*float32\[0, 2\]"):
        ops.ArgMax(0)(ms.Tensor(np.zeros((0, 2), np.float32)))
    with pytest.raises(ShapeError, match=r"ArgMax: input must have rank >= 1 \(input\[0\]: float32\[\]\)"):
        ops.ArgMax()(ms.Tensor(np.float32(1)))
    with pytest.raises(ShapeError, match=r"ReduceSum: axis \(0,\) is out of range for a rank-0 input"):
        ops.ReduceSum()(ms.Tensor(np.float32(1)), 0)


def test_errors_are_raised_while_tracing(graph_mode):
    with pytest.raises(ShapeError, match=r"ReduceProd: axis 5 is out of range for rank 3 .*float64\[2, 3, 4\]"):
        ReduceNet(ops.ReduceProd(), 5)(ms.Tensor(np.zeros((2, 3, 4))))
