"""The narrow dtypes of issue #16 (float16, bfloat16, int8/int16, uint8..uint64) through the kernels.

Rules under test (docs/dtypes.md):
  * half types compute in float32 and round once on store; the reference is NumPy's float32 result rounded
    once (ml_dtypes for bfloat16). Tolerance: one unit in the last place of the half type (2**-10 relative
    for float16, 2**-7 for bfloat16), because the kernels' float32 math (libmvec, ob_tanhf, another
    summation order) may differ from NumPy's by a few float32 ulps, which can move a result across a half
    rounding boundary; reductions add the float32 error of their terms (4 float32 eps times sum |x|).
  * every integer width wraps as NumPy's does, and is compared exactly; x // 0 and x % 0 give 0.
  * Cast float -> int: NaN -> 0, beyond the range (and +-inf) saturates, the rest truncates; every other
    pair is NumPy's / ml_dtypes' astype, exactly.
Each dtype's ops run as one graph (one batched build) to keep the number of compiler calls small.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms
import opbuild.ops as ops
from opbuild.core.dtypes import ANY, BY_NAME, HALFS
from opbuild.core.errors import ShapeError
from opbuild.ops.elementwise import BINARY, UNARY, out_dtype
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get  # the table's op itself (ops.GeLU is MindSpore's tanh composition)
from tests.helpers import FnCell

pytestmark = pytest.mark.slow

HALF_ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
NEW_INTS = ("int8", "int16", "uint8", "uint16", "uint32", "uint64")
RNG = np.random.default_rng(16)


def _np(dt: str) -> np.dtype:
    return BY_NAME[dt].np_dtype


def _run_graph(fn, *arrays):
    """``fn(*tensors)`` (a tuple of tensors) as one GRAPH_MODE network; NumPy results."""
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        outs = FnCell(fn)(*[ms.Tensor(a) for a in arrays])
    finally:
        ms.set_context(mode=old)
    return [o.asnumpy() for o in (outs if isinstance(outs, (tuple, list)) else (outs,))]


def _assert_half_close(got: np.ndarray, want: np.ndarray, dt: str, extra_atol=0.0, what: str = "") -> None:
    assert got.dtype == _np(dt), what
    g, w = got.astype(np.float32), want.astype(np.float32)
    tiny = float(np.finfo(np.float16).tiny) if dt == "float16" else 1e-30
    bound = HALF_ULP[dt] * np.abs(w) + np.maximum(extra_atol, tiny)
    with np.errstate(invalid="ignore"):
        bad = ~((np.abs(g - w) <= bound) | (np.isnan(g) & np.isnan(w)) | (g == w))
    limit = np.broadcast_to(bound, g.shape)[bad][:5]
    assert not bad.any(), f"{what} {dt}: got {g[bad][:5]}, want {w[bad][:5]}, bound {limit}"


def _half_input(dt: str, op: str, shape=(257,)) -> np.ndarray:
    x = RNG.uniform(0.01, 8.0, shape) if op in ("Sqrt", "Rsqrt", "Log") else RNG.uniform(-4.0, 4.0, shape)
    return x.astype(np.float32).astype(_np(dt))


def _ref32(ref, *arrays, out_dt: str):
    with np.errstate(all="ignore"):
        r = np.asarray(ref(*[a.astype(np.float32) for a in arrays]))
    return r.astype(_np(out_dt)) if r.dtype.kind == "f" else r


# ---- elementwise: every table op over the half types ----------------------------------------------------

@pytest.mark.parametrize("dt", HALFS)
def test_unary_ops_half_types_round_once_from_float32(dt):
    names = [n for n, u in UNARY.items() if dt in u.dtypes]
    assert len(names) >= 20
    xs = [_half_input(dt, n) for n in names]
    outs = _run_graph(lambda *ts: tuple(get(n).primitive()(t)
                                        for n, t in zip(names, ts)), *xs)
    for n, x, got in zip(names, xs, outs):
        want = _ref32(UNARY[n].ref, x, out_dt=out_dtype(UNARY[n].out, dt))
        if want.dtype == np.bool_:
            np.testing.assert_array_equal(got, want, err_msg=n)
        else:
            _assert_half_close(got, want, dt, what=n)


@pytest.mark.parametrize("dt", HALFS)
def test_binary_ops_half_types_round_once_from_float32(dt):
    names = [n for n, b in BINARY.items() if dt in b.dtypes]
    a = _half_input(dt, "", (3, 65))
    b = _half_input(dt, "", (65,))  # broadcast along the first axis
    b[b == 0] = 1
    outs = _run_graph(lambda x, y: tuple(apply(n, {}, [x, y]) for n in names), a, b)
    for n, got in zip(names, outs):
        want = _ref32(BINARY[n].ref, a, b, out_dt=out_dtype(BINARY[n].out, dt))
        if want.dtype == np.bool_:
            np.testing.assert_array_equal(got, want, err_msg=n)
        else:
            _assert_half_close(got, want, dt, what=n)


def test_half_special_values_propagate():
    for dt in HALFS:
        x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 65504.0], dtype=np.float32).astype(_np(dt))
        (neg, ab, sq) = _run_graph(lambda t: (ops.Neg()(t), ops.Abs()(t), ops.Square()(t)), x)
        np.testing.assert_array_equal(neg.astype(np.float32), -x.astype(np.float32))
        np.testing.assert_array_equal(ab.astype(np.float32), np.abs(x.astype(np.float32)))
        # float16: 65504**2 overflows to inf on the rounding store; bfloat16 holds it (rounded)
        with np.errstate(over="ignore"):
            want = np.square(x.astype(np.float32)).astype(_np(dt))
        assert sq.dtype == want.dtype
        np.testing.assert_array_equal(sq.astype(np.float32), want.astype(np.float32))


# ---- elementwise: integer widths wrap exactly as NumPy -------------------------------------------------

def _int_input(dt: str, shape, small=False) -> np.ndarray:
    info = np.iinfo(_np(dt))
    if small:
        return RNG.integers(0, 8, shape).astype(_np(dt))
    x = RNG.integers(info.min, info.max, shape, dtype=_np(dt), endpoint=True)
    x.flat[:4] = [info.min, info.max, 0, 1]
    return x


@pytest.mark.parametrize("dt", NEW_INTS)
def test_integer_ops_wrap_exactly_as_numpy(dt):
    unary = [n for n, u in UNARY.items() if dt in u.dtypes]
    binary = [n for n, b in BINARY.items() if dt in b.dtypes and n != "Pow"]
    assert {"Square", "Abs", "Neg", "ReLU"} <= set(unary) and {"Add", "Mul", "FloorDiv", "FloorMod"} <= set(binary)
    x = _int_input(dt, (2, 40))
    y = _int_input(dt, (2, 40))
    y.flat[4:8] = [0, 0, 1, 3]
    if not BY_NAME[dt].is_unsigned:
        y.flat[8:10] = [-1, -1]
        x.flat[8] = np.iinfo(_np(dt)).min  # MIN // -1 wraps to MIN, MIN % -1 is 0
    e = RNG.integers(0, 9, (2, 40)).astype(_np(dt))
    outs = _run_graph(lambda a, b, c: tuple([get(n).primitive()(a) for n in unary]
                                            + [apply(n, {}, [a, b]) for n in binary]
                                            + [apply("Pow", {}, [a, c])]), x, y, e)
    with np.errstate(all="ignore"):
        wants = ([np.asarray(UNARY[n].ref(x)).astype(_np(out_dtype(UNARY[n].out, dt))) for n in unary]
                 + [np.asarray(BINARY[n].ref(x, y)) for n in binary] + [np.power(x, e)])
    for n, got, want in zip(unary + binary + ["Pow"], outs, wants):
        assert got.dtype == want.dtype, n
        np.testing.assert_array_equal(got, want, err_msg=f"{n} {dt}")


def test_unsigned_huge_exponent_and_divisor():
    x = np.array([3, 2**64 - 1, 10], np.uint64)
    y = np.array([2**63 + 1, 2**64 - 1, 2**64 - 1], np.uint64)
    pw, fd, fm = _run_graph(lambda a, b: (apply("Pow", {}, [a, b]), apply("FloorDiv", {}, [a, b]),
                                          apply("FloorMod", {}, [a, b])), x, y)
    np.testing.assert_array_equal(pw, np.power(x, y))
    np.testing.assert_array_equal(fd, np.array([0, 1, 0], np.uint64))
    np.testing.assert_array_equal(fm, np.array([3, 0, 10], np.uint64))


# ---- reductions ----------------------------------------------------------------------------------------

_REDUCE_NP = {"ReduceSum": np.sum, "ReduceMean": np.mean, "ReduceProd": np.prod, "ReduceMax": np.max,
              "ReduceMin": np.min}


@pytest.mark.parametrize("dt", HALFS + NEW_INTS)
@pytest.mark.parametrize("axis", [(1,), (2,), (0, 2), ()])
def test_reductions_over_new_dtypes(dt, axis):
    names = [n for n in _REDUCE_NP if not (n == "ReduceMean" and dt not in HALFS)]
    if dt in HALFS:
        x = (RNG.uniform(0.5, 1.5, (3, 50, 7)) * RNG.choice([-1, 1], (3, 50, 7))).astype(_np(dt))
        p = RNG.uniform(0.9, 1.1, (3, 50, 7)).astype(_np(dt))
    else:
        x = _int_input(dt, (3, 50, 7))
        p = x
    outs = _run_graph(lambda a, b: tuple(getattr(ops, n)()(b if n == "ReduceProd" else a, axis) for n in names), x, p)
    for n, got in zip(names, outs):
        src = p if n == "ReduceProd" else x
        ax = axis or None
        if dt in HALFS:
            w32 = src.astype(np.float32)
            want = _REDUCE_NP[n](w32, axis=ax)
            err = 4 * np.finfo(np.float32).eps * np.sum(np.abs(w32), axis=ax)
            if n == "ReduceProd":
                err = 4 * np.finfo(np.float32).eps * w32.shape[1] * np.abs(want)
            _assert_half_close(got, np.asarray(want).astype(_np(dt)), dt, extra_atol=err, what=n)
        else:
            kw = {"dtype": x.dtype} if n in ("ReduceSum", "ReduceProd") else {}
            with np.errstate(all="ignore"):
                want = _REDUCE_NP[n](src, axis=ax, **kw)
            np.testing.assert_array_equal(got, want, err_msg=f"{n} {dt}")


# ---- Cast: every pair ---------------------------------------------------------------------------------

_FLOAT_VALUES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.5, -2.5, 0.99, -0.99, 100.7, -100.7, 300.0,
                 -300.0, 70000.5, -70000.5, 3.0e9, -3.0e9, 1.0e19, -1.0e19, 1.0e30, 6.0e-8]


def _values(dt: str) -> np.ndarray:
    if dt == "bool":
        return np.array([True, False, True], np.bool_)
    if BY_NAME[dt].is_float:
        return np.array(_FLOAT_VALUES, np.float64).astype(_np(dt))
    info = np.iinfo(_np(dt))
    vals = [0, 1, -1, 127, -128, 255, 256, 32767, -32768, 65535, 65536, 2**31 - 1, -2**31, 2**32 - 1, 2**53 + 1,
            2**63 - 1, -2**63, 2**64 - 1]
    return np.array([v for v in vals if info.min <= v <= info.max], dtype=_np(dt))


def _cast_want(x: np.ndarray, dst: str) -> np.ndarray:
    """The documented rule, written out element by element (independent of the op's own reference)."""
    d = BY_NAME[dst]
    if dst == "bool":
        return np.array([bool(v != 0) or v != v for v in x.astype(np.float64)]) if x.dtype.kind in "fV" \
            else x.astype(np.bool_)
    if d.is_int and x.dtype.kind in "fV":
        info = np.iinfo(d.np_dtype)
        out = []
        for v in x.astype(np.float64).tolist():
            if v != v:
                out.append(0)
            elif v <= info.min - 1 or v == -math.inf:
                out.append(info.min)
            elif v >= info.max + 1:
                out.append(info.max)
            else:
                out.append(int(v))  # truncation toward zero
        return np.array(out, dtype=d.np_dtype)
    return x.astype(d.np_dtype)


@pytest.mark.parametrize("src", ANY)
def test_cast_matrix_all_pairs(src):
    x = _values(src)
    outs = _run_graph(lambda t: tuple(ops.Cast()(t, BY_NAME[d]) for d in ANY), x)
    for dst, got in zip(ANY, outs):
        want = _cast_want(x, dst)
        assert got.dtype == want.dtype, (src, dst)
        if BY_NAME[dst].is_float:  # NaN == NaN here; -0.0 keeps its sign
            np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64), err_msg=f"{src}->{dst}")
            assert np.array_equal(np.signbit(got.astype(np.float64)), np.signbit(want.astype(np.float64)))
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{src}->{dst}")


