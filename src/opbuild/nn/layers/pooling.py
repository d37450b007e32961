"""2-D pooling layers (NCHW): MaxPool2d and AvgPool2d."""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...core.tensor import Tensor
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
    """Maximum over ``kernel_size`` windows moved by ``stride``; ``pad_mode`` 'valid', 'same' or 'pad'
    (explicit ``padding``, int or (top, bottom, left, right); padded cells never win the max)."""

    _layer = "MaxPool2d"

    def __init__(self, kernel_size: int | Sequence[int] = 1, stride: int | Sequence[int] = 1,
                 pad_mode: str = "valid", padding: int | Sequence[int] = 0) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding)
        self.pool = ops.MaxPool(**self._attrs())


class AvgPool2d(_Pool2d):
    """Mean over ``kernel_size`` windows moved by ``stride``. With ``pad_mode='pad'``,
    ``count_include_pad`` chooses whether padded cells count in the divisor."""

    _layer = "AvgPool2d"

    def __init__(self, kernel_size: int | Sequence[int] = 1, stride: int | Sequence[int] = 1,
                 pad_mode: str = "valid", padding: int | Sequence[int] = 0, count_include_pad: bool = True) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding)
        self.count_include_pad = bool(count_include_pad)
        self.pool = ops.AvgPool(**self._attrs(), count_include_pad=self.count_include_pad)
