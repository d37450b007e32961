"""Activations written as compositions of elementwise operators (see ops/compose/__init__.py)."""

from __future__ import annotations

import math
from typing import TypeVar

H = TypeVar("H")

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_CUBIC = 0.044715


def gelu_tanh(b, x: H) -> H:
    """GeLU's tanh approximation, ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``: MindSpore's
    ``ops.gelu(approximate='tanh')``, ``nn.GELU(approximate=True)`` and ONNX's ``Gelu(approximate='tanh')``.
    The order of operations is fixed here, so every caller rounds alike."""
    cube = b.op("Mul", {}, b.op("Mul", {}, x, x), x)
    inner = b.op("Mul", {}, b.op("Add", {}, x, b.op("Mul", {}, cube, b.const(_CUBIC, x))),
                 b.const(SQRT_2_OVER_PI, x))
    half_x = b.op("Mul", {}, x, b.const(0.5, x))
    return b.op("Mul", {}, half_x, b.op("Add", {}, b.op("Tanh", {}, inner), b.const(1.0, x)))
