"""Bit shifts: MindSpore's ``LeftShift`` / ``RightShift`` primitives and ``ops.bitwise_left_shift`` /
``bitwise_right_shift``, broadcasting binary rows of the elementwise family's shape (ops/elementwise.py's
:class:`Binary`) over the integer dtypes.

C leaves shifts by a negative count or by the type's width or more undefined, and a left shift of a negative
value too; these rows define them as NumPy does: the left shift is done in unsigned arithmetic (the bits
wrap), a count outside ``[0, bits)`` gives 0 (left) or the sign fill (right: -1 for a negative value, else 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.dtypes import ALL_INTS, BY_NAME
from ..core.tensor import Tensor, as_tensor
from .elementwise import Binary, _binary_def
from .primitive import Primitive, apply, declare
from .registry import no_grad


def _bits(a: np.ndarray) -> int:
    return a.dtype.itemsize * 8


def _left(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    ok = (b >= 0) & (b < _bits(a))
    return np.where(ok, np.left_shift(a, np.where(ok, b, 0).astype(a.dtype)), 0).astype(a.dtype)


def _right(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.broadcast_arrays(a, b)
    ok = (b >= 0) & (b < _bits(a))
    fill = np.where(a < 0, -1, 0) if a.dtype.kind == "i" else np.zeros_like(a)
    return np.where(ok, np.right_shift(a, np.where(ok, b, 0).astype(a.dtype)), fill).astype(a.dtype)


ROWS: dict[str, Binary] = {
    "LeftShift": Binary("a", ALL_INTS, _left,
                        int_expr="((b >= 0 && b < (TYPE)(8 * sizeof(TYPE))) ? (TYPE)((uint64_t)a << b) : (TYPE)0)"),
    "RightShift": Binary("a", ALL_INTS, _right,
                         int_expr="((b >= 0 && b < (TYPE)(8 * sizeof(TYPE))) ? (TYPE)(a >> b) : "
                                  "(TYPE)(a < 0 ? -1 : 0))"),
}
PRIMITIVES: dict[str, type[Primitive]] = {name: declare(_binary_def(name, row), f"``{name}()(input, other)``.")
                                          for name, row in ROWS.items()}
no_grad(*ROWS)


def _shift(op: str, input: Any, other: Any) -> Tensor:  # noqa: A002
    x = as_tensor(input)
    y = other if isinstance(other, Tensor) else as_tensor(np.asarray(other, x.dtype.np_dtype))
    if x.dtype.name not in ALL_INTS or not BY_NAME[x.dtype.name].is_int:
        raise TypeError(f"{op}: input must be an integer tensor, got {x.dtype}")
    if y.dtype != x.dtype:
        raise TypeError(f"{op}: other must have input's dtype {x.dtype}, got {y.dtype}")
    return apply("LeftShift" if op == "bitwise_left_shift" else "RightShift", {}, [x, y])


def bitwise_left_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.bitwise_left_shift(input, other)``: ``input << other`` elementwise (broadcasting)."""
    return _shift("bitwise_left_shift", input, other)


def bitwise_right_shift(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``ops.bitwise_right_shift(input, other)``: ``input >> other`` elementwise (arithmetic for signed types)."""
    return _shift("bitwise_right_shift", input, other)


__all__ = ["PRIMITIVES", "ROWS", "bitwise_left_shift", "bitwise_right_shift"]
