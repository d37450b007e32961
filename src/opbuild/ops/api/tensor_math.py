"""More functional-API math (``ops.sign``, ``ops.var``, ``ops.logsumexp``, ``ops.tril``, ...), written as
compositions of the registered primitives, so they trace and cache like the rest; the Tensor methods of the
same names (core/tensor_methods.py) call these.

Where a composition is not exact it says so (``log1p``/``expm1`` are computed as log(1 + x) / exp(x) - 1 and
lose relative precision for |x| below about 1e-4 in float32).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..registry import norm_axis
from . import array as A
from . import math as M
from .base import binary, promote


def _scalar_like(value, x: Tensor) -> Tensor:
    return Tensor(np.asarray(value, dtype=x.dtype.np_dtype))


def _count(x: Tensor, axis) -> int:
    if axis is None or axis == ():
        return x.size
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    return int(np.prod([x.shape[a] for a in axes]))


def _var_steps(x: Tensor, axis, ddof: int, keepdims: bool) -> Tensor:
    """The mean squared deviation of float ``x`` over ``axis`` divided by N - ddof, each step in x's dtype (the
    sums accumulate in float32 for the half types and are rounded once per step)."""
    centred = M.sub(x, M.mean(x, axis, True))
    n = _count(x, axis)
    total = M.sum(M.square(centred), axis, keepdims)
    return M.div(total, float(n - ddof))


def _rounded_once(x: Tensor, ddof) -> bool:
    """Whether ``ops.var``/``ops.std`` of ``x`` go through the standard deviation computed in float32 and
    rounded once: a float16/bfloat16 input with ddof 0 or 1, as MindSpore 2.10's ``ops.var``/``std`` take their
    ReduceStd kernel there (recorded: tests/fixtures/mindspore/half_var.json). Rounding each step to float16
    instead is off by an ulp or more, and its sum of squares overflows past 65504."""
    return x.dtype.is_half and not isinstance(ddof, float) and ddof in (0, 1)


def _std_once(x: Tensor, axis, ddof: int, keepdims: bool) -> Tensor:
    """The standard deviation of half-precision ``x`` computed in float32 and rounded once to x's dtype."""
    wide = _var_steps(M.cast(x, "float32"), axis, ddof, keepdims)
    return M.cast(M.sqrt(wide), x.dtype)