# ---- Tensor, Parameter, errors -----------------------------------------------------------------------

def test_tensor_and_parameter_accept_new_dtypes():
    for d in (ms.float16, ms.bfloat16, ms.int8, ms.int16, ms.uint8, ms.uint16, ms.uint32, ms.uint64):
        t = ms.Tensor([1, 2, 3], d)
        assert t.dtype == d and t.asnumpy().dtype == d.np_dtype
        p = ms.Parameter(ms.Tensor(np.ones((2,), d.np_dtype)), name=f"p_{d.name}")
        assert p.dtype == d
    assert ms.Tensor(np.zeros(2, ml_dtypes.bfloat16)).dtype is ms.bfloat16
    import opbuild.common.dtype as mstype
    assert mstype.float16 is ms.float16 and mstype.half is ms.float16 and mstype.bfloat16 is ms.bfloat16
    assert str(ms.bfloat16) == "BFloat16" and str(ms.uint8) == "UInt8"


def test_ops_not_written_for_narrow_types_reject_them_clearly():
    # MatMul, the normalisations, Conv2D and pooling take half types now (tests/ops/test_half_nn_ops.py,
    # tests/ops/test_conv_backward_half.py, tests/ops/test_pool_half.py); the integers stay out of AvgPool.
    x = np.ones((1, 1, 4, 4), np.int16)
    with pytest.raises(ShapeError, match="int16 is not supported"):
        ops.AvgPool(kernel_size=2, strides=2)(ms.Tensor(x))


# ---- the cache: a dtype is part of the key -------------------------------------------------------------

def test_same_op_in_two_dtypes_is_two_entries_and_reused_by_a_second_process(tmp_path):
    from tests.cache._util import env_for
    from tests.conftest import run_python

    code = ("from opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\n"
            "specs = [REGISTRY['Add'].spec({}, [TensorType((5,), d)] * 2) for d in ('float16', 'bfloat16')]\n"
            "_, report = Builder().build(specs)\nprint(report.built, report.reused)\n")
    env = env_for(tmp_path)
    assert run_python(code, env=env).stdout.split() == ["2", "0"]
    infos = sorted(p.name for p in tmp_path.rglob("add_*.info"))
    assert len(infos) == 2, infos
    assert run_python(code, env=env).stdout.split() == ["0", "2"]
