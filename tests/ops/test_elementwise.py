"""Elementwise ops against NumPy: every unary and binary op, Select, Cast and clip_by_value, over shapes (0-d,
size-1 dims, zero-size dims, rank up to 5, NumPy broadcasting) and dtypes, both in PYNATIVE mode (direct
calls) and in GRAPH mode (inside a Cell).

The NumPy oracles are written here, independently of the ops' registered references. Shapes come from small
pools so the number of distinct kernels stays moderate; values vary freely (they do not change the kernel).

Tolerances, per dtype:
  * exact (bit for bit, NaN == NaN): ops that are single correctly rounded IEEE operations or exact by nature
    (+ - * /, sqrt, 1/x, comparisons, min/max, floor/ceil/round, floor division and remainders, casts, select,
    integer and bool results of every op);
  * transcendental ops (libm in the kernel vs NumPy, both within a few ulp): float32 rtol 1e-5, atol 1e-6;
    float64 rtol 1e-12, atol 1e-14. Their float32 oracle is evaluated in float64 and rounded, so it is
    correctly rounded and the tolerance measures the kernel's error alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import opbuild as ms
from opbuild import nn, ops
from opbuild.core.errors import ShapeError
from opbuild.ops import elementwise

from ..conftest import run_python

pytestmark = pytest.mark.slow

FLOAT = ("float32", "float64")
INT = ("int32", "int64")
NUM = FLOAT + INT
ALL = NUM + ("bool",)
TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-12, "atol": 1e-14}}

SETTINGS = settings(max_examples=12, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Unary kernels are one flat loop whatever the rank; a 0-d and a rank-5 shape with size-1 dims suffice.
UNARY_SHAPES = [(), (2, 1, 3, 1, 2)]
# Per-op binary pairs: same shape (the flat, vectorised loop), 0-d against 1-d, two-sided broadcasting.
BINARY_PAIRS = [((2, 3), (2, 3)), ((), (5,)), ((3, 1, 4), (2, 1))]
# The broadcasting pool exercised on a few ops: 0-d, size-1 dims, rank 5, zero-size dims.
BROADCAST_PAIRS = [
    ((), ()), ((), (2, 3)), ((4, 1), (3,)), ((2, 1, 3), (1, 4, 1)), ((1,), (5,)),
    ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1)), ((3, 1, 1, 2, 1), (2, 1)), ((1, 1, 1), (1, 1, 1)), ((6, 1), (1, 1)),
    ((0, 3), (1, 3)), ((2, 0, 1), (3,)),
]
TRIPLES = [((2, 1, 3), (1, 4, 1), (3,)), ((), (2, 3), ()), ((1, 5), (4, 1), (4, 5)),
           ((2, 1, 1, 1, 3), (1, 2, 1, 3, 1), (3,))]

SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -2.5]


# ---- oracles --------------------------------------------------------------------------------------------

def _wide(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """Evaluate ``fn`` in float64 and round to the inputs' dtype (a correctly rounded float32 oracle)."""

    def ref(*xs: np.ndarray) -> np.ndarray:
        return np.asarray(fn(*(x.astype(np.float64) for x in xs))).astype(xs[0].dtype)

    return ref


_math_erf = np.vectorize(math.erf, otypes=[np.float64])


@dataclass(frozen=True)
class Case:
    """How to check one op: NumPy oracle, supported dtypes, exactness and input value domain."""

    ref: Callable[..., np.ndarray]
    dtypes: tuple[str, ...]
    exact: bool = True
    domain: str = "default"


def _complex_parts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape, np.complex64 if a.dtype == np.float32 else np.complex128)
    out.real, out.imag = a, b
    return out


