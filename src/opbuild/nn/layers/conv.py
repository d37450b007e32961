"""Convolution layers (NCHW): Conv2d, Conv1d and Conv2dTranspose."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ... import ops
from ...common.initializer import HeUniform, Uniform, init_array, initializer
from ...core.init_values import is_array_like
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.primitive import apply
from ..cell import Cell
from ._checks import check_input, check_pad_mode, int_pair, padding4, positive_int


class Conv2d(Cell):
    """2-D convolution over an (N, C_in, H, W) input.

    ``weight`` has shape (out_channels, in_channels // group, kh, kw); ``bias`` (out_channels,) exists when
    ``has_bias``. ``pad_mode`` is 'same' (output H = ceil(H / stride)), 'valid' (no padding) or 'pad'
    (explicit ``padding``: an int or (top, bottom, left, right)), as in MindSpore. ``weight_init``/
    ``bias_init``: an Initializer, its name, a number or a Tensor; None (the default) means MindSpore 2.x's
    HeUniform(negative_slope=sqrt(5)) and Uniform(1 / sqrt(in_channels / group * kh * kw)).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, pad_mode: str = "same", padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, group: int = 1, has_bias: bool = False,
                 weight_init=None, bias_init=None) -> None:
        super().__init__()
        self.in_channels = positive_int("Conv2d", "in_channels", in_channels)
        self.out_channels = positive_int("Conv2d", "out_channels", out_channels)
        self.group = positive_int("Conv2d", "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv2d: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        self.kernel_size = int_pair("Conv2d", "kernel_size", kernel_size)
        self.stride = int_pair("Conv2d", "stride", stride)
        self.dilation = int_pair("Conv2d", "dilation", dilation)
        self.pad_mode = check_pad_mode("Conv2d", pad_mode, padding)
        self.padding = padding4("Conv2d", padding)
        self.has_bias = bool(has_bias)
        # MindSpore 2.x's defaults (None): HeUniform(sqrt(5)) weights, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases.
        fan_in = in_channels // group * self.kernel_size[0] * self.kernel_size[1]
        self.padding_arg = padding  # as given, for the repr (nn/cell_repr.py)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        if bias_init is None:
            bias_init = Uniform(1 / math.sqrt(fan_in))
        self.weight_init, self.bias_init = weight_init, bias_init if has_bias else None
        self.weight = Parameter(
            initializer(weight_init, (out_channels, in_channels // group, *self.kernel_size)), name="weight")
        if self.has_bias:
            self.bias = Parameter(initializer(bias_init, (out_channels,)), name="bias")
        else:
            self.bias = None  # MindSpore's: model zoos test `cell.bias is not None` in their initialisers
        self.conv2d = ops.Conv2D(out_channel=out_channels, kernel_size=self.kernel_size, mode=1,
                                 pad_mode=self.pad_mode, pad=self.padding, stride=self.stride,
                                 dilation=self.dilation, group=group)
        self.bias_add = ops.BiasAdd()

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv2d", x, rank=4, dim=(1, self.in_channels))
        y = self.conv2d(x, self.weight)
        return self.bias_add(y, self.bias) if self.has_bias else y



class Conv1d(Cell):
    """1-D convolution over an (N, C_in, L) input, run as Conv2D on the (N, C_in, 1, L) view.

    ``Conv1d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, has_bias=False, weight_init=None, bias_init=None)``; ``weight`` has MindSpore 2.10's 4-D shape
    (out_channels, in_channels // group, 1, kernel_size) (its checkpoints hold that shape); a Tensor or array
    ``weight_init`` is given 3-D, (out_channels, in_channels // group, kernel_size), as MindSpore wants it.
    ``padding`` is an int (both sides) or (left, right).
    """

    # load_param_into_net (checkpoint/serialization.py) also takes this weight in opbuild's earlier 3-D layout;
    # a class attribute rather than an isinstance check there, so checkpoint does not import the layers.
    loads_3d_weight = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int | Sequence[int] = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None) -> None:
        super().__init__()
        self.in_channels = positive_int("Conv1d", "in_channels", in_channels)
        self.out_channels = positive_int("Conv1d", "out_channels", out_channels)
        self.kernel_size = positive_int("Conv1d", "kernel_size", kernel_size)
        self.stride = positive_int("Conv1d", "stride", stride)
        self.dilation = positive_int("Conv1d", "dilation", dilation)
        self.group = positive_int("Conv1d", "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv1d: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        self.pad_mode = check_pad_mode("Conv1d", pad_mode, padding)
        pads = int_pair("Conv1d", "padding", padding, minimum=0)
        self.padding = pads
        self.has_bias = bool(has_bias)
        fan_in = in_channels // group * kernel_size
        shape = (out_channels, in_channels // group, kernel_size)
        if is_array_like(weight_init):  # 3-D as MindSpore checks it, kept 4-D with the other weights
            if tuple(np.shape(weight_init)) != shape:
                raise ValueError(f"Conv1d: a Tensor weight_init must have shape {shape} (out_channels, "
                                 f"in_channels // group, kernel_size), got {tuple(np.shape(weight_init))}")
            weight_init = init_array(weight_init, shape)[:, :, None, :]
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (out_channels, in_channels // group, 1, kernel_size)), name="weight")
        if self.has_bias:
            self.bias = Parameter(initializer(Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init,
                                             (out_channels,)), name="bias")
        else:
            self.bias = None
        self.conv2d = ops.Conv2D(out_channel=out_channels, kernel_size=(1, kernel_size), mode=1,
                                 pad_mode=self.pad_mode, pad=(0, 0, *pads), stride=(1, self.stride),
                                 dilation=(1, self.dilation), group=group)
        self.bias_add = ops.BiasAdd()

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv1d", x, rank=3, dim=(1, self.in_channels))
        n, c, length = x.shape
        y = self.conv2d(ops.reshape(x, (n, c, 1, length)), self.weight)
        if self.has_bias:
            y = self.bias_add(y, self.bias)
        return ops.reshape(y, (n, self.out_channels, y.shape[3]))


def _transpose_pads(mode: str, size: int, k: int, s: int, d: int, pads: tuple[int, int],
                    output_padding: int) -> tuple[int, int, int]:
    """(output size, pad before, pad after) of one spatial axis of a transposed convolution: the forward
    convolution it transposes maps the output size back to ``size`` with these pads (MindSpore's rules:
    'same' multiplies the size by the stride, 'valid' pads nothing, 'pad' removes ``pads``)."""
    span = d * (k - 1) + 1
    if mode == "same":
        out = size * s
        total = max(0, (size - 1) * s + span - out)
        return out, total // 2, total - total // 2
    if mode == "valid":
        return (size - 1) * s + span + output_padding, 0, 0
    return (size - 1) * s - pads[0] - pads[1] + span + output_padding, pads[0], pads[1]


class Conv2dTranspose(Cell):
    """2-D transposed convolution (the gradient of Conv2d with respect to its input) over (N, C_in, H, W).

    ``Conv2dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None)`` as in
    MindSpore 2.x. ``weight`` has shape (in_channels, out_channels // group, kh, kw). Output size per axis:
    'same': H * stride; 'valid': (H - 1) * stride + dilation * (k - 1) + 1 + output_padding; 'pad':
    the 'valid' size minus top + bottom (``padding`` an int or (top, bottom, left, right)). Computed by the
    Conv2DBackpropInput kernel, exactly the backward of the Conv2D with that weight.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, pad_mode: str = "same", padding: int | Sequence[int] = 0,
                 output_padding: int | Sequence[int] = 0, dilation: int | Sequence[int] = 1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None) -> None:
        super().__init__()
        name = "Conv2dTranspose"
        self.in_channels = positive_int(name, "in_channels", in_channels)
        self.out_channels = positive_int(name, "out_channels", out_channels)
        self.group = positive_int(name, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        self.kernel_size = int_pair(name, "kernel_size", kernel_size)
        self.stride = int_pair(name, "stride", stride)
        self.dilation = int_pair(name, "dilation", dilation)
        self.pad_mode = check_pad_mode(name, pad_mode, padding)
        self.padding = padding4(name, padding)
        self.output_padding = int_pair(name, "output_padding", output_padding, minimum=0)
        if self.pad_mode == "same" and any(self.output_padding):
            raise ValueError(f"{name}: output_padding requires pad_mode 'valid' or 'pad' (the size of 'same' is "
                             "H * stride)")
        if any(p >= max(s, d) for p, s, d in zip(self.output_padding, self.stride, self.dilation, strict=True)):
            raise ValueError(f"{name}: output_padding {self.output_padding} must be smaller than the stride or "
                             f"the dilation of its axis")
        self.has_bias = bool(has_bias)
        # MindSpore computes the default fan-in from the weight's second axis, like torch: out_channels // group.
        fan_in = out_channels // group * self.kernel_size[0] * self.kernel_size[1]
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (in_channels, out_channels // group, *self.kernel_size)), name="weight")
        if self.has_bias:
            self.bias = Parameter(initializer(Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init,
                                             (out_channels,)), name="bias")
        else:
            self.bias = None
        self.bias_add = ops.BiasAdd()

    def _attrs(self, n: int, h: int, w: int) -> dict:
        t, b, left, right = self.padding
        axes = [_transpose_pads(self.pad_mode, size, k, s, d, p, op) for size, k, s, d, p, op in zip(
            (h, w), self.kernel_size, self.stride, self.dilation, ((t, b), (left, right)), self.output_padding,
            strict=True)]
        (oh, pt, pb), (ow, pl, pr) = axes
        if oh < 1 or ow < 1:
            raise ValueError(f"Conv2dTranspose: padding {self.padding} leaves no output for an input of "
                             f"{h}x{w}")
        return {"out_channel": self.in_channels, "kernel_size": list(self.kernel_size), "mode": 1,
                "pad_mode": "pad", "pad": [pt, pb, pl, pr], "stride": list(self.stride),
                "dilation": list(self.dilation), "group": self.group, "data_format": "NCHW",
                "input_size": [n, self.out_channels, oh, ow]}

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv2dTranspose", x, rank=4, dim=(1, self.in_channels))
        n, _, h, w = x.shape
        y = apply("Conv2DBackpropInput", self._attrs(n, h, w), [x, self.weight])
        return self.bias_add(y, self.bias) if self.has_bias else y
