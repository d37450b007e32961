"""``mindspore.numpy`` reductions and scans: sum/mean/std/var, amax/amin/ptp, average, the NaN-ignoring
variants, cumulative sums and products, count_nonzero, argmax/argmin, diff/ediff1d/gradient.

MindSpore 2.10's dtype rules: an integer sum is int64; the mean of integers stays in their dtype (the quotient
truncated towards zero); variances are float32; running sums of integers narrower than 32 bits are int32;
argmax/argmin give int64 and count_nonzero int32. Compositions of opbuild's ops (traceable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import as_float, cast_out, check_dtype, is_float, norm_axes, norm_axis, promote, to_tensor

__all__ = ["sum", "mean", "std", "var", "amax", "amin", "max", "min", "ptp", "average", "nansum", "nanmean",
           "nanstd", "nanvar", "nanmax", "nanmin", "cumsum", "cumprod", "nancumsum", "count_nonzero", "argmax",
           "argmin", "diff", "ediff1d", "gradient"]


def _axes(t: Tensor, axis: Any) -> tuple[int, ...]:
    return norm_axes(axis, t.ndim)


def sum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False,  # noqa: A001 - NumPy's name
        initial: Any = None) -> Tensor:
    """``mindspore.numpy.sum``: the sum over ``axis`` (all axes for None), plus ``initial``; integers sum to
    int64, floats keep their dtype."""
    t = to_tensor(a)
    dt = check_dtype(dtype)
    if t.dtype.name == "bool":
        t = F.cast(t, "int32")
    if dt is not None:
        t = cast_out(t, dt)
    out = F.sum(t, _axes(t, axis), keepdims) if t.ndim else t
    if initial is not None:
        out = F.add(*promote(out, to_tensor(initial)))
    return out


def mean(a: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.mean``: the arithmetic mean over ``axis``; integer input gives its own dtype, the
    quotient truncated towards zero, as MindSpore's does."""
    t = to_tensor(a)
    axes = _axes(t, axis)
    if not t.ndim or not axes:
        return cast_out(t, dtype)
    if is_float(t):
        return cast_out(F.mean(t, axes, keepdims), dtype)
    n = float(np.prod([t.shape[i] for i in axes]))
    total = F.cast(F.sum(t, axes, keepdims), "float64")
    return cast_out(F.cast(F.trunc(total / n), t.dtype), dtype)


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.var``: the variance ``sum((x - mean)**2) / (n - ddof)`` over ``axis``, float32 for
    integers (whose mean is MindSpore's truncated integer :func:`mean`)."""
    t = to_tensor(x)
    axes = _axes(t, axis)
    n = int(np.prod([t.shape[i] for i in axes])) if axes else 1
    dev = as_float(t - mean(t, axes, True)) if axes else as_float(t - t)
    out = F.sum(F.square(dev), axes, keepdims) if axes else F.square(dev)
    return out / float(n - ddof)


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.std``: the square root of :func:`var`."""
    return F.sqrt(var(x, axis, ddof, keepdims))


def _extreme(a: Any, axis: Any, keepdims: bool, initial: Any, where: Any, largest: bool) -> Tensor:
    t = to_tensor(a)
    if where is not None and not (isinstance(where, bool) and where):
        if initial is None:
            raise ValueError("amax/amin: a where= mask needs initial= (the value of the masked-out elements)")
        mask = F.broadcast_to(to_tensor(where, "bool"), t.shape)
        t = F.select(mask, t, F.full_like(t, initial))
    axes = _axes(t, axis)
    reduce = F.amax if largest else F.amin
    out = reduce(t, axes, keepdims) if axes else t
    if initial is not None:
        init = to_tensor(initial, out.dtype)
        out = F.maximum(out, init) if largest else F.minimum(out, init)
    return out


def amax(a: Any, axis: Any = None, keepdims: bool = False, initial: Any = None, where: Any = True) -> Tensor:
    """``mindspore.numpy.amax``: the maximum over ``axis``; ``where`` masks elements out (with ``initial``)."""
    return _extreme(a, axis, keepdims, initial, where, True)


def amin(a: Any, axis: Any = None, keepdims: bool = False, initial: Any = None, where: Any = True) -> Tensor:
    """``mindspore.numpy.amin``: the minimum over ``axis``; ``where`` masks elements out (with ``initial``)."""
    return _extreme(a, axis, keepdims, initial, where, False)


max = amax  # noqa: A001 - NumPy's name
min = amin  # noqa: A001 - NumPy's name


def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.ptp``: max - min over ``axis``."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def average(x: Any, axis: Any = None, weights: Any = None, returned: bool = False):
    """``mindspore.numpy.average``: the (weighted) mean over ``axis``; ``returned`` also gives the sum of the
    weights. 1-d weights weigh the elements along a single ``axis``."""
    if weights is None:
        # Unweighted it is the mean (integers stay integers, as MindSpore's); the weight sum is the count.
        out = mean(x, axis)
        if not returned:
            return out
        t = to_tensor(x)
        n = int(np.prod([t.shape[i] for i in _axes(t, axis)]))
        return out, F.full_like(out, n)
    t = as_float(to_tensor(x))
    axes = _axes(t, axis)
    w = as_float(to_tensor(weights))
    if w.shape != t.shape:
        if w.ndim != 1 or len(axes) != 1 or w.shape[0] != t.shape[axes[0]]:
            raise ValueError(f"average: weights of shape {w.shape} match neither x {t.shape} nor its axis")
        shape = [1] * t.ndim
        shape[axes[0]] = w.shape[0]
        w = F.broadcast_to(F.reshape(w, tuple(shape)), t.shape)
    t, w = promote(t, w)
    wsum = F.sum(w, axes)
    out = F.sum(t * w, axes) / wsum
    return (out, wsum) if returned else out


def _nan_free(a: Any, fill: float) -> tuple[Tensor, Tensor]:
    t = as_float(to_tensor(a))
    isnan = F.isnan(t)
    return F.select(isnan, F.full_like(t, fill), t), F.logical_not(isnan)


def nansum(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nansum``: the sum treating NaN as zero."""
    t, _ = _nan_free(a, 0.0)
    return cast_out(F.sum(t, _axes(t, axis), keepdims), dtype)


def nanmean(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nanmean``: the mean of the non-NaN elements."""
    t, ok = _nan_free(a, 0.0)
    axes = _axes(t, axis)
    out = F.sum(t, axes, keepdims) / F.sum(F.cast(ok, t.dtype), axes, keepdims)
    return cast_out(out, dtype)


def nanvar(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nanvar``: the variance of the non-NaN elements."""
    t, ok = _nan_free(a, 0.0)
    axes = _axes(t, axis)
    count = F.sum(F.cast(ok, t.dtype), axes, True)
    mu = F.sum(t, axes, True) / count
    dev = F.select(ok, t - mu, F.zeros_like(t))
    out = F.sum(F.square(dev), axes, True) / (count - float(ddof))
    if not keepdims:
        out = F.reshape(out, tuple(s for i, s in enumerate(out.shape) if i not in axes))
    return cast_out(out, dtype)


def nanstd(a: Any, axis: Any = None, dtype: Any = None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nanstd``: the standard deviation of the non-NaN elements."""
    return cast_out(F.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def nanmax(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nanmax``: the maximum ignoring NaN."""
    t, _ = _nan_free(a, -np.inf)
    return cast_out(F.amax(t, _axes(t, axis), keepdims), dtype)


def nanmin(a: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.nanmin``: the minimum ignoring NaN."""
    t, _ = _nan_free(a, np.inf)
    return cast_out(F.amin(t, _axes(t, axis), keepdims), dtype)


def _scan(a: Any, axis: Any, dtype: Any, op) -> Tensor:
    t = to_tensor(a)
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    if dtype is None and (t.dtype.name == "bool" or (t.dtype.is_int and t.dtype.np_dtype.itemsize < 4)):
        t = F.cast(t, "int32")
    t = cast_out(t, dtype)
    # The input's own dtype, given: ops.cumprod widens integers to int64, mindspore.numpy keeps int32.
    return op(t, norm_axis(axis, t.ndim), t.dtype)


def cumsum(a: Any, axis: Any = None, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.cumsum``: running sums along ``axis`` (over the flattened input for None)."""
    return _scan(a, axis, dtype, F.cumsum)


def cumprod(a: Any, axis: Any = None, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.cumprod``: running products along ``axis`` (over the flattened input for None)."""
    return _scan(a, axis, dtype, F.cumprod)


def nancumsum(a: Any, axis: Any = None, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.nancumsum``: running sums treating NaN as zero."""
    t, _ = _nan_free(a, 0.0)
    return _scan(t, axis, dtype, F.cumsum)


def count_nonzero(x: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """``mindspore.numpy.count_nonzero``: the number of non-zero elements over ``axis`` (int32)."""
    t = to_tensor(x)
    nz = F.cast(F.not_equal(t, F.zeros_like(t)), "int32")
    return F.cast(F.sum(nz, _axes(t, axis), keepdims), "int32") if t.ndim else nz


def _arg(a: Any, axis: Any, op) -> Tensor:
    t = to_tensor(a)
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    return op(t, norm_axis(axis, t.ndim))


def argmax(a: Any, axis: int | None = None) -> Tensor:
    """``mindspore.numpy.argmax``: the index of the largest element along ``axis`` (of the flattened input for
    None), int64; ties give the first."""
    return _arg(a, axis, F.argmax)


def argmin(a: Any, axis: int | None = None) -> Tensor:
    """``mindspore.numpy.argmin``: the index of the smallest element along ``axis``, int64."""
    return _arg(a, axis, F.argmin)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Tensor:
    """``mindspore.numpy.diff``: the ``n``-th discrete difference along ``axis``."""
    t = to_tensor(a)
    ax = norm_axis(axis, t.ndim)

    def edge(v: Any) -> Tensor:
        e = to_tensor(v, t.dtype)
        if e.ndim == 0:
            shape = list(t.shape)
            shape[ax] = 1
            e = F.broadcast_to(e, tuple(shape))
        return e

    if prepend is not None:
        t = F.concat([edge(prepend), t], ax)
    if append is not None:
        t = F.concat([t, edge(append)], ax)
    for _ in range(n):
        length = t.shape[ax]
        t = F.narrow(t, ax, 1, length - 1) - F.narrow(t, ax, 0, length - 1)
    return t


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Tensor:
    """``mindspore.numpy.ediff1d``: differences of the flattened input, with optional values around them."""
    t = F.reshape(to_tensor(ary), (-1,))
    out = diff(t)
    parts = [out]
    if to_begin is not None:
        parts.insert(0, F.reshape(to_tensor(to_begin, t.dtype), (-1,)))
    if to_end is not None:
        parts.append(F.reshape(to_tensor(to_end, t.dtype), (-1,)))
    return F.concat(parts, 0) if len(parts) > 1 else out


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1):
    """``mindspore.numpy.gradient``: central differences inside, one-sided (first order) at the edges, along
    each of ``axis`` (all axes for None); ``varargs`` are scalar spacings. A list for several axes."""
    if edge_order != 1:
        raise ValueError("gradient: only edge_order=1 is supported")
    t = as_float(to_tensor(f))
    axes = _axes(t, axis)
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [float(varargs[0])] * len(axes)
    elif len(varargs) == len(axes):
        spacing = [float(v) for v in varargs]
    else:
        raise ValueError(f"gradient: give one spacing or one per axis ({len(axes)}), got {len(varargs)}")
    out = []
    for ax, h in zip(axes, spacing):
        n = t.shape[ax]
        if n < 2:
            raise ValueError(f"gradient: axis {ax} needs at least 2 elements")
        first = (F.narrow(t, ax, 1, 1) - F.narrow(t, ax, 0, 1)) / h
        last = (F.narrow(t, ax, n - 1, 1) - F.narrow(t, ax, n - 2, 1)) / h
        parts = [first]
        if n > 2:
            parts.append((F.narrow(t, ax, 2, n - 2) - F.narrow(t, ax, 0, n - 2)) / (2.0 * h))
        parts.append(last)
        out.append(F.concat(parts, ax))
    return out[0] if len(out) == 1 else out
