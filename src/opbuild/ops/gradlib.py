"""Helpers the gradient rules of every op family share: short names for the primitives a VJP is written
with, and :func:`unbroadcast`, the reduction that undoes NumPy broadcasting.

Everything here applies registered primitives (ops/primitive.py ``apply``), so called while autodiff extends
a graph it adds ordinary nodes whose kernels go through the incremental build like any forward kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ALL_FLOATS
from ..core.tensor import Tensor, as_tensor
from .primitive import apply


def const(value: float, like: Tensor) -> Tensor:
    """A 0-d constant of ``like``'s dtype (broadcast by the binary ops it meets)."""
    return Tensor(np.asarray(value, dtype=like._type.dtype))


def add(a: Any, b: Any) -> Tensor:
    return apply("Add", {}, [a, as_tensor(b, a)])


def sub(a: Any, b: Any) -> Tensor:
    return apply("Sub", {}, [a, as_tensor(b, a)])


def mul(a: Any, b: Any) -> Tensor:
    return apply("Mul", {}, [a, as_tensor(b, a)])


def div(a: Any, b: Any) -> Tensor:
    return apply("RealDiv", {}, [a, as_tensor(b, a)])


def neg(a: Tensor) -> Tensor:
    return apply("Neg", {}, [a])


def unary(op: str, a: Tensor) -> Tensor:
    return apply(op, {}, [a])


def cast(a: Tensor, dtype: str) -> Tensor:
    return a if a._type.dtype == dtype else apply("Cast", {"dtype": dtype}, [a])


def mask(cond: Tensor, like: Tensor) -> Tensor:
    """A bool tensor as 0/1 of ``like``'s dtype."""
    return cast(cond, like._type.dtype)


def select(cond: Tensor, a: Tensor, b: Any) -> Tensor:
    return apply("Select", {}, [cond, a, as_tensor(b, a)])


def reshape(a: Tensor, shape: Sequence[int]) -> Tensor:
    return a if tuple(a.shape) == tuple(shape) else apply("Reshape", {"shape": tuple(shape)}, [a])


def reduce_sum(a: Tensor, axis: Sequence[int], keep_dims: bool = False) -> Tensor:
    return apply("ReduceSum", {"axis": tuple(axis), "keep_dims": keep_dims}, [a])


def broadcast_to(a: Tensor, shape: Sequence[int]) -> Tensor:
    return a if tuple(a.shape) == tuple(shape) else apply("BroadcastTo", {"shape": tuple(shape)}, [a])


def transpose(a: Tensor, perm: Sequence[int]) -> Tensor:
    if list(perm) == list(range(len(perm))):
        return a
    return apply("Transpose", {"perm": tuple(perm)}, [a])


def inverse_perm(perm: Sequence[int]) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def zeros_like(a: Tensor) -> Tensor:
    return apply("ZerosLike", {}, [a])


def unbroadcast(g: Tensor, shape: Sequence[int]) -> Tensor:
    """The cotangent of an operand of shape ``shape`` that was broadcast to ``g``'s shape: ``g`` summed over
    the leading dims broadcasting added and over the dims where the operand had size 1 (ReduceSum with
    keep_dims), then reshaped to ``shape``. No node at all when nothing was broadcast."""
    shape = tuple(shape)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1]
    if axes:
        g = reduce_sum(g, axes, keep_dims=True)
    return reshape(g, shape)


def is_float(t: Tensor) -> bool:
    return t._type.dtype in ALL_FLOATS
