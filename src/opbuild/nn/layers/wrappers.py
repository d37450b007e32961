"""Thin layers of ``mindspore.nn`` around one ``ops`` function: LPPool1d/2d, ChannelShuffle, FastGelu,
ReduceLogSumExp, ClipByNorm, Tril, Triu, Roll, OneHot, Range, Norm, Moments and MatMul, with MindSpore 2.10's
constructor arguments."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.dtypes import dtype_of
from ...core.tensor import Tensor, as_tensor
from ...ops.api import array as A
from ...ops.api import math as M
from ...ops.api import math_misc, math_more, nn_more, tensor_math
from ..cell import Cell


class LPPool1d(Cell):
    """``LPPool1d(norm_type, kernel_size, stride=None, ceil_mode=False)``: see ``ops.lp_pool1d``."""

    def __init__(self, norm_type: float, kernel_size: int, stride: int | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x: Tensor) -> Tensor:
        return nn_more.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """``LPPool2d(norm_type, kernel_size, stride=None, ceil_mode=False)``: see ``ops.lp_pool2d``."""

    def construct(self, x: Tensor) -> Tensor:
        return nn_more.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class ChannelShuffle(Cell):
    """``ChannelShuffle(groups)``: see ``ops.channel_shuffle``."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
            raise ValueError(f"ChannelShuffle: groups must be a positive int, got {groups!r}")
        self.groups = groups

    def construct(self, x: Tensor) -> Tensor:
        return nn_more.channel_shuffle(x, self.groups)


class FastGelu(Cell):
    """``FastGelu()``: see ``ops.fast_gelu``."""

    def construct(self, x: Tensor) -> Tensor:
        return nn_more.fast_gelu(x)


class ReduceLogSumExp(Cell):
    """``ReduceLogSumExp(axis, keep_dims=False)``: ``log(sum(exp(x)))`` over ``axis``."""

    def __init__(self, axis: int | Sequence[int], keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        return math_more.logsumexp(x, self.axis, self.keep_dims)


class ClipByNorm(Cell):
    """``ClipByNorm(axis=None)(x, clip_norm)``: ``x * clip_norm / max(||x||_2, clip_norm)``, the L2 norm of
    every element. An ``axis`` is refused: MindSpore 2.10's CPU result for it is not the documented per-slice
    clipping."""

    def __init__(self, axis: int | Sequence[int] | None = None) -> None:
        super().__init__()
        if axis is not None:
            raise NotImplementedError("ClipByNorm: only axis=None (the norm of every element) is supported")
        self.axis = axis

    def construct(self, x: Tensor, clip_norm) -> Tensor:
        t = as_tensor(x)
        axis = tuple(range(t.ndim)) if self.axis is None else self.axis
        norm = M.sqrt(M.sum(M.mul(t, t), axis, keepdim=True))
        c = M._cast(as_tensor(clip_norm, t), t.dtype)
        return M.div(M.mul(t, c), M.maximum(norm, c))


class Tril(Cell):
    """``Tril()(x, k=0)``: the lower triangle of the last two axes (elements above diagonal ``k`` zeroed)."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return tensor_math.tril(x, k)


class Triu(Cell):
    """``Triu()(x, k=0)``: the upper triangle of the last two axes (elements below diagonal ``k`` zeroed)."""

    def construct(self, x: Tensor, k: int = 0) -> Tensor:
        return tensor_math.triu(x, k)


class Roll(Cell):
    """``Roll(shift, axis)``: elements rolled by ``shift`` along ``axis`` (ints or matching sequences)."""

    def __init__(self, shift: int | Sequence[int], axis: int | Sequence[int]) -> None:
        super().__init__()
        self.shift, self.axis = shift, axis

    def construct(self, input_x: Tensor) -> Tensor:
        return tensor_math.roll(input_x, self.shift, self.axis)


class OneHot(Cell):
    """``OneHot(axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32)(indices)``: a new axis of size
    ``depth`` at ``axis``, ``on_value`` at each index."""

    def __init__(self, axis: int = -1, depth: int = 1, on_value: float = 1.0, off_value: float = 0.0,
                 dtype="float32") -> None:
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype_of(dtype)
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices: Tensor) -> Tensor:
        dt = self.dtype.np_dtype
        return A.one_hot(indices, self.depth, Tensor(np.array(self.on_value, dt)), Tensor(np.array(self.off_value, dt)),
                         self.axis)


class Range(Cell):
    """``Range(start, limit=None, delta=1)()``: ``start, start + delta, ...`` below ``limit`` (no ``limit``:
    ``0 .. start``); float32 when any argument is a float, else int32 (MindSpore's)."""

    def __init__(self, start: float, limit: float | None = None, delta: float = 1) -> None:
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be 0")
        self.start, self.limit, self.delta = (0, start, delta) if limit is None else (start, limit, delta)

    def construct(self) -> Tensor:
        floats = any(isinstance(v, float) for v in (self.start, self.limit, self.delta))
        return math_misc.arange(self.start, self.limit, self.delta, dtype="float32" if floats else "int32")


class Norm(Cell):
    """``Norm(axis=(), keep_dims=False)``: the L2 norm ``sqrt(sum(x^2))`` over ``axis`` (``()``: every axis)."""

    def __init__(self, axis: int | Sequence[int] = (), keep_dims: bool = False) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Tensor) -> Tensor:
        axis = None if self.axis == () else self.axis
        return M.sqrt(M.sum(M.mul(x, x), axis, self.keep_dims))


class Moments(Cell):
    """``Moments(axis=None, keep_dims=None)(x)``: ``(mean, variance)`` over ``axis`` (None: every axis),
    the biased variance."""

    def __init__(self, axis: int | Sequence[int] | None = None, keep_dims: bool | None = None) -> None:
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x: Tensor) -> tuple[Tensor, Tensor]:
        mean = M.mean(x, self.axis, True)
        var = M.mean(M.square(M.sub(x, mean)), self.axis, self.keep_dims)
        return (mean if self.keep_dims else M.mean(x, self.axis, False)), var


class MatMul(Cell):
    """``MatMul(transpose_x1=False, transpose_x2=False)(x1, x2)``: the (batch-broadcast) matrix product, either
    operand's last two axes transposed first."""

    def __init__(self, transpose_x1: bool = False, transpose_x2: bool = False) -> None:
        super().__init__()
        self.transpose_x1, self.transpose_x2 = bool(transpose_x1), bool(transpose_x2)

    def construct(self, x1: Tensor, x2: Tensor) -> Tensor:
        if self.transpose_x1:
            x1 = tensor_math.swapaxes(x1, -1, -2)
        if self.transpose_x2:
            x2 = tensor_math.swapaxes(x2, -1, -2)
        return A.matmul(x1, x2)


__all__ = ["LPPool1d", "LPPool2d", "ChannelShuffle", "FastGelu", "ReduceLogSumExp", "ClipByNorm", "Tril", "Triu",
           "Roll", "OneHot", "Range", "Norm", "Moments", "MatMul"]
