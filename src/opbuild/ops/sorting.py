"""Sorting: MindSpore's ``TopK`` (and ``Sort``, its ``k = n`` case), ONNX TopK.

One primitive, ``TopK``, with attributes ``k``, ``axis``, ``largest``, ``sorted`` and ``index_dtype``
(MindSpore's indices are int32, ONNX's int64): the ``k`` largest (or smallest) elements of every slice along
``axis``, in order, with their indices. Equal elements keep their input order (the smaller index first, as
MindSpore and ONNX specify); NaN counts as larger than every number (NumPy's and torch's order), so it
comes first in a descending result and last in an ascending one.

The kernel (the CPU's: targets/cpu/kernels/sorting.py) sorts each slice's indices with a stable bottom-up
merge sort in a workspace of ``2 n`` int64 (``OpDef.workspace``), then writes the first ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ALL_NUMERIC, INTS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import grad_rule, norm_axis, same_dtype
from .shape_args import static_int


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("TopK", "input_x must have rank >= 1", list(ins))
    axis = norm_axis("TopK", static_int("TopK", "axis", attrs.get("axis", -1), ins), x.rank, ins)
    k = static_int("TopK", "k", attrs.get("k"), ins)
    if not 0 <= k <= x.shape[axis]:
        raise ShapeError("TopK", f"k must be in [0, {x.shape[axis]}] (the length of axis {axis}), got {k}",
                         list(ins))
    index_dtype = attrs.get("index_dtype", "int32")
    if index_dtype not in INTS:
        raise ShapeError("TopK", f"index_dtype must be int32 or int64, got {index_dtype!r}", list(ins))
    for name in ("largest", "sorted"):
        if not isinstance(attrs.get(name, True), (bool, np.bool_)):
            raise TypeError(f"TopK: {name} must be bool, got {attrs.get(name)!r}")
    return {"k": k, "axis": axis, "largest": bool(attrs.get("largest", True)),
            "sorted": bool(attrs.get("sorted", True)), "index_dtype": index_dtype}


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x = ins[0]
    same_dtype("TopK", ins, ALL_NUMERIC)
    shape = list(x.shape)
    shape[attrs["axis"]] = attrs["k"]
    return [TensorType(tuple(shape), x.dtype), TensorType(tuple(shape), attrs["index_dtype"])]


def _workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
    return 16 * ins[0].shape[attrs["axis"]]


def order(x: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    """Stable argsort of ``x`` along ``axis`` in the op's order (descending when ``largest``; NaN largest)."""
    if not largest:
        return _ascending(x, axis)
    # A stable descending order is the reversed stable ascending order of the reversed slice.
    n = x.shape[axis]
    return n - 1 - np.flip(_ascending(np.flip(x, axis), axis), axis)


def _ascending(x: np.ndarray, axis: int) -> np.ndarray:
    if x.dtype.kind != "f" and x.dtype.name not in ("float16", "bfloat16"):
        return np.argsort(x, axis=axis, kind="stable")
    xs = x.astype(np.float64)
    nan = np.isnan(xs)
    # By value, NaN after +inf: sort by the NaN flag first, then stably by value.
    first = np.argsort(nan, axis=axis, kind="stable")
    key = np.take_along_axis(np.where(nan, np.inf, xs), first, axis=axis)
    return np.take_along_axis(first, np.argsort(key, axis=axis, kind="stable"), axis=axis)


def _reference(attrs: dict, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    axis, k = attrs["axis"], attrs["k"]
    idx = np.take(order(x, axis, attrs["largest"]), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(attrs["index_dtype"])


@defop(infer=_infer, reference=_reference, normalize=_normalize, n_inputs=1,
       workspace=_workspace)
class TopK(Primitive):
    """``TopK(sorted=True)(input_x, k)``: the ``k`` largest elements of each slice along the last axis and
    their int32 indices (equal elements: the smaller index first)."""

    def __init__(self, sorted: bool = True):  # noqa: A002 - MindSpore's argument name
        if not isinstance(sorted, bool):
            raise TypeError(f"TopK: sorted must be bool, got {sorted!r}")
        super().__init__(sorted=sorted)

    def __call__(self, input_x: Any, k: int) -> tuple[Tensor, Tensor]:
        return apply("TopK", {**self.attrs, "k": _k(k), "axis": -1, "largest": True, "index_dtype": "int32"},
                     [input_x])


def _k(k: Any) -> int:
    """``k`` as an int (MindSpore also takes a 0-d or (1,) int32 Tensor holding it)."""
    if isinstance(k, Tensor):
        return int(np.asarray(k.asnumpy()).reshape(-1)[0])
    return k


class Sort(Primitive):
    """``Sort(axis=-1, descending=False)(x)``: ``x`` sorted along ``axis`` and the int32 indices of the sorted
    elements (a stable sort; NaN last when ascending). Applies the TopK primitive with ``k`` the axis length."""

    op_name = "TopK"

    def __init__(self, axis: int = -1, descending: bool = False):
        if not isinstance(axis, int) or not isinstance(descending, bool):
            raise TypeError(f"Sort: axis must be an int and descending a bool, got {axis!r}, {descending!r}")
        super().__init__(axis=axis, descending=descending)

    def __call__(self, x: Any) -> tuple[Tensor, Tensor]:
        t = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
        axis = self.attrs["axis"]
        n = t.shape[axis % max(t.ndim, 1)] if t.ndim else 1
        return apply("TopK", {"k": n, "axis": axis, "largest": self.attrs["descending"], "sorted": True,
                              "index_dtype": "int32"}, [t])


PRIMITIVES: dict[str, type[Primitive]] = {"TopK": TopK, "Sort": Sort}


@grad_rule("TopK")
def _topk_grad(attrs, ins, outs, douts):
    """Each picked element gets its value's cotangent (indices are distinct, so adding is placing)."""
    x = ins[0]
    dv = douts[0]
    if dv is None:
        return [None]
    zeros = Tensor(np.zeros(x.shape, x._type.dtype))
    return [apply("TensorScatterElements", {"axis": attrs["axis"], "reduction": "add"}, [zeros, outs[1], dv])]


__all__ = ["PRIMITIVES", "Sort", "TopK", "order"]
