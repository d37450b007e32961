"""float16 kernels that convert by blocks (targets/cpu/blocked.py) still compute each element in float32 and
round it once: their bits equal NumPy's float32 result rounded once to float16.

The ops here have a correctly rounded float32 result (+, -, *, /, sqrt, comparisons, selects, casts, BiasAdd),
so the kernel must match NumPy exactly, not within an ulp. Broadcasting operands (rows converted by blocks,
columns loaded once per row) are covered unfused and fused. Lengths cover one short block, a block plus an 8-lane
tail, several blocks whose last is partial, and one large enough for the OpenMP split
(codegen.PARALLEL_MIN_ELEMENTS); inputs hold NaN, infinities, subnormals and products that land on float16
rounding ties. The elementwise ops run unfused (one kernel each) and once more as one fused kernel.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import opbuild as ms
import opbuild.ops as ops
from opbuild.targets.cpu.codegen import PARALLEL_MIN_ELEMENTS
from tests.helpers import FnCell

pytestmark = pytest.mark.slow

SIZES = (7, 263, 3 * 256 + 13, PARALLEL_MIN_ELEMENTS + 5)


def _halves(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random float16 values over many binades, with specials and subnormals sprinkled in."""
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-14, 10, n))).astype(np.float16)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 6.0e-8, -6.0e-8, 65504.0, 1e-5], np.float16)
    idx = rng.choice(n, size=min(n, 3 * specials.size), replace=False)
    x[idx] = np.resize(specials, idx.size)
    return x


