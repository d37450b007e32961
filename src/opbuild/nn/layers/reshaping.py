"""Layers that rearrange, drop channels or pool adaptively: PixelUnshuffle, Unflatten, Dropout1d/2d/3d,
AdaptiveAvgPool1d/3d and AdaptiveMaxPool1d/3d, each calling its ``ops`` function (ops/api/nn_misc.py,
ops/api/pooling_adaptive.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api import nn_misc
from ...ops.api.pooling_adaptive import adaptive_pool
from ..cell import Cell
from ._checks import positive_int


class PixelUnshuffle(Cell):
    """``PixelUnshuffle(downscale_factor)``: (..., C, H r, W r) to (..., C r^2, H, W), the inverse of
    PixelShuffle."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = positive_int("PixelUnshuffle", "downscale_factor", downscale_factor)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's name
        return nn_misc.pixel_unshuffle(input, self.downscale_factor)


class Unflatten(Cell):
    """``Unflatten(axis, unflattened_size)``: axis ``axis`` reshaped into ``unflattened_size`` (one entry
    may be -1)."""

    def __init__(self, axis: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"Unflatten: axis must be an int, got {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in unflattened_size):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple or list of ints, got "
                            f"{unflattened_size!r}")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input_x: Tensor) -> Tensor:
        ax = self.axis + input_x.ndim if self.axis < 0 else self.axis
        if not 0 <= ax < input_x.ndim:
            raise ValueError(f"Unflatten: axis {self.axis} is out of range for shape {input_x.shape}")
        shape = (*input_x.shape[:ax], *self.unflattened_size, *input_x.shape[ax + 1:])
        return A.reshape(input_x, shape)


class _ChannelDropout(Cell):
    _spatial = 1

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be a float in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, x: Tensor) -> Tensor:
        return nn_misc.channel_dropout(type(self).__name__, x, self.p, self.training, self._spatial)


class Dropout1d(_ChannelDropout):
    """``Dropout1d(p=0.5)``: in training, zeroes whole channels of (N, C, L) or (C, L) with probability
    ``p`` and scales the others by ``1 / (1 - p)``; the identity in inference."""


class Dropout2d(_ChannelDropout):
    """``Dropout2d(p=0.5)``: :class:`Dropout1d` for (N, C, H, W) inputs."""

    _spatial = 2


class Dropout3d(_ChannelDropout):
    """``Dropout3d(p=0.5)``: :class:`Dropout1d` for (N, C, D, H, W) inputs."""

    _spatial = 3


class _AdaptivePool(Cell):
    _dims = 1
    _max = False

    def __init__(self, output_size) -> None:
        super().__init__()
        name = type(self).__name__
        if self._dims == 1 and (isinstance(output_size, bool) or not isinstance(output_size, int)):
            raise TypeError(f"{name}: output_size must be an int, got {output_size!r}")
        self.output_size = output_size

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return adaptive_pool(type(self).__name__, input, self.output_size, self._dims, self._max)


class AdaptiveAvgPool1d(_AdaptivePool):
    """``AdaptiveAvgPool1d(output_size)``: (N, C, L) averaged over adaptive windows to (N, C, output_size)."""


class AdaptiveAvgPool3d(_AdaptivePool):
    """``AdaptiveAvgPool3d(output_size)``: the last three axes averaged to ``output_size`` (an int or a
    triple, None keeping an axis)."""

    _dims = 3


class AdaptiveMaxPool1d(_AdaptivePool):
    """``AdaptiveMaxPool1d(output_size)``: (N, C, L) max-pooled over adaptive windows to (N, C, output_size)."""

    _max = True

    def construct(self, x: Tensor) -> Tensor:
        return adaptive_pool("AdaptiveMaxPool1d", x, self.output_size, 1, True)


class AdaptiveMaxPool3d(_AdaptivePool):
    """``AdaptiveMaxPool3d(output_size, return_indices=False)``: the last three axes max-pooled to
    ``output_size`` (``return_indices=True`` is not supported)."""

    _dims = 3
    _max = True

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        if return_indices:
            raise NotImplementedError("AdaptiveMaxPool3d: return_indices=True is not supported")
        self.return_indices = False


__all__ = ["PixelUnshuffle", "Unflatten", "Dropout1d", "Dropout2d", "Dropout3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool3d"]
