"""The padding layers of ``mindspore.nn``: ZeroPad2d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d and
ReplicationPad1d/2d/3d. ``padding`` is an int (every side) or PyTorch-ordered (left, right[, top, bottom[, front,
back]]) pairs of the last 1, 2 or 3 axes; the padding itself is ops/api/padding.py's."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.tensor import Tensor
from ...ops.api.padding import pad_last
from ..cell import Cell


def _padding(layer: str, padding: int | Sequence[int], dims: int) -> tuple[int, ...]:
    if isinstance(padding, bool):
        raise TypeError(f"{layer}: padding must be an int or a tuple of ints, got {padding!r}")
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    if not isinstance(padding, (tuple, list)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in padding):
        raise TypeError(f"{layer}: padding must be an int or a tuple of ints, got {padding!r}")
    if len(padding) % 2 or not 0 < len(padding) <= 2 * dims:
        raise ValueError(f"{layer}: padding must hold 2 to {2 * dims} ints (before, after pairs, last axis "
                         f"first), got {padding!r}")
    return tuple(padding)


class _PadNd(Cell):
    """Pads the last ``_dims`` axes in ``_mode``; the input needs rank ``_dims + 1`` or ``_dims + 2``."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int], value: float | None = None) -> None:
        super().__init__()
        name = type(self).__name__
        self.padding = _padding(name, padding, self._dims)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"{name}: value must be a number, got {value!r}")
        self.value = value

    # The constant pads take any rank with the padded axes (MindSpore's); the mirror pads a batch or not.
    _any_rank = True

    def construct(self, x: Tensor) -> Tensor:
        name = type(self).__name__
        if self._any_rank and x.ndim < self._dims:
            raise ValueError(f"{name}: the input needs at least {self._dims} axes, got shape {x.shape}")
        if not self._any_rank and x.ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"{name}: the input must have rank {self._dims + 1} or {self._dims + 2}, got shape "
                             f"{x.shape}")
        return pad_last(name, x, self.padding, self._mode, self.value)


class ConstantPad1d(_PadNd):
    """``ConstantPad1d(padding, value)``: pads the last axis with ``value``."""

    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    """``ConstantPad2d(padding, value)``: pads the last two axes with ``value``."""

    _dims = 2


class ConstantPad3d(ConstantPad1d):
    """``ConstantPad3d(padding, value)``: pads the last three axes with ``value``."""

    _dims = 3


class ZeroPad2d(_PadNd):
    """``ZeroPad2d(padding)``: pads the last two axes with zeros."""

    _dims = 2

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)


class _MirrorPad(_PadNd):
    _any_rank = False

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding)


class ReflectionPad1d(_MirrorPad):
    """``ReflectionPad1d(padding)``: mirrors the last axis without repeating its edge."""

    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """``ReflectionPad2d(padding)``: mirrors the last two axes without repeating their edges."""

    _dims = 2


class ReflectionPad3d(ReflectionPad1d):
    """``ReflectionPad3d(padding)``: mirrors the last three axes without repeating their edges."""

    _dims = 3


class ReplicationPad1d(_MirrorPad):
    """``ReplicationPad1d(padding)``: repeats the edge values of the last axis."""

    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """``ReplicationPad2d(padding)``: repeats the edge values of the last two axes."""

    _dims = 2


class ReplicationPad3d(ReplicationPad1d):
    """``ReplicationPad3d(padding)``: repeats the edge values of the last three axes."""

    _dims = 3


__all__ = ["ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
           "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]
