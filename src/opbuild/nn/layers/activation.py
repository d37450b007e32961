"""Activation layers: ReLU, GELU, Sigmoid, Tanh, Softmax, and :func:`get_activation` (by name)."""

from __future__ import annotations

import math

from ... import ops
from ...tensor import Tensor
from ..cell import Cell

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class ReLU(Cell):
    """``max(x, 0)`` elementwise."""

    def __init__(self) -> None:
        super().__init__()
        self.relu = ops.ReLU()

    def construct(self, x: Tensor) -> Tensor:
        return self.relu(x)


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
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, composed from elementwise ops;
    ``approximate=False`` is the exact ``0.5 x (1 + erf(x / sqrt(2)))``, the GeLU primitive.
    """

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = bool(approximate)
        self.tanh = ops.Tanh()
        self.gelu = ops.GeLU()

    def construct(self, x: Tensor) -> Tensor:
        if not self.approximate:
            return self.gelu(x)
        inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
        return x * 0.5 * (self.tanh(inner) + 1.0)


class Softmax(Cell):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default the last)."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"Softmax: axis must be an int, got {axis!r}")
        self.axis = axis
        self.softmax = ops.Softmax(axis)

    def construct(self, x: Tensor) -> Tensor:
        return self.softmax(x)


_ACTIVATIONS: dict[str, type[Cell]] = {
    "relu": ReLU, "gelu": GELU, "sigmoid": Sigmoid, "tanh": Tanh, "softmax": Softmax,
}


def get_activation(name: str | Cell | None) -> Cell | None:
    """An activation cell from its name ('relu', 'gelu', 'sigmoid', 'tanh', 'softmax'); a Cell or None is
    returned as is."""
    if name is None or isinstance(name, Cell):
        return name
    cls = _ACTIVATIONS.get(str(name).lower()) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown activation {name!r}; use one of {', '.join(_ACTIVATIONS)} or a Cell")
    return cls()