def _bits_equal(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, what
    g, w = got.view(np.uint16 if got.dtype == np.float16 else f"u{got.itemsize}"), want.view(
        np.uint16 if want.dtype == np.float16 else f"u{want.itemsize}")
    if got.dtype.kind == "f":  # NaNs: any quiet NaN is NumPy's NaN
        both_nan = np.isnan(got) & np.isnan(want)
        g, w = g[~both_nan], w[~both_nan]
    bad = np.flatnonzero(g != w)
    first = bad[:5]
    assert bad.size == 0, f"{what}: {bad.size} differ, first at {first}: {got.ravel()[first]} vs {want.ravel()[first]}"


def _graph(fn, arrays, fused: bool):
    old_mode, old_env = ms.get_context("mode"), os.environ.get("OPBUILD_FUSION")
    ms.set_context(mode=ms.GRAPH_MODE)
    os.environ["OPBUILD_FUSION"] = "1" if fused else "0"
    try:
        cell = FnCell(fn)
        outs = cell(*[ms.Tensor(a) for a in arrays])
        (compiled,) = cell.compile_info()
        kernels = {node.op for node in compiled.graph.memory_plan.kernel_nodes}
        assert (kernels == {"FusedElementwise"}) if fused else ("FusedElementwise" not in kernels), kernels
    finally:
        ms.set_context(mode=old_mode)
        if old_env is None:
            os.environ.pop("OPBUILD_FUSION", None)
        else:
            os.environ["OPBUILD_FUSION"] = old_env
    return [o.asnumpy() for o in outs]


def _ops(a, b, c, x32):
    """The unfused cases: one output per op."""
    return (ops.Add()(a, b), ops.Sub()(a, b), ops.Mul()(a, b), ops.RealDiv()(a, b), ops.Sqrt()(ops.Abs()(a)),
            ops.Maximum()(a, b), ops.ReLU()(a), ops.Neg()(a), ops.Square()(a), ops.Less()(a, b),
            ops.Cast()(a, ms.float32), ops.Cast()(x32, ms.float16), ops.Cast()(a, ms.int32))


def _ops_ref(a, b, c, x32):
    f = [a.astype(np.float32), b.astype(np.float32)]
    h = np.float16
    with np.errstate(all="ignore"):
        return [(f[0] + f[1]).astype(h), (f[0] - f[1]).astype(h), (f[0] * f[1]).astype(h), (f[0] / f[1]).astype(h),
                np.sqrt(np.abs(f[0])).astype(h), np.maximum(f[0], f[1]).astype(h),
                np.where(f[0] < 0, np.float32(0), f[0]).astype(h), (-f[0]).astype(h), (f[0] * f[0]).astype(h),
                f[0] < f[1], f[0], x32.astype(h), None]


@pytest.mark.parametrize("n", SIZES)
def test_float16_maps_round_once_from_float32_bit_exact(n):
    rng = np.random.default_rng(n)
    a, b, c = _halves(rng, n), _halves(rng, n), _halves(rng, n)
    x32 = (rng.standard_normal(n) * 1e3).astype(np.float32)
    x32[: min(n, 4)] = [np.float32(1 + 2 ** -11), np.float32(65520.0), np.float32(2 ** -25), np.nan][: min(n, 4)]
    got = _graph(_ops, (a, b, c, x32), fused=False)
    names = ("Add", "Sub", "Mul", "RealDiv", "Sqrt", "Maximum", "ReLU", "Neg", "Square", "Less", "Cast f16->f32",
             "Cast f32->f16", "Cast f16->int32")
    for name, g, w in zip(names, got, _ops_ref(a, b, c, x32), strict=True):
        if w is None:  # Cast to int32: saturating (NaN -> 0, inf -> the bounds), docs/dtypes.md
            f = a.astype(np.float64)
            w = np.where(np.isnan(f), 0, np.clip(np.nan_to_num(f, posinf=2**31 - 1, neginf=-2**31), -2**31,
                                                 2**31 - 1)).astype(np.int32)
        _bits_equal(g, w, f"{name} n={n}")


def _chain(a, b, c):
    """Mul -> Add -> ReLU -> Sub: four float16 members, each rounded to float16 as the unfused op stores it."""
    return (ops.Sub()(ops.ReLU()(ops.Add()(ops.Mul()(a, b), c)), a),)


@pytest.mark.parametrize("n", SIZES)
def test_fused_float16_chain_rounds_every_member_bit_exact(n):
    rng = np.random.default_rng(n + 1)
    a, b, c = _halves(rng, n), _halves(rng, n), _halves(rng, n)
    (fused,) = _graph(_chain, (a, b, c), fused=True)
    (unfused,) = _graph(_chain, (a, b, c), fused=False)
    h, f = np.float16, np.float32
    with np.errstate(all="ignore"):
        t = ((a.astype(f) * b.astype(f)).astype(h).astype(f) + c.astype(f)).astype(h).astype(f)
        want = (np.where(t < 0, f(0), t).astype(h).astype(f) - a.astype(f)).astype(h)
    _bits_equal(fused, want, f"fused n={n}")
    _bits_equal(unfused, want, f"unfused n={n}")


def _broadcasts(x, row, col, bias, x4, bias4):
    return (ops.Add()(x, row), ops.Mul()(col, x), ops.Sub()(row, col), ops.BiasAdd()(x, bias),
            ops.BiasAdd()(x4, bias4), ops.Add()(x4, row))


@pytest.mark.parametrize("n", SIZES[:3])
def test_float16_broadcast_maps_and_bias_add_bit_exact(n):
    """Broadcasting operands: rows (innermost stride 1, block-converted), columns (stride 0, loaded once per
    row), both at once, and BiasAdd over the last axis (2-D) and the channel axis (NCHW), unfused."""
    rng = np.random.default_rng(n + 2)
    x, row, col, bias = _halves(rng, 3 * n).reshape(3, n), _halves(rng, n), _halves(rng, 3)[:, None], _halves(rng, n)
    x4, bias4 = _halves(rng, 2 * 3 * 5 * n).reshape(2, 3, 5, n), _halves(rng, 3)
    got = _graph(_broadcasts, (x, row, col, bias, x4, bias4), fused=False)
    f = np.float32
    with np.errstate(all="ignore"):
        want = [(x.astype(f) + row.astype(f)), (col.astype(f) * x.astype(f)), (row.astype(f) - col.astype(f)),
                (x.astype(f) + bias.astype(f)), (x4.astype(f) + bias4.astype(f)[:, None, None]),
                (x4.astype(f) + row.astype(f))]
        want = [w.astype(np.float16) for w in want]  # overflow to inf is the rounding under test
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        _bits_equal(g, w, f"broadcast case {i} n={n}")


@pytest.mark.parametrize("n", SIZES[1:3])
def test_fused_float16_broadcast_chain_bit_exact(n):
    rng = np.random.default_rng(n + 3)
    a, b, c = _halves(rng, 4 * n).reshape(4, n), _halves(rng, n), _halves(rng, 4)[:, None]
    (fused,) = _graph(_chain, (a, b, c), fused=True)
    h, f = np.float16, np.float32
    with np.errstate(all="ignore"):
        t = ((a.astype(f) * b.astype(f)).astype(h).astype(f) + c.astype(f)).astype(h).astype(f)
        want = (np.where(t < 0, f(0), t).astype(h).astype(f) - a.astype(f)).astype(h)
    _bits_equal(fused, want, f"fused broadcast n={n}")


def _lane_sum(x: np.ndarray, lanes: int = 32) -> np.float32:
    """codegen.lane_reduce's float32 sum, step by step in NumPy: ``lanes`` running sums over the row in order,
    combined pairwise, then the tail; a row shorter than 2 * lanes is one running sum."""
    x = x.astype(np.float32)
    if x.size < 2 * lanes:
        acc = np.float32(0)
        for e in x:
            acc = np.float32(acc + e)
        return acc
    main = x.size - x.size % lanes
    v = np.zeros(lanes, np.float32)
    for row in x[:main].reshape(-1, lanes):
        v = v + row
    w = lanes // 2
    while w:
        v[:w] = v[:w] + v[w:2 * w]
        w //= 2
    acc = v[0]
    for e in x[main:]:
        acc = np.float32(acc + e)
    return acc


@pytest.mark.parametrize("n", (37, 64 + 5, 2048 + 32 * 3 + 7, 3 * 2048))
def test_float16_row_reductions_keep_the_lane_order_bit_exact(n):
    """float16 rows of every length class (one running sum, lanes plus a tail, several converted chunks plus a
    partial one): the sum is exactly lane_reduce's float32 sum rounded once; max and mean likewise."""
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, n)) * 4).astype(np.float16)
    got = _graph(lambda t: (ops.ReduceSum()(t, -1), ops.ReduceMean()(t, -1), ops.ReduceMax()(t, -1)), (x,),
                 fused=False)
    sums = np.array([_lane_sum(r) for r in x], np.float32)
    _bits_equal(got[0], sums.astype(np.float16), f"ReduceSum n={n}")
    _bits_equal(got[1], (sums / np.float32(n)).astype(np.float16), f"ReduceMean n={n}")
    _bits_equal(got[2], x.max(axis=-1), f"ReduceMax n={n}")


