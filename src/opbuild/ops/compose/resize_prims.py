"""MindSpore's TensorFlow-style resizing primitives (``ResizeNearestNeighborV2``, ``ResizeBicubic``,
``ResizeArea``, ``ResizeLinear1D``) and the 3-D upsampling ones (``UpsampleNearest3D``, ``UpsampleTrilinear3D``),
on the separable tap tables of compose/resize.py: each resized axis is a constant table of input indices and
weights, computed in NumPy when the call is traced, then ``Gather`` -> ``Mul`` -> ``ReduceSum`` (one ``Gather``
for nearest). Every piece has a gradient rule, so all of them are differentiable.

The coordinate maps are those of MindSpore 2.10's CPU kernels, checked against its outputs
(tests/compat/test_image_ops.py): TensorFlow's for the ``Resize*`` primitives (``scale = in / out``, or
``(in - 1) / (out - 1)`` with ``align_corners``; half-pixel centres ``(i + 0.5) * scale``), PyTorch's for the
``Upsample*3D`` ones (``scales`` given: the ratio is ``1 / scale``, an axis of unchanged size copied).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import Primitive
from . import TENSORS
from .resize import AxisTaps, axis_taps, resize


def _ints(op: str, size: Any, n: int) -> list[int]:
    values = size.asnumpy().reshape(-1).tolist() if isinstance(size, Tensor) else list(size)
    if len(values) != n or any(int(v) <= 0 for v in values):
        raise ValueError(f"{op}: size must hold {n} positive sizes, got {values}")
    return [int(v) for v in values]


def _tensor(op: str, x: Any, rank: int, floats_only: bool = True) -> Tensor:
    t = as_tensor(x)
    if t.ndim != rank:
        raise ValueError(f"{op}: the input must be {rank}-D, got rank {t.ndim}")
    if floats_only and not t.dtype.is_float:
        raise TypeError(f"{op}: the input must be float16, float32 or float64, got {t.dtype}")
    return t


def _flags(op: str, align_corners: Any, half_pixel_centers: Any) -> dict:
    for name, v in (("align_corners", align_corners), ("half_pixel_centers", half_pixel_centers)):
        if not isinstance(v, bool):
            raise TypeError(f"{op}: {name} must be a bool, got {type(v).__name__}")
    if align_corners and half_pixel_centers:
        raise ValueError(f"{op}: align_corners and half_pixel_centers cannot both be True")
    return {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers}


def tf_scale(in_size: int, out_size: int, align_corners: bool) -> float:
    """TensorFlow's resize scale: input length per output step."""
    return (in_size - 1) / (out_size - 1) if align_corners and out_size > 1 else in_size / out_size


def tf_nearest_taps(in_size: int, out_size: int, align_corners: bool, half_pixel: bool) -> AxisTaps:
    """TensorFlow's nearest neighbour: ``round(i * scale)`` with align_corners, ``floor((i + 0.5) * scale)``
    with half-pixel centres, else ``floor(i * scale)``; clamped into the input."""
    i = np.arange(out_size, dtype=np.float64)
    s = tf_scale(in_size, out_size, align_corners)
    src = np.floor(i * s + 0.5) if align_corners else np.floor((i + 0.5) * s) if half_pixel else np.floor(i * s)
    return AxisTaps(np.clip(src, 0, in_size - 1).astype(np.int64)[:, None], np.ones((out_size, 1)))


def linear_taps(x: np.ndarray, in_size: int) -> AxisTaps:
    """Two-tap linear interpolation at input coordinates ``x`` (already clamped to be >= 0)."""
    left = np.minimum(np.floor(x), in_size - 1)
    right = np.minimum(left + 1, in_size - 1)
    frac = x - left
    return AxisTaps(np.stack([left, right], 1).astype(np.int64), np.stack([1 - frac, frac], 1))


def tf_area_taps(in_size: int, out_size: int, align_corners: bool) -> AxisTaps:
    """TensorFlow's area resize along one axis: output ``j`` averages input ``[j * scale, (j + 1) * scale)``,
    each input element weighted by its overlap, divided by ``scale``; indices past the edge clamp to it."""
    s = tf_scale(in_size, out_size, align_corners)
    lo = np.arange(out_size) * s
    hi = (np.arange(out_size) + 1) * s
    start = np.floor(lo).astype(np.int64)
    width = int((np.ceil(hi).astype(np.int64) - start).max())
    idx = start[:, None] + np.arange(width)[None, :]
    overlap = np.clip(np.minimum(idx + 1, hi[:, None]) - np.maximum(idx, lo[:, None]), 0, None)
    return AxisTaps(np.clip(idx, 0, in_size - 1), overlap / s)