UNARY = {
    # The complex family on real inputs (complex inputs: tests/core/test_complex.py); Angle and ComplexAbs
    # take complex inputs only.
    "Real": Case(np.real, FLOAT),
    "Imag": Case(np.imag, FLOAT),
    "Conj": Case(np.conj, FLOAT),
    "Angle": Case(np.angle, ()),
    "ComplexAbs": Case(np.abs, ()),
    "Square": Case(np.square, NUM),
    "Sqrt": Case(np.sqrt, FLOAT),
    "Rsqrt": Case(lambda x: 1 / np.sqrt(x), FLOAT),
    "Exp": Case(_wide(np.exp), FLOAT, exact=False),
    "Log": Case(_wide(np.log), FLOAT, exact=False),
    "Abs": Case(np.abs, NUM),
    "Neg": Case(np.negative, NUM),
    "Reciprocal": Case(lambda x: 1 / x, FLOAT),
    "Sin": Case(_wide(np.sin), FLOAT, exact=False),
    "Cos": Case(_wide(np.cos), FLOAT, exact=False),
    "Tanh": Case(_wide(np.tanh), FLOAT, exact=False),
    "Sigmoid": Case(_wide(lambda x: 1 / (1 + np.exp(-x))), FLOAT, exact=False),
    "ReLU": Case(lambda x: np.maximum(x, 0), NUM),
    "ReLU6": Case(lambda x: np.clip(x, 0, 6), NUM),
    "GeLU": Case(_wide(lambda x: 0.5 * x * (1 + _math_erf(x / math.sqrt(2)))), FLOAT, exact=False),
    "Erf": Case(_wide(_math_erf), FLOAT, exact=False),
    "Softplus": Case(_wide(lambda x: np.logaddexp(0, x)), FLOAT, exact=False),
    "Floor": Case(np.floor, FLOAT),
    "Ceil": Case(np.ceil, FLOAT),
    "Round": Case(np.rint, FLOAT),
    "IsNan": Case(np.isnan, FLOAT),
    "IsFinite": Case(np.isfinite, FLOAT),
    "LogicalNot": Case(np.logical_not, ("bool",)),
    "Sign": Case(np.sign, NUM),
    **{name: Case(_wide(ref), FLOAT, exact=False) for name, ref in (
        ("Tan", np.tan), ("Asin", np.arcsin), ("ACos", np.arccos), ("Atan", np.arctan), ("Sinh", np.sinh),
        ("Cosh", np.cosh), ("Asinh", np.arcsinh), ("Acosh", np.arccosh), ("Atanh", np.arctanh),
        ("Expm1", np.expm1), ("Log1p", np.log1p))},
    "Trunc": Case(np.trunc, FLOAT),
    "IsInf": Case(np.isinf, FLOAT),
    "Invert": Case(np.invert, INT),
}


def _float_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _wide(np.power)(a, b) if a.dtype == np.float32 else np.power(a, b)


BINARY = {
    "Add": Case(np.add, NUM),
    "Sub": Case(np.subtract, NUM),
    "Mul": Case(np.multiply, NUM),
    "RealDiv": Case(np.true_divide, FLOAT),
    "Pow": Case(lambda a, b: _float_pow(a, b) if a.dtype.kind == "f" else np.power(a, b), NUM, exact=False,
                domain="pow"),
    "Maximum": Case(np.maximum, NUM),
    "Minimum": Case(np.minimum, NUM),
    "FloorDiv": Case(np.floor_divide, NUM),
    "Mod": Case(np.fmod, NUM),
    "FloorMod": Case(np.mod, NUM),
    "Equal": Case(np.equal, ALL),
    "NotEqual": Case(np.not_equal, ALL),
    "Less": Case(np.less, NUM),
    "LessEqual": Case(np.less_equal, NUM),
    "Greater": Case(np.greater, NUM),
    "GreaterEqual": Case(np.greater_equal, NUM),
    "LogicalAnd": Case(np.logical_and, ("bool",)),
    "LogicalOr": Case(np.logical_or, ("bool",)),
    "Atan2": Case(_wide(np.arctan2), FLOAT, exact=False),
    "BitwiseAnd": Case(np.bitwise_and, INT),
    "BitwiseOr": Case(np.bitwise_or, INT),
    "BitwiseXor": Case(np.bitwise_xor, INT),
    "Complex": Case(lambda a, b: _complex_parts(a, b), FLOAT),
}


def test_every_elementwise_op_is_covered():
    """A new unary/binary op fails here until it gets an oracle in this file."""
    assert set(UNARY) == set(elementwise.UNARY)
    assert set(BINARY) == set(elementwise.BINARY)