def test_float16_column_reduction_bit_exact():
    """The kept-innermost form: running float sums per column over the rows, in row order, rounded once."""
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((37, 3 * 256 + 13)) * 4).astype(np.float16)
    (got,) = _graph(lambda t: (ops.ReduceSum()(t, 0),), (x,), fused=False)
    acc = np.zeros(x.shape[1], np.float32)
    for row in x.astype(np.float32):
        acc = acc + row
    _bits_equal(got, acc.astype(np.float16), "ReduceSum axis 0")


def _row_recipe(x, y):
    """Two FusedRowReduce kernels: a float16 full-shape result (x - max) * y, and exp(x * y) summed per row."""
    m = ops.ReduceMax(keep_dims=True)(x, -1)
    return (ops.Mul()(ops.Sub()(x, m), y), ops.ReduceSum()(ops.Exp()(ops.Mul()(x, y)), -1))


@pytest.mark.parametrize("n", (263, 3 * 256 + 13))
def test_fused_float16_row_reductions_equal_unfused(n):
    """Fusion never changes a bit: the row-fused float16 kernels (rows converted into float buffers) give
    the unfused kernels' results exactly."""
    rng = np.random.default_rng(n + 4)
    x, y = (rng.standard_normal((5, n)) * 3).astype(np.float16), (rng.standard_normal((5, n))).astype(np.float16)
    old_mode, old_env = ms.get_context("mode"), os.environ.get("OPBUILD_FUSION")
    results = {}
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        for fused in (True, False):
            os.environ["OPBUILD_FUSION"] = "1" if fused else "0"
            cell = FnCell(_row_recipe)
            results[fused] = [o.asnumpy() for o in cell(ms.Tensor(x), ms.Tensor(y))]
            (compiled,) = cell.compile_info()
            kernels = [node.op for node in compiled.graph.memory_plan.kernel_nodes]
            assert (kernels.count("FusedRowReduce") == 2) == fused, kernels
    finally:
        ms.set_context(mode=old_mode)
        if old_env is None:
            os.environ.pop("OPBUILD_FUSION", None)
        else:
            os.environ["OPBUILD_FUSION"] = old_env
    for g, w in zip(results[True], results[False], strict=True):
        _bits_equal(g, w, f"row fusion n={n}")


def _mixed(x32, h):
    """float32 in and out with float16 members in between (a staged kernel with no float16 operand), and a
    chain longer than MAX_STAGED (targets/cpu/kernels/fused.py) (float16 members rounded element by element)."""
    t = ops.Cast()(ops.Mul()(ops.Cast()(x32, ms.float16), h), ms.float32)
    u = h
    for i in range(20):
        u = ops.Add()(u, h) if i % 2 else ops.Mul()(u, h)
    return (ops.Add()(t, x32), u)


@pytest.mark.parametrize("n", SIZES[1:3])
def test_fused_float16_members_staged_or_not_equal_unfused(n):
    rng = np.random.default_rng(n + 5)
    x32, h = (rng.standard_normal(n) * 100).astype(np.float32), (rng.standard_normal(n) * 0.9).astype(np.float16)
    fused = _graph(_mixed, (x32, h), fused=True)
    unfused = _graph(_mixed, (x32, h), fused=False)
    for i, (g, w) in enumerate(zip(fused, unfused, strict=True)):
        _bits_equal(g, w, f"mixed case {i} n={n}")


@pytest.mark.parametrize("n", (37, 3 * 256 + 13))
def test_float16_argmax_argmin_rows_equal_numpy(n):
    """ArgMax/ArgMin over float16 rows converted into float rows: NumPy's index, the first of ties and the
    first NaN included (half values repeat often, so ties are common)."""
    rng = np.random.default_rng(n + 6)
    x = rng.integers(-20, 20, (6, n)).astype(np.float16) / np.float16(4)
    x[1, n // 2] = np.nan
    x[2, [3, n - 2]] = np.nan
    x[3, :] = 1.0
    got = _graph(lambda t: (ops.Argmax()(t), ops.Argmin()(t)), (x,), fused=False)
    np.testing.assert_array_equal(got[0], np.argmax(x, axis=-1).astype(got[0].dtype))
    np.testing.assert_array_equal(got[1], np.argmin(x, axis=-1).astype(got[1].dtype))