class ResizeNearestNeighborV2(Primitive):
    """``ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size)``: nearest-neighbour
    resizing of the last two axes of an (N, C, H, W) tensor to ``size`` (H', W')."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__(**_flags("ResizeNearestNeighborV2", align_corners, half_pixel_centers))

    def __call__(self, x: Any, size: Any) -> Tensor:
        t = _tensor("ResizeNearestNeighborV2", x, 4, floats_only=False)
        out = _ints("ResizeNearestNeighborV2", size, 2)
        taps = {a + 2: tf_nearest_taps(i, o, self.attrs["align_corners"], self.attrs["half_pixel_centers"])
                for a, (i, o) in enumerate(zip(t.shape[2:], out, strict=True))}
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


class ResizeBicubic(Primitive):
    """``ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)``: TensorFlow's bicubic
    resizing of an (N, C, H, W) float tensor (Keys' kernel with a = -0.5 and outside taps dropped for half-pixel
    centres, a = -0.75 and clamped taps otherwise; offsets on a 1/1024 table)."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        super().__init__(**_flags("ResizeBicubic", align_corners, half_pixel_centers))

    def __call__(self, images: Any, size: Any) -> Tensor:
        t = _tensor("ResizeBicubic", images, 4)
        out = _ints("ResizeBicubic", size, 2)
        taps = {}
        for a, (i, o) in enumerate(zip(t.shape[2:], out, strict=True)):
            if self.attrs["half_pixel_centers"]:
                taps[a + 2] = axis_taps(i, o, o / i, "cubic", "half_pixel", cubic_a=-0.5, exclude_outside=True,
                                        table=1024)
            elif self.attrs["align_corners"]:
                taps[a + 2] = axis_taps(i, o, o / i, "cubic", "align_corners", cubic_a=-0.75, table=1024)
            else:
                taps[a + 2] = axis_taps(i, o, o / i, "cubic", "asymmetric", cubic_a=-0.75, table=1024)
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


class ResizeArea(Primitive):
    """``ResizeArea(align_corners=False)(images, size)``: TensorFlow's area resizing of an (N, H, W, C) tensor
    (channels last) to ``size`` (H', W'); the result is float32."""

    def __init__(self, align_corners: bool = False):
        super().__init__(**_flags("ResizeArea", align_corners, False))
        del self.attrs["half_pixel_centers"]

    def __call__(self, images: Any, size: Any) -> Tensor:
        t = _tensor("ResizeArea", images, 4, floats_only=False)
        out = _ints("ResizeArea", size, 2)
        t = t if t.dtype.name == "float32" else TENSORS.op("Cast", {"dtype": "float32"}, t)
        taps = {a + 1: tf_area_taps(i, o, self.attrs["align_corners"])
                for a, (i, o) in enumerate(zip(t.shape[1:3], out, strict=True))}
        return resize(TENSORS, t, t.shape, "float32", taps)


class ResizeLinear1D(Primitive):
    """``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)``: linear resizing of the last
    axis of an (N, C, W) float tensor; modes 'align_corners' and 'half_pixel' (MindSpore's CPU refuses the
    others)."""

    def __init__(self, coordinate_transformation_mode: str = "align_corners"):
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError("ResizeLinear1D: coordinate_transformation_mode must be 'align_corners' or "
                             f"'half_pixel', got {coordinate_transformation_mode!r}")
        super().__init__(coordinate_transformation_mode=coordinate_transformation_mode)

    def __call__(self, x: Any, size: Any) -> Tensor:
        t = _tensor("ResizeLinear1D", x, 3)
        (o,) = _ints("ResizeLinear1D", size, 1)
        i = t.shape[2]
        j = np.arange(o, dtype=np.float64)
        if self.attrs["coordinate_transformation_mode"] == "align_corners":
            src = j * (i - 1) / (o - 1) if o > 1 else np.zeros(o)
        else:
            src = np.maximum((j + 0.5) * i / o - 0.5, 0)
        return resize(TENSORS, t, t.shape, t.dtype.name, {2: linear_taps(src, i)})