# ---- strategies and runners -------------------------------------------------------------------------------

def values(dtype: str, domain: str = "default", role: int = 0) -> st.SearchStrategy:
    """Element values for ``dtype``; ``role`` distinguishes a binary op's operands where the domain does."""
    if dtype == "bool":
        return st.booleans()
    if dtype in INT:
        info = np.iinfo(dtype)
        if domain == "pow":  # exact wrapping powers: moderate bases, non-negative exponents
            return st.integers(-50, 50) if role == 0 else st.integers(0, 70)
        return st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-8, 8))
    width = 32 if dtype == "float32" else 64
    bound = 10.0 if domain == "pow" else 80.0
    # Integral values matter: negative bases with integer exponents, exact multiples in FloorMod.
    return st.one_of(st.floats(-bound, bound, width=width), st.integers(-10, 10).map(float),
                     st.sampled_from(SPECIAL_FLOATS))


def arrays(data: st.DataObject, dtype: str, shape: tuple[int, ...], domain: str = "default",
           role: int = 0) -> np.ndarray:
    return data.draw(hnp.arrays(np.dtype(dtype), shape, elements=values(dtype, domain, role)))


class OpCell(nn.Cell):
    """A Cell whose construct applies ``fn`` to its inputs (the GRAPH_MODE path of an op)."""

    def __init__(self, fn: Callable[..., ms.Tensor]):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def run_both(fn: Callable[..., ms.Tensor], *arrays_: np.ndarray) -> list[np.ndarray]:
    """``fn`` applied eagerly (PYNATIVE_MODE) and inside a Cell (GRAPH_MODE): both results as arrays."""
    tensors = [ms.Tensor(a) for a in arrays_]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager = fn(*tensors)
        ms.set_context(mode=ms.GRAPH_MODE)
        graph = OpCell(fn)(*tensors)
    finally:
        ms.set_context(mode=old)
    return [eager.asnumpy(), graph.asnumpy()]


def check(got: np.ndarray, want: np.ndarray, exact: bool) -> None:
    want = np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if exact or want.dtype.name not in TOL:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, **TOL[want.dtype.name])


def numpy_ref(fn: Callable[..., np.ndarray], *xs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(fn(*xs))


# ---- unary and binary ops ---------------------------------------------------------------------------------

UNARY_PARAMS = [(name, dt) for name, case in sorted(UNARY.items()) for dt in case.dtypes]
BINARY_PARAMS = [(name, dt) for name, case in sorted(BINARY.items()) for dt in case.dtypes]


@pytest.mark.parametrize(("name", "dtype"), UNARY_PARAMS)
@SETTINGS
@given(data=st.data())
def test_unary_matches_numpy(name, dtype, data):
    case = UNARY[name]
    x = arrays(data, dtype, data.draw(st.sampled_from(UNARY_SHAPES)), case.domain)
    want = numpy_ref(case.ref, x)
    for got in run_both(elementwise.PRIMITIVES[name](), x):
        check(got, want, case.exact)


@pytest.mark.parametrize(("name", "dtype"), BINARY_PARAMS)
@SETTINGS
@given(data=st.data())
def test_binary_matches_numpy(name, dtype, data):
    case = BINARY[name]
    sa, sb = data.draw(st.sampled_from(BINARY_PAIRS))
    if data.draw(st.booleans()):
        sa, sb = sb, sa
    a, b = arrays(data, dtype, sa, case.domain, 0), arrays(data, dtype, sb, case.domain, 1)
    want = numpy_ref(case.ref, a, b)
    for got in run_both(elementwise.PRIMITIVES[name](), a, b):
        check(got, want, case.exact)


@pytest.mark.parametrize(("name", "dtype"), [("Add", "float32"), ("Sub", "int64"), ("Less", "float64"),
                                             ("FloorMod", "int32")])
@SETTINGS
@given(data=st.data())
def test_binary_broadcasting(name, dtype, data):
    """Full NumPy broadcasting, both operand orders: 0-d, size-1 dims, rank 5, zero-size dims."""
    case = BINARY[name]
    sa, sb = data.draw(st.sampled_from(BROADCAST_PAIRS))
    if data.draw(st.booleans()):
        sa, sb = sb, sa
    a, b = arrays(data, dtype, sa), arrays(data, dtype, sb)
    want = numpy_ref(case.ref, a, b)
    assert want.shape == np.broadcast_shapes(sa, sb)
    for got in run_both(elementwise.PRIMITIVES[name](), a, b):
        check(got, want, case.exact)


def test_div_is_realdiv():
    a, b = np.array([1.0, -3.0, 0.0], np.float32), np.array([4.0, 2.0, 0.0], np.float32)
    for got in run_both(ops.Div(), a, b):
        check(got, numpy_ref(np.true_divide, a, b), exact=True)


# ---- special values ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT)
def test_maximum_minimum_propagate_nan(dtype):
    nan, inf = np.nan, np.inf
    a = np.array([nan, 1.0, nan, -inf, inf, 2.0, nan, -0.0], dtype)
    b = np.array([1.0, nan, nan, nan, -inf, 3.0, inf, 0.0], dtype)
    either = np.isnan(a) | np.isnan(b)
    for op, ref in ((ops.Maximum(), np.maximum), (ops.Minimum(), np.minimum)):
        for got in run_both(op, a, b):
            np.testing.assert_array_equal(np.isnan(got), either)
            check(got, ref(a, b), exact=True)


@pytest.mark.parametrize("dtype", FLOAT)
def test_isnan_special_values(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300 if dtype == "float64" else 1e-40, -np.nan, 7.0],
                 dtype)
    for got in run_both(ops.IsNan(), x):
        np.testing.assert_array_equal(got, [True, False, False, False, False, False, True, False])


