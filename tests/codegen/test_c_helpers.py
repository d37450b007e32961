"""The C helpers op families share: ``lane_reduce`` (vectorisable reductions) and the prelude's ``ob_expf``.

Each is compiled with the project's compiler (the flags kernels get) into a small test function and compared
with NumPy: lane_reduce exactly for integer sums and NaN-propagating maxima at lengths around the lane count
(sequential path, lanes with and without a tail); ob_expf within 1 ulp of the correctly rounded exp over a dense
grid of [-110, 95] (normal results), within one denormal step below, inf above, NaN through.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from opbuild.codegen.c import PRELUDE, lane_reduce, simd_lanes
from opbuild.compilers import find_compiler


def _compile(tmp_path, source: str) -> ctypes.CDLL:
    so = tmp_path / "helpers.so"
    find_compiler().compile(PRELUDE + source, so, tmp_path, needs_blas=False)
    return ctypes.CDLL(str(so))


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


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
    src = ("OB_EXPORT void f(const float *restrict x, float *restrict y, int64_t n) "
           "{ for (int64_t i = 0; i < n; i++) y[i] = ob_expf(x[i]); }\n")
    lib = _compile(tmp_path_factory.mktemp("expf"), src)

    def run(x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        y = np.empty_like(x)
        lib.f(_ptr(x), _ptr(y), ctypes.c_int64(x.size))
        return y

    return run


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
