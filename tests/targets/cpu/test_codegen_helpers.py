"""The C helpers op families share: ``lane_reduce`` (vectorisable reductions) and the prelude's ``ob_expf`` and
``ob_tanhf``.

Each is compiled with the project's compiler (the flags kernels get) into a small test function and compared
with NumPy: lane_reduce exactly for integer sums and NaN-propagating maxima at lengths around the lane count
(sequential path, lanes with and without a tail); ob_expf within 1 ulp of the correctly rounded exp over a dense
grid of [-110, 95] (normal results), within one denormal step below, inf above, NaN through; ob_tanhf on every
64th float32 of [0, 10] and their negatives (17 million values) within 5 ulp of the correctly rounded tanh (an
exhaustive run over all float32 measured 5.63 ulp at worst, 54 values above 5), odd to the bit, never above 1,
exactly x where tanh rounds to x and exactly 1 where it rounds to 1, plus the special values; ob_tanh (float64)
the same on 3.2 million values of [0, 19.2] (uniform, log-uniform down to 1e-12, and runs of consecutive doubles
around each boundary of its argument reduction) within 3 ulp of long double tanh, exactly x below 2^-27.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
import pytest

from opbuild.targets.cpu.codegen import PRELUDE, lane_reduce, simd_lanes
from opbuild.targets.cpu.compilers import find_compiler


def _compile(tmp_path, source: str) -> ctypes.CDLL:
    so = tmp_path / "helpers.so"
    find_compiler().compile(PRELUDE + source, so, tmp_path, needs_blas=False)
    return ctypes.CDLL(str(so))


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def _elementwise(tmp_path_factory, fn: str, ctype: str, dtype) -> Callable[[np.ndarray], np.ndarray]:
    """A prelude helper ``fn`` (e.g. ob_tanhf) applied to an array, compiled the way kernels are."""
    src = (f"OB_EXPORT void f(const {ctype} *restrict x, {ctype} *restrict y, int64_t n) "
           f"{{ for (int64_t i = 0; i < n; i++) y[i] = {fn}(x[i]); }}\n")
    lib = _compile(tmp_path_factory.mktemp(fn), src)

    def run(x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=dtype)
        y = np.empty_like(x)
        lib.f(_ptr(x), _ptr(y), ctypes.c_int64(x.size))
        return y

    return run


LENGTHS = [0, 1, 31, 64, 65, 100, 257]  # int64 lanes = 16, float32 lanes = 32: every path and tail


def test_lane_reduce_sums_and_maxima(tmp_path):
    fns = []
    for n in LENGTHS:
        s = lane_reduce("acc", "int64_t", n, lambda j: f"x[{j}]", lambda a, b: f"{a} + {b}", "0",
                        simd_lanes("int64"))
        m = lane_reduce("acc", "float", n, lambda j: f"y[{j}]",
                        lambda a, b: f"(({b} > {a} || {b} != {b}) ? {b} : {a})", "(-INFINITY)", simd_lanes("float32"))
        fns.append(f"OB_EXPORT int64_t sum{n}(const int64_t *restrict x) {{ {s}\n return acc; }}\n"
                   f"OB_EXPORT float max{n}(const float *restrict y) {{ {m}\n return acc; }}\n")
    lib = _compile(tmp_path, "".join(fns))
    rng = np.random.default_rng(0)
    for n in LENGTHS:
        x = rng.integers(-(2 ** 40), 2 ** 40, max(n, 1))
        y = rng.normal(size=max(n, 1)).astype(np.float32)
        getattr(lib, f"sum{n}").restype = ctypes.c_int64
        getattr(lib, f"max{n}").restype = ctypes.c_float
        assert getattr(lib, f"sum{n}")(_ptr(x)) == int(x[:n].sum())
        assert getattr(lib, f"max{n}")(_ptr(y)) == (y[:n].max() if n else -np.inf)
        if n:
            y[rng.integers(0, n)] = np.nan
            assert np.isnan(getattr(lib, f"max{n}")(_ptr(y)))


@pytest.fixture(scope="module")
def expf(tmp_path_factory):
    return _elementwise(tmp_path_factory, "ob_expf", "float", np.float32)


def test_ob_expf_is_within_one_ulp(expf):
    x = np.linspace(-110, 95, 1_000_001, dtype=np.float32)
    y = expf(x)
    exact = np.exp(x.astype(np.float64))
    f32 = np.finfo(np.float32)
    normal = (exact >= f32.tiny) & (exact <= f32.max)
    ulps = np.abs(y[normal] - exact[normal]) / np.spacing(exact[normal].astype(np.float32))
    assert ulps.max() <= 1.0
    denormal = exact < f32.tiny
    assert np.abs(y[denormal] - exact[denormal]).max() <= f32.smallest_subnormal
    assert np.isinf(y[exact > f32.max]).all()


def test_ob_expf_special_values(expf):
    y = expf(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0], np.float32))
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == 0.0 and y[3] == 1.0 and y[4] == 1.0
    assert y[5] == np.float32(np.e)


@pytest.fixture(scope="module")
def tanhf(tmp_path_factory):
    return _elementwise(tmp_path_factory, "ob_tanhf", "float", np.float32)


def _ulps(y: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|y - exact| in units of the float32 spacing at ``exact`` (float64 oracle; normal range)."""
    spacing = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(exact), 2.0 ** -126))) - 23)
    return np.abs(y.astype(np.float64) - exact) / spacing


