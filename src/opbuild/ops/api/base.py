"""Helpers of the functional API: unary/binary application with scalar weak typing, true division, clip."""

from __future__ import annotations

import numpy as np

from ...core.dtypes import DType, promote_types, scalar_result_dtype
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def unary(op: str, x) -> Tensor:
    """Apply a one-input primitive."""
    return apply(op, {}, [x])


def _is_scalar(x) -> bool:
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def promote(a, b) -> tuple[Tensor, Tensor]:
    """Both operands as Tensors of one dtype, by MindSpore's implicit promotion: two tensors meet at
    :func:`~opbuild.core.dtypes.promote_types`; a Python scalar takes the tensor's dtype unless it is a float
    with an integer/bool tensor (float32) or an int with a bool tensor (int64). A Cast node is added only for
    an operand whose dtype changes."""
    if isinstance(a, Tensor) and _is_scalar(b):
        target = scalar_result_dtype(a.dtype, b)
        return _to(a, target), Tensor(np.asarray(b, dtype=target.np_dtype))
    if isinstance(b, Tensor) and _is_scalar(a):
        target = scalar_result_dtype(b.dtype, a)
        return Tensor(np.asarray(a, dtype=target.np_dtype)), _to(b, target)
    a, b = as_tensor(a), as_tensor(b)
    if a.dtype == b.dtype or a.dtype.storage_only or b.dtype.storage_only:
        return a, b
    target = promote_types(a.dtype, b.dtype)
    return _to(a, target), _to(b, target)


def _to(t: Tensor, dtype: DType) -> Tensor:
    return t if t.dtype == dtype else apply("Cast", {"dtype": dtype.name}, [t])


def binary(op: str, a, b) -> Tensor:
    """Apply a broadcasting binary primitive after MindSpore's implicit type promotion (:func:`promote`)."""
    a, b = promote(a, b)
    return apply(op, {}, [a, b])


# What MindSpore 2.10 computes for Python's + - * between bool tensors (recorded: ``t + u`` is True where either
# is, ``t - u`` where they differ, ``t * u`` where both are); the Add/Sub/Mul primitives have no bool kernel.
BOOL_OPERATORS = {"Add": "LogicalOr", "Sub": "NotEqual", "Mul": "LogicalAnd"}


def bool_binary(op: str, logical: str, a, b) -> Tensor:
    """:func:`binary` of ``op``, or of ``logical`` when both operands are bool tensors after promotion (the ops
    MindSpore 2.10 gives a logical meaning on bools: ``ops.mul``, ``ops.maximum``, the Python operators)."""
    a, b = promote(a, b)
    return apply(logical if a.dtype.name == b.dtype.name == "bool" else op, {}, [a, b])


def operator_binary(op: str, a, b) -> Tensor:
    """A Python operator (``t + u``): :func:`binary`, with the logical meaning of + - * between bool tensors."""
    return bool_binary(op, BOOL_OPERATORS.get(op, op), a, b)


def true_divide(a, b) -> Tensor:
    """``a / b`` as Python's ``/`` means it: integer (or bool) operands are divided as float32 (NumPy gives
    float64, MindSpore float32). The RealDiv primitive itself stays float-only."""
    def real(t: Tensor) -> bool:  # an integer or bool tensor (complex ones divide as they are)
        return not t.dtype.is_float and not t.dtype.is_complex

    if isinstance(a, Tensor) and isinstance(b, Tensor) and real(a) and real(b):
        a, b = apply("Cast", {"dtype": "float32"}, [a]), apply("Cast", {"dtype": "float32"}, [b])
    elif isinstance(a, Tensor) and not isinstance(b, Tensor) and real(a):
        a = apply("Cast", {"dtype": "float32"}, [a])
    elif isinstance(b, Tensor) and not isinstance(a, Tensor) and real(b):
        b = apply("Cast", {"dtype": "float32"}, [b])
    return binary("RealDiv", a, b)


def clip_by_value(x, clip_value_min, clip_value_max) -> Tensor:
    """Clamp ``x`` to [clip_value_min, clip_value_max] (scalars or broadcastable tensors)."""
    x = as_tensor(x)
    return apply("ClipByValue", {}, [x, as_tensor(clip_value_min, x), as_tensor(clip_value_max, x)])
