"""``nn.Conv2dBnAct`` (MindSpore's ``nn.layer.combined``; its sibling ``DenseBnAct`` is in misc_cells.py):
Conv2d, an optional BatchNorm2d and an optional activation in one Cell, with MindSpore's arguments, defaults
and sub-cell names (``conv``, ``batchnorm``, ``activation``: checkpoints keep its parameter names)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.tensor import Tensor
from ..cell import Cell
from .activation import LeakyReLU, get_activation
from .conv import Conv2d
from .normalization import BatchNorm2d


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"Conv2dBnAct: {name} must be a bool, got {type(value).__name__}")
    return value


class Conv2dBnAct(Cell):
    """``Conv2dBnAct(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, has_bias=False, weight_init='normal', bias_init='zeros', has_bn=False, momentum=0.997, eps=1e-5,
    activation=None, alpha=0.2, after_fake=True)``: Conv2d over (N, C, H, W), then BatchNorm2d when ``has_bn``,
    then the activation (a name, a Cell or None; ``'leakyrelu'`` uses slope ``alpha``). ``after_fake``
    concerns quantization-aware training and is recorded only."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | Sequence[int],
                 stride: int | Sequence[int] = 1, pad_mode: str = "same", padding: int | Sequence[int] = 0,
                 dilation: int | Sequence[int] = 1, group: int = 1, has_bias: bool = False,
                 weight_init: Any = "normal", bias_init: Any = "zeros", has_bn: bool = False,
                 momentum: float = 0.997, eps: float = 1e-5, activation: Any = None, alpha: float = 0.2,
                 after_fake: bool = True) -> None:
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)
        self.has_bn = _flag("has_bn", has_bn)
        self.has_act = activation is not None
        self.after_fake = _flag("after_fake", after_fake)
        if has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        if activation == "leakyrelu":
            self.activation = LeakyReLU(alpha)
        else:
            self.activation = get_activation(activation) if isinstance(activation, str) else activation
            if activation is not None and not isinstance(self.activation, Cell):
                raise TypeError(f"Conv2dBnAct: activation must be a name or a Cell, got {type(activation).__name__}")

    def construct(self, x: Tensor) -> Tensor:
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x
