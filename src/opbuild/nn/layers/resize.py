"""Resizing layers: PixelShuffle (sub-pixel rearrangement, a reshape and a transpose) and Upsample."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ... import ops
from ...core.errors import ShapeError
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import positive_int


class PixelShuffle(Cell):
    """Rearrange (N, C * r^2, H, W) into (N, C, H * r, W * r), ``r = upscale_factor``:
    ``out[n, c, h * r + i, w * r + j] = x[n, c * r^2 + i * r + j, h, w]``."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = positive_int("PixelShuffle", "upscale_factor", upscale_factor)

    def construct(self, input: Tensor) -> Tensor:
        r = self.upscale_factor
        if input.ndim < 3 or input.shape[-3] % (r * r):
            raise ShapeError("PixelShuffle", f"expects a rank >= 3 input whose channel axis (-3) is divisible "
                                             f"by upscale_factor^2 = {r * r}", [input._type])
        *lead, c, h, w = input.shape
        y = ops.reshape(input, (-1, c // (r * r), r, r, h, w))
        y = ops.transpose(y, (0, 1, 4, 2, 5, 3))
        return ops.reshape(y, (*lead, c // (r * r), h * r, w * r))


def _source_index(out: int, size: int, align_corners: bool, scale: float | None) -> np.ndarray:
    """Fractional source coordinate of every output index along one axis (MindSpore's/torch's rules):
    align_corners maps the corner pixels onto each other, else pixel centres map with the ratio
    ``1 / scale_factor`` (when given) or ``size / out``, clamped at 0."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    ratio = 1.0 / scale if scale else size / out
    return np.maximum((dst + 0.5) * ratio - 0.5, 0.0)


class Upsample(Cell):
    """``Upsample(size=None, scale_factor=None, mode='nearest', align_corners=None,
    recompute_scale_factor=None)``: resize the last two axes of an (N, C, H, W) input.

    Give exactly one of ``size`` (an int or (H_out, W_out)) and ``scale_factor`` (a number or a pair; the
    output is floor(H * scale)). ``mode`` 'nearest' (source index floor(dst * H / H_out)) or 'bilinear'
    (``align_corners`` as in MindSpore 2.x: True aligns the corner pixels, False/None maps pixel centres).
    The source indices and weights are constants computed here; the resize runs as Gather and Mul/Add
    primitives, one axis at a time (bilinear interpolation is separable).
    """

    def __init__(self, size: int | Sequence[int] | None = None, scale_factor: float | Sequence[float] | None = None,
                 mode: str = "nearest", align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("Upsample: give exactly one of size and scale_factor")
        if mode not in ("nearest", "bilinear"):
            raise ValueError(f"Upsample: mode must be 'nearest' or 'bilinear', got {mode!r}")
        if align_corners and mode == "nearest":
            raise ValueError("Upsample: align_corners only applies to mode='bilinear'")
        self.size = None if size is None else _pair_of("size", size, int)
        self.scale_factor = None if scale_factor is None else _pair_of("scale_factor", scale_factor, float)
        self.mode, self.align_corners = mode, bool(align_corners)
        self.recompute_scale_factor = bool(recompute_scale_factor)

    def _resize_axis(self, x: Tensor, axis: int, out: int, scale: float | None) -> Tensor:
        size = x.shape[axis]
        if self.mode == "nearest":
            ratio = 1.0 / scale if scale else size / out
            idx = np.minimum(np.floor(np.arange(out) * ratio), size - 1).astype(np.int32)
            return ops.gather(x, Tensor(idx), axis)
        src = _source_index(out, size, self.align_corners, scale)
        i0 = np.minimum(np.floor(src), size - 1).astype(np.int32)
        i1 = np.minimum(i0 + 1, size - 1).astype(np.int32)
        frac = (src - i0).astype(np.dtype(x._type.dtype))
        wshape = (out,) + (1,) * (x.ndim - 1 - axis)
        w1 = Tensor(frac.reshape(wshape))
        w0 = Tensor((1 - frac).reshape(wshape))
        return ops.gather(x, Tensor(i0), axis) * w0 + ops.gather(x, Tensor(i1), axis) * w1

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise ShapeError("Upsample", "expects an input of shape (N, C, H, W)", [x._type])
        h, w = x.shape[2:]
        if self.size is not None:
            (oh, ow), scales = self.size, (None, None)
        else:
            oh, ow = (int(np.floor(n * s)) for n, s in zip((h, w), self.scale_factor, strict=True))
            scales = (None, None) if self.recompute_scale_factor else self.scale_factor
        if oh < 1 or ow < 1:
            raise ShapeError("Upsample", f"the output size {(oh, ow)} is empty", [x._type])
        y = self._resize_axis(x, 2, oh, scales[0])
        return self._resize_axis(y, 3, ow, scales[1])


def _pair_of(name: str, value, kind: type) -> tuple:
    pair = (value, value) if isinstance(value, (int, float)) and not isinstance(value, bool) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in pair):
        raise ValueError(f"Upsample: {name} must be a positive number or a pair of them, got {value!r}")
    if kind is int and not all(isinstance(v, int) for v in pair):
        raise ValueError(f"Upsample: {name} must be ints, got {value!r}")
    return tuple(kind(v) for v in pair)
