"""``mindspore.numpy`` indexing and selection: take/take_along_axis/choose, where/select/piecewise,
diagonal, flat-index conversions (unravel_index, ravel_multi_index), argwhere, and the apply_* helpers.
Compositions of opbuild's ops (argwhere's length depends on the values: PyNative only, as in MindSpore)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import norm_axis, promote, shape_tuple, to_tensor

__all__ = ["take", "take_along_axis", "choose", "where", "select", "piecewise", "diagonal", "unravel_index",
           "ravel_multi_index", "argwhere", "apply_along_axis", "apply_over_axes"]


def _index_mode(idx: Tensor, n: int, mode: str) -> Tensor:
    if mode == "clip":
        return F.clip(idx, 0, n - 1)
    if mode == "wrap":
        return F.remainder(idx, to_tensor(n, idx.dtype))
    if mode == "raise":
        return idx
    raise ValueError(f"mode must be 'clip', 'wrap' or 'raise', got {mode!r}")


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "clip") -> Tensor:
    """``mindspore.numpy.take``: elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` for
    None); out-of-range indices are clipped (``mode='clip'``, the default) or wrapped (``'wrap'``)."""
    t = to_tensor(a)
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    ax = norm_axis(axis, t.ndim)
    idx = F.cast(to_tensor(indices), "int32")
    return F.gather(t, _index_mode(idx, t.shape[ax], mode), ax)


def take_along_axis(arr: Any, indices: Any, axis: int | None) -> Tensor:
    """``mindspore.numpy.take_along_axis``: ``arr`` gathered along ``axis`` by ``indices`` of the same number
    of dimensions (other axes broadcast); over the flattened input for None."""
    t = to_tensor(arr)
    idx = F.cast(to_tensor(indices), "int32")
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    ax = norm_axis(axis, t.ndim)
    if idx.ndim != t.ndim:
        raise ValueError(f"take_along_axis: indices have {idx.ndim} dimensions, arr {t.ndim}")
    shape_t = list(np.broadcast_shapes(tuple(s for i, s in enumerate(t.shape) if i != ax),
                                       tuple(s for i, s in enumerate(idx.shape) if i != ax)))
    full_t, full_i = list(shape_t), list(shape_t)
    full_t.insert(ax, t.shape[ax])
    full_i.insert(ax, idx.shape[ax])
    t = F.broadcast_to(t, tuple(full_t))
    idx = F.broadcast_to(idx, tuple(full_i))
    idx = F.select(F.less(idx, F.zeros_like(idx)), idx + t.shape[ax], idx)
    return F.gather_elements(t, ax, idx)


def choose(a: Any, choices: Any, mode: str = "clip") -> Tensor:
    """``mindspore.numpy.choose``: at each position the element of ``choices[a]`` (all broadcast together);
    out-of-range choices are clipped (default) or wrapped."""
    idx = F.cast(to_tensor(a), "int32")
    cs = promote(*[to_tensor(c) for c in choices]) if not isinstance(choices, Tensor) else \
        list(F.unstack(choices, 0))
    shape = tuple(np.broadcast_shapes(idx.shape, *[c.shape for c in cs]))
    stacked = F.stack([F.broadcast_to(c, shape) for c in cs], 0)
    idx = _index_mode(F.broadcast_to(idx, shape), len(cs), mode)
    return F.squeeze(F.gather_elements(stacked, 0, F.expand_dims(idx, 0)), 0)


def where(condition: Any, x: Any = None, y: Any = None):
    """``mindspore.numpy.where``: elements of ``x`` where ``condition`` holds, else of ``y`` (all broadcast,
    ``x`` and ``y`` promoted to one dtype); with only ``condition``, the indices of its non-zero elements."""
    cond = to_tensor(condition)
    if x is None and y is None:
        nz = F.argwhere(cond)
        return tuple(F.cast(c, "int32") for c in F.unstack(nz, 1)) if nz.shape[0] else \
            tuple(Tensor(np.zeros(0, np.int32)) for _ in range(cond.ndim))
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    a, b = promote(to_tensor(x), to_tensor(y))
    if cond.dtype.name != "bool":
        cond = F.not_equal(cond, F.zeros_like(cond))
    shape = tuple(np.broadcast_shapes(cond.shape, a.shape, b.shape))
    return F.select(F.broadcast_to(cond, shape), F.broadcast_to(a, shape), F.broadcast_to(b, shape))


def select(condlist: Any, choicelist: Any, default: Any = 0) -> Tensor:
    """``mindspore.numpy.select``: at each position the choice of the first true condition, else ``default``."""
    conds = [to_tensor(c, "bool") for c in condlist]
    choices = promote(*[to_tensor(c) for c in choicelist])
    if len(conds) != len(choices):
        raise ValueError(f"select: {len(conds)} conditions for {len(choices)} choices")
    out = to_tensor(default, choices[0].dtype)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = where(c, v, out)
    return out


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Tensor:
    """``mindspore.numpy.piecewise``: ``funclist[i]`` (a function of ``x`` or a value) where ``condlist[i]``
    holds; one extra function or value is the otherwise case."""
    t = to_tensor(x)
    conds = [condlist] if isinstance(condlist, Tensor) and condlist.shape == t.shape else list(condlist)
    conds = [to_tensor(c, "bool") for c in conds]
    if len(funclist) not in (len(conds), len(conds) + 1):
        raise ValueError(f"piecewise: {len(funclist)} functions for {len(conds)} conditions")

    def value(f: Any) -> Tensor:
        v = f(t, *args, **kw) if callable(f) else to_tensor(f)
        return F.broadcast_to(v, t.shape)

    vals = [value(f) for f in funclist]
    if len(vals) == len(conds):
        vals.append(F.zeros_like(vals[0]))
    out = vals[-1]
    for c, v in zip(reversed(conds), reversed(vals[:len(conds)])):
        out = where(c, v, out)
    return out


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """``mindspore.numpy.diagonal``: the diagonal ``offset`` of the ``axis1``/``axis2`` planes, as the last
    axis."""
    t = to_tensor(a)
    return F.diagonal(t, offset, norm_axis(axis1, t.ndim), norm_axis(axis2, t.ndim))


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Tensor, ...]:
    """``mindspore.numpy.unravel_index``: flat indices into a tuple of coordinate tensors (int32) of ``shape``
    (``order`` 'C' or 'F')."""
    if order not in ("C", "F"):
        raise ValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
    idx = F.cast(to_tensor(indices), "int32")
    dims = shape_tuple(shape)
    out = []
    rest = idx
    for d in (reversed(dims) if order == "C" else dims):
        div = to_tensor(d, "int32")
        out.append(F.remainder(rest, div))
        rest = F.floor_divide(rest, div)
    return tuple(reversed(out)) if order == "C" else tuple(out)


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "clip", order: str = "C") -> Tensor:
    """``mindspore.numpy.ravel_multi_index``: coordinate arrays into flat indices of ``dims`` (float32, as
    MindSpore's); out-of-range coordinates clipped or wrapped by ``mode``."""
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    dims = shape_tuple(dims)
    coords = to_tensor(multi_index)
    if coords.shape[0] != len(dims):
        raise ValueError(f"ravel_multi_index: {coords.shape[0]} coordinate arrays for {len(dims)} dimensions")
    coords = F.cast(coords, "int32")
    strides = np.ones(len(dims), dtype=np.int64)
    ordered = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for i in ordered:
        strides[i] = strides[i + 1] * dims[i + 1] if order == "C" else strides[i - 1] * dims[i - 1]
    total = None
    for i, d in enumerate(dims):
        c = _index_mode(coords[i], d, mode)
        term = F.cast(c, "float32") * float(strides[i])
        total = term if total is None else total + term
    return total


def argwhere(a: Any) -> Tensor:
    """``mindspore.numpy.argwhere``: the coordinates (int64, one row each) of the non-zero elements."""
    return F.argwhere(to_tensor(a))


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Tensor:
    """``mindspore.numpy.apply_along_axis``: ``func1d`` applied to every 1-d slice along ``axis``; the
    results (of one shape) take that axis's place."""
    t = to_tensor(arr)
    ax = norm_axis(axis, t.ndim)
    moved = F.moveaxis(t, ax, -1)
    outer = moved.shape[:-1]
    rows = F.unstack(F.reshape(moved, (-1, moved.shape[-1])), 0) if outer else [moved]
    res = [to_tensor(func1d(r, *args, **kwargs)) for r in rows]
    out = F.reshape(F.stack(res, 0), outer + res[0].shape)
    if res[0].ndim == 0:
        return out
    # The result's own axes go where ``axis`` was.
    order = list(range(len(outer)))
    tail = list(range(len(outer), out.ndim))
    return F.transpose(out, tuple(order[:ax] + tail + order[ax:]))


def apply_over_axes(func: Callable, a: Any, axes: Any) -> Tensor:
    """``mindspore.numpy.apply_over_axes``: ``func(a, axis)`` for each axis in turn, keeping the dimensions."""
    t = to_tensor(a)
    for ax in ([axes] if isinstance(axes, int) else list(axes)):
        ax = norm_axis(ax, t.ndim)
        res = to_tensor(func(t, ax))
        if res.ndim == t.ndim - 1:
            res = F.expand_dims(res, ax)
        elif res.ndim != t.ndim:
            raise ValueError("apply_over_axes: func must keep or drop exactly the one axis")
        t = res
    return t
