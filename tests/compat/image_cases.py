"""Cases of MindSpore's image operators (colour adjustment, crop-and-resize, the resizing and upsampling
primitives, affine grids), written once against a MindSpore-shaped namespace: scripts/record_optim_image.py
runs them on real MindSpore 2.10 (tests/fixtures/optim_image.npz) and tests/compat/test_image_ops.py on opbuild.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``; ``fn`` returns a Tensor or a tuple of them. This
module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RNG = np.random.default_rng(2511)


def _u(*shape: int, low: float = 0.0, high: float = 1.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(dtype)


RGB = _u(2, 3, 4, 3)
RGB_GREY = np.concatenate([_u(1, 2, 2, 1).repeat(3, -1), _u(1, 2, 2, 3)], 1)  # zero saturation pixels too
NCHW = _u(2, 3, 5, 4, low=-1.0)
NHWC = _u(2, 5, 4, 3, low=-1.0)
VOL = _u(1, 2, 3, 4, 2, low=-1.0)
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.0, 0.1, 1.0], [-0.2, -0.1, 1.2, 0.7]], np.float32)
BOX_IDX = np.array([0, 1, 1], np.int32)
THETA = np.array([[[0.8, 0.5, 0.1], [-0.5, 0.8, -0.2]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], np.float32)
THETA3 = _u(1, 3, 4, low=-1.0)


def _scalar(v: float) -> np.ndarray:
    return np.array(v, np.float32)


CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "AdjustHue": (lambda ms, ops, x, d: ops.AdjustHue()(x, d), [RGB, _scalar(0.2)]),
    "AdjustHue_negative": (lambda ms, ops, x, d: ops.AdjustHue()(x, d), [RGB_GREY, _scalar(-0.7)]),
    "AdjustHue_f16": (lambda ms, ops, x, d: ops.AdjustHue()(x, d), [RGB.astype(np.float16), _scalar(0.35)]),
    "AdjustSaturation": (lambda ms, ops, x, s: ops.AdjustSaturation()(x, s), [RGB, _scalar(0.5)]),
    "AdjustSaturation_up": (lambda ms, ops, x, s: ops.AdjustSaturation()(x, s), [RGB_GREY, _scalar(2.5)]),
    "RGBToHSV": (lambda ms, ops, x: ops.RGBToHSV()(x), [RGB_GREY]),
    "HSVToRGB": (lambda ms, ops, x: ops.HSVToRGB()(x), [RGB]),
    "CropAndResize": (lambda ms, ops, x, b, i: ops.CropAndResize()(x, b, i, (3, 4)), [NHWC, BOXES, BOX_IDX]),
    "CropAndResize_nearest": (lambda ms, ops, x, b, i: ops.CropAndResize("nearest", 0.5)(x, b, i, (4, 3)),
                              [NHWC, BOXES, BOX_IDX]),
    "CropAndResize_one": (lambda ms, ops, x, b, i: ops.CropAndResize(extrapolation_value=-1.0)(x, b, i, (1, 1)),
                          [NHWC, BOXES, BOX_IDX]),
    "crop_and_resize": (lambda ms, ops, x, b, i: ops.crop_and_resize(x, b, i, (2, 5)), [NHWC, BOXES, BOX_IDX]),
    "AffineGrid": (lambda ms, ops, t: ops.AffineGrid()(t, (2, 3, 4, 5)), [THETA]),
    "AffineGrid_align": (lambda ms, ops, t: ops.AffineGrid(align_corners=True)(t, (2, 1, 3, 2)), [THETA]),
    "AffineGrid_3d": (lambda ms, ops, t: ops.AffineGrid()(t, (1, 1, 2, 3, 4)), [THETA3]),
    "ResizeNearestNeighborV2": (lambda ms, ops, x: ops.ResizeNearestNeighborV2()(
        x, ms.Tensor(np.array([7, 3], np.int32))), [NCHW]),
    "ResizeNearestNeighborV2_align": (lambda ms, ops, x: ops.ResizeNearestNeighborV2(align_corners=True)(
        x, ms.Tensor(np.array([3, 7], np.int32))), [NCHW]),
    "ResizeNearestNeighborV2_half": (lambda ms, ops, x: ops.ResizeNearestNeighborV2(half_pixel_centers=True)(
        x, ms.Tensor(np.array([8, 6], np.int32))), [NCHW]),
    "ResizeBicubic": (lambda ms, ops, x: ops.ResizeBicubic()(x, ms.Tensor(np.array([7, 6], np.int32))), [NCHW]),
    "ResizeBicubic_align": (lambda ms, ops, x: ops.ResizeBicubic(align_corners=True)(
        x, ms.Tensor(np.array([3, 7], np.int32))), [NCHW]),
    "ResizeBicubic_half": (lambda ms, ops, x: ops.ResizeBicubic(half_pixel_centers=True)(
        x, ms.Tensor(np.array([8, 3], np.int32))), [NCHW]),
    "ResizeArea": (lambda ms, ops, x: ops.ResizeArea()(x, ms.Tensor(np.array([3, 3], np.int32))), [NHWC]),
    "ResizeArea_up": (lambda ms, ops, x: ops.ResizeArea()(x, ms.Tensor(np.array([7, 6], np.int32))), [NHWC]),
    "ResizeArea_align": (lambda ms, ops, x: ops.ResizeArea(align_corners=True)(
        x, ms.Tensor(np.array([3, 7], np.int32))), [NHWC]),
    "ResizeLinear1D": (lambda ms, ops, x: ops.ResizeLinear1D()(x, ms.Tensor(np.array([7], np.int64))),
                       [NCHW[0]]),
    "ResizeLinear1D_half": (lambda ms, ops, x: ops.ResizeLinear1D("half_pixel")(
        x, ms.Tensor(np.array([3], np.int64))), [NCHW[0]]),
    "ResizeLinear1D_asym": (lambda ms, ops, x: ops.ResizeLinear1D("asymmetric")(
        x, ms.Tensor(np.array([6], np.int64))), [NCHW[0]]),
    "UpsampleNearest3D": (lambda ms, ops, x: ops.UpsampleNearest3D()(x, [4, 5, 3]), [VOL]),
    "UpsampleNearest3D_scales": (lambda ms, ops, x: ops.UpsampleNearest3D()(x, None, [2.0, 1.5, 1.0]), [VOL]),
    "UpsampleTrilinear3D": (lambda ms, ops, x: ops.UpsampleTrilinear3D()(x, [4, 5, 3]), [VOL]),
    "UpsampleTrilinear3D_align": (lambda ms, ops, x: ops.UpsampleTrilinear3D(align_corners=True)(x, [5, 3, 4]),
                                  [VOL]),
    "UpsampleTrilinear3D_scales": (lambda ms, ops, x: ops.UpsampleTrilinear3D()(x, None, [2.0, 1.5, 2.0]), [VOL]),
    "UpsampleTrilinear3D_scales_frac": (lambda ms, ops, x: ops.UpsampleTrilinear3D()(x, None, [2.0, 1.5, 1.3]),
                                        [VOL]),
    "UpsampleNearest3D_scales_frac": (lambda ms, ops, x: ops.UpsampleNearest3D()(x, None, [1.5, 1.7, 1.3]),
                                      [VOL]),
    "upsample_bilinear": (lambda ms, ops, x: ops.upsample(x, size=(7, 6), mode="bilinear"), [NCHW]),
    "upsample_trilinear_scale": (lambda ms, ops, x: ops.upsample(x, scale_factor=(1.5, 2.0, 1.0), mode="trilinear"),
                                 [VOL]),
    "upsample_nearest_recompute": (lambda ms, ops, x: ops.upsample(x, scale_factor=1.7, recompute_scale_factor=True),
                                   [NCHW]),
}



# ops.interpolate, every mode with its options (MindSpore refuses scale_factor without
# recompute_scale_factor=True except for nearest 5-D, area and trilinear, and align_corners where a mode has none).
L3 = _u(2, 3, 7, low=-1.0)
_INTERP: dict[str, tuple[np.ndarray, dict]] = {
    "nearest_3d_size": (L3, {"size": 4}),
    "nearest_3d_scale_recompute": (L3, {"scale_factor": 1.8, "recompute_scale_factor": True}),
    "nearest_4d_size": (NCHW, {"size": (7, 3)}),
    "nearest_4d_scale": (NCHW, {"scale_factor": 2.0}),
    "nearest_5d_scale": (VOL, {"scale_factor": (1.5, 2.0, 1.0)}),
    "nearest_5d_scale_frac": (VOL, {"scale_factor": (1.5, 1.7, 1.3)}),
    "nearest_5d_size": (VOL, {"size": (2, 7, 5)}),
    "nearest_align": (NCHW, {"size": (7, 3), "align_corners": False}),
    "linear_size": (L3, {"size": 12, "mode": "linear"}),
    "linear_align": (L3, {"size": 12, "mode": "linear", "align_corners": True}),
    "linear_down": (L3, {"size": 3, "mode": "linear"}),
    "linear_scale": (L3, {"scale_factor": 1.7, "mode": "linear"}),
    "linear_scale_recompute": (L3, {"scale_factor": 1.7, "mode": "linear", "recompute_scale_factor": True}),
    "bilinear_align": (NCHW, {"size": (8, 9), "mode": "bilinear", "align_corners": True}),
    "bilinear_down": (NCHW, {"size": (2, 3), "mode": "bilinear"}),
    "bilinear_scale": (NCHW, {"scale_factor": (1.5, 0.5), "mode": "bilinear"}),
    "bicubic_size": (NCHW, {"size": (9, 7), "mode": "bicubic"}),
    "bicubic_scale_recompute": (NCHW, {"scale_factor": (1.4, 2.2), "mode": "bicubic",
                                       "recompute_scale_factor": True}),
    "trilinear_scale": (VOL, {"scale_factor": (2.0, 1.5, 1.3), "mode": "trilinear"}),
    "trilinear_align": (VOL, {"size": (4, 5, 3), "mode": "trilinear", "align_corners": True}),
    "trilinear_scale_recompute": (VOL, {"scale_factor": (2.0, 1.5, 1.3), "mode": "trilinear",
                                        "recompute_scale_factor": True}),
    "area_3d": (L3, {"size": 3, "mode": "area"}),
    "area_4d_scale": (NCHW, {"scale_factor": (0.6, 0.5), "mode": "area"}),
    "area_5d_up": (VOL, {"size": (4, 5, 3), "mode": "area"}),
    "nearest_exact_3d": (L3, {"size": 5, "mode": "nearest-exact"}),
    "nearest_exact_4d": (NCHW, {"size": (9, 3), "mode": "nearest-exact"}),
    "nearest_exact_scale": (NCHW, {"scale_factor": 1.5, "mode": "nearest-exact"}),
    "area_align": (NCHW, {"size": (2, 2), "mode": "area", "align_corners": True}),
}
for _name, (_x, _kw) in _INTERP.items():
    CASES[f"interpolate_{_name}"] = ((lambda kw: lambda ms, ops, x: ops.interpolate(x, **kw))(_kw), [_x])


def _grad(op: Callable) -> Callable:
    """The gradient of ``sum(op(x) * w)`` with respect to ``x``."""
    return lambda ms, ops, x, w: ms.grad(lambda t: (op(ms, ops, t) * w).sum())(x)


_SIZE = np.array([7, 3], np.int32)
GRAD_CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "grad_CropAndResize": (_grad(lambda ms, ops, t: ops.CropAndResize()(t, ms.Tensor(BOXES), ms.Tensor(BOX_IDX),
                                                                          (3, 4))),
                           [NHWC, _u(3, 3, 4, 3, low=-1.0)]),
    "grad_ResizeBicubic": (_grad(lambda ms, ops, t: ops.ResizeBicubic()(t, ms.Tensor(_SIZE))),
                           [NCHW, _u(2, 3, 7, 3, low=-1.0)]),
    "grad_ResizeNearestNeighborV2": (_grad(lambda ms, ops, t: ops.ResizeNearestNeighborV2()(t, ms.Tensor(_SIZE))),
                                     [NCHW, _u(2, 3, 7, 3, low=-1.0)]),
    "grad_ResizeLinear1D": (_grad(lambda ms, ops, t: ops.ResizeLinear1D("half_pixel")(
        t, ms.Tensor(np.array([7], np.int64)))), [NCHW[0], _u(3, 5, 7, low=-1.0)]),
    "grad_UpsampleTrilinear3D": (_grad(lambda ms, ops, t: ops.UpsampleTrilinear3D()(t, [4, 5, 3])),
                                 [VOL, _u(1, 2, 4, 5, 3, low=-1.0)]),
    "grad_UpsampleNearest3D": (_grad(lambda ms, ops, t: ops.UpsampleNearest3D()(t, [4, 5, 3])),
                               [VOL, _u(1, 2, 4, 5, 3, low=-1.0)]),
    "grad_AdjustSaturation": (_grad(lambda ms, ops, t: ops.AdjustSaturation()(t, ms.Tensor(_scalar(0.5)))),
                              [RGB, _u(2, 3, 4, 3, low=-1.0)]),
    "grad_AdjustHue": (_grad(lambda ms, ops, t: ops.AdjustHue()(t, ms.Tensor(_scalar(0.2)))),
                       [RGB, _u(2, 3, 4, 3, low=-1.0)]),
    "grad_interpolate_bicubic": (_grad(lambda ms, ops, t: ops.interpolate(t, size=(7, 6), mode="bicubic")),
                                 [NCHW, _u(2, 3, 7, 6, low=-1.0)]),
    "grad_interpolate_area": (_grad(lambda ms, ops, t: ops.interpolate(t, size=(3, 3), mode="area")),
                              [NCHW, _u(2, 3, 3, 3, low=-1.0)]),
    "grad_interpolate_nearest_exact": (_grad(lambda ms, ops, t: ops.interpolate(t, size=(7, 6),
                                                                                mode="nearest-exact")),
                                       [NCHW, _u(2, 3, 7, 6, low=-1.0)]),
}
CASES.update(GRAD_CASES)


def outputs(result: Any) -> list[np.ndarray]:
    """A case's result (a Tensor or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.array(t.asnumpy()) for t in items]


def run(ms: Any, ops: Any, name: str) -> list[np.ndarray]:
    """Case ``name`` on ``ms``/``ops`` (PyNative)."""
    fn, inputs = CASES[name]
    return outputs(fn(ms, ops, *[ms.Tensor(a) for a in inputs]))


__all__ = ["CASES", "outputs", "run"]