def test_ob_tanhf_dense_sweep_within_5_ulp(tanhf):
    top = int(np.float32(10).view(np.uint32))
    worst = 0.0
    for start in range(0, top, 1 << 26):  # chunks of 2**20 values, every 64th bit pattern
        x = np.arange(start, min(start + (1 << 26), top), 64, dtype=np.uint32).view(np.float32)
        y = tanhf(x)
        np.testing.assert_array_equal(tanhf(-x).view(np.uint32), y.view(np.uint32) ^ np.uint32(0x80000000))
        exact = np.tanh(x.astype(np.float64))
        rounded = exact.astype(np.float32)
        assert (y <= 1).all()
        assert (y[rounded == 1] == 1).all()  # exactly 1 wherever tanh rounds to 1
        assert (y[rounded == x] == x[rounded == x]).all()  # and exactly x where it rounds to x
        worst = max(worst, float(_ulps(y, exact).max()))
    assert worst <= 5.0


def test_ob_tanhf_special_values(tanhf):
    f32 = np.finfo(np.float32)
    x = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, f32.smallest_subnormal, -f32.smallest_subnormal,
                  1e-30, -1e-30, 2.0 ** -13, f32.tiny, 9.010914, -9.010914, 10.0, 20.0, -1e30, f32.max, f32.min],
                 np.float32)
    y = tanhf(x)
    assert np.isnan(y[:2]).all()
    np.testing.assert_array_equal(y[2:4], [1.0, -1.0])
    np.testing.assert_array_equal(np.signbit(y[4:6]), [False, True])  # tanh(-0.0) is -0.0
    np.testing.assert_array_equal(y[4:12], x[4:12])  # tanh(x) rounds to x: exactly x
    np.testing.assert_array_equal(y[12:], np.sign(x[12:]))  # tanh(x) rounds to +-1: exactly +-1


@pytest.fixture(scope="module")
def tanh64(tmp_path_factory):
    return _elementwise(tmp_path_factory, "ob_tanh", "double", np.float64)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant <= 52, reason="needs an extended long double as the oracle")
def test_ob_tanh_float64_within_3_ulp(tanh64):
    rng = np.random.default_rng(3)
    # Runs of consecutive doubles around a = (j + 1/2) ln2 / 2, where the reduction's k changes.
    edges = (np.arange(56) + 0.5) * np.log(2) / 2
    edge_runs = (edges[:, None] * (1 + np.arange(-2000, 2000)[None, :] * 2.0 ** -52)).ravel()
    x = np.concatenate([rng.uniform(0, 19.2, 2_000_000), np.exp(rng.uniform(np.log(1e-12), 0, 1_000_000)), edge_runs])
    y = tanh64(x)
    np.testing.assert_array_equal(tanh64(-x), -y)
    exact = np.tanh(x.astype(np.longdouble))
    rounded = exact.astype(np.float64)
    assert (y <= 1).all()
    assert (y[rounded == 1] == 1).all()
    tiny = x < 2.0 ** -27  # tanh(x) rounds to x there (and on parts of [2**-27, 2**-26 * 1.15]: within 1 ulp)
    assert (rounded[tiny] == x[tiny]).all() and (y[tiny] == x[tiny]).all()
    spacing = np.spacing(rounded).astype(np.longdouble)
    assert float(np.max(np.abs(y.astype(np.longdouble) - exact) / spacing)) <= 3.0


def test_ob_tanh_float64_special_values(tanh64):
    f64 = np.finfo(np.float64)
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, f64.smallest_subnormal, -1e-300, 2.0 ** -28, 19.0615474653985,
                  -30.0, 1e300, f64.max, f64.min])
    y = tanh64(x)
    assert np.isnan(y[0])
    np.testing.assert_array_equal(y[1:3], [1.0, -1.0])
    np.testing.assert_array_equal(np.signbit(y[3:5]), [False, True])
    np.testing.assert_array_equal(y[3:8], x[3:8])
    np.testing.assert_array_equal(y[8:], np.sign(x[8:]))
