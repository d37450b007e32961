"""Fractional max-pooling layers: ``FractionalMaxPool2d`` and ``FractionalMaxPool3d`` (over
``ops.fractional_max_pool2d/3d``; see ops/api/pool_fractional.py for the windows and the samples)."""

from __future__ import annotations

from ...core.tensor import Tensor
from ...ops.api.pool_fractional import fractional_max_pool
from ..cell import Cell


class _FractionalMaxPool(Cell):
    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None) -> None:
        super().__init__()
        name = type(self).__name__
        if (output_size is None) == (output_ratio is None):
            raise ValueError(f"{name}: give exactly one of output_size and output_ratio")
        self.kernel_size, self.output_size, self.output_ratio = kernel_size, output_size, output_ratio
        self.return_indices = bool(return_indices)
        self._random_samples = _random_samples

    def construct(self, input: Tensor):
        return fractional_max_pool(type(self).__name__, input, self._dims, self.kernel_size, self.output_size,
                                   self.output_ratio, self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """``FractionalMaxPool2d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)``: ``ops.fractional_max_pool2d`` over (N, C, H, W) or (C, H, W)."""


class FractionalMaxPool3d(_FractionalMaxPool):
    """``FractionalMaxPool3d(kernel_size, output_size=None, output_ratio=None, return_indices=False,
    _random_samples=None)``: ``ops.fractional_max_pool3d`` over (N, C, D, H, W) or (C, D, H, W)."""

    _dims = 3


__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]
