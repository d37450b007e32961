"""``nn.Conv1dTranspose``: the transposed 1-D convolution of (N, C_in, L), MindSpore's 4-D weight
(in, out / group, 1, k), computed by ops/api/conv_transpose.py's composition."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...common.initializer import HeUniform, Uniform, init_array
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api.conv_transpose import transposed
from ..cell import Cell
from ._checks import check_input, check_pad_mode, positive_int


class Conv1dTranspose(Cell):
    """``Conv1dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None, dtype=float32)``: output length
    ``(L - 1) stride - 2 padding + dilation (k - 1) + 1`` ('pad'), ``L stride`` ('same'); ``padding`` an int
    (both sides) or (left, right)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 pad_mode: str = "same", padding: int | Sequence[int] = 0, dilation: int = 1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None, dtype=None) -> None:
        super().__init__()
        layer = "Conv1dTranspose"
        self.in_channels = positive_int(layer, "in_channels", in_channels)
        self.out_channels = positive_int(layer, "out_channels", out_channels)
        self.group = positive_int(layer, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"{layer}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        self.kernel_size = positive_int(layer, "kernel_size", kernel_size)
        self.stride = positive_int(layer, "stride", stride)
        self.dilation = positive_int(layer, "dilation", dilation)
        self.pad_mode = check_pad_mode(layer, pad_mode, padding)
        pads = (padding, padding) if isinstance(padding, int) else tuple(padding)
        if len(pads) != 2 or any(not isinstance(v, int) or v < 0 for v in pads):
            raise ValueError(f"{layer}: padding must be a non-negative int or (left, right), got {padding!r}")
        self.padding = pads
        self.has_bias = bool(has_bias)
        fan_in = out_channels // group * kernel_size
        self.weight = Parameter(init_array(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (in_channels, out_channels // group, 1, kernel_size)), name="weight")
        self.bias = Parameter(init_array(Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init,
                                         (out_channels,)), name="bias") if self.has_bias else None

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv1dTranspose", x, rank=3, dim=(1, self.in_channels))
        w = A.squeeze(self.weight, 2)
        y = transposed("Conv1dTranspose", x, w, 1, self.pad_mode, self.padding, (self.stride,), (self.dilation,),
                       self.group, (0,))
        if self.bias is not None:
            y = y + A.reshape(self.bias, (1, self.out_channels, 1))
        return y


__all__ = ["Conv1dTranspose"]