@pytest.mark.parametrize("dtype", FLOAT)
def test_isfinite_special_values(dtype):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300 if dtype == "float64" else 1e-40, -np.nan, 7.0],
                 dtype)
    for got in run_both(ops.IsFinite(), x):
        np.testing.assert_array_equal(got, [False, False, False, True, True, True, False, True])


@pytest.mark.parametrize("dtype", FLOAT)
def test_round_half_to_even(dtype):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.4999998, -7.5], dtype)
    want = np.array([0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 2.0, -8.0], dtype)
    for got in run_both(ops.Round(), x):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.5 rounds to -0.0


@pytest.mark.parametrize("dtype", NUM)
def test_mod_and_floormod_sign_conventions(dtype):
    """Mod takes the dividend's sign (C fmod, np.fmod); FloorMod the divisor's (Python %, np.mod)."""
    a = np.array([7, -7, 7, -7, 6, -6], dtype)
    b = np.array([3, 3, -3, -3, 3, -3], dtype)
    for got in run_both(ops.Mod(), a, b):
        np.testing.assert_array_equal(got, np.array([1, -1, 1, -1, 0, 0], dtype))
    for got in run_both(ops.FloorMod(), a, b):
        np.testing.assert_array_equal(got, np.array([1, 2, -2, -1, 0, 0], dtype))
    if dtype in FLOAT:
        x = np.array([-7.5, 7.5, -7.5, 7.5, 5.0, -5.0], dtype)
        y = np.array([2, 2, -2, -2, np.inf, np.inf], dtype)
        for got in run_both(ops.Mod(), x, y):
            np.testing.assert_array_equal(got, np.array([-1.5, 1.5, -1.5, 1.5, 5.0, -5.0], dtype))
        for got in run_both(ops.FloorMod(), x, y):
            np.testing.assert_array_equal(got, np.array([0.5, 1.5, -1.5, -0.5, 5.0, np.inf], dtype))


