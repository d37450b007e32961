"""The code paths of the banded pooling kernels (targets/cpu/kernels/pooling.py) against NumPy references.

The cases are chosen so that every path runs: full windows whose rows fold in registers and clipped or
tall ones folded row by row, bands that split a plane evenly and unevenly (a partial last band), output
widths below one vector and odd ones, strides 1, 2 and 3 (no phase split, two and three phase rows),
kernels narrower than their stride, input columns no window reaches, right padding past the input,
``ceil_mode``'s overhanging windows, kernels wider than the unrolled taps, rows whose buffers go to the
kernel's workspace, and the max whose domain is the output itself. A max is an element of its window, so it
must be exact (NaN where NumPy's ``maximum`` gives NaN, padding never winning); an average must equal, bit for bit,
a float32 reference that adds the window's rows and then its columns in order (the kernel's order) and
divides by the counted positions.
GlobalAvgPool is checked on plane sizes around its vector and multi-accumulator boundaries.
"""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import ops
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.targets.cpu.generation import emit
from opbuild.targets.cpu.kernels.pooling import BAND_OUTPUTS, GAP_LANES, GAP_MULTI_VECTORS, UNROLL_TAPS, band_geometry
from tests.helpers import run_op

pytestmark = pytest.mark.slow  # builds about a hundred kernels

# (x shape, kernel, stride, pads (top, bottom, left, right), ceil_mode)
CASES = {
    "resnet stem pool": ((1, 3, 48, 48), (3, 3), (2, 2), (1, 1, 1, 1), False),
    "odd sizes, ceil": ((2, 2, 37, 23), (3, 3), (2, 2), (1, 1, 1, 1), True),
    "width below a vector, stride 1": ((1, 2, 9, 5), (3, 3), (1, 1), (1, 1, 1, 1), False),
    "stride 3: three phases": ((1, 2, 40, 70), (3, 3), (3, 3), (1, 1, 1, 1), False),
    "unread last column": ((1, 1, 10, 10), (2, 2), (3, 3), (0, 0, 0, 0), False),
    "kernel narrower than stride": ((1, 2, 15, 31), (1, 1), (2, 3), (0, 0, 0, 0), False),
    "domain is the output": ((1, 3, 16, 16), (2, 2), (2, 2), (0, 0, 0, 0), False),
    "wide kernel, tap by tap": ((1, 1, 13, 40), (3, 11), (2, 2), (1, 1, 5, 5), False),
    "tall kernel, row by row": ((1, 2, 30, 12), (9, 2), (2, 1), (4, 4, 0, 1), False),
    "many bands, narrow": ((1, 2, 64, 9), (3, 3), (1, 1), (1, 1, 1, 1), False),
    "many bands, partial last, ceil": ((1, 1, 66, 66), (3, 3), (2, 2), (1, 1, 1, 1), True),
    "rows past the stack buffers": ((1, 2, 3, 9000), (3, 3), (2, 2), (1, 1, 1, 1), False),
    "asymmetric pads": ((1, 2, 11, 17), (2, 2), (1, 1), (0, 1, 1, 0), False),
    "one window per plane": ((2, 1, 5, 5), (5, 5), (1, 1), (2, 2, 2, 2), False),
    "ceil, stride 3 overhang": ((1, 1, 17, 33), (3, 2), (3, 2), (1, 0, 1, 1), True),
}


