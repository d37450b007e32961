"""Helpers of the functional API: unary/binary application with scalar weak typing, true division, clip."""

from __future__ import annotations

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def unary(op: str, x) -> Tensor:
    """Apply a one-input primitive."""
    return apply(op, {}, [x])


def binary(op: str, a, b) -> Tensor:
    """Apply a broadcasting binary primitive; a Python scalar operand takes the tensor operand's dtype."""
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        b = as_tensor(b, a)
    elif isinstance(b, Tensor) and not isinstance(a, Tensor):
        a = as_tensor(a, b)
    return apply(op, {}, [a, b])


def true_divide(a, b) -> Tensor:
    """``a / b`` as Python's ``/`` means it: integer (or bool) operands are divided as float32 (NumPy gives
    float64, MindSpore float32). The RealDiv primitive itself stays float-only."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and not a.dtype.is_float and not b.dtype.is_float:
        a, b = apply("Cast", {"dtype": "float32"}, [a]), apply("Cast", {"dtype": "float32"}, [b])
    elif isinstance(a, Tensor) and not isinstance(b, Tensor) and not a.dtype.is_float:
        a = apply("Cast", {"dtype": "float32"}, [a])
    elif isinstance(b, Tensor) and not isinstance(a, Tensor) and not b.dtype.is_float:
        b = apply("Cast", {"dtype": "float32"}, [b])
    return binary("RealDiv", a, b)


def clip_by_value(x, clip_value_min, clip_value_max) -> Tensor:
    """Clamp ``x`` to [clip_value_min, clip_value_max] (scalars or broadcastable tensors)."""
    x = as_tensor(x)
    return apply("ClipByValue", {}, [x, as_tensor(clip_value_min, x), as_tensor(clip_value_max, x)])