@pytest.mark.parametrize("dtype", INT)
def test_int_floordiv_with_negatives(dtype):
    a = np.array([7, -7, 7, -7, 6, -6, 0, -1], dtype)
    b = np.array([2, 2, -2, -2, -3, 3, -5, 5], dtype)
    for got in run_both(ops.FloorDiv(), a, b):
        np.testing.assert_array_equal(got, np.array([3, -4, -4, 3, -2, -2, 0, -1], dtype))
    for got in run_both(lambda x, y: x // y, a, b):  # the Python operator maps to the same primitive
        np.testing.assert_array_equal(got, a // b)


def test_float_floordiv_follows_numpy_not_floor_of_quotient():
    """1 // 0.1 is 9 (the quotient 10.000000000000000555 is rounded before flooring); inf // 2 is nan."""
    a = np.array([1.0, np.inf, -1.0, 5.0, 0.0], np.float64)
    b = np.array([0.1, 2.0, 0.0, -np.inf, 0.0], np.float64)
    for got in run_both(ops.FloorDiv(), a, b):
        np.testing.assert_array_equal(got, [9.0, np.nan, -np.inf, -1.0, np.nan])


def test_int_division_by_zero_does_not_crash():
    """Integer x / 0 and MIN / -1 trap in C (SIGFPE); the kernels must return NumPy's values instead.

    Run in a subprocess so that a regression shows as a failed test, not as a killed test run."""
    code = """
import numpy as np, opbuild as ms, opbuild.ops as ops
ms.set_context(mode=ms.PYNATIVE_MODE)
for dt in (np.int32, np.int64):
    lo = np.iinfo(dt).min
    a = np.array([5, -5, lo, lo, 0], dt); b = np.array([0, 0, -1, 0, 0], dt)
    for op, ref in (("FloorDiv", np.floor_divide), ("Mod", np.fmod), ("FloorMod", np.mod)):
        got = getattr(ops, op)()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
        with np.errstate(all="ignore"):
            want = ref(a, b)
        assert (got == want).all(), (op, dt, got, want)
    # The composed integer divisions follow the same rule: a zero divisor gives 0, and so does its remainder.
    for fn in (ops.truncate_div, ops.truncate_mod, ops.floor_divide, ops.remainder, ops.fmod):
        got = fn(ms.Tensor(a), ms.Tensor(b)).asnumpy()
        assert (got[b == 0] == 0).all(), (fn.__name__, dt, got)
    assert (ops.truncate_div(ms.Tensor(a[:2]), ms.Tensor(np.array([2, 2], dt))).asnumpy() == [2, -2]).all()
    assert (ops.truncate_mod(ms.Tensor(a[:2]), ms.Tensor(np.array([2, 2], dt))).asnumpy() == [1, -1]).all()
print("ok")
"""
    proc = run_python(code, check=False)
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert proc.stdout.split() == ["ok"]


@pytest.mark.parametrize("dtype", INT)
def test_int_pow_exact_and_negative_exponents(dtype):
    """Integer powers are exact (no rounding through double) and wrap like NumPy; a negative exponent, which
    NumPy rejects, gives the integer part of the exact result."""
    a = np.array([3, -7, 2, 1, -1, -1, 5, 0, 10], dtype)
    b = np.array([35, 3, 40, -5, -3, -4, -2, 0, 19], dtype)
    want = np.array([3**35, -343, 2**40, 1, -1, 1, 0, 1, 10**19], dtype=object)
    bits = np.iinfo(dtype).bits
    wrapped = [(int(v) + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1) for v in want]
    for got in run_both(ops.Pow(), a, b):
        np.testing.assert_array_equal(got, np.array(wrapped, dtype))



@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_pow_is_pow_for_every_exponent_shape(dtype):
    """pow(-inf, 0.5) is +inf (C, IEEE 754), even where NumPy, given a scalar 0.5, takes sqrt (NaN)."""
    a = np.array([-np.inf, 4.0, 0.0, -0.0, np.inf], dtype)
    for b in (np.array(0.5, dtype), np.full(5, 0.5, dtype)):
        for got in run_both(ops.Pow(), a, b):
            np.testing.assert_array_equal(got, np.array([np.inf, 2.0, 0.0, 0.0, np.inf], dtype))

# ---- Select, Cast, clip_by_value --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@SETTINGS
@given(data=st.data())
def test_select_matches_where(dtype, data):
    sc, sx, sy = data.draw(st.permutations(data.draw(st.sampled_from(TRIPLES))))
    c = data.draw(hnp.arrays(np.bool_, sc))
    x, y = arrays(data, dtype, sx), arrays(data, dtype, sy)
    for got in run_both(ops.Select(), c, x, y):
        check(got, np.where(c, x, y), exact=True)


def test_select_with_python_scalar_branch():
    c = np.array([True, False, True])
    x = np.array([1.5, 2.5, 3.5], np.float32)
    for got in run_both(lambda cond, t: ops.Select()(cond, t, 0), c, x):
        check(got, np.where(c, x, np.float32(0)), exact=True)
    for got in run_both(lambda cond, t: ops.Select()(cond, -1, t), c, x):
        check(got, np.where(c, np.float32(-1), x), exact=True)


@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
@settings(max_examples=8, deadline=None, database=None)
@given(data=st.data())
def test_cast_every_dtype_pair(src, dst, data):
    if src in FLOAT and dst in INT:
        # Out-of-range and NaN float -> int conversions are undefined in C (NumPy warns); test the range
        # where the conversion is defined: truncation toward zero.
        elems = st.floats(-1e6, 1e6, width=32 if src == "float32" else 64)
    else:
        elems = values(src)
    x = data.draw(hnp.arrays(np.dtype(src), (2, 3), elements=elems))
    want = x.astype(dst)
    for got in run_both(lambda t: ops.Cast()(t, getattr(ms, dst if dst != "bool" else "bool_")), x):
        check(got, want, exact=True)


def test_cast_accepts_every_dtype_spelling():
    x = ms.Tensor(np.array([1.7, -2.2], np.float32))
    for spelling in (ms.int32, "int32", np.int32, np.dtype("int32")):
        out = ops.Cast()(x, spelling)
        assert out.dtype == ms.int32
        np.testing.assert_array_equal(out.asnumpy(), [1, -2])


@pytest.mark.parametrize("dtype", NUM)
@SETTINGS
@given(data=st.data())
def test_clip_by_value(dtype, data):
    x = arrays(data, dtype, (2, 3))
    if data.draw(st.booleans()):  # Python scalar bounds take x's dtype
        lo, hi = sorted(data.draw(st.lists(st.integers(-10, 10), min_size=2, max_size=2)))
        fn = lambda t: ops.clip_by_value(t, lo, hi)  # noqa: E731
        want = np.minimum(np.maximum(x, np.asarray(lo, dtype)), np.asarray(hi, dtype))
        results = run_both(fn, x)
    else:  # broadcast tensor bounds, in any order (lo > hi gives hi, as np.clip)
        lo, hi = arrays(data, dtype, (3,)), arrays(data, dtype, ())
        want = numpy_ref(lambda: np.minimum(np.maximum(x, lo), hi))
        results = run_both(ops.clip_by_value, x, lo, hi)
    for got in results:
        check(got, want, exact=True)


def test_clip_by_value_lower_above_upper_gives_upper():
    x = np.array([0.0, 5.0, 1.5, np.nan], np.float32)
    for got in run_both(lambda t: ops.clip_by_value(t, 2.0, 1.0), x):
        np.testing.assert_array_equal(got, np.clip(x, 2.0, 1.0))


# ---- bad input: ShapeError at trace/call time, naming the op and the inputs' shapes -------------------

def _raises_in_both_modes(fn: Callable[..., ms.Tensor], *arrays_: np.ndarray) -> list[ShapeError]:
    errors = []
    old = ms.get_context("mode")
    try:
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            ms.set_context(mode=mode)
            call = fn if mode == ms.PYNATIVE_MODE else OpCell(fn)
            with pytest.raises(ShapeError) as info:
                call(*[ms.Tensor(a) for a in arrays_])
            errors.append(info.value)
    finally:
        ms.set_context(mode=old)
    return errors


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_non_broadcastable_shapes_raise_shape_error(name):
    dt = BINARY[name].dtypes[0]
    a, b = np.zeros((2, 3), dt), np.zeros((4,), dt)
    for err in _raises_in_both_modes(elementwise.PRIMITIVES[name](), a, b):
        msg = str(err)
        assert err.op == name and msg.startswith(f"{name}:")
        assert f"{dt}[2, 3]" in msg and f"{dt}[4]" in msg and "broadcast" in msg


@pytest.mark.parametrize(("name", "dtype"), [(n, d) for n, c in sorted(UNARY.items()) for d in ALL
                                             if d not in c.dtypes])
def test_unary_unsupported_dtype_raises_shape_error(name, dtype):
    for err in _raises_in_both_modes(elementwise.PRIMITIVES[name](), np.zeros((2, 2), dtype)):
        assert err.op == name and f"{dtype}[2, 2]" in str(err) and "not supported" in str(err)


# Two bools divide as 0/1 (ops/api/base.py; tests/ops/test_bool_division.py), though the kernels have no bool.
_BOOL_AS_INTEGERS = {("FloorDiv", "bool"), ("FloorMod", "bool"), ("Mod", "bool")}


@pytest.mark.parametrize(("name", "dtype"), [(n, d) for n, c in sorted(BINARY.items()) for d in ALL
                                             if d not in c.dtypes and (n, d) not in _BOOL_AS_INTEGERS])
def test_binary_unsupported_dtype_raises_shape_error(name, dtype):
    for err in _raises_in_both_modes(elementwise.PRIMITIVES[name](), np.zeros((3,), dtype), np.zeros((3,), dtype)):
        assert err.op == name and f"{dtype}[3]" in str(err)


_BOOL_ONLY = ("LogicalAnd", "LogicalOr")
_INT_ONLY = ("BitwiseAnd", "BitwiseOr", "BitwiseXor")
_COMPARISONS = ("Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual")


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_mixed_dtypes_promote_as_mindspore(name):
    """float32 with int32 meets at float32, as MindSpore's implicit promotion gives (comparisons: bool); the
    bool-only and integer-only ops still refuse a float operand, naming the op and the operand."""
    a, b = np.array([0.5, 2.0, 3.0], np.float32), np.array([2], np.int32)
    if name in _BOOL_ONLY + _INT_ONLY:
        for err in _raises_in_both_modes(elementwise.PRIMITIVES[name](), a, b):
            assert err.op == name and "float32[3]" in str(err) and "not supported" in str(err)
        return
    out = elementwise.PRIMITIVES[name]()(ms.Tensor(a), ms.Tensor(b))
    want = "bool" if name in _COMPARISONS else "complex64" if name == "Complex" else "float32"
    assert out.shape == (3,) and out.dtype.name == want
    same = elementwise.PRIMITIVES[name]()(ms.Tensor(a), ms.Tensor(b.astype(np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), same.asnumpy())


def test_select_bad_inputs_raise_shape_error():
    c, x = np.array([True, False]), np.zeros(2, np.float32)
    (err, _) = _raises_in_both_modes(ops.Select(), x, x, x)  # non-bool condition
    assert err.op == "Select" and "bool" in str(err)
    (err, _) = _raises_in_both_modes(ops.Select(), c, x, np.zeros(3, np.float32))
    assert "float32[2]" in str(err) and "float32[3]" in str(err)
    # Branches of different dtypes are promoted, as MindSpore does (tests/compat/test_mixed_dtype.py).


def test_cast_to_unsupported_dtype_raises_shape_error():
    # complex64 became a dtype (docs/fft.md); a storage-only format cannot meet it in one Cast.
    for err in _raises_in_both_modes(lambda t: ops.Cast()(t, ms.float8_e4m3fn), np.zeros(2, np.complex64)):
        assert err.op == "Cast" and "complex64" in str(err) and "float32" in str(err)


def test_clip_by_value_bad_inputs_raise_shape_error():
    x = np.zeros((2, 3), np.float32)
    (err, _) = _raises_in_both_modes(ops.clip_by_value, x, np.zeros(4, np.float32), np.ones(3, np.float32))
    assert err.op == "ClipByValue" and "float32[4]" in str(err)
    (err, _) = _raises_in_both_modes(lambda t: ops.clip_by_value(t, 0.5, 2), np.zeros(3, np.int32))
    assert err.op == "ClipByValue" and "int32[3]" in str(err)


def test_arity_errors_name_the_op():
    with pytest.raises(ShapeError, match="Square: expects 1 inputs, got 2"):
        ops.Square()(ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32)))

