"""The vectorised pooling kernels (targets/cpu/kernels/pooling.py) on widths where the interior columns, the
clipped edge columns and ``ceil_mode``'s overhanging windows all occur, against NumPy window loops: NaN and
-inf anywhere (interior and edges) propagate as NumPy's max does, padding never wins a max, averages honour
``count_include_pad``, integer max is exact, and GlobalAvgPool's partial sums cover plane sizes that are not
a multiple of their lane count."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import ops
from opbuild.targets.cpu.kernels.conv_grad import interior_columns
from opbuild.targets.cpu.kernels.pooling import GAP_LANES
from tests.helpers import run_op
from tests.ops.test_conv import close, ref_pool

pytestmark = pytest.mark.slow

# (x shape, kernel, stride, pads (top, bottom, left, right), ceil_mode)
CASES = [
    ((2, 3, 21, 37), (3, 3), (2, 2), (1, 1, 1, 1), False),   # ResNet's stem pool on an odd width
    ((1, 2, 19, 40), (3, 3), (1, 1), (1, 1, 1, 1), False),   # stride 1: the widest interior
    ((1, 2, 17, 33), (3, 2), (3, 2), (1, 0, 1, 1), True),    # ceil_mode: the last window hangs off
    ((1, 1, 9, 50), (5, 5), (3, 4), (2, 2, 2, 1), True),     # wide kernel, asymmetric padding
    ((2, 2, 12, 24), (2, 2), (2, 2), (0, 0, 0, 0), False),   # no padding, no edges
    ((1, 3, 6, 5), (3, 3), (2, 2), (1, 1, 1, 1), True),      # narrow: hardly any interior column
]


def _pool(kind: str, k, s, pads, ceil, include=True):
    common = dict(kernel_size=k, strides=s, pad_mode="pad", pad=pads, ceil_mode=ceil)
    return ops.MaxPool(**common) if kind == "max" else ops.AvgPool(**common, count_include_pad=include)


def _with_specials(rng, shape, dtype):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    picks = rng.choice(flat.size, size=max(3, flat.size // 60), replace=False)
    flat[picks[::3]] = np.nan
    flat[picks[1::3]] = -np.inf
    flat[picks[2::3]] = np.inf
    x[0, 0, :, 0] = np.nan  # the left edge column
    x[-1, -1, -1, -1] = np.nan  # the last pixel (right edge, ceil_mode's overhang)
    return x


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maxpool_nan_inf_anywhere_match_numpy(case, dtype):
    shape, k, s, pads, ceil = case
    x = _with_specials(np.random.default_rng(1), shape, dtype)
    out = run_op(_pool("max", k, s, pads, ceil), x)
    ref = ref_pool(x, k, s, pads, ceil, "max")
    np.testing.assert_array_equal(out, ref.astype(dtype))  # a max is an element: exact, NaN where NumPy's


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("include", [True, False])
def test_avgpool_matches_numpy(case, include):
    shape, k, s, pads, ceil = case
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    out = run_op(_pool("avg", k, s, pads, ceil, include), x)
    close(out, ref_pool(x, k, s, pads, ceil, "avg", include), k[0] * k[1])
    x[0, 0, 3, 4] = np.nan
    out = run_op(_pool("avg", k, s, pads, ceil, include), x)
    ref = ref_pool(x, k, s, pads, ceil, "avg", include)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))


def test_maxpool_int8_exact_and_never_picks_padding():
    x = np.random.default_rng(3).integers(-128, -1, size=(1, 4, 15, 41)).astype(np.int8)  # padding's 0 would win
    out = run_op(_pool("max", (3, 3), (2, 2), (1, 1, 1, 1), True), x)
    np.testing.assert_array_equal(out, ref_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), True, "max").astype(np.int8))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_pooling_rounds_the_float_result_once(dtype):
    import ml_dtypes

    npt = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    x = np.random.default_rng(4).standard_normal((1, 3, 13, 29)).astype(npt)
    x[0, 1, 6, 10] = np.nan
    for kind in ("max", "avg"):
        out = run_op(_pool(kind, (3, 3), (2, 2), (1, 1, 1, 1), False), x)
        ref = ref_pool(x.astype(np.float32), (3, 3), (2, 2), (1, 1, 1, 1), False, kind)
        want = ref.astype(np.float32).astype(npt).astype(np.float32)
        got = out.astype(np.float32)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        ok = ~np.isnan(want)
        if kind == "max":
            np.testing.assert_array_equal(got[ok], want[ok])
        else:  # float32 sums of 9 taps: at most one half ulp from the once-rounded float64 mean
            np.testing.assert_allclose(got[ok], want[ok], rtol=2.0 ** -7, atol=0)


@pytest.mark.parametrize("hw", [(1, 1), (3, 5), (4, 4), (7, 7), (9, 11)])
def test_global_avg_pool_partial_sums_cover_every_plane_size(hw):
    x = np.random.default_rng(5).standard_normal((2, 6, *hw)).astype(np.float32)
    ref = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    close(run_op(ops.GlobalAvgPool(), x), ref, hw[0] * hw[1])
    assert hw[0] * hw[1] % GAP_LANES or hw == (4, 4)  # a lane remainder, or none


def test_interior_columns():
    # width 10, kernel 3, stride 2, pad 1: windows start at -1, 1, 3, 5, 7 (end 2..10): columns 1..4 inside.
    assert interior_columns(10, 5, 3, 2, 1) == (1, 5)
    assert interior_columns(4, 3, 3, 1, 1) == (1, 3)
    assert interior_columns(2, 2, 3, 1, 1) == (1, 1)  # no window fits: empty
    assert interior_columns(9, 3, 3, 3, 0) == (0, 3)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_gradients_split_over_planes_match_torch(kind):
    """A gradient big enough for the plane loop to be split over threads (codegen.parallel_for)."""
    import torch
    import torch.nn.functional as F

    from opbuild import Tensor
    from opbuild.ops.primitive import apply
    from opbuild.targets.cpu.codegen import PARALLEL_MIN_ELEMENTS

    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 64, 40, 40)).astype(np.float32)
    prim = _pool(kind, (3, 3), (2, 2), (1, 1, 1, 1), False)
    y = run_op(prim, x)
    assert y.size * 9 >= PARALLEL_MIN_ELEMENTS
    dy = rng.standard_normal(y.shape).astype(np.float32)
    op = "MaxPoolGrad" if kind == "max" else "AvgPoolGrad"
    dx = apply(op, prim.attrs, [Tensor(x), Tensor(y), Tensor(dy)]).asnumpy()
    xt = torch.tensor(x, requires_grad=True)
    pool = F.max_pool2d if kind == "max" else F.avg_pool2d
    pool(xt, 3, 2, 1).backward(torch.tensor(dy))
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-5, atol=1e-5)