def _upsample_sizes(op: str, shape: Sequence[int], output_size: Any, scales: Any) -> tuple[list[int], list[float]]:
    """Output sizes and input-per-output ratios of the 3 spatial axes: with ``scales`` the size is ``floor(in
    * scale)`` and the ratio ``1 / scale`` (PyTorch's rule), except that an axis whose size is unchanged is
    copied (MindSpore's kernels, checked against their outputs)."""
    if (output_size is None) == (scales is None):
        raise ValueError(f"{op}: give exactly one of output_size and scales")
    spatial = list(shape[2:])
    if output_size is not None:
        out = [int(v) for v in output_size]
        if len(out) != 3 or min(out) <= 0:
            raise ValueError(f"{op}: output_size must hold 3 positive sizes, got {list(output_size)}")
        return out, [i / o for i, o in zip(spatial, out, strict=True)]
    sc = [float(v) for v in scales]
    if len(sc) != 3 or min(sc) <= 0:
        raise ValueError(f"{op}: scales must hold 3 positive floats, got {list(scales)}")
    out = [int(math.floor(i * s)) for i, s in zip(spatial, sc, strict=True)]
    # MindSpore's kernels copy an axis whose size does not change, whatever its scale
    return out, [1.0 if o == i else 1 / s for i, o, s in zip(spatial, out, sc, strict=True)]


class UpsampleNearest3D(Primitive):
    """``UpsampleNearest3D()(x, output_size=None, scales=None)``: nearest upsampling of the three spatial axes
    of an (N, C, D, H, W) tensor: source ``min(floor(i * ratio), in - 1)``, ``ratio`` ``in / out``, or ``1 /
    scale`` with ``scales`` (an axis whose size is unchanged is copied even then: MindSpore's kernel)."""

    def __call__(self, x: Any, output_size: Any = None, scales: Any = None) -> Tensor:
        t = _tensor("UpsampleNearest3D", x, 5)
        out, ratios = _upsample_sizes("UpsampleNearest3D", t.shape, output_size, scales)
        taps = {}
        for a, (i, o, r) in enumerate(zip(t.shape[2:], out, ratios, strict=True)):
            src = np.minimum(np.floor(np.arange(o) * r), i - 1).astype(np.int64)
            taps[a + 2] = AxisTaps(src[:, None], np.ones((o, 1)))
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


class UpsampleTrilinear3D(Primitive):
    """``UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None)``: trilinear upsampling of
    an (N, C, D, H, W) tensor: source ``i * (in - 1) / (out - 1)`` with align_corners, else ``(i + 0.5) * ratio
    - 0.5`` clamped at 0 (``ratio``: as for UpsampleNearest3D)."""

    def __init__(self, align_corners: bool = False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"UpsampleTrilinear3D: align_corners must be a bool, got {type(align_corners).__name__}")
        super().__init__(align_corners=align_corners)

    def __call__(self, x: Any, output_size: Any = None, scales: Any = None) -> Tensor:
        t = _tensor("UpsampleTrilinear3D", x, 5)
        out, ratios = _upsample_sizes("UpsampleTrilinear3D", t.shape, output_size, scales)
        taps = {}
        for a, (i, o, r) in enumerate(zip(t.shape[2:], out, ratios, strict=True)):
            j = np.arange(o, dtype=np.float64)
            if self.attrs["align_corners"]:
                src = j * (i - 1) / (o - 1) if o > 1 else np.zeros(o)
            else:
                src = np.maximum((j + 0.5) * r - 0.5, 0)
            taps[a + 2] = linear_taps(src, i)
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


PRIMITIVES: dict[str, type[Primitive]] = {
    "ResizeNearestNeighborV2": ResizeNearestNeighborV2, "ResizeBicubic": ResizeBicubic, "ResizeArea": ResizeArea,
    "ResizeLinear1D": ResizeLinear1D, "UpsampleNearest3D": UpsampleNearest3D,
    "UpsampleTrilinear3D": UpsampleTrilinear3D,
}

__all__ = ["PRIMITIVES", "linear_taps", "tf_area_taps", "tf_nearest_taps", "tf_scale", *PRIMITIVES]
