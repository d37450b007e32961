"""Further functional-API compositions MindSpore's Tensor methods use (``ops.trunc``, ``ops.hypot``,
``ops.outer``, ``ops.diagonal``, ``ops.nansum``, ...), each written over registered primitives so it traces
and caches like the rest (see tensor_math.py for the first group)."""

from __future__ import annotations

import math as _pymath
import numbers
from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..registry import norm_axis
from . import array as A
from . import math as M
from . import tensor_math as T
from .base import promote
from .math_misc import isinf, trunc


def frac(input) -> Tensor:
    """``ops.frac(input)``: x - trunc(x); zeros for an integer tensor (int64 ones for bool, as MindSpore)."""
    x = as_tensor(input)
    if x.dtype.name == "bool":
        return M.cast(M.logical_and(x, False), "int64")
    return M.sub(x, trunc(x))


def isposinf(input) -> Tensor:
    """``ops.isposinf(input)``: True where the element is +inf."""
    return M.logical_and(isinf(input), M.gt(input, 0))


def isneginf(input) -> Tensor:
    """``ops.isneginf(input)``: True where the element is -inf."""
    return M.logical_and(isinf(input), M.lt(input, 0))


def nan_to_num(input, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """``ops.nan_to_num(input, nan=0.0, posinf=None, neginf=None)``: NaN, +inf and -inf replaced (by default
    with 0 and the dtype's largest and lowest finite values)."""
    x = as_tensor(input)
    if not x.dtype.is_float:
        return x
    info = np.finfo(x.dtype.np_dtype if x.dtype.name != "bfloat16" else np.float32)
    big = float(info.max) if posinf is None else posinf
    small = float(info.min) if neginf is None else neginf
    x = M.where(M.isnan(x), nan, x)
    x = M.where(isposinf(x), big, x)
    return M.where(isneginf(x), small, x)


def nansum(input, axis=None, keepdims: bool = False, *, dtype=None) -> Tensor:
    """``ops.nansum(input, axis=None, keepdims=False, *, dtype=None)``: the sum with NaNs counted as zero."""
    x = as_tensor(input)
    if x.dtype.is_float:
        x = M.where(M.isnan(x), 0.0, x)
    out = M.sum(x, axis, keepdims, dtype=dtype)
    # Unlike ops.sum, MindSpore 2.10 keeps an integer input's dtype (bool sums as int64), recorded.
    keep = dtype is None and x.dtype.is_int and x.dtype.name != "bool"
    return M.cast(out, x.dtype) if keep else out


def nanmean(input, axis=None, keepdims: bool = False, *, dtype=None) -> Tensor:
    """``ops.nanmean(input, axis=None, keepdims=False, *, dtype=None)``: the mean of the non-NaN elements."""
    x = as_tensor(input) if dtype is None else M.cast(input, dtype)
    valid = M.logical_not(M.isnan(x))
    total = M.sum(M.where(valid, x, 0.0), axis, keepdims)
    return M.div(total, M.cast(M.sum(valid, axis, keepdims), x.dtype))


def hypot(input, other) -> Tensor:
    """``ops.hypot(input, other)``: sqrt(input**2 + other**2)."""
    return M.sqrt(M.add(M.square(M._float(as_tensor(input))), M.square(M._float(as_tensor(other)))))


def logaddexp(input, other) -> Tensor:
    """``ops.logaddexp(input, other)``: log(exp(input) + exp(other)), without overflow."""
    a, b = M._float(as_tensor(input)), M._float(as_tensor(other))
    top = M.maximum(a, b)
    return M.add(top, M.log(M.add(M.exp(M.sub(a, top)), M.exp(M.sub(b, top)))))


def logaddexp2(input, other) -> Tensor:
    """``ops.logaddexp2(input, other)``: log2(2**input + 2**other)."""
    ln2 = _pymath.log(2.0)
    return M.div(logaddexp(M.mul(input, ln2), M.mul(other, ln2)), ln2)


def xlogy(input, other) -> Tensor:
    """``ops.xlogy(input, other)``: input * log(other), MindSpore's formula as written (0 * log(0) is NaN there,
    recorded; no zero rule)."""
    x, y = promote(input, other)  # an integer with a float16 tensor computes in float16, as MindSpore
    x, y = M._float(x), M._float(y)
    return M.mul(x, M.log(y))


def xdivy(x, y) -> Tensor:
    """``ops.xdivy(x, y)``: x / y, 0 where x is 0."""
    a, b = as_tensor(x), as_tensor(y)
    return M.where(M.equal(a, 0), 0.0, M.div(a, b))


def float_power(input, exponent) -> Tensor:
    """``ops.float_power(input, exponent)``: the power computed in float64."""
    return M.pow(M.cast(input, "float64"), M.cast(exponent, "float64") if isinstance(exponent, Tensor)
                 else float(exponent))


def fmax(input, other) -> Tensor:
    """``ops.fmax(input, other)``: elementwise max ignoring NaN (NaN only where both are)."""
    a, b = promote(input, other)
    both = M.maximum(a, b)
    if not a.dtype.is_float:
        return both
    return M.where(M.isnan(a), b, M.where(M.isnan(b), a, both))


def fmin(input, other) -> Tensor:
    """``ops.fmin(input, other)``: elementwise min ignoring NaN (NaN only where both are)."""
    a, b = promote(input, other)
    both = M.minimum(a, b)
    if not a.dtype.is_float:
        return both
    return M.where(M.isnan(a), b, M.where(M.isnan(b), a, both))


def heaviside(input, values) -> Tensor:
    """``ops.heaviside(input, values)``: 0 below zero, 1 above, ``values`` at zero."""
    x = as_tensor(input)
    v = as_tensor(values, x)
    return M.where(M.lt(x, 0), T._scalar_like(0, x), M.where(M.gt(x, 0), T._scalar_like(1, x), v))


def deg2rad(x) -> Tensor:
    """``ops.deg2rad(x)``: degrees to radians."""
    return M.mul(M._float(as_tensor(x)), _pymath.pi / 180.0)


def rad2deg(x) -> Tensor:
    """``ops.rad2deg(x)``: radians to degrees."""
    return M.mul(M._float(as_tensor(x)), 180.0 / _pymath.pi)


def erfc(input) -> Tensor:
    """``ops.erfc(input)``: 1 - erf(x) (computed as that difference)."""
    return M.sub(1.0, M.erf(input))


def logit(input, eps: float | None = None) -> Tensor:
    """``ops.logit(input, eps=None)``: log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given."""
    x = M._float(as_tensor(input))
    if eps is not None:
        x = M.clamp(x, eps, 1.0 - eps)
    return M.log(M.div(x, M.sub(1.0, x)))


def outer(input, vec2) -> Tensor:
    """``ops.outer(input, vec2)``: the outer product of two 1-D tensors."""
    a, b = as_tensor(input), as_tensor(vec2)
    return M.mul(A.reshape(a, (a.shape[0], 1)), A.reshape(b, (1, b.shape[0])))


def inner(input, other) -> Tensor:
    """``ops.inner(input, other)``: sums of products over the last axes."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return M.mul(a, b)
    return A.matmul(a, T.swapaxes(b, -1, -2) if b.ndim > 1 else b)


def addmv(input, mat, vec, *, beta=1, alpha=1) -> Tensor:
    """``ops.addmv(input, mat, vec, *, beta=1, alpha=1)``: beta * input + alpha * (mat @ vec)."""
    return T.addmm(input, mat, vec, beta=beta, alpha=alpha)


def addr(x, vec1, vec2, *, beta=1, alpha=1) -> Tensor:
    """``ops.addr(x, vec1, vec2, *, beta=1, alpha=1)``: beta * x + alpha * outer(vec1, vec2)."""
    prod = outer(vec1, vec2)
    return M.add(M.mul(x, beta) if beta != 1 else x, M.mul(prod, alpha) if alpha != 1 else prod)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1) -> Tensor:
    """``ops.baddbmm(input, batch1, batch2, *, beta=1, alpha=1)``: beta * input + alpha * (batch1 @ batch2)."""
    prod = A.bmm(batch1, batch2)
    return M.add(M.mul(input, beta) if beta != 1 else input, M.mul(prod, alpha) if alpha != 1 else prod)


def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None) -> Tensor:
    """``ops.diff(x, n=1, axis=-1, prepend=None, append=None)``: the n-th forward difference along ``axis``,
    ``prepend``/``append`` joined to ``x`` along ``axis`` first."""
    t = as_tensor(x)
    ax = norm_axis("diff", axis, t.ndim)
    if prepend is not None or append is not None:
        parts = [as_tensor(p, t) for p in (prepend, t, append) if p is not None]
        t = apply("Concat", {"axis": ax}, [p if p.dtype == t.dtype else apply("Cast", {"dtype": t.dtype.name}, [p])
                                           for p in parts])
    for _ in range(n):
        hi = t[(slice(None),) * ax + (slice(1, None),)]
        lo = t[(slice(None),) * ax + (slice(None, -1),)]
        t = M.logical_xor(hi, lo) if t.dtype.name == "bool" else M.sub(hi, lo)
    return t


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``ops.diagonal(input, offset=0, dim1=0, dim2=1)``: the diagonal of the (dim1, dim2) planes, as the last
    axis (a Gather of the flattened plane with constant indices)."""
    x = as_tensor(input)
    d1, d2 = norm_axis("diagonal", dim1, x.ndim), norm_axis("diagonal", dim2, x.ndim)
    rest = [d for d in range(x.ndim) if d not in (d1, d2)]
    moved = A.transpose(x, (*rest, d1, d2))
    rows, cols = x.shape[d1], x.shape[d2]
    r = np.arange(max(0, -offset), min(rows, cols - offset)) if cols - offset > 0 else np.arange(0)
    flat = A.reshape(moved, (*[x.shape[d] for d in rest], rows * cols))
    return apply("Gather", {"axis": len(rest)}, [flat, Tensor((r * cols + r + offset).astype(np.int64))])


def rot90(input, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """``ops.rot90(input, k=1, dims=(0, 1))``: rotate by 90 degrees ``k`` times in the plane ``dims``."""
    x = as_tensor(input)
    d0, d1 = dims
    for _ in range(k % 4):
        x = T.swapaxes(T.flip(x, (d1,)), d0, d1)
    return x


def moveaxis(x, source, destination) -> Tensor:
    """``ops.moveaxis(x, source, destination)``: move axes to new positions, the others keeping their order."""
    t = as_tensor(x)
    src, dst = ([norm_axis("moveaxis", a, t.ndim) for a in ((v,) if isinstance(v, numbers.Integral) else v)]
                for v in (source, destination))
    order = [d for d in range(t.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return A.transpose(t, tuple(order))


def take(x, indices) -> Tensor:
    """``Tensor.take(indices)``: elements of the flattened tensor at ``indices``."""
    return A.gather(A.reshape(x, (-1,)), indices, 0)


def gather_elements(input, dim: int, index) -> Tensor:
    """``ops.gather_elements(input, dim, index)``: input[..., index[i][j], ...] along ``dim`` (GatherD)."""
    return apply("GatherD", {"dim": dim, "bounds": "raise"}, [as_tensor(input), as_tensor(index)])


def ptp(input, axis=None, keepdims: bool = False) -> Tensor:
    """``Tensor.ptp(axis=None, keepdims=False)``: max - min over ``axis``."""
    return M.sub(M.amax(input, axis, keepdims), M.amin(input, axis, keepdims))


def _first_wins(x: Tensor, axis: int, keepdims: bool, largest: bool) -> Tensor:
    """The extreme along ``axis`` as MindSpore's CPU kernel scans it: from the first element, taking each
    strictly smaller (larger) one, so a NaN is kept when it comes first and skipped anywhere else."""
    red = "ReduceMax" if largest else "ReduceMin"
    if not x.dtype.is_float:
        return apply(red, {"axis": (axis,), "keep_dims": keepdims}, [x])
    nan = apply("IsNan", {}, [x])
    fill = apply("Add", {}, [apply("ZerosLike", {}, [x]), Tensor(np.asarray(-np.inf if largest else np.inf,
                                                                          x.dtype.np_dtype))])
    out = apply(red, {"axis": (axis,), "keep_dims": True}, [apply("Select", {}, [nan, fill, x])])
    begin = [0] * x.ndim
    size = list(x.shape)
    size[axis] = 1
    first = apply("Slice", {"begin": tuple(begin), "size": tuple(size)}, [x])
    out = apply("Select", {}, [apply("IsNan", {}, [first]), first, out])
    return out if keepdims else apply("Squeeze", {"axis": (axis,)}, [out])


def aminmax(input, *, axis: int | None = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.aminmax(input, *, axis=0, keepdims=False)``: (minimum, maximum) over ``axis`` (None: every
    element; ``keepdims`` then keeps every axis as 1). NaN as MindSpore's kernel: kept only when it is the
    first element scanned (ops/api/more_math.py ``_first_wins``)."""
    x = as_tensor(input)
    if x.size == 0:
        raise ValueError("aminmax: input must not be empty")
    if axis is None:
        flat = apply("Reshape", {"shape": (-1,)}, [x])
        lo, hi = _first_wins(flat, 0, False, False), _first_wins(flat, 0, False, True)
        if keepdims:
            shape = (1,) * x.ndim
            lo, hi = apply("Reshape", {"shape": shape}, [lo]), apply("Reshape", {"shape": shape}, [hi])
        return lo, hi
    if isinstance(axis, bool) or not isinstance(axis, int) or not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise ValueError(f"aminmax: axis must be None or an int in [-{x.ndim}, {x.ndim}), got {axis!r}")
    if x.ndim == 0:
        return x, x
    axis %= x.ndim
    return _first_wins(x, axis, keepdims, False), _first_wins(x, axis, keepdims, True)


def _extreme_value(dtype, largest: bool):
    """The value that never wins: -inf (or the lowest integer) when taking maxima, +inf (highest) for minima."""
    if dtype.is_float:
        return float("-inf") if largest else float("inf")
    info = np.iinfo(dtype.np_dtype) if dtype.name != "bool" else None
    if info is None:
        raise TypeError("topk/sort: bool tensors are not supported; cast to an integer dtype first")
    return int(info.min) if largest else int(info.max)


__all__ = ["frac", "isposinf", "isneginf", "nan_to_num", "nansum", "nanmean", "hypot",
           "logaddexp", "logaddexp2", "xlogy", "xdivy", "float_power", "fmax", "fmin", "heaviside", "deg2rad",
           "rad2deg", "erfc", "logit", "outer", "inner", "addmv", "addr", "baddbmm", "diff", "diagonal",
           "rot90", "moveaxis", "gather_elements", "aminmax"]
