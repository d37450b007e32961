"""Activation layers (ReLU, GELU, Sigmoid, Tanh, Softmax, LeakyReLU, PReLU, ELU, SiLU, HSwish, HSigmoid, Mish)
and :func:`get_activation` (by name). The newer ones are compositions of elementwise primitives, each a
cached kernel of its own."""

from __future__ import annotations

import numpy as np

from ... import ops
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import compose
from ..cell import Cell
from ._checks import in_input_dtype
from .activation_more import (
    Hardtanh,
    HShrink,
    LogSigmoid,
    LogSoftmax,
    RReLU,
    Softmax2d,
    Softmin,
    SoftShrink,
    Softsign,
    Tanhshrink,
)
from .wrappers import FastGelu


class ReLU(Cell):
    """``max(x, 0)`` elementwise."""

    def __init__(self) -> None:
        super().__init__()
        self.relu = ops.ReLU()

    def construct(self, input: Tensor) -> Tensor:
        return self.relu(input)


class ReLU6(Cell):
    """``min(max(x, 0), 6)`` elementwise (MobileNet's activation), the ReLU6 primitive."""

    def __init__(self) -> None:
        super().__init__()
        self.relu6 = ops.ReLU6()

    def construct(self, x: Tensor) -> Tensor:
        return self.relu6(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))`` elementwise."""

    def __init__(self) -> None:
        super().__init__()
        self.sigmoid = ops.Sigmoid()

    def construct(self, x: Tensor) -> Tensor:
        return self.sigmoid(x)


class Tanh(Cell):
    """``tanh(x)`` elementwise."""

    def __init__(self) -> None:
        super().__init__()
        self.tanh = ops.Tanh()

    def construct(self, x: Tensor) -> Tensor:
        return self.tanh(x)


class GELU(Cell):
    """Gaussian error linear unit.

    ``approximate=True`` (MindSpore's default) is the tanh form
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, composed from elementwise ops (ops/compose);
    ``approximate=False`` is the exact ``0.5 x (1 + erf(x / sqrt(2)))``, the GeLU primitive.
    """

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = bool(approximate)
        self.tanh = ops.Tanh()


    def construct(self, x: Tensor) -> Tensor:
        if not self.approximate:  # ops.GeLU() is MindSpore's tanh form; the exact one is ops.gelu's 'none'
            return ops.gelu(x, approximate="none")
        return compose.gelu_tanh(compose.TENSORS, x)


class Softmax(Cell):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last)."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"Softmax: axis must be an int, got {axis!r}")
        self.axis = axis
        self.softmax = ops.Softmax(axis)

    def construct(self, input: Tensor) -> Tensor:
        return self.softmax(input)


def _number(layer: str, name: str, value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{layer}: {name} must be a float, got {value!r}")
    return float(value)


class LeakyReLU(Cell):
    """``x`` where ``x >= 0``, ``alpha * x`` elsewhere (MindSpore's default ``alpha=0.2``).

    Computed as MindSpore does: ``max(x, alpha x)`` for ``alpha <= 1`` and ``min(x, alpha x)`` above.
    """

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        self.alpha = _number("LeakyReLU", "alpha", alpha)

    def construct(self, x: Tensor) -> Tensor:
        scaled = x * self.alpha
        return ops.maximum(x, scaled) if self.alpha <= 1.0 else ops.minimum(x, scaled)


class PReLU(Cell):
    """Parametric ReLU: ``max(0, x) + w * min(0, x)`` with a learnable slope ``w`` per channel.

    ``channel`` is 1 (one slope shared by every element) or the size of the input's axis 1; ``w`` is the
    initial slope (a float, or a list/array/Tensor of ``channel`` values). The parameter is named ``w``.
    """

    def __init__(self, channel: int = 1, w: float | list | np.ndarray | Tensor = 0.25) -> None:
        super().__init__()
        if not isinstance(channel, int) or isinstance(channel, bool) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        self.channel = channel
        if isinstance(w, (int, float)) and not isinstance(w, bool):
            init = np.full((channel,), float(w), np.float32)
        else:
            init = np.asarray(w.asnumpy() if isinstance(w, Tensor) else w, np.float32).reshape(-1)
            if init.shape != (channel,):
                raise ValueError(f"PReLU: w must have {channel} values (one per channel), got shape "
                                 f"{init.shape}")
        self.w = Parameter(init, name="w")

    def construct(self, x: Tensor) -> Tensor:
        if self.channel > 1 and (x.ndim < 2 or x.shape[1] != self.channel):
            raise ShapeError("PReLU", f"channel={self.channel} needs an input with {self.channel} channels on "
                                      "axis 1", [x._type])
        # The slope broadcasts along axis 1 (the channel axis): shape (C, 1, ..., 1) for rank >= 2.
        w = in_input_dtype(self.w, x)
        w = w if x.ndim < 2 else ops.reshape(w, (self.channel,) + (1,) * (x.ndim - 2))
        return ops.relu(x) + w * ops.minimum(x, 0.0)


class ELU(Cell):
    """Exponential linear unit: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = _number("ELU", "alpha", alpha)

    def construct(self, x: Tensor) -> Tensor:
        # exp of min(x, 0), so the branch that is not taken never overflows to inf.
        neg = (ops.exp(ops.minimum(x, 0.0)) - 1.0) * self.alpha
        return ops.where(x > 0.0, x, neg)


class SiLU(Cell):
    """Sigmoid linear unit (swish): ``x * sigmoid(x)``."""

    def construct(self, x: Tensor) -> Tensor:
        return ops.silu(x)


class HSigmoid(Cell):
    """Hard sigmoid: ``relu6(x + 3) / 6``."""

    def construct(self, input: Tensor) -> Tensor:
        return ops.relu6(input + 3.0) / 6.0


class HSwish(Cell):
    """Hard swish: ``x * relu6(x + 3) / 6``."""

    def construct(self, input: Tensor) -> Tensor:
        return input * (ops.relu6(input + 3.0) / 6.0)


class Mish(Cell):
    """Mish: ``x * tanh(softplus(x))``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return input_x * ops.tanh(ops.softplus(input_x))


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU, "gelu": GELU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
    "leakyrelu": LeakyReLU, "prelu": PReLU, "elu": ELU, "silu": SiLU, "hswish": HSwish, "hsigmoid": HSigmoid,
    "mish": Mish, "relu6": ReLU6, "softmin": Softmin, "softmax2d": Softmax2d, "logsoftmax": LogSoftmax,
    "rrelu": RReLU, "tanhshrink": Tanhshrink, "hardtanh": Hardtanh, "fast_gelu": FastGelu, "softsign": Softsign,
    "logsigmoid": LogSigmoid, "softshrink": SoftShrink, "hshrink": HShrink,
}


def get_activation(name: str | Cell | None) -> Cell | None:
    """An activation cell from its MindSpore name ('relu', 'gelu', 'sigmoid', 'tanh', 'softmax', 'leakyrelu',
    'prelu', 'elu', 'silu', 'hswish', 'hsigmoid', 'mish', 'relu6', 'softmin', 'softmax2d', 'logsoftmax', 'rrelu',
    'tanhshrink', 'hardtanh', 'fast_gelu', 'softsign', 'logsigmoid', 'softshrink', 'hshrink'), built with its
    defaults; a Cell or None is returned as is."""
    if name is None or isinstance(name, Cell):
        return name
    cls = _ACTIVATIONS.get(str(name).lower()) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown activation {name!r}; use one of {', '.join(_ACTIVATIONS)} or a Cell")
    return cls()
