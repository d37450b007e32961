"""More activation layers of ``mindspore.nn``: Hardtanh, Softmin, LogSoftmax, Softmax2d, LogSigmoid, Tanhshrink,
SoftShrink, HShrink, RReLU, GLU, CELU, Threshold, SeLU and Softsign, each calling its ``ops`` function
(ops/api/activations.py); arguments are checked when the layer is built."""

from __future__ import annotations

from ...core.tensor import Tensor
from ...ops.api import activations as F
from ...ops.api.nn import log_softmax, softmax
from ..cell import Cell


def _float(layer: str, name: str, value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{layer}: {name} must be a float, got {value!r}")
    return float(value)


def _axis(layer: str, axis: object) -> int:
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{layer}: axis must be an int, got {axis!r}")
    return axis


class Hardtanh(Cell):
    """``Hardtanh(min_val=-1.0, max_val=1.0)``: ``x`` clipped to [min_val, max_val]."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        self.min_val, self.max_val = _float("Hardtanh", "min_val", min_val), _float("Hardtanh", "max_val", max_val)
        if self.min_val > self.max_val:
            raise ValueError(f"Hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")

    def construct(self, x: Tensor) -> Tensor:
        return F.hardtanh(x, self.min_val, self.max_val)


class Softmin(Cell):
    """``Softmin(axis=-1)``: ``softmax(-x)`` along ``axis``."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = _axis("Softmin", axis)

    def construct(self, x: Tensor) -> Tensor:
        return F.softmin(x, self.axis)


class LogSoftmax(Cell):
    """``LogSoftmax(axis=-1)``: ``log(softmax(x))`` along ``axis``, computed stably."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = _axis("LogSoftmax", axis)

    def construct(self, x: Tensor) -> Tensor:
        return log_softmax(x, self.axis)


class Softmax2d(Cell):
    """``Softmax2d()``: softmax over the channels (axis -3) of a (C, H, W) or (N, C, H, W) input."""

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: the input must be (C, H, W) or (N, C, H, W), got shape {x.shape}")
        return softmax(x, -3)


class LogSigmoid(Cell):
    """``LogSigmoid()``: ``log(sigmoid(x))``, stable for large ``|x|``."""

    def construct(self, input_x: Tensor) -> Tensor:
        return F.logsigmoid(input_x)


class Tanhshrink(Cell):
    """``Tanhshrink()``: ``x - tanh(x)``."""

    def construct(self, x: Tensor) -> Tensor:
        return F.tanhshrink(x)


class SoftShrink(Cell):
    """``SoftShrink(lambd=0.5)``: ``x -/+ lambd`` outside [-lambd, lambd], 0 inside."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = _float("SoftShrink", "lambd", lambd)
        if self.lambd < 0:
            raise ValueError(f"SoftShrink: lambd must be >= 0, got {lambd}")

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's name
        return F.softshrink(input, self.lambd)


class HShrink(Cell):
    """``HShrink(lambd=0.5)``: ``x`` where ``|x| > lambd``, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = _float("HShrink", "lambd", lambd)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.hardshrink(input, self.lambd)


class RReLU(Cell):
    """``RReLU(lower=1/8, upper=1/3)``: negative inputs times a slope drawn uniformly from [lower, upper] per
    element, at every call, in training and inference alike (as MindSpore 2.10's layer does)."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3) -> None:
        super().__init__()
        self.lower, self.upper = _float("RReLU", "lower", lower), _float("RReLU", "upper", upper)
        if self.lower > self.upper:
            raise ValueError(f"RReLU: lower ({lower}) must not exceed upper ({upper})")

    def construct(self, x: Tensor) -> Tensor:
        return F.rrelu(x, self.lower, self.upper)


class GLU(Cell):
    """``GLU(axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the second half."""

    def __init__(self, axis: int = -1) -> None:
        super().__init__()
        self.axis = _axis("GLU", axis)

    def construct(self, x: Tensor) -> Tensor:
        return F.glu(x, self.axis)


class CELU(Cell):
    """``CELU(alpha=1.0)``: ``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = _float("CELU", "alpha", alpha)
        if self.alpha == 0:
            raise ValueError("CELU: alpha must not be 0")

    def construct(self, x: Tensor) -> Tensor:
        return F.celu(x, self.alpha)


class Threshold(Cell):
    """``Threshold(threshold, value)``: ``x`` where ``x > threshold``, else ``value``."""

    def __init__(self, threshold: float, value: float) -> None:
        super().__init__()
        self.threshold, self.value = _float("Threshold", "threshold", threshold), _float("Threshold", "value", value)

    def construct(self, input_x: Tensor) -> Tensor:
        return F.threshold(input_x, self.threshold, self.value)


class SeLU(Cell):
    """``SeLU()``: the scaled exponential linear unit."""

    def construct(self, input_x: Tensor) -> Tensor:
        return F.selu(input_x)


class Softsign(Cell):
    """``Softsign()``: ``x / (1 + |x|)``."""

    def construct(self, x: Tensor) -> Tensor:
        return F.softsign(x)


__all__ = ["Hardtanh", "Softmin", "LogSoftmax", "Softmax2d", "LogSigmoid", "Tanhshrink", "SoftShrink", "HShrink",
           "RReLU", "GLU", "CELU", "Threshold", "SeLU", "Softsign"]
