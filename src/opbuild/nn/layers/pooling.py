"""2-D pooling layers (NCHW): MaxPool2d and AvgPool2d."""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...core.tensor import Tensor
from ...ops.api.nn import avg_pool2d
from ...ops.api.pool_argmax import max_pool_nd, max_pool_values
from ..cell import Cell
from ._checks import check_input, check_pad_mode, int_pair, padding4


class _Pool2d(Cell):
    """Shared argument handling: kernel size, stride, pad mode and explicit padding."""

    _layer = ""

    def __init__(self, kernel_size: int | Sequence[int], stride: int | Sequence[int], pad_mode: str,
                 padding: int | Sequence[int]) -> None:
        super().__init__()
        self.kernel_size = int_pair(self._layer, "kernel_size", kernel_size)
        self.stride = int_pair(self._layer, "stride", stride)
        self.pad_mode = check_pad_mode(self._layer, pad_mode, padding)
        self.padding = padding4(self._layer, padding)

    def _attrs(self) -> dict:
        return {"kernel_size": self.kernel_size, "strides": self.stride, "pad_mode": self.pad_mode,
                "pad": self.padding}

    def construct(self, x: Tensor) -> Tensor:
        check_input(self._layer, x, rank=4)
        return self.pool(x)


class MaxPool2d(_Pool2d):
    """``MaxPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False, data_format='NCHW')``: maximum over ``kernel_size`` windows moved by ``stride`` of an
    (N, C, H, W) or (C, H, W) input. As in MindSpore, ``padding`` (an int, (h, w) or (top, bottom, left,
    right)), ``dilation``, ``return_indices`` and ``ceil_mode`` need ``pad_mode='pad'``; ``return_indices``
    also returns the int64 flat index of each maximum within its (H, W) plane."""

    _layer = "MaxPool2d"

    def __init__(self, kernel_size: int | Sequence[int] = 1, stride: int | Sequence[int] = 1,
                 pad_mode: str = "valid", padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1,
                 return_indices: bool = False, ceil_mode: bool = False, data_format: str = "NCHW") -> None:
        if isinstance(padding, (tuple, list)) and len(padding) == 2:
            padding = (padding[0], padding[0], padding[1], padding[1])
        super().__init__(kernel_size, stride, pad_mode, padding)
        self.dilation = int_pair(self._layer, "dilation", dilation)
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)
        if data_format != "NCHW":
            raise ValueError(f"MaxPool2d: data_format must be 'NCHW', got {data_format!r}")
        if self.pad_mode != "pad" and (self.dilation != (1, 1) or self.return_indices or self.ceil_mode):
            raise ValueError("MaxPool2d: padding, dilation, return_indices and ceil_mode need pad_mode='pad', "
                             f"got pad_mode={pad_mode!r}")
        self._argmax = self.pad_mode == "pad" and (self.dilation != (1, 1) or self.return_indices)
        self.pool = ops.MaxPool(**self._attrs(), ceil_mode=self.ceil_mode)

    def construct(self, x: Tensor):
        if not self._argmax:
            if x.ndim == 3:
                return ops.squeeze(self.pool(ops.expand_dims(x, 0)), 0)
            return super().construct(x)
        check_input(self._layer, x, min_rank=3)
        p = self.padding
        pads = [(p[0], p[1]), (p[2], p[3])]
        if not self.return_indices:  # dilated: the separable values
            return max_pool_values(self._layer, x, 2, self.kernel_size, self.stride, self.dilation, pads,
                                   self.ceil_mode)
        return max_pool_nd(self._layer, x, 2, self.kernel_size, self.stride, self.dilation, pads, self.ceil_mode)


class AvgPool2d(_Pool2d):
    """``AvgPool2d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None, data_format='NCHW')``: mean over ``kernel_size`` windows
    moved by ``stride`` of an (N, C, H, W) or (C, H, W) input. With ``pad_mode='pad'``, ``count_include_pad``
    chooses whether padded cells count in the divisor and ``divisor_override`` replaces the divisor."""

    _layer = "AvgPool2d"

    def __init__(self, kernel_size: int | Sequence[int] = 1, stride: int | Sequence[int] = 1,
                 pad_mode: str = "valid", padding: int | Sequence[int] = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None,
                 data_format: str = "NCHW") -> None:
        if isinstance(padding, (tuple, list)) and len(padding) == 2:
            padding = (padding[0], padding[0], padding[1], padding[1])
        super().__init__(kernel_size, stride, pad_mode, padding)
        if data_format != "NCHW":
            raise ValueError(f"AvgPool2d: data_format must be 'NCHW', got {data_format!r}")
        if divisor_override is not None and (isinstance(divisor_override, bool) or
                                             not isinstance(divisor_override, int) or divisor_override <= 0):
            raise ValueError(f"AvgPool2d: divisor_override must be None or a positive int, got {divisor_override!r}")
        if self.pad_mode != "pad" and (ceil_mode or divisor_override is not None):
            raise ValueError("AvgPool2d: ceil_mode and divisor_override need pad_mode='pad', got "
                             f"pad_mode={pad_mode!r}")
        self.ceil_mode, self.divisor_override = bool(ceil_mode), divisor_override
        self.count_include_pad = bool(count_include_pad)
        self.pool = ops.AvgPool(**self._attrs(), count_include_pad=self.count_include_pad,
                                ceil_mode=self.ceil_mode)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim == 3:
            return ops.squeeze(self.construct(ops.expand_dims(x, 0)), 0)
        if self.divisor_override is None:
            return super().construct(x)
        check_input(self._layer, x, rank=4)
        return avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                          self.divisor_override)
