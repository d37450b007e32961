"""Helpers of the functional API: unary/binary application with scalar weak typing, true division, clip."""

from __future__ import annotations

import numpy as np

from ...core.dtypes import DType, dtype_of, promote_types, scalar_result_dtype
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .int_inputs import gemm

DTYPES_UINT8 = dtype_of("uint8")
BOOL = dtype_of("bool")


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
    if isinstance(a, Tensor) and isinstance(b, Tensor):  # the common case first: two tensors of one dtype
        da, db = a.dtype, b.dtype
        if da is db or da == db or da.storage_only or db.storage_only:
            return a, b
        target = promote_types(da, db)
        return _to(a, target), _to(b, target)
    if isinstance(a, Tensor) and _is_scalar(b):
        target = scalar_result_dtype(a.dtype, b)
        return _to(a, target), Tensor(_scalar_as(b, target))
    if isinstance(b, Tensor) and _is_scalar(a):
        target = scalar_result_dtype(b.dtype, a)
        return Tensor(_scalar_as(a, target)), _to(b, target)
    a, b = as_tensor(a), as_tensor(b)
    if a.dtype == b.dtype or a.dtype.storage_only or b.dtype.storage_only:
        return a, b
    target = promote_types(a.dtype, b.dtype)
    return _to(a, target), _to(b, target)


def _scalar_as(v, dtype: DType) -> np.ndarray:
    # An int outside an integer dtype's range wraps as a C cast does (MindSpore 2.10: ``uint8_t // -2`` divides
    # by 254, recorded); NumPy would refuse it.
    return np.asarray(v).astype(dtype.np_dtype) if isinstance(v, int) else np.asarray(v, dtype=dtype.np_dtype)


def _to(t: Tensor, dtype: DType) -> Tensor:
    return t if t.dtype == dtype else apply("Cast", {"dtype": dtype.name}, [t])


# Ordered comparisons of two bool tensors: MindSpore 2.10 compares them (False < True); the kernels have no bool.
_ORDERED = ("Greater", "GreaterEqual", "Less", "LessEqual")
# Floor division and the remainders of two bools (``ops.floor_divide``/``remainder``/``fmod``, ``//``, ``%``):
# MindSpore 2.10 gives a bool, ``a // True`` is ``a`` and ``a % True`` False (recorded:
# tests/fixtures/mindspore/bool_division.json). They are computed on 0/1 and cast back, so a divisor False takes
# the integer rule for a zero divisor (0: False), where MindSpore's CPU gives the dividend (docs/mindspore-compat.md).
_BOOL_ARITHMETIC = ("FloorDiv", "FloorMod", "Mod")


def negative_for_unsigned(op: str, a, b) -> None:
    # MindSpore 2.10 computes a power, fmod or truncating division of an unsigned tensor and a negative int in a
    # signed type, where a wrapped scalar (as the other ops take it) would give other numbers: refused rather than
    # silently different.
    for t, s in ((a, b), (b, a)):
        if isinstance(t, Tensor) and _is_scalar(s) and not isinstance(s, bool) and isinstance(s, int) and s < 0 \
                and t.dtype.name.startswith("uint"):
            raise ValueError(f"{op}: a negative Python int ({s}) with a {t.dtype} tensor is not supported; cast the "
                             "tensor to a signed dtype first")


def binary(op: str, a, b) -> Tensor:
    """Apply a broadcasting binary primitive after MindSpore's implicit type promotion (:func:`promote`)."""
    if op in ("Pow", "Mod"):
        negative_for_unsigned(op, a, b)
    a, b = promote(a, b)
    if op in _BOOL_ARITHMETIC:
        return _apply_promoted(op, a, b)
    return apply(op, {}, [a, b])


def compare(op: str, a, b) -> Tensor:
    """:func:`binary` of a comparison, two bool tensors compared as 0/1 (ordered ones have no bool kernel)."""
    return _apply_promoted(op, *promote(a, b))


def _apply_promoted(op: str, a: Tensor, b: Tensor) -> Tensor:
    """``op`` of two operands already promoted to one dtype (an ordered comparison of bools as 0/1, a division
    or remainder of bools as 0/1 with a bool result)."""
    if a.dtype is BOOL and b.dtype is BOOL:
        if op in _ORDERED:
            a, b = _to(a, DTYPES_UINT8), _to(b, DTYPES_UINT8)
        elif op in _BOOL_ARITHMETIC:
            out = apply(op, {}, [_to(a, DTYPES_UINT8), _to(b, DTYPES_UINT8)])
            return apply("Cast", {"dtype": "bool"}, [out])
    return apply(op, {}, [a, b])


# What MindSpore 2.10 computes for Python's + - * between bool tensors (recorded: ``t + u`` is True where either
# is, ``t - u`` where they differ, ``t * u`` where both are); the Add/Sub/Mul primitives have no bool kernel.
BOOL_OPERATORS = {"Add": "LogicalOr", "Sub": "NotEqual", "Mul": "LogicalAnd"}


def bool_binary(op: str, logical: str, a, b) -> Tensor:
    """:func:`binary` of ``op``, or of ``logical`` when both operands are bool tensors after promotion (the ops
    MindSpore 2.10 gives a logical meaning on bools: ``ops.mul``, ``ops.maximum``, the Python operators)."""
    if op in ("Pow", "Mod"):
        negative_for_unsigned(op, a, b)
    a, b = promote(a, b)
    if logical != op and a.dtype is BOOL and b.dtype is BOOL:
        return apply(logical, {}, [a, b])
    if op == "BatchMatMul":  # the ``@`` operator: narrow integers through int32
        return gemm(op, {}, a, b)
    return _apply_promoted(op, a, b)  # promoted once, above


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


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clamp ``x`` (a tensor, or a list/tuple of tensors: a tuple back) to [clip_value_min, clip_value_max];
    either bound may be None (one-sided, as mindcv's asymmetric loss calls it), not both."""
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: at least one of 'clip_value_min' or 'clip_value_max' must not be None")
    if isinstance(x, (list, tuple)):
        return tuple(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    x = as_tensor(x)
    if clip_value_min is None:
        return binary("Minimum", x, as_tensor(clip_value_max, x))
    if clip_value_max is None:
        return binary("Maximum", x, as_tensor(clip_value_min, x))
    return apply("ClipByValue", {}, [x, as_tensor(clip_value_min, x), as_tensor(clip_value_max, x)])