def var(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``ops.var(input, axis=None, ddof=0, keepdims=False)``: mean squared deviation over ``axis``, divided by
    N - ddof (integer input computes in float32). A float16/bfloat16 input with ddof 0 or 1 gives the square of
    :func:`std` (the standard deviation rounded once), as MindSpore 2.10's ``ops.var`` does: within 2 ulp of
    the exact variance, and no overflow of float16's range on the way."""
    x = M._float(as_tensor(input))
    if _rounded_once(x, ddof):
        return M.square(_std_once(x, axis, ddof, keepdims))
    return _var_steps(x, axis, ddof, keepdims)


def std(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``ops.std(input, axis=None, ddof=0, keepdims=False)``: the square root of :func:`var` (float16/bfloat16
    with ddof 0 or 1: computed in float32 and rounded once, as MindSpore 2.10's)."""
    x = M._float(as_tensor(input))
    if _rounded_once(x, ddof):
        return _std_once(x, axis, ddof, keepdims)
    return M.sqrt(_var_steps(x, axis, ddof, keepdims))


def tensor_var(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``Tensor.var``: the variance composed step by step in the input's dtype, whatever ddof, as MindSpore
    2.10's Tensor method does (recorded: its float16 results differ from ``ops.var``'s there)."""
    return _var_steps(M._float(as_tensor(input)), axis, ddof, keepdims)


def tensor_std(input, axis=None, ddof: int = 0, keepdims: bool = False) -> Tensor:
    """``Tensor.std``: the square root of :func:`tensor_var`."""
    return M.sqrt(tensor_var(input, axis, ddof, keepdims))


def var_mean(input, axis=None, ddof: int = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.var_mean(input, axis=None, ddof=0, keepdims=False)``: (variance, mean) over ``axis``."""
    x = M._float(as_tensor(input))
    return var(x, axis, ddof, keepdims), M.mean(x, axis, keepdims)


def std_mean(input, axis=None, ddof: int = 0, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """``ops.std_mean(input, axis=None, ddof=0, keepdims=False)``: (standard deviation, mean) over ``axis``."""
    x = M._float(as_tensor(input))
    return std(x, axis, ddof, keepdims), M.mean(x, axis, keepdims)


def lerp(input, end, weight) -> Tensor:
    """``ops.lerp(input, end, weight)``: input + weight * (end - input); integer and bool operands (MindSpore
    refuses them) interpolate in float32, so ``end - input`` cannot wrap in an unsigned type."""
    a, b = promote(input, end)
    a, b = M._float(a), M._float(b)
    return M.add(a, M.mul(weight, M.sub(b, a)))


def remainder(input, other) -> Tensor:
    """``ops.remainder(input, other)``: the remainder with the sign of the divisor (Python's %)."""
    return binary("FloorMod", input, other)


def fmod(input, other) -> Tensor:
    """``ops.fmod(input, other)``: the remainder with the sign of the dividend (C's fmod)."""
    return binary("Mod", input, other)


def floor_divide(input, other) -> Tensor:
    """``ops.floor_divide(input, other)``: division rounded toward minus infinity."""
    return binary("FloorDiv", input, other)


def _band(x: Tensor, diagonal: int, lower: bool) -> Tensor:
    if x.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'}: input must have at least 2 dims, got {x.ndim}")
    rows, cols = x.shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool) if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    return M.where(Tensor(keep), x, _scalar_like(0, x))


def tril(input, diagonal: int = 0) -> Tensor:
    """``ops.tril(input, diagonal=0)``: the lower triangle of the last two dims, zeros above ``diagonal``."""
    return _band(as_tensor(input), diagonal, True)


def triu(input, diagonal: int = 0) -> Tensor:
    """``ops.triu(input, diagonal=0)``: the upper triangle of the last two dims, zeros below ``diagonal``."""
    return _band(as_tensor(input), diagonal, False)


def diag(input) -> Tensor:
    """``ops.diag(input)``: a 1-D input as the diagonal of a square matrix; a k-D input of shape ``S`` gives
    the 2k-D tensor of shape ``S + S`` with ``input`` on its diagonal (zeros elsewhere)."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise ValueError("diag: input must be at least 1-D")
    shape = tuple(x.shape)
    n = int(np.prod(shape))
    flat = A.reshape(x, (n,))
    square = M.where(Tensor(np.eye(n, dtype=bool)), A.broadcast_to(flat, (n, n)), _scalar_like(0, x))
    return square if x.ndim == 1 else A.reshape(square, shape + shape)


def trace(input) -> Tensor:
    """``ops.trace(input)``: the sum of a 2-D input's main diagonal."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise ValueError(f"trace: input must be 2-D, got {x.ndim} dims")
    out = M.sum(M.where(Tensor(np.eye(*x.shape, dtype=bool)), x, _scalar_like(0, x)))
    # MindSpore 2.10 keeps an integer input's dtype (ops.sum would widen it to int64), recorded.
    return M.cast(out, x.dtype) if x.dtype.is_int and x.dtype.name != "bool" else out


def flip(input, dims: Sequence[int]) -> Tensor:
    """``ops.flip(input, dims)``: reverse the order of elements along ``dims``."""
    x = as_tensor(input)
    key = [slice(None)] * x.ndim
    for d in (dims,) if isinstance(dims, numbers.Integral) else dims:
        key[norm_axis("flip", d, x.ndim)] = slice(None, None, -1)
    return x[tuple(key)]


def narrow(input, axis: int, start: int, length: int) -> Tensor:
    """``ops.narrow(input, axis, start, length)``: ``length`` elements along ``axis`` from ``start``."""
    x = as_tensor(input)
    key = [slice(None)] * x.ndim
    key[norm_axis("narrow", axis, x.ndim)] = slice(start, start + length)
    return x[tuple(key)]


def masked_fill(input_x, mask, value) -> Tensor:
    """``ops.masked_fill(input_x, mask, value)``: ``value`` where ``mask`` is True, else input."""
    x = as_tensor(input_x)
    v = value if isinstance(value, Tensor) else _scalar_like(value, x)
    return M.where(mask, v, x)


def swapaxes(input, axis0: int, axis1: int) -> Tensor:
    """``ops.swapaxes(input, axis0, axis1)``: exchange two axes."""
    x = as_tensor(input)
    perm = list(range(x.ndim))
    a, b = norm_axis("swapaxes", axis0, x.ndim), norm_axis("swapaxes", axis1, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return A.transpose(x, tuple(perm))


def unstack(input_x, axis: int = 0) -> tuple[Tensor, ...]:
    """``ops.unstack(input_x, axis=0)``: the slices along ``axis``, that axis removed."""
    x = as_tensor(input_x)
    ax = norm_axis("unstack", axis, x.ndim)
    return tuple(x[(slice(None),) * ax + (i,)] for i in range(x.shape[ax]))


def unbind(input, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002 - MindSpore's argument names
    """``ops.unbind(input, dim=0)``: the slices along ``dim``, that axis removed (as :func:`unstack`)."""
    return unstack(input, dim)


def chunk(input, chunks: int, axis: int = 0) -> tuple[Tensor, ...]:
    """``ops.chunk(input, chunks, axis=0)``: ``chunks`` pieces of ceil(n / chunks) along ``axis``."""
    x = as_tensor(input)
    n = x.shape[norm_axis("chunk", axis, x.ndim)]
    size = -(-n // chunks)
    return A.split(x, size, axis)


def addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor:
    """``ops.addmm(input, mat1, mat2, *, beta=1, alpha=1)``: beta * input + alpha * (mat1 @ mat2)."""
    prod = A.matmul(mat1, mat2)
    return M.add(M.mul(input, beta) if beta != 1 else input, M.mul(prod, alpha) if alpha != 1 else prod)


_LN2, _LN10 = float(np.log(2.0)), float(np.log(10.0))


def log2(input) -> Tensor:
    """``ops.log2(input)``: log(x) / log(2)."""
    return M.div(M.log(M._float(as_tensor(input))), _LN2)


def log10(input) -> Tensor:
    """``ops.log10(input)``: log(x) / log(10)."""
    return M.div(M.log(M._float(as_tensor(input))), _LN10)


def exp2(input) -> Tensor:
    """``ops.exp2(input)``: 2 ** x."""
    x = M._float(as_tensor(input))
    return M.exp(M.mul(x, _LN2))


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``ops.isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False)``: |input - other| <= atol + rtol *
    |other| elementwise (NaNs equal when ``equal_nan``)."""
    a, b = as_tensor(input), as_tensor(other)
    # Integer and bool operands are compared in float32: a difference of bools has no kernel and one of unsigned
    # integers would wrap (MindSpore 2.10 takes two bool tensors, recorded).
    fa, fb = (a, b) if a.dtype.is_float or b.dtype.is_float else (M._float(a), M._float(b))
    close = M.le(M.abs(M.sub(fa, fb)), M.add(M.mul(M.abs(M._float(b)), rtol), atol))
    if a.dtype.is_float or b.dtype.is_float:  # an infinity is close only to itself (inf - -inf <= inf otherwise)
        finite = M.logical_and(M.isfinite(M._float(a)), M.isfinite(M._float(b)))
        close = M.logical_and(close, finite)
    close = M.logical_or(close, M.equal(a, b))  # equal infinities
    if equal_nan and (a.dtype.is_float or b.dtype.is_float):
        close = M.logical_or(close, M.logical_and(M.isnan(M._float(a)), M.isnan(M._float(b))))
    return close


def index_select(input, axis: int, index) -> Tensor:
    """``ops.index_select(input, axis, index)``: the slices along ``axis`` at the 1-D ``index``."""
    return A.gather(input, index, axis)


def roll(input, shifts, dims=None) -> Tensor:
    """``ops.roll(input, shifts, dims=None)``: elements shifted along ``dims`` (None: of the flattened input),
    wrapping around; one Gather per axis with constant indices."""
    x = as_tensor(input)
    if dims is None:
        flat = A.reshape(x, (-1,))
        return A.reshape(roll(flat, shifts, 0), x.shape)
    shifts = (shifts,) if isinstance(shifts, numbers.Integral) else tuple(shifts)
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts {shifts} and dims {dims} must have the same length")
    for s, d in zip(shifts, dims):
        n = x.shape[norm_axis("roll", d, x.ndim)]
        x = apply("Gather", {"axis": d % x.ndim}, [x, Tensor((np.arange(n) - s) % n)])
    return x


def repeat_elements(x, rep: int, axis: int = 0) -> Tensor:
    """``ops.repeat_elements(x, rep, axis=0)``: each element repeated ``rep`` times along ``axis``."""
    t = as_tensor(x)
    ax = norm_axis("repeat_elements", axis, t.ndim)
    return apply("Gather", {"axis": ax}, [t, Tensor(np.repeat(np.arange(t.shape[ax]), rep))])


__all__ = ["log2", "log10", "exp2", "isclose", "index_select", "roll", "repeat_elements",
           "var", "std", "var_mean", "std_mean",
           "lerp", "remainder", "fmod", "floor_divide", "tril", "triu",
           "diag", "trace", "flip", "narrow", "masked_fill", "swapaxes", "unstack", "unbind", "chunk", "addmm"]
