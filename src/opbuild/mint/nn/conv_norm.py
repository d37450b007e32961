"""The parametrised layers of ``mindspore.mint.nn`` with torch's constructors: ``Conv1d``, ``Conv2d``,
``Conv3d``, ``ConvTranspose2d`` (``weight`` (out, in / groups, *k), for the transposed one (in, out / groups,
*k), and ``bias`` (out,), both drawn uniformly within 1 / sqrt(fan_in) as MindSpore's mint layers and torch's),
``BatchNorm1d/2d/3d`` and ``SyncBatchNorm`` (``weight`` ones, ``bias`` zeros, ``running_mean`` zeros,
``running_var`` ones, ``num_batches_tracked``), ``GroupNorm`` (``weight``, ``bias``) and ``PReLU`` (``weight``
of ``num_parameters`` values ``init``). Parameter names and shapes are MindSpore's, so checkpoints load by
name."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ... import nn as _nn
from ... import ops as _ops
from ...common.initializer import HeUniform, Uniform, init_array
from ...core.dtypes import dtype_of
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from . import functional_layers as FL

_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


def _positive(cls: str, arg: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
        raise ValueError(f"mint.nn.{cls}: {arg} must be a positive int, got {v!r}")
    return int(v)


def _np_dtype(cls: str, dtype: Any) -> np.dtype:
    dt = dtype_of(dtype or "float32")
    if not dt.is_float:
        raise TypeError(f"mint.nn.{cls}: dtype must be a float dtype, got {dt.name}")
    return np.dtype(dt.np_dtype)


class _ConvNd(_nn.Cell):
    """The shared constructor of the torch-style convolutions (``_nd`` spatial axes)."""

    _nd = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 dtype: Any = None) -> None:
        super().__init__()
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    dtype, 0)

    def _setup(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any, padding: Any,
               dilation: Any, groups: int, bias: bool, padding_mode: str, dtype: Any, output_padding: Any) -> None:
        """Checks the arguments and creates ``weight`` and ``bias`` (the transposed layer adds
        ``output_padding``, which the others' signature does not take)."""
        cls, n = type(self).__name__, self._nd
        self.in_channels = _positive(cls, "in_channels", in_channels)
        self.out_channels = _positive(cls, "out_channels", out_channels)
        self.groups = _positive(cls, "groups", groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"mint.nn.{cls}: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                             f"be divisible by groups ({groups})")
        self.kernel_size = FL._ints(cls, "kernel_size", kernel_size, n, 1)
        self.stride = FL._ints(cls, "stride", stride, n, 1)
        self.dilation = FL._ints(cls, "dilation", dilation, n, 1)
        if isinstance(padding, str):
            if padding not in ("valid", "same") or self._transposed:
                raise ValueError(f"mint.nn.{cls}: padding must be an int or {n} ints"
                                 f"{'' if self._transposed else ', valid or same'}, got {padding!r}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError(f"mint.nn.{cls}: padding='same' needs stride 1, got {self.stride}")
            self.padding = padding
        else:
            self.padding = FL._ints(cls, "padding", padding, n)
        if padding_mode not in _PAD_MODES or (self._transposed and padding_mode != "zeros"):
            raise ValueError(f"mint.nn.{cls}: padding_mode must be "
                             f"{'zeros' if self._transposed else ', '.join(_PAD_MODES)}, got {padding_mode!r}")
        self.padding_mode = padding_mode
        self.output_padding = FL._ints(cls, "output_padding", output_padding, n)
        self.transposed = self._transposed
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        fan_in = shape[1] * math.prod(self.kernel_size)
        dt = _np_dtype(cls, dtype)
        self.weight = Parameter(init_array(HeUniform(math.sqrt(5)), shape).astype(dt), name="weight")
        self.bias = (Parameter(init_array(Uniform(1 / math.sqrt(fan_in)), (out_channels,)).astype(dt), name="bias")
                     if bias else None)

    def _explicit_pads(self) -> tuple[int, ...] | None:
        """torch's ``pad`` argument (last axis first) when ``padding_mode`` pads before a valid convolution."""
        if self.padding_mode == "zeros":
            return None
        if self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size, strict=True)]
            pairs = [(t // 2, t - t // 2) for t in totals]
        elif self.padding == "valid":
            return None
        else:
            pairs = [(p, p) for p in self.padding]
        return tuple(v for pair in reversed(pairs) for v in pair)

    def _conv(self, x: Tensor, fn: Any) -> Tensor:
        pads = self._explicit_pads()
        if pads is None:
            return fn(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        return fn(FL.pad(x, pads, self.padding_mode), self.weight, self.bias, self.stride, 0, self.dilation,
                  self.groups)

    def extra_repr(self) -> str:
        padding = self.padding if isinstance(self.padding, str) else self.padding
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, padding={padding}, "
                f"dilation={self.dilation}, groups={self.groups}, bias={self.bias is not None}")


class Conv1d(_ConvNd):
    """``Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)``: 1-D convolution of (N, C, L)."""

    _nd = 1

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv(input, FL.conv1d)


class Conv2d(_ConvNd):
    """``Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)``: 2-D convolution of (N, C, H, W)."""

    _nd = 2

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv(input, FL.conv2d)


class Conv3d(_ConvNd):
    """``Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
    padding_mode='zeros', dtype=None)``: 3-D convolution of (N, C, D, H, W)."""

    _nd = 3

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._conv(input, FL.conv3d)


class ConvTranspose2d(_ConvNd):
    """``ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
    groups=1, bias=True, dilation=1, padding_mode='zeros', dtype=None)``: the transposed 2-D convolution;
    ``construct(input, output_size=None)`` (``output_size`` picks the output_padding that reaches it)."""

    _nd = 2
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", dtype: Any = None) -> None:
        _nn.Cell.__init__(self)
        self._setup(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                    dtype, output_padding)

    def construct(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        op = self.output_padding
        if output_size is not None:
            size = tuple(output_size)[-2:]
            base = [(input.shape[2 + i] - 1) * self.stride[i] - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(2)]
            op = tuple(s - b for s, b in zip(size, base, strict=True))
        return FL.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                   self.dilation)


class _BatchNorm(_nn.Cell):
    """torch's batch normalisation over axis 1, the input rank checked by each subclass (``_ranks``)."""

    _ranks: tuple[int, ...] = (2, 3, 4, 5)

    def __init__(self, num_features: int, eps: float = 1e-05, momentum: Any = 0.1, affine: bool = True,
                 track_running_stats: bool = True, dtype: Any = None) -> None:
        super().__init__()
        cls = type(self).__name__
        self.num_features = _positive(cls, "num_features", num_features)
        self.eps, self.momentum = float(eps), momentum
        if momentum is not None and not 0.0 <= float(momentum) <= 1.0:
            raise ValueError(f"mint.nn.{cls}: momentum must be in [0, 1] or None, got {momentum!r}")
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        dt = _np_dtype(cls, dtype)
        c = self.num_features
        self.weight = Parameter(np.ones(c, dt), name="weight") if affine else None
        self.bias = Parameter(np.zeros(c, dt), name="bias") if affine else None
        if self.track_running_stats:
            self.running_mean = Parameter(np.zeros(c, dt), name="running_mean", requires_grad=False)
            self.running_var = Parameter(np.ones(c, dt), name="running_var", requires_grad=False)
            self.num_batches_tracked = Parameter(np.array(0, np.int64), name="num_batches_tracked",
                                                 requires_grad=False)
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        cls = type(self).__name__
        if input.ndim not in self._ranks or input.shape[1] != self.num_features:
            raise ValueError(f"mint.nn.{cls}: expected a {' or '.join(f'{r}-D' for r in self._ranks)} input with "
                             f"{self.num_features} channels on axis 1, got shape {input.shape}")
        if not self.track_running_stats:
            return self._batch_only(input)
        if not self.training:
            return FL.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, False, 0.0,
                                 self.eps)
        count = _ops.assign_add(self.num_batches_tracked, Tensor(np.array(1, np.int64)))
        if self.momentum is None:
            return self._cumulative(input, count)
        return FL.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, True,
                             float(self.momentum), self.eps)

    def _cumulative(self, x: Tensor, count: Tensor) -> Tensor:
        """Training with ``momentum=None``: the running statistics become the average over every batch seen
        (1 / num_batches_tracked, a tensor, so one GRAPH_MODE graph serves every step)."""
        axes = (0, *range(2, x.ndim))
        n = math.prod(x.shape[i] for i in axes)
        mean = _ops.mean(x, axes)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        var = _ops.div(_ops.sum(_ops.square(_ops.sub(x, _ops.reshape(mean, shape))), axes), float(max(n - 1, 1)))
        weight = _ops.reciprocal(_ops.cast(count, x.dtype))
        for running, batch in ((self.running_mean, mean), (self.running_var, var)):
            _ops.assign(running, _ops.add(running, _ops.mul(_ops.sub(batch, running), weight)))
        return self._batch_only(x)

    def _batch_only(self, x: Tensor) -> Tensor:
        """Normalised with the batch's (biased) statistics, no running ones to update."""
        axes = (0, *range(2, x.ndim))
        mean = _ops.mean(x, axes, True)
        centred = _ops.sub(x, mean)
        y = _ops.div(centred, _ops.sqrt(_ops.add(_ops.mean(_ops.mul(centred, centred), axes, True), self.eps)))
        if self.weight is None:
            return y
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return _ops.add(_ops.mul(y, _ops.reshape(self.weight, shape)), _ops.reshape(self.bias, shape))

    def extra_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """``BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
    dtype=None)``: batch normalisation of (N, C) or (N, C, L)."""

    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """``BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
    dtype=None)``: batch normalisation of (N, C, H, W)."""

    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """``BatchNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
    dtype=None)``: batch normalisation of (N, C, D, H, W)."""

    _ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """``SyncBatchNorm(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
    process_group=None, dtype=None)``: batch normalisation whose statistics span the process group; opbuild
    runs one process, so the group is this batch and the values are BatchNorm's."""

    def __init__(self, num_features: int, eps: float = 1e-05, momentum: Any = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group: Any = None, dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        self.process_group = process_group


class GroupNorm(_nn.Cell):
    """``GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, dtype=None)``: axis 1 split into
    ``num_groups`` groups, each normalised over its channels and the spatial axes; ``weight`` (ones) and ``bias``
    (zeros) per channel, MindSpore's mint names (``nn.GroupNorm``'s are ``gamma``/``beta``), trainable only
    with ``affine``."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-05, affine: bool = True,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_groups = _positive("GroupNorm", "num_groups", num_groups)
        self.num_channels = _positive("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"mint.nn.GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.eps, self.affine = float(eps), bool(affine)
        dt = _np_dtype("GroupNorm", dtype)
        # MindSpore's mint GroupNorm keeps weight and bias without affine too, frozen (requires_grad False).
        self.weight = Parameter(np.ones(num_channels, dt), name="weight", requires_grad=self.affine)
        self.bias = Parameter(np.zeros(num_channels, dt), name="bias", requires_grad=self.affine)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return _ops.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}, eps={self.eps}, affine={self.affine}"


class PReLU(_nn.Cell):
    """``PReLU(num_parameters=1, init=0.25, dtype=None)``: x where positive, ``weight`` times x elsewhere (one
    slope, or one per channel of axis 1)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters = _positive("PReLU", "num_parameters", num_parameters)
        self.weight = Parameter(np.full(self.num_parameters, float(init), _np_dtype("PReLU", dtype)), name="weight")

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        if self.num_parameters == 1:
            return _ops.where(_ops.gt(input, 0), input, _ops.mul(input, self.weight))
        return _ops.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "GroupNorm",
           "PReLU", "SyncBatchNorm"]
