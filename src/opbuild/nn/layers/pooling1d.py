"""1-D pooling and adaptive 2-D pooling layers: MaxPool1d, AvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d.

All of them are compositions of existing primitives (so they compile to the same cached kernels as the rest):
1-D pools are 2-D pools over an (N, C, 1, L) view; an adaptive pool is a plain strided pool when the input
divides evenly into the output, else one reduction per output row and column over MindSpore's windows
``[floor(i * H / out), ceil((i + 1) * H / out))``. Max and mean over a rectangle of such windows are separable
(every row of the rectangle has the same width), so rows are reduced first and columns second.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...core.errors import ShapeError
from ...core.tensor import Tensor
from ...ops.api.pool_argmax import max_pool_nd, max_pool_values
from ...ops.api.pooling_adaptive import adaptive_max_with_indices
from ..cell import Cell
from ._checks import check_pad_mode, positive_int


def _as_3d(layer: str, x: Tensor) -> tuple[Tensor, bool]:
    """(N, C, L) of a rank-3 input, or of a rank-2 (C, L) one with a batch axis added (MindSpore takes both)."""
    if x.ndim not in (2, 3):
        raise ShapeError(layer, "expects an input of shape (N, C, L) or (C, L)", [x._type])
    return (ops.expand_dims(x, 0), True) if x.ndim == 2 else (x, False)


class _Pool1d(Cell):
    _layer = ""

    def __init__(self, kernel_size: int, stride: int, pad_mode: str, padding: int, ceil_mode: bool) -> None:
        super().__init__()
        self.kernel_size = positive_int(self._layer, "kernel_size", kernel_size)
        self.stride = positive_int(self._layer, "stride", stride)
        self.pad_mode = check_pad_mode(self._layer, pad_mode, padding)
        if not isinstance(padding, int) or isinstance(padding, bool) or padding < 0:
            raise ValueError(f"{self._layer}: padding must be a non-negative int, got {padding!r}")
        if 2 * padding > kernel_size:
            raise ValueError(f"{self._layer}: padding ({padding}) must be at most half of kernel_size "
                             f"({kernel_size})")
        self.padding = padding
        self.ceil_mode = bool(ceil_mode)

    def _attrs(self) -> dict:
        return {"kernel_size": (1, self.kernel_size), "strides": (1, self.stride), "pad_mode": self.pad_mode,
                "pad": (0, 0, self.padding, self.padding), "ceil_mode": self.ceil_mode}

    def construct(self, x: Tensor) -> Tensor:
        x3, added = _as_3d(self._layer, x)
        n, c, length = x3.shape
        y = self.pool(ops.reshape(x3, (n, c, 1, length)))
        y = ops.reshape(y, (n, c, y.shape[-1]))
        return ops.squeeze(y, 0) if added else y


class MaxPool1d(_Pool1d):
    """``MaxPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: maximum over windows of an (N, C, L) or (C, L) input. As in MindSpore, ``padding``,
    ``dilation``, ``return_indices`` and ``ceil_mode`` need ``pad_mode='pad'``; ``return_indices`` also
    returns the int64 index of each maximum along L."""

    _layer = "MaxPool1d"

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid", padding: int = 0,
                 dilation: int = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        if isinstance(padding, (tuple, list)) and len(padding) == 1:
            padding = padding[0]
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        if isinstance(dilation, (tuple, list)) and len(dilation) == 1:
            dilation = dilation[0]
        self.dilation = positive_int(self._layer, "dilation", dilation)
        self.return_indices = bool(return_indices)
        if self.pad_mode != "pad" and (self.dilation != 1 or self.return_indices or self.ceil_mode):
            raise ValueError("MaxPool1d: padding, dilation, return_indices and ceil_mode need pad_mode='pad', "
                             f"got pad_mode={pad_mode!r}")
        self._argmax = self.dilation != 1 or self.return_indices
        self.pool = ops.MaxPool(**self._attrs())

    def construct(self, x: Tensor):
        if not self._argmax:
            return super().construct(x)
        _as_3d(self._layer, x)
        p = self.padding
        args = (self._layer, x, 1, (self.kernel_size,), (self.stride,), (self.dilation,), [(p, p)], self.ceil_mode)
        return max_pool_nd(*args) if self.return_indices else max_pool_values(*args)


class AvgPool1d(_Pool1d):
    """``AvgPool1d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True)``: mean over windows of an (N, C, L) or (C, L) input."""

    _layer = "AvgPool1d"

    def __init__(self, kernel_size: int = 1, stride: int = 1, pad_mode: str = "valid", padding: int = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        self.pool = ops.AvgPool(**self._attrs(), count_include_pad=self.count_include_pad)


def _output_size(layer: str, output_size: int | Sequence[int | None]) -> tuple[int | None, int | None]:
    pair = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if len(pair) != 2 or not all(v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1)
                                 for v in pair):
        raise ValueError(f"{layer}: output_size must be a positive int or a pair of positive ints or None, "
                         f"got {output_size!r}")
    return pair  # type: ignore[return-value]


class _AdaptivePool2d(Cell):
    _layer = ""
    _max = False

    def __init__(self, output_size: int | Sequence[int | None]) -> None:
        super().__init__()
        self.output_size = _output_size(self._layer, output_size)

    def _reduce(self, x: Tensor, axis: int, out: int) -> Tensor:
        size = x.shape[axis]
        if size % out == 0:  # equal windows: one strided pool-like reduction through a reshape
            shape = (*x.shape[:axis], out, size // out, *x.shape[axis + 1:])
            y = ops.reshape(x, shape)
            return ops.amax(y, axis + 1) if self._max else ops.mean(y, axis + 1)
        parts = []
        for i in range(out):
            start, end = i * size // out, -(-(i + 1) * size // out)
            window = x[(slice(None),) * axis + (slice(start, end),)]
            parts.append(ops.amax(window, axis, keepdims=True) if self._max
                         else ops.mean(window, axis, keep_dims=True))
        return ops.cat(parts, axis)

    def construct(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ShapeError(self._layer, "expects an input of shape (N, C, H, W) or (C, H, W)", [input._type])
        oh, ow = self.output_size
        y = input
        if oh is not None and oh != input.shape[-2]:
            y = self._reduce(y, y.ndim - 2, oh)
        if ow is not None and ow != input.shape[-1]:
            y = self._reduce(y, y.ndim - 1, ow)
        return y


class AdaptiveAvgPool2d(_AdaptivePool2d):
    """``AdaptiveAvgPool2d(output_size)``: average pooling of (N, C, H, W) or (C, H, W) to ``output_size``
    (an int, or (H_out, W_out) where None keeps that axis), with MindSpore's windows
    ``[floor(i * H / H_out), ceil((i + 1) * H / H_out))``."""

    _layer = "AdaptiveAvgPool2d"


class AdaptiveMaxPool2d(_AdaptivePool2d):
    """``AdaptiveMaxPool2d(output_size, return_indices=False)``: maximum over the same windows as
    AdaptiveAvgPool2d; ``return_indices=True`` also returns the int64 flat index of each maximum in its plane."""

    _layer = "AdaptiveMaxPool2d"
    _max = True

    def __init__(self, output_size: int | Sequence[int | None], return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = bool(return_indices)

    def construct(self, input: Tensor):
        if not self.return_indices:
            return super().construct(input)
        return adaptive_max_with_indices(self._layer, input, self.output_size, 2)
