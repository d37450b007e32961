"""ops.interpolate against torch.nn.functional.interpolate (MindSpore documents torch's coordinate rules),
in both modes; ResizeBilinearV2 and ResizeNearestNeighbor against NumPy formulas; errors; a gradient.
Bicubic, where MindSpore computes TensorFlow's resize rather than torch's, is checked against MindSpore's own
outputs (tests/compat/test_ms_math_ops.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from tests.helpers import run_op
from tests.ops.test_grads import check as grad_check
from tests.ops.test_grads import rand

pytestmark = pytest.mark.slow  # a few hundred kernels built in both modes

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize(("shape", "kw"), [
    ((2, 3, 5, 7), {"mode": "nearest", "size": (9, 4)}),
    ((2, 3, 5, 7), {"mode": "nearest", "scale_factor": 2.5, "recompute_scale_factor": True}),
    ((2, 3, 6, 7), {"mode": "nearest-exact", "size": (4, 11)}),
    ((2, 3, 5, 7), {"mode": "bilinear", "size": (8, 3), "align_corners": False}),
    ((2, 3, 5, 7), {"mode": "bilinear", "size": (8, 3), "align_corners": True}),
    ((1, 2, 5, 6), {"mode": "bilinear", "scale_factor": (1.5, 0.5), "recompute_scale_factor": True}),
    ((2, 3, 7), {"mode": "linear", "size": 12}),
    ((1, 2, 3, 4, 5), {"mode": "trilinear", "size": (5, 2, 7)}),
    ((2, 3, 7, 9), {"mode": "area", "size": (3, 4)}),
    ((2, 3, 8), {"mode": "area", "size": 4}),
])
def test_interpolate_matches_torch(mode, shape, kw) -> None:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    got = run_op(lambda t: ops.interpolate(t, **kw), x, mode=mode)
    want = torch.nn.functional.interpolate(torch.from_numpy(x), **kw).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_single_output_maps_to_input_zero() -> None:
    """MindSpore's rule for an output of length 1 without align_corners: it takes input element 0."""
    x = np.arange(8, dtype=np.float32).reshape(1, 1, 8)
    np.testing.assert_array_equal(ops.interpolate(ms.Tensor(x), size=1, mode="linear").asnumpy(), [[[0.0]]])


def test_resize_bilinear_v2_and_nearest_neighbor() -> None:
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 5)).astype(np.float32)

    def bilinear(coord):  # separable 1-D linear interpolation with clamped taps
        out = x
        for axis, n_out in ((2, 6), (3, 3)):
            n_in = out.shape[axis]
            src = np.clip(coord(np.arange(n_out), n_in, n_out), 0, n_in - 1)
            lo = np.floor(src).astype(int)
            hi = np.minimum(lo + 1, n_in - 1)
            w = (src - lo).reshape((-1,) + (1,) * (out.ndim - axis - 1))
            out = np.take(out, lo, axis=axis) * (1 - w) + np.take(out, hi, axis=axis) * w
        return out

    got = ops.ResizeBilinearV2()(ms.Tensor(x), (6, 3)).asnumpy()
    np.testing.assert_allclose(got, bilinear(lambda i, a, b: i * a / b), rtol=1e-5, atol=1e-6)
    got = ops.ResizeBilinearV2(align_corners=True)(ms.Tensor(x), (6, 3)).asnumpy()
    np.testing.assert_allclose(got, bilinear(lambda i, a, b: i * (a - 1) / (b - 1)), rtol=1e-5, atol=1e-6)
    got = ops.ResizeBilinearV2(half_pixel_centers=True)(ms.Tensor(x), (6, 3)).asnumpy()
    np.testing.assert_allclose(got, bilinear(lambda i, a, b: (i + 0.5) * a / b - 0.5), rtol=1e-5, atol=1e-6)
    got = ops.ResizeNearestNeighbor((7, 2))(ms.Tensor(x)).asnumpy()
    rows, cols = (np.arange(7) * 4) // 7, (np.arange(2) * 5) // 2
    np.testing.assert_array_equal(got, x[:, :, rows][:, :, :, cols])


def test_interpolate_errors() -> None:
    x = ms.Tensor(np.zeros((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        ops.interpolate(x)
    with pytest.raises(ValueError, match="'linear' needs a 3-D input"):
        ops.interpolate(x, size=3, mode="linear")
    with pytest.raises(ValueError, match="align_corners cannot be set with mode 'nearest'"):
        ops.interpolate(x, size=3, align_corners=True)
    with pytest.raises(ValueError, match="align_corners cannot be set with mode 'nearest'"):
        ops.interpolate(x, size=3, align_corners=False)  # MindSpore refuses any value there
    with pytest.raises(ValueError, match="unless recompute_scale_factor=True"):
        ops.interpolate(x, scale_factor=2.0, mode="bilinear")
    with pytest.raises(ValueError, match="needs scale_factor, not size"):
        ops.interpolate(x, size=3, recompute_scale_factor=True)
    with pytest.raises(ValueError, match="multiple of the output size"):
        ops.interpolate(ms.Tensor(np.zeros((1, 1, 7), np.float32)), size=3, mode="area")
    with pytest.raises(ValueError, match="mode must be one of"):
        ops.interpolate(x, size=3, mode="lanczos")


def test_interpolate_gradient(graph_mode) -> None:
    grad_check(lambda a: ops.interpolate(a, size=(5, 3), mode="bilinear", align_corners=False), rand(1, 1, 3, 4))
