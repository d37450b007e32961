"""3-D layers of ``mindspore.nn``: Conv3d, Conv3dTranspose, MaxPool3d and AvgPool3d over (N, C, D, H, W)
inputs, calling the ``ops`` compositions of ops/api/volumetric.py and ops/api/conv_transpose.py."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...common.initializer import HeUniform, Uniform, init_array
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api import conv_transpose as T
from ...ops.api import volumetric as V
from ..cell import Cell
from ._checks import check_input, positive_int

IntOr3 = int | Sequence[int]


def _pad_mode(layer: str, pad_mode: str, padding: IntOr3) -> str:
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("same", "valid", "pad"):
        raise ValueError(f"{layer}: pad_mode must be 'same', 'valid' or 'pad', got {pad_mode!r}")
    if mode != "pad" and any(V.pads6(layer, padding)):
        raise ValueError(f"{layer}: padding={padding!r} requires pad_mode='pad' (got pad_mode={pad_mode!r})")
    return mode


class Conv3d(Cell):
    """``Conv3d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, has_bias=False, weight_init=None, bias_init=None, data_format='NCDHW', dtype=float32)``: 3-D
    convolution; ``weight`` (out, in / group, kd, kh, kw), ``bias`` (out,) when ``has_bias`` (else None).
    None initialisers are MindSpore 2.x's HeUniform(sqrt(5)) and U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOr3, stride: IntOr3 = 1,
                 pad_mode: str = "same", padding: IntOr3 = 0, dilation: IntOr3 = 1, group: int = 1,
                 has_bias: bool = False, weight_init=None, bias_init=None, data_format: str = "NCDHW",
                 dtype=None) -> None:
        super().__init__()
        self.in_channels = positive_int("Conv3d", "in_channels", in_channels)
        self.out_channels = positive_int("Conv3d", "out_channels", out_channels)
        self.group = positive_int("Conv3d", "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv3d: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by group ({group})")
        if data_format != "NCDHW":
            raise ValueError(f"Conv3d: data_format must be 'NCDHW' (the only one on the CPU), got {data_format!r}")
        self.kernel_size = V.triple("Conv3d", "kernel_size", kernel_size)
        self.stride = V.triple("Conv3d", "stride", stride)
        self.dilation = V.triple("Conv3d", "dilation", dilation)
        self.pad_mode = _pad_mode("Conv3d", pad_mode, padding)
        self.padding = V.pads6("Conv3d", padding)
        self.has_bias = bool(has_bias)
        fan_in = in_channels // group * math.prod(self.kernel_size)
        self.weight = Parameter(init_array(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (out_channels, in_channels // group, *self.kernel_size)), name="weight")
        self.bias = Parameter(init_array(Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init,
                                         (out_channels,)), name="bias") if self.has_bias else None

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv3d", x, rank=5, dim=(1, self.in_channels))
        return V.conv3d(x, self.weight, self.bias, self.stride, self.pad_mode, self.padding, self.dilation,
                        self.group)


class MaxPool3d(Cell):
    """``MaxPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, dilation=1, return_indices=False,
    ceil_mode=False)``: 3-D max pooling of (N, C, D, H, W) or (C, D, H, W). As in MindSpore, ``dilation``
    other than 1 and ``return_indices`` need ``pad_mode='pad'``; ``return_indices`` also returns the int64 flat
    index of each maximum within its (D, H, W) volume."""

    def __init__(self, kernel_size: IntOr3 = 1, stride: IntOr3 = 1, pad_mode: str = "valid", padding: IntOr3 = 0,
                 dilation: IntOr3 = 1, return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        if (dilation != 1 or return_indices) and (not isinstance(pad_mode, str) or pad_mode.lower() != "pad"):
            raise ValueError("MaxPool3d: dilation other than 1 and return_indices=True need pad_mode='pad', got "
                             f"pad_mode={pad_mode!r}")
        self.kernel_size = V.triple("MaxPool3d", "kernel_size", kernel_size)
        self.stride = V.triple("MaxPool3d", "stride", stride)
        self.dilation = V.triple("MaxPool3d", "dilation", dilation)
        self.pad_mode = _pad_mode("MaxPool3d", pad_mode, padding)
        self.padding = V.pads6("MaxPool3d", padding)
        self.return_indices, self.ceil_mode = bool(return_indices), bool(ceil_mode)

    def construct(self, x: Tensor):
        if x.ndim == 4:
            out = self.construct(A.expand_dims(x, 0))
            return tuple(A.squeeze(o, 0) for o in out) if self.return_indices else A.squeeze(out, 0)
        return V.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices, pad_mode=self.pad_mode)


class AvgPool3d(Cell):
    """``AvgPool3d(kernel_size=1, stride=1, pad_mode='valid', padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None)``: 3-D average pooling."""

    def __init__(self, kernel_size: IntOr3 = 1, stride: IntOr3 = 1, pad_mode: str = "valid", padding: IntOr3 = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None
                 ) -> None:
        super().__init__()
        self.kernel_size = V.triple("AvgPool3d", "kernel_size", kernel_size)
        self.stride = V.triple("AvgPool3d", "stride", stride)
        self.pad_mode = _pad_mode("AvgPool3d", pad_mode, padding)
        self.padding = V.pads6("AvgPool3d", padding)
        self.ceil_mode, self.count_include_pad = bool(ceil_mode), bool(count_include_pad)
        if divisor_override is not None and (isinstance(divisor_override, bool) or
                                             not isinstance(divisor_override, int) or divisor_override <= 0):
            raise ValueError(f"AvgPool3d: divisor_override must be None or a positive int, got {divisor_override!r}")
        self.divisor_override = divisor_override

    def construct(self, x: Tensor) -> Tensor:
        return V.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override or 0, pad_mode=self.pad_mode)




class Conv3dTranspose(Cell):
    """``Conv3dTranspose(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0,
    dilation=1, group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None,
    data_format='NCDHW', dtype=float32)``: the transposed 3-D convolution (``ops.conv3d_transpose``);
    ``weight`` (in, out / group, kd, kh, kw)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOr3, stride: IntOr3 = 1,
                 pad_mode: str = "same", padding: IntOr3 = 0, dilation: IntOr3 = 1, group: int = 1,
                 output_padding: IntOr3 = 0, has_bias: bool = False, weight_init=None, bias_init=None,
                 data_format: str = "NCDHW", dtype=None) -> None:
        super().__init__()
        self.in_channels = positive_int("Conv3dTranspose", "in_channels", in_channels)
        self.out_channels = positive_int("Conv3dTranspose", "out_channels", out_channels)
        self.group = positive_int("Conv3dTranspose", "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"Conv3dTranspose: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be divisible by group ({group})")
        if data_format != "NCDHW":
            raise ValueError(f"Conv3dTranspose: data_format must be 'NCDHW', got {data_format!r}")
        self.kernel_size = V.triple("Conv3dTranspose", "kernel_size", kernel_size)
        self.stride = V.triple("Conv3dTranspose", "stride", stride)
        self.dilation = V.triple("Conv3dTranspose", "dilation", dilation)
        self.output_padding = V.triple("Conv3dTranspose", "output_padding", output_padding, 0)
        self.pad_mode = _pad_mode("Conv3dTranspose", pad_mode, padding)
        self.padding = V.pads6("Conv3dTranspose", padding)
        self.has_bias = bool(has_bias)
        fan_in = out_channels // group * math.prod(self.kernel_size)
        self.weight = Parameter(init_array(HeUniform(math.sqrt(5)) if weight_init is None else weight_init,
                                           (in_channels, out_channels // group, *self.kernel_size)), name="weight")
        self.bias = Parameter(init_array(Uniform(1 / math.sqrt(fan_in)) if bias_init is None else bias_init,
                                         (out_channels,)), name="bias") if self.has_bias else None

    def construct(self, x: Tensor) -> Tensor:
        check_input("Conv3dTranspose", x, rank=5, dim=(1, self.in_channels))
        y = T.conv3d_transpose(x, self.weight, self.pad_mode, self.padding, self.stride, self.dilation, self.group,
                               self.output_padding)
        if self.bias is not None:
            y = y + A.reshape(self.bias, (1, self.out_channels, 1, 1, 1))
        return y


__all__ = ["Conv3d", "Conv3dTranspose", "MaxPool3d", "AvgPool3d"]
