"""Resizing (interpolation) as a composition of primitives, written once for ``ops.interpolate``, the
``ResizeBilinearV2``/``ResizeNearestNeighbor`` primitives' functional forms and ONNX ``Resize``.

Every mode that ONNX's Resize and MindSpore's ``interpolate`` define (nearest, linear, cubic, with or without
antialiasing) is separable: each output element along one axis is a weighted sum of a few input elements
along that axis, and which elements and weights depends only on the static sizes. So the weights are a
constant table, computed here in NumPy (float64) when the graph is traced, and each resized axis becomes
``Gather`` (the taps) -> ``Mul`` (the weights) -> ``ReduceSum`` (over the taps); nearest modes are one
``Gather``. No new kernel is needed, and every piece already has a gradient rule, so resizing is
differentiable for free.

:func:`axis_taps` is the one place coordinates are mapped (``coordinate_transformation_mode``) and weights
computed; tap indices outside the input are clamped to its edge (edge padding), as ONNX specifies.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import Primitive
from . import TENSORS

COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                    "tf_crop_and_resize")
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
MODES = ("nearest", "linear", "cubic")


@dataclass(frozen=True)
class AxisTaps:
    """How one axis is resized: output ``j`` is ``sum_t weight[j, t] * x[index[j, t]]`` along the axis;
    ``outside[j]`` (tf_crop_and_resize only, else None) marks outputs that take the extrapolation value."""

    index: np.ndarray
    weight: np.ndarray
    outside: np.ndarray | None = None

    @property
    def one_hot(self) -> bool:
        """Whether every output copies exactly one input element (a plain Gather)."""
        return bool(np.all((self.weight == 0) | (self.weight == 1)) and np.all(self.weight.sum(axis=1) == 1))


def source_coords(out_size: int, in_size: int, scale: float, coord: str,
                  roi: tuple[float, float] = (0.0, 1.0)) -> tuple[np.ndarray, np.ndarray | None]:
    """The input coordinate of every output position (float64) and, for tf_crop_and_resize, which ones fall
    outside the input. ``scale`` is output/input as ONNX defines it (the scales input, or sizes/input)."""
    y = np.arange(out_size, dtype=np.float64)
    length = scale * in_size  # the output length before rounding to an integer
    outside = None
    if coord == "align_corners":
        x = np.zeros(out_size) if length == 1 else y * (in_size - 1) / (length - 1)
    elif coord == "asymmetric":
        x = y / scale
    elif coord == "pytorch_half_pixel":
        x = np.full(out_size, -0.5) if length == 1 else (y + 0.5) / scale - 0.5
    elif coord == "half_pixel":
        x = (y + 0.5) / scale - 0.5
    elif coord == "half_pixel_symmetric":
        offset = in_size / 2 * (1 - out_size / length)
        x = offset + (y + 0.5) / scale - 0.5
    elif coord == "tf_crop_and_resize":
        start, end = roi
        if length == 1:
            x = np.full(out_size, (end - start) * (in_size - 1) / 2)
        else:
            x = y * (end - start) * (in_size - 1) / (length - 1)
        x = x + start * (in_size - 1)
        outside = (x < 0) | (x > in_size - 1)
    else:
        raise ValueError(f"coordinate transformation mode {coord!r} is not one of {', '.join(COORDINATE_MODES)}")
    return x, outside


def _weights(ratio: np.ndarray, scale: float, mode: str, nearest_mode: str, cubic_a: float,
             antialias: bool) -> np.ndarray:
    """(out, taps) weights from each output's fractional offset ``ratio`` in (0, 1] past its left tap."""
    if mode == "nearest":
        integer = ratio == 1
        right = {"round_prefer_floor": ratio > 0.5, "round_prefer_ceil": ratio >= 0.5,
                 "floor": np.zeros_like(integer), "ceil": np.ones_like(integer)}[nearest_mode] | integer
        return np.stack([~right, right], axis=1).astype(np.float64)
    if not antialias or scale >= 1:
        if mode == "linear":
            return np.stack([1 - ratio, ratio], axis=1)
        a, r, s = cubic_a, ratio, 1 - ratio
        return np.stack([((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                         ((a + 2) * r - (a + 3)) * r * r + 1,
                         ((a + 2) * s - (a + 3)) * s * s + 1,
                         ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a], axis=1)
    # Antialiasing when shrinking: the filter is stretched by 1/scale, so it covers more taps.
    if mode == "linear":
        start = int(np.floor(-1 / scale) + 1)
        offsets = np.arange(start, 2 - start)
        w = np.clip(1 - np.abs((offsets[None, :] - ratio[:, None]) * scale), 0, 1)
    else:
        start = int(np.floor(-2 / scale) + 1)
        d = np.abs(scale * (np.arange(start, 2 - start)[None, :] - ratio[:, None]))
        a = cubic_a
        w = np.where(d <= 1, (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1,
                     np.where(d < 2, a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a, 0.0))
    return w / w.sum(axis=1, keepdims=True)


def axis_taps(in_size: int, out_size: int, scale: float, mode: str = "linear", coord: str = "half_pixel",
              nearest_mode: str = "round_prefer_floor", cubic_a: float = -0.75, exclude_outside: bool = False,
              antialias: bool = False, roi: tuple[float, float] = (0.0, 1.0), table: int = 0) -> AxisTaps:
    """The taps of one resized axis (see :class:`AxisTaps`), ONNX Resize's definition. ``table`` > 0 rounds
    each fractional offset to a multiple of ``1 / table`` before the weights are computed: the coefficient
    table of TensorFlow's bicubic resize, which MindSpore's ``interpolate`` reproduces."""
    if mode not in MODES:
        raise ValueError(f"resize mode {mode!r} is not one of {', '.join(MODES)}")
    if nearest_mode not in NEAREST_MODES:
        raise ValueError(f"nearest mode {nearest_mode!r} is not one of {', '.join(NEAREST_MODES)}")
    x, outside = source_coords(out_size, in_size, scale, coord, roi)
    left = np.floor(x)
    ratio = np.where(x == left, 1.0, x - left)  # an exact hit counts as the right end of its left interval
    if table:
        ratio = np.where(ratio == 1.0, 1.0, np.round(ratio * table) / table)
    w = _weights(ratio, scale, mode, nearest_mode, cubic_a, antialias)
    n = w.shape[1]
    # The n taps nearest x (ties to the smaller index), as indices of the unpadded input.
    pad = (n + 1) // 2
    xp = x + pad
    base = np.floor(xp)
    frac = xp - base
    if n % 2 == 0:
        first = base + np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        first = base + np.where(frac <= 0.5, -((n - 1) // 2), -((n - 1) // 2) + 1)
    index = first.astype(np.int64)[:, None] + np.arange(n)[None, :] - pad
    if exclude_outside:
        w = np.where((index < 0) | (index >= in_size), 0.0, w)
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    return AxisTaps(np.clip(index, 0, in_size - 1), w, outside if outside is not None and outside.any() else None)


# ---- the composition ----------------------------------------------------------------------------------

def resize_axis(b, x: Any, shape: Sequence[int], dtype: str, axis: int, taps: AxisTaps,
                extrapolation_value: float = 0.0) -> Any:
    """Resize axis ``axis`` of ``x`` (static ``shape`` and ``dtype``) by ``taps``."""
    out, n = taps.index.shape
    rank = len(shape)
    if taps.one_hot:
        picks = taps.index[np.arange(out), np.argmax(taps.weight, axis=1)]
        y = b.op("Gather", {"axis": axis}, x, picks.astype(np.int64))
    else:
        gathered = b.op("Gather", {"axis": axis}, x, taps.index.reshape(-1).astype(np.int64))
        split = [*shape[:axis], out, n, *shape[axis + 1:]]
        gathered = b.op("Reshape", {"shape": split}, gathered)
        w = taps.weight.astype(dtype).reshape((out, n) + (1,) * (rank - axis - 1))
        y = b.op("ReduceSum", {"axis": [axis + 1], "keep_dims": False}, b.op("Mul", {}, gathered, w))
    if taps.outside is not None:
        mask = taps.outside.reshape((out,) + (1,) * (rank - axis - 1))
        y = b.op("Select", {}, mask, np.asarray(extrapolation_value, dtype), y)
    return y


def resize(b, x: Any, shape: Sequence[int], dtype: str, taps: Mapping[int, AxisTaps],
           extrapolation_value: float = 0.0) -> Any:
    """Resize every axis of ``taps`` in turn (the result does not depend on the order: the maps are
    separable). An axis whose taps copy it unchanged costs nothing."""
    shape = list(shape)
    for axis in sorted(taps):
        t = taps[axis]
        identity = (t.outside is None and t.index.shape[0] == shape[axis] and t.one_hot
                    and np.array_equal(t.index[np.arange(shape[axis]), np.argmax(t.weight, axis=1)],
                                       np.arange(shape[axis])))
        if identity:
            continue
        x = resize_axis(b, x, shape, dtype, axis, t, extrapolation_value)
        shape[axis] = t.index.shape[0]
    return x


def output_size(in_size: int, scale: float) -> int:
    """ONNX's output length for a scale factor: ``floor(in_size * scale)``."""
    return int(math.floor(in_size * scale))


# ---- MindSpore's resizing primitives (compositions, not registered ops) ---------------------------------

class ResizeBilinearV2(Primitive):
    """``ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size)``: bilinear resizing of an
    (N, C, H, W) float tensor to ``size`` (H', W'). Coordinates: ``align_corners`` ``i * (in-1)/(out-1)``;
    ``half_pixel_centers`` ``(i + 0.5) * in/out - 0.5``; neither: ``i * in / out``."""

    def __init__(self, align_corners: bool = False, half_pixel_centers: bool = False):
        if align_corners and half_pixel_centers:
            raise ValueError("ResizeBilinearV2: align_corners and half_pixel_centers cannot both be True")
        super().__init__(align_corners=bool(align_corners), half_pixel_centers=bool(half_pixel_centers))

    def __call__(self, x: Any, size: Sequence[int]) -> Tensor:
        t = as_tensor(x)
        if t.ndim != 4:
            raise ValueError(f"ResizeBilinearV2: x must be 4-D (N, C, H, W), got rank {t.ndim}")
        size = [int(s) for s in (size.asnumpy().tolist() if isinstance(size, Tensor) else size)]
        coord = ("align_corners" if self.attrs["align_corners"] else
                 "half_pixel" if self.attrs["half_pixel_centers"] else "asymmetric")
        taps = {a + 2: axis_taps(i, o, o / i, "linear", coord) for a, (i, o) in
                enumerate(zip(t.shape[2:], size, strict=True))}
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


class ResizeNearestNeighbor(Primitive):
    """``ResizeNearestNeighbor(size, align_corners=False)(input_x)``: nearest-neighbour resizing of the last
    two axes to ``size``: source ``floor(i * in / out)``, or with ``align_corners`` ``round(i * (in-1)/(out-1))``."""

    def __init__(self, size: Sequence[int], align_corners: bool = False):
        super().__init__(size=[int(s) for s in size], align_corners=bool(align_corners))

    def __call__(self, input_x: Any) -> Tensor:
        t = as_tensor(input_x)
        if t.ndim != 4:
            raise ValueError(f"ResizeNearestNeighbor: input_x must be 4-D, got rank {t.ndim}")
        ac = self.attrs["align_corners"]
        taps = {a + 2: axis_taps(i, o, o / i, "nearest", "align_corners" if ac else "asymmetric",
                                   "round_prefer_ceil" if ac else "floor")
                for a, (i, o) in enumerate(zip(t.shape[2:], self.attrs["size"], strict=True))}
        return resize(TENSORS, t, t.shape, t.dtype.name, taps)


PRIMITIVES: dict[str, type[Primitive]] = {"ResizeBilinearV2": ResizeBilinearV2,
                                          "ResizeNearestNeighbor": ResizeNearestNeighbor}




def area_taps(in_size: int, out_size: int) -> AxisTaps:
    """Adaptive average pooling along one axis (``interpolate`` mode ``area``): output ``j`` averages the
    inputs ``[floor(j * in / out), ceil((j + 1) * in / out))``."""
    j = np.arange(out_size)
    start = (j * in_size) // out_size
    stop = -((-(j + 1) * in_size) // out_size)
    width = int((stop - start).max())
    index = start[:, None] + np.arange(width)[None, :]
    valid = index < stop[:, None]
    weight = np.where(valid, 1.0 / (stop - start)[:, None], 0.0)
    return AxisTaps(np.clip(index, 0, in_size - 1), weight)


__all__ = ["AxisTaps", "COORDINATE_MODES", "MODES", "NEAREST_MODES", "PRIMITIVES", "ResizeBilinearV2",
           "ResizeNearestNeighbor", "area_taps", "axis_taps", "output_size", "resize", "resize_axis", "source_coords"]
