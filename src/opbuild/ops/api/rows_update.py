"""Row updates of MindSpore's functional API: ``inplace_add``, ``inplace_sub``, ``inplace_update`` (and the
``InplaceAdd``/``InplaceSub``/``InplaceUpdate``/``InplaceUpdateV2`` primitives), which despite their names return
a new tensor, and ``index_add`` (``IndexAdd``), which adds into a Parameter in place.

All are the TensorScatter* ops over the first axis (``index_add``: over ``axis``, moved first and back), so they
run in either mode and are differentiable through them; ``index_add`` then writes the Parameter with ``Assign``.
Indices are checked against the axis when their values are known (an eager call).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import trace
from ...core.tensor import Tensor, as_tensor
from ..primitive import Primitive, apply


def _index_tensor(who: str, indices: Any, length: int) -> Tensor:
    """``indices`` (an int, a tuple of ints or an int Tensor) as an int32/int64 (n, 1) Tensor of rows."""
    if isinstance(indices, Tensor):
        idx = indices
        if idx._type.dtype not in ("int32", "int64"):
            raise TypeError(f"{who}: indices must be int32 or int64, got {idx._type.dtype}")
    else:
        values = [indices] if isinstance(indices, (int, np.integer)) else list(indices)
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
            raise TypeError(f"{who}: indices must be an int, a tuple of ints or an int Tensor, got {indices!r}")
        idx = Tensor(np.asarray(values, np.int32))
    if trace.current() is None:
        vals = np.asarray(idx.asnumpy()).reshape(-1)
        bad = vals[(vals < -length) | (vals >= length)]
        if bad.size:
            raise ValueError(f"{who}: indices {bad.tolist()} are out of range for an axis of length {length}")
    return apply("Reshape", {"shape": [-1, 1]}, [idx])


def _rows(who: str, op: str, x: Any, v: Any, indices: Any, tensor_indices: bool = False) -> Tensor:
    t, upd = as_tensor(x), as_tensor(v)
    if isinstance(indices, Tensor) and not tensor_indices:  # MindSpore's InplaceAdd/Sub take ints alone
        raise TypeError(f"{who}: indices must be an int or a tuple of ints, got a Tensor")
    if t.ndim < 1:
        raise ValueError(f"{who}: x must have rank >= 1")
    idx = _index_tensor(who, indices, t.shape[0])
    n = idx.shape[0]
    if upd.ndim == t.ndim - 1 and n == 1:
        upd = apply("ExpandDims", {"axis": 0}, [upd])
    if tuple(upd.shape) != (n, *t.shape[1:]) or upd.dtype != t.dtype:
        raise ValueError(f"{who}: v must be {t.dtype} of shape {(n, *t.shape[1:])} (one row per index), got "
                         f"{upd.dtype} {tuple(upd.shape)}")
    return apply(op, {}, [t, idx, upd])


def inplace_add(x: Any, v: Any, indices: Any) -> Tensor:
    """``ops.inplace_add(x, v, indices)``: a copy of ``x`` with ``v``'s rows added to the rows ``indices``."""
    return _rows("inplace_add", "TensorScatterAdd", x, v, indices)


def inplace_sub(x: Any, v: Any, indices: Any) -> Tensor:
    """``ops.inplace_sub(x, v, indices)``: a copy of ``x`` with ``v``'s rows subtracted from the rows
    ``indices``."""
    return _rows("inplace_sub", "TensorScatterSub", x, v, indices)


def inplace_update(x: Any, v: Any, indices: Any) -> Tensor:
    """``ops.inplace_update(x, v, indices)``: a copy of ``x`` with the rows ``indices`` (ints or an int Tensor)
    replaced by ``v``'s (a repeated index: the last row wins)."""
    return _rows("inplace_update", "TensorScatterUpdate", x, v, indices, tensor_indices=True)


def index_add(x: Any, indices: Any, y: Any, axis: int, use_lock: bool = True,
              check_index_bound: bool = True) -> Tensor:
    """``ops.index_add(x, indices, y, axis, use_lock=True, check_index_bound=True)``: add the slices of ``y``
    along ``axis`` into the Parameter ``x`` at the positions ``indices`` (1-D int32) along that axis, in place;
    returns ``x``."""
    t, upd, idx = as_tensor(x), as_tensor(y), as_tensor(indices)
    if not isinstance(axis, int) or not -t.ndim <= axis < t.ndim:
        raise ValueError(f"index_add: axis must be an int in [-{t.ndim}, {t.ndim}), got {axis!r}")
    axis %= t.ndim
    if idx.ndim != 1 or idx.dtype.name != "int32":
        raise TypeError(f"index_add: indices must be a 1-D int32 Tensor, got {idx.dtype} {tuple(idx.shape)}")
    want = tuple(t.shape[:axis]) + (idx.shape[0],) + tuple(t.shape[axis + 1:])
    if tuple(upd.shape) != want or upd.dtype != t.dtype:
        raise ValueError(f"index_add: y must be {t.dtype} of shape {want}, got {upd.dtype} {tuple(upd.shape)}")
    rows = _index_tensor("index_add", idx, t.shape[axis])
    perm = [axis, *[a for a in range(t.ndim) if a != axis]]
    back = [perm.index(a) for a in range(t.ndim)]
    moved = apply("TensorScatterAdd", {}, [apply("Transpose", {"perm": perm}, [t]), rows,
                                            apply("Transpose", {"perm": perm}, [upd])])
    return apply("Assign", {}, [x, apply("Transpose", {"perm": back}, [moved])])


def _indices_class(name: str, fn) -> type[Primitive]:
    def init(self, indices: Any) -> None:
        Primitive.__init__(self, indices=indices)

    def call(self, x: Any, v: Any) -> Tensor:
        return fn(x, v, self.attrs["indices"])

    return type(name, (Primitive,), {"__init__": init, "__call__": call, "op_name": name,
                                     "__doc__": f"``{name}(indices)(x, v)``: see ``ops.{fn.__name__}``."})


class InplaceUpdateV2(Primitive):
    """``InplaceUpdateV2()(x, indices, v)``: see ``ops.inplace_update``."""

    def __call__(self, x: Any, indices: Any, v: Any) -> Tensor:
        return inplace_update(x, v, indices)


class IndexAdd(Primitive):
    """``IndexAdd(axis, use_lock=True, check_index_bound=True)(input_x, indices, input_y)``: see
    ``ops.index_add``."""

    def __init__(self, axis: int, use_lock: bool = True, check_index_bound: bool = True):
        super().__init__(axis=axis, use_lock=use_lock, check_index_bound=check_index_bound)

    def __call__(self, input_x: Any, indices: Any, input_y: Any) -> Tensor:
        return index_add(input_x, indices, input_y, self.attrs["axis"])


PRIMITIVES: dict[str, type[Primitive]] = {
    "InplaceAdd": _indices_class("InplaceAdd", inplace_add), "InplaceSub": _indices_class("InplaceSub", inplace_sub),
    "InplaceUpdate": _indices_class("InplaceUpdate", inplace_update), "InplaceUpdateV2": InplaceUpdateV2,
    "IndexAdd": IndexAdd,
}

__all__ = ["index_add", "inplace_add", "inplace_sub", "inplace_update"]