def _out_size(size: int, k: int, s: int, p0: int, p1: int, ceil: bool) -> int:
    if not ceil:
        return (size + p0 + p1 - k) // s + 1
    out = -(-(size + p0 + p1 - k) // s) + 1
    return out - 1 if (out - 1) * s >= size + p0 else out


def _reference(x: np.ndarray, k, s, pads, ceil: bool, kind: str, include: bool = True) -> np.ndarray:
    """Pooling in ``x``'s dtype with the kernel's order of operations: each window's rows folded first (in
    order), then its columns (in order), over an input padded with the fold's identity; an average divides
    by the counted rows times the counted columns."""
    (kh, kw), (sh, sw), (pt, pb, pl, pr) = k, s, pads
    n, c, h, w = x.shape
    oh, ow = _out_size(h, kh, sh, pt, pb, ceil), _out_size(w, kw, sw, pl, pr, ceil)
    eh, ew = (oh - 1) * sh + kh, (ow - 1) * sw + kw  # the padded extent the windows reach
    if kind == "max":
        fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        fold = np.maximum
    else:
        fill, fold = 0, np.add
    xp = np.full((n, c, max(eh, pt + h), max(ew, pl + w)), fill, x.dtype)
    xp[:, :, pt:pt + h, pl:pl + w] = x
    rows = xp[:, :, 0:(oh - 1) * sh + 1:sh, :]
    for i in range(1, kh):
        rows = fold(rows, xp[:, :, i:i + (oh - 1) * sh + 1:sh, :])
    out = rows[:, :, :, 0:(ow - 1) * sw + 1:sw]
    for j in range(1, kw):
        out = fold(out, rows[:, :, :, j:j + (ow - 1) * sw + 1:sw])
    if kind == "max":
        return out

    def counted(size, k_, s_, p0, p1, o):
        start = np.arange(o) * s_ - p0
        if include:
            return np.minimum(start + k_, size + p1) - start
        return np.minimum(start + k_, size) - np.maximum(start, 0)

    div = np.outer(counted(h, kh, sh, pt, pb, oh), counted(w, kw, sw, pl, pr, ow)).astype(x.dtype)
    return out / div


def _pool(kind: str, k, s, pads, ceil: bool, include: bool = True):
    common = dict(kernel_size=k, strides=s, pad_mode="pad", pad=pads, ceil_mode=ceil)
    return ops.MaxPool(**common) if kind == "max" else ops.AvgPool(**common, count_include_pad=include)


def _data(shape, dtype, rng, specials: bool) -> np.ndarray:
    x = rng.standard_normal(shape).astype(dtype)
    if specials:  # NaN and infinities in the first and last columns and rows, and scattered
        x[..., 0, 0] = np.nan
        x[..., -1, -1] = -np.inf
        x[..., -1, 0] = np.inf
        flat = x.reshape(-1)
        picks = rng.choice(flat.size, size=max(2, flat.size // 50), replace=False)
        flat[picks[::2]] = np.nan
        flat[picks[1::2]] = -np.inf
    return x


def _spec(kind: str, shape, k, s, pads, ceil, dtype="float32"):
    prim = _pool(kind, k, s, pads, ceil)
    return get("MaxPool" if kind == "max" else "AvgPool").spec(prim.attrs, [TensorType(shape, dtype)])


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("specials", [False, True])
def test_max_pool_is_exact(name, dtype, specials):
    shape, k, s, pads, ceil = CASES[name]
    x = _data(shape, dtype, np.random.default_rng(11), specials)
    np.testing.assert_array_equal(run_op(_pool("max", k, s, pads, ceil), x), _reference(x, k, s, pads, ceil, "max"))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("include", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_avg_pool_sums_in_the_kernel_order(name, include, dtype):
    shape, k, s, pads, ceil = CASES[name]
    x = _data(shape, dtype, np.random.default_rng(12), False)
    out = run_op(_pool("avg", k, s, pads, ceil, include), x)
    np.testing.assert_array_equal(out, _reference(x, k, s, pads, ceil, "avg", include))


@pytest.mark.parametrize("name", ["odd sizes, ceil", "stride 3: three phases", "domain is the output",
                                  "wide kernel, tap by tap", "many bands, partial last, ceil"])
def test_avg_pool_nan_and_inf_propagate(name):
    shape, k, s, pads, ceil = CASES[name]
    x = _data(shape, "float32", np.random.default_rng(13), True)
    out = run_op(_pool("avg", k, s, pads, ceil), x)
    np.testing.assert_array_equal(out, _reference(x, k, s, pads, ceil, "avg"))


@pytest.mark.parametrize("name", ["resnet stem pool", "odd sizes, ceil", "domain is the output", "asymmetric pads"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
def test_integer_max_pool_never_picks_padding(name, dtype):
    shape, k, s, pads, ceil = CASES[name]
    info = np.iinfo(dtype)
    x = np.random.default_rng(14).integers(info.min, info.min + 20, size=shape).astype(dtype)  # padding's 0 loses
    np.testing.assert_array_equal(run_op(_pool("max", k, s, pads, ceil), x), _reference(x, k, s, pads, ceil, "max"))


@pytest.mark.parametrize("name", ["odd sizes, ceil", "stride 3: three phases", "domain is the output",
                                  "many bands, partial last, ceil", "tall kernel, row by row",
                                  "rows past the stack buffers"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_half_pooling_is_the_float32_result_rounded_once(name, dtype, kind):
    import ml_dtypes

    npt = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    shape, k, s, pads, ceil = CASES[name]
    x = _data(shape, "float32", np.random.default_rng(15), kind == "max").astype(npt)
    out = run_op(_pool(kind, k, s, pads, ceil), x)
    want = _reference(x.astype(np.float32), k, s, pads, ceil, kind).astype(npt)
    np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))


def test_the_cases_cover_every_band_path():
    """The geometry and the emitted C of the cases above take the paths their names say."""
    def geometry(name):
        shape, k, s, pads, ceil = CASES[name]
        oh = _out_size(shape[2], k[0], s[0], pads[0], pads[1], ceil)
        ow = _out_size(shape[3], k[1], s[1], pads[2], pads[3], ceil)
        return band_geometry(shape[3], oh, ow, k[1], s[1], pads[2]), oh, ow

    def code(name, kind="max"):
        shape, k, s, pads, ceil = CASES[name]
        return emit(_spec(kind, shape, k, s, pads, ceil))

    for name in ("many bands, narrow", "many bands, partial last, ceil"):
        g, oh, ow = geometry(name)
        assert g["rows"] < oh and oh % g["rows"], (name, g, oh)  # several bands, the last one partial
        assert g["rows"] * g["owp"] <= BAND_OUTPUTS + g["owp"]
    assert _out_size(66, 3, 2, 1, 1, True) > _out_size(66, 3, 2, 1, 1, False)  # ceil_mode adds a window
    g, oh, ow = geometry("width below a vector, stride 1")
    assert ow < 8 and g["owp"] == ow + 2
    g, _, _ = geometry("unread last column")
    assert g["wu"] == 9  # the tenth input column is in no window
    assert "ph2[" in code("stride 3: three phases") and "ph3[" not in code("stride 3: three phases")
    assert "ph" not in code("width below a vector, stride 1")  # stride 1 reads the band itself
    assert "float dom[" not in code("domain is the output") and "dom = dst" in code("domain is the output")
    assert "float dom[" in code("domain is the output", "avg")  # an average divides on the way out
    assert "base[t %" in code("wide kernel, tap by tap") and CASES["wide kernel, tap by tap"][1][1] > UNROLL_TAPS
    assert "if (h1 - hs == 3)" in code("resnet stem pool")  # full windows fold their rows in registers
    assert "if (h1 - hs ==" not in code("tall kernel, row by row")
    assert CASES["tall kernel, row by row"][1][0] > UNROLL_TAPS
    # Rows past the stack: each thread's buffers are its slot of the planned workspace, never a malloc.
    wide = code("rows past the stack buffers")
    assert "ob_ws + ob_slot *" in wide and "? omp_get_max_threads() : 2)" in wide and "alloc(" not in wide
    assert "alloc(" not in code("resnet stem pool") and "ob_ws" not in code("resnet stem pool")
    g, _, _ = geometry("kernel narrower than stride")
    assert g["owp"] == _out_size(31, 1, 3, 0, 0, False) and "ph1[" not in code("kernel narrower than stride")


@pytest.mark.parametrize("hw", [(1, 1), (1, 7), (2, 4), (7, 7), (127, 1), (16, 8), (129, 1), (10, 20), (56, 56)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_global_avg_pool_plane_sizes(hw, dtype):
    rng = np.random.default_rng(16)
    x = (rng.standard_normal((2, 5, *hw)) + 0.5).astype(dtype)
    out = run_op(ops.GlobalAvgPool(), x)
    ref = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    # summed in double: one rounding of the mean to float32; float64 sums within a few ulps of NumPy's
    rtol = 2.0 ** -23 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(out, ref.astype(dtype), rtol=rtol, atol=0)
    assert out.dtype == np.dtype(dtype)


def test_global_avg_pool_sizes_cover_its_loops():
    sizes = [h * w for h, w in [(1, 7), (7, 7), (127, 1), (16, 8), (129, 1), (56, 56)]]
    assert any(s < GAP_LANES for s in sizes) and any(s % GAP_LANES for s in sizes)
    multi = GAP_LANES * GAP_MULTI_VECTORS
    assert any(s >= multi and s % (4 * GAP_LANES) for s in sizes)  # four accumulators, then single vectors
    assert any(s == multi for s in sizes) and any(GAP_LANES <= s < multi for s in sizes)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_global_avg_pool_nan_and_inf(dtype):
    x = np.random.default_rng(17).standard_normal((1, 4, 7, 7)).astype(dtype)
    x[0, 0, 6, 6] = np.nan  # the tail element past the last whole vector
    x[0, 1, 0, 3] = np.nan  # inside a vector
    x[0, 2, 3, 3] = np.inf
    x[0, 3, 1, 1], x[0, 3, 2, 2] = np.inf, -np.inf
    out = run_op(ops.GlobalAvgPool(), x).reshape(-1)
    assert np.isnan(out[0]) and np.isnan(out[1]) and out[2] == np.inf and np.isnan(out[3])
