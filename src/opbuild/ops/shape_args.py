"""Static call arguments of the shape and data-movement ops (ops/layout.py, slicing.py, indexing.py, fill.py).

Every non-tensor call argument (a shape, a permutation, an axis, slice bounds) is static: the primitive
classes move it into the op's attributes and ``normalize`` turns it into one canonical form (negative axes
resolved, ``-1`` sizes filled in, StridedSlice masks expanded to per-dim start/step/count), so equal
requests share one kernel. ``normalize`` must be idempotent: the build re-derives each kernel's spec from
the already-normalised attributes stored in the graph node.

Only ``normalize`` and ``infer`` use these helpers (their results are the descriptor's attributes and types);
emitters and their helpers live in their family module, which the op's code-generator hash covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY_C
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .registry import InferFn, same_dtype


def is_int(v: Any) -> bool:
    """Whether ``v`` is an int (Python or NumPy), bools excluded."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def static_ints(op: str, what: str, value: Any, ins: Sequence[TensorType],
                allow_scalar: bool = False) -> list[int]:
    """A static tuple of ints given as a call argument (tuple, list, ndarray or a concrete Tensor), as a list.

    A traced (symbolic) Tensor is rejected: its values exist only when the graph runs, and every kernel is
    specialised on the shape it produces.
    """
    if isinstance(value, Tensor):
        if value._data is None:
            raise ShapeError(op, f"{what} must be known when the graph is traced (a tuple of ints), "
                                 f"got a traced Tensor", list(ins))
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else value.item()
    if allow_scalar and is_int(value):
        value = [value]
    if not isinstance(value, (tuple, list)) or not all(is_int(v) for v in value):
        raise ShapeError(op, f"{what} must be a tuple of ints, got {value!r}", list(ins))
    return [int(v) for v in value]


def static_int(op: str, what: str, value: Any, ins: Sequence[TensorType]) -> int:
    """A static int given as a call argument (an int or a concrete 0-d Tensor)."""
    if isinstance(value, Tensor) and value._data is not None and value.ndim == 0:
        value = value.asnumpy().item()
    if not is_int(value):
        raise ShapeError(op, f"{what} must be an int, got {value!r}", list(ins))
    return int(value)


def attr_shape_infer(op: str) -> InferFn:
    """Infer for ops whose canonical attrs hold the output shape (Reshape, StridedSlice, BroadcastTo)."""

    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(tuple(attrs["shape"]), same_dtype(op, ins, ANY_C))]

    return infer

