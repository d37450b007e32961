"""``ops.crop_and_resize`` (and the ``CropAndResize`` primitive): crops of an (N, H, W, C) image batch at
boxes known only when the graph runs, resized by bilinear or nearest sampling, as a composition.

Box ``b`` samples image ``box_indices[b]`` at rows ``y1 * (H - 1) + i * (y2 - y1) * (H - 1) / (h - 1)`` for ``i <
h`` (``(y1 + y2) / 2 * (H - 1)`` when ``h == 1``), and the same along the width; a sample outside the image takes
``extrapolation_value``. TensorFlow's definition, which MindSpore's CPU kernel computes (checked against its
outputs). The coordinates are tensors computed from the boxes; the four neighbours are gathered from the
flattened image with one ``Gather`` each, so the result is differentiable with respect to the image (the boxes
enter through ``floor``, whose gradient is zero, and through the interpolation weights).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import reshape
from .math import cast, floor, maximum, minimum
from .math_misc import select

METHODS = ("bilinear", "nearest", "bilinear_v2")


def _axis_coords(lo: Tensor, hi: Tensor, size: int, n: int) -> Tensor:
    """(B, n) input coordinates along one axis of length ``size`` for the boxes' ``lo``/``hi`` (B, 1)."""
    if n > 1:
        steps = Tensor(np.arange(n, dtype=np.float32).reshape(1, n))
        return lo * (size - 1) + steps * ((hi - lo) * ((size - 1) / (n - 1)))
    return (lo + hi) * (0.5 * (size - 1))


def _inside(c: Tensor, size: int) -> Tensor:
    return apply("LogicalAnd", {}, [c >= 0.0, c <= float(size - 1)])


def _clamped_index(c: Tensor, size: int) -> Tensor:
    return cast(minimum(maximum(c, 0.0), float(size - 1)), "int32")


def crop_and_resize(image: Any, boxes: Any, box_indices: Any, crop_size: Any, method: str = "bilinear",
                    extrapolation_value: float = 0.0) -> Tensor:
    """``ops.crop_and_resize(image, boxes, box_indices, crop_size, method='bilinear', extrapolation_value=0.0)``:
    a (num_boxes, crop_height, crop_width, C) float32 tensor of the crops (see the module docstring)."""
    x, b, idx = as_tensor(image), as_tensor(boxes), as_tensor(box_indices)
    if method not in METHODS:
        raise ValueError(f"crop_and_resize: method must be one of {', '.join(METHODS)}, got {method!r}")
    if x.ndim != 4:
        raise ValueError(f"crop_and_resize: image must be 4-D (N, H, W, C), got rank {x.ndim}")
    if b.ndim != 2 or b.shape[1] != 4 or not b.dtype.is_float:
        raise ValueError(f"crop_and_resize: boxes must be a float (num_boxes, 4) tensor, got {b.dtype} "
                         f"{tuple(b.shape)}")
    if idx.ndim != 1 or idx.shape[0] != b.shape[0] or idx.dtype.name != "int32":
        raise ValueError(f"crop_and_resize: box_indices must be int32 of shape ({b.shape[0]},), got {idx.dtype} "
                         f"{tuple(idx.shape)}")
    size = [int(v) for v in crop_size]
    if len(size) != 2 or min(size) <= 0:
        raise ValueError(f"crop_and_resize: crop_size must be 2 positive ints (height, width), got {crop_size}")
    n_img, height, width, ch = x.shape
    (h, w), nb = size, b.shape[0]
    b = cast(b, "float32")
    y1, x1, y2, x2 = (apply("StridedSlice", {"begin": [0, k], "end": [nb, k + 1], "strides": [1, 1]}, [b])
                      for k in range(4))
    ys = reshape(_axis_coords(y1, y2, height, h), (nb, h, 1))
    xs = reshape(_axis_coords(x1, x2, width, w), (nb, 1, w))
    valid = apply("LogicalAnd", {}, [_inside(ys, height), _inside(xs, width)])
    flat = reshape(cast(x, "float32"), (n_img * height * width, ch))
    base = reshape(cast(idx, "int32") * (height * width), (nb, 1, 1))

    def pick(yi: Tensor, xi: Tensor) -> Tensor:
        rows = reshape(base + yi * width + xi, (nb * h * w,))
        return reshape(apply("Gather", {"axis": 0}, [flat, rows]), (nb, h, w, ch))

    if method == "nearest":
        out = pick(_clamped_index(floor(ys + 0.5), height), _clamped_index(floor(xs + 0.5), width))
    else:
        top, left = floor(ys), floor(xs)
        ty, tx = _clamped_index(top, height), _clamped_index(left, width)
        by, bx = _clamped_index(top + 1.0, height), _clamped_index(left + 1.0, width)
        fy, fx = reshape(ys - top, (nb, h, 1, 1)), reshape(xs - left, (nb, 1, w, 1))
        upper = pick(ty, tx) + (pick(ty, bx) - pick(ty, tx)) * fx
        lower = pick(by, tx) + (pick(by, bx) - pick(by, tx)) * fx
        out = upper + (lower - upper) * fy
    mask = apply("BroadcastTo", {"shape": [nb, h, w, ch]}, [reshape(valid, (nb, h, w, 1))])
    fill = Tensor(np.full((nb, h, w, ch), extrapolation_value, np.float32))
    return select(mask, out, fill)


__all__ = ["crop_and_resize"]
