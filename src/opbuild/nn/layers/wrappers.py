"""Thin layers of ``mindspore.nn`` around one ``ops`` function: LPPool1d/2d, ChannelShuffle, FastGelu,
ReduceLogSumExp, ClipByNorm, Tril, Triu, Roll, OneHot, Range, Norm, Moments, MatMul, MaxUnpool1d/2d/3d, BiDense
and Dropout2dExt, with MindSpore 2.10's constructor arguments."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...common.initializer import HeUniform, Uniform, init_array
from ...core.dtypes import dtype_of
from ...core.parameter import Parameter
from ...core.tensor import Tensor, as_tensor
from ...ops.api import array as A
from ...ops.api import math as M
from ...ops.api import math_misc, math_more, nn_more, tensor_math
from ...ops.api.nn_misc import channel_dropout
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




class _MaxUnpool(Cell):
    _dims = 1

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x: Tensor, indices: Tensor, output_size=None) -> Tensor:
        fn = (nn_more.max_unpool1d, nn_more.max_unpool2d, nn_more.max_unpool3d)[self._dims - 1]
        return fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpool):
    """``MaxUnpool1d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)``: see
    ``ops.max_unpool1d``."""


class MaxUnpool2d(_MaxUnpool):
    """``MaxUnpool2d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)``: see
    ``ops.max_unpool2d``."""

    _dims = 2


class MaxUnpool3d(_MaxUnpool):
    """``MaxUnpool3d(kernel_size, stride=None, padding=0)(x, indices, output_size=None)``: see
    ``ops.max_unpool3d``."""

    _dims = 3


class BiDense(Cell):
    """``BiDense(in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
    dtype=float32)(input1, input2)``: ``y_o = x1^T W_o x2 + b_o`` with ``weight`` (out, in1, in2) and ``bias``
    (out,), both drawn from U(-1/sqrt(in1), 1/sqrt(in1)) by default; leading axes are batch axes."""

    def __init__(self, in1_channels: int, in2_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, dtype=None) -> None:
        super().__init__()
        for name, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"BiDense: {name} must be a positive int, got {v!r}")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        bound = 1 / math.sqrt(in1_channels)
        self.has_bias = bool(has_bias)
        self.weight = Parameter(init_array(Uniform(bound) if weight_init is None else weight_init,
                                           (out_channels, in1_channels, in2_channels)), name="weight")
        self.bias = Parameter(init_array(Uniform(bound) if bias_init is None else bias_init, (out_channels,)),
                              name="bias") if self.has_bias else None

    def construct(self, input1: Tensor, input2: Tensor) -> Tensor:
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels \
                or tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
            raise ValueError(f"BiDense: inputs (..., {self.in1_channels}) and (..., {self.in2_channels}) with the "
                             f"same leading axes are needed, got {input1.shape} and {input2.shape}")
        lead = input1.shape[:-1]
        x1 = A.reshape(input1, (-1, self.in1_channels))
        x2 = A.reshape(input2, (-1, 1, self.in2_channels))
        w = A.reshape(A.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))       # (in1, out * in2)
        y = A.reshape(A.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        y = M.sum(M.mul(y, x2), 2)
        if self.bias is not None:
            y = M.add(y, self.bias)
        return A.reshape(y, (*lead, self.out_channels))


class Dropout2dExt(Cell):
    """``Dropout2dExt(p=0.5, inplace=False)``: :class:`Dropout2d` (whole channels of (N, C, H, W) zeroed in
    training); ``inplace`` is accepted, the result is a new Tensor."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout2dExt: p must be a float in [0, 1], got {p!r}")
        self.p, self.inplace = float(p), bool(inplace)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's name
        return channel_dropout("Dropout2dExt", input, self.p, self.training, 2)


__all__ = ["LPPool1d", "LPPool2d", "ChannelShuffle", "FastGelu", "ReduceLogSumExp", "ClipByNorm", "Tril", "Triu",
           "Roll", "OneHot", "Range", "Norm", "Moments", "MatMul", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "BiDense", "Dropout2dExt"]


class Linear(Cell):
    """``Linear(in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None)``:
    ``x W^T + b`` with ``weight`` (out, in) and ``bias`` (out,) (None without ``bias``); None initialisers are
    MindSpore's HeUniform(sqrt(5)) and U(-1/sqrt(in), 1/sqrt(in))."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, weight_init=None, bias_init=None,
                 dtype=None) -> None:
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"Linear: {name} must be a positive int, got {v!r}")
        if not isinstance(bias, bool):
            raise TypeError(f"Linear: bias must be a bool, got {bias!r}")
        self.in_features, self.out_features, self.has_bias = in_features, out_features, bias
        self.weight = Parameter(init_array(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (out_features, in_features)), name="weight")
        self.bias = Parameter(init_array(Uniform(1 / math.sqrt(in_features)) if bias_init is None else bias_init,
                                         (out_features,)), name="bias") if bias else None

    def construct(self, x: Tensor) -> Tensor:
        if x.shape[-1] != self.in_features:
            raise ValueError(f"Linear: the input's last axis must be {self.in_features}, got shape {x.shape}")
        y = A.matmul(x, A.transpose(self.weight, (1, 0)))
        return M.add(y, self.bias) if self.bias is not None else y


__all__ += ["Linear"]
