"""``mindspore.numpy`` joining, splitting, repeating and padding: concatenate/append/stack and the h/v/d/column
variants, split/array_split and the h/v/d variants, tile, repeat and pad. Compositions of opbuild's ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import norm_axis, promote, to_tensor

__all__ = ["concatenate", "append", "stack", "hstack", "vstack", "dstack", "column_stack", "split", "array_split",
           "hsplit", "vsplit", "dsplit", "tile", "repeat", "pad"]


def _tensors(arrays: Any) -> list[Tensor]:
    if isinstance(arrays, Tensor):
        return list(F.unstack(arrays, 0))
    if not isinstance(arrays, Sequence) or not arrays:
        raise TypeError("expected a non-empty list or tuple of tensors")
    return promote(*[to_tensor(a) for a in arrays])


def concatenate(arrays: Any, axis: int | None = 0) -> Tensor:
    """``mindspore.numpy.concatenate``: the arrays joined along ``axis`` (flattened first for None)."""
    ts = _tensors(arrays)
    if axis is None:
        return F.concat([F.reshape(t, (-1,)) for t in ts], 0)
    return F.concat(ts, norm_axis(axis, ts[0].ndim))


def append(arr: Any, values: Any, axis: int | None = None) -> Tensor:
    """``mindspore.numpy.append``: ``values`` joined after ``arr`` along ``axis`` (flattened for None)."""
    return concatenate([arr, values], axis)


def stack(arrays: Any, axis: int = 0) -> Tensor:
    """``mindspore.numpy.stack``: the same-shaped arrays joined along a new ``axis``."""
    ts = _tensors(arrays)
    return F.stack(ts, norm_axis(axis, ts[0].ndim + 1))


def hstack(tup: Any) -> Tensor:
    """``mindspore.numpy.hstack``: joined along axis 1 (axis 0 for 1-d inputs)."""
    ts = _tensors(tup)
    return F.concat(ts, 0 if ts[0].ndim <= 1 else 1)


def vstack(tup: Any) -> Tensor:
    """``mindspore.numpy.vstack``: joined along axis 0, 1-d inputs as rows."""
    ts = [F.reshape(t, (1, -1)) if t.ndim <= 1 else t for t in _tensors(tup)]
    return F.concat(ts, 0)


def dstack(tup: Any) -> Tensor:
    """``mindspore.numpy.dstack``: joined along axis 2 ((N,) as (1, N, 1), (M, N) as (M, N, 1))."""
    out = []
    for t in _tensors(tup):
        if t.ndim <= 1:
            t = F.reshape(t, (1, -1, 1))
        elif t.ndim == 2:
            t = F.reshape(t, t.shape + (1,))
        out.append(t)
    return F.concat(out, 2)


def column_stack(tup: Any) -> Tensor:
    """``mindspore.numpy.column_stack``: 1-d inputs as columns, joined along axis 1."""
    ts = [F.reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in _tensors(tup)]
    return F.concat(ts, 1)


def _split(t: Tensor, indices_or_sections: Any, axis: int, even: bool) -> tuple[Tensor, ...]:
    ax = norm_axis(axis, t.ndim)
    n = t.shape[ax]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"split: the number of sections must be positive, got {k}")
        if even and n % k:
            raise ValueError(f"split: axis {ax} of length {n} does not divide into {k} equal sections; use "
                             "array_split for unequal ones")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = list(np.cumsum([0] + sizes))
    else:
        idx = [int(i) for i in indices_or_sections]
        bounds = [0] + [min(max(i if i >= 0 else i + n, 0), n) for i in idx] + [n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        length = max(int(hi) - int(lo), 0)
        out.append(F.narrow(t, ax, min(int(lo), n), length) if length else _empty_part(t, ax))
    return tuple(out)


def _empty_part(t: Tensor, ax: int) -> Tensor:
    shape = list(t.shape)
    shape[ax] = 0
    return Tensor(np.zeros(shape, dtype=t.dtype.np_dtype))


def split(x: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
    """``mindspore.numpy.split``: ``x`` cut into equal sections (an int) or at the given indices (a tuple)."""
    return _split(to_tensor(x), indices_or_sections, axis, True)


def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> tuple[Tensor, ...]:
    """``mindspore.numpy.array_split``: as :func:`split`, but sections may differ by one (the first longer)."""
    return _split(to_tensor(x), indices_or_sections, axis, False)


def hsplit(x: Any, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``mindspore.numpy.hsplit``: split along axis 1 (axis 0 for 1-d input)."""
    t = to_tensor(x)
    return _split(t, indices_or_sections, 0 if t.ndim == 1 else 1, True)


def vsplit(x: Any, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``mindspore.numpy.vsplit``: split along axis 0 (input of at least 2 dimensions)."""
    t = to_tensor(x)
    if t.ndim < 2:
        raise ValueError("vsplit needs a tensor of at least 2 dimensions")
    return _split(t, indices_or_sections, 0, True)


def dsplit(x: Any, indices_or_sections: Any) -> tuple[Tensor, ...]:
    """``mindspore.numpy.dsplit``: split along axis 2 (input of at least 3 dimensions)."""
    t = to_tensor(x)
    if t.ndim < 3:
        raise ValueError("dsplit needs a tensor of at least 3 dimensions")
    return _split(t, indices_or_sections, 2, True)


def tile(a: Any, reps: Any) -> Tensor:
    """``mindspore.numpy.tile``: ``a`` repeated ``reps`` times per axis (the shorter of the two padded with
    leading ones)."""
    t = to_tensor(a)
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    nd = len(reps) if len(reps) > t.ndim else t.ndim
    t = F.reshape(t, (1,) * (nd - t.ndim) + t.shape)
    reps = (1,) * (nd - len(reps)) + reps
    return F.tile(t, reps)


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Tensor:
    """``mindspore.numpy.repeat``: each element repeated ``repeats`` times (an int, or one count per element)
    along ``axis`` (of the flattened input for None)."""
    t = to_tensor(a)
    if axis is None:
        t, axis = F.reshape(t, (-1,)), 0
    ax = norm_axis(axis, t.ndim)
    if isinstance(repeats, (int, np.integer)):
        return F.repeat_interleave(t, int(repeats), ax)
    counts = [int(r) for r in repeats]
    if len(counts) == 1:
        return F.repeat_interleave(t, counts[0], ax)
    if len(counts) != t.shape[ax]:
        raise ValueError(f"repeat: {len(counts)} counts for an axis of length {t.shape[ax]}")
    parts = [F.repeat_interleave(F.narrow(t, ax, i, 1), c, ax) for i, c in enumerate(counts) if c > 0]
    return F.concat(parts, ax)


def _pairs(width: Any, nd: int, name: str) -> list[tuple[Any, Any]]:
    arr = np.asarray(width, dtype=object)
    if arr.ndim == 0:
        return [(width, width)] * nd
    if arr.ndim == 1 and arr.shape[0] == 1:
        return [(arr[0], arr[0])] * nd
    if arr.ndim == 1 and arr.shape[0] == 2:
        return [(arr[0], arr[1])] * nd
    if arr.ndim == 2 and arr.shape[1] == 2 and arr.shape[0] in (1, nd):
        return [(p[0], p[1]) for p in arr] * (nd if arr.shape[0] == 1 else 1)
    raise ValueError(f"pad: {name} must be a number, a pair or one pair per axis ({nd}), got {width!r}")


def _pad_axis(t: Tensor, ax: int, before: int, after: int, mode: str, cval: tuple, eval_: tuple) -> Tensor:
    n = t.shape[ax]
    if before == 0 and after == 0:
        return t
    parts = []

    def side(count: int, at_start: bool, value: Any) -> Tensor:
        shape = list(t.shape)
        shape[ax] = count
        if mode == "constant":
            return F.full(tuple(shape), value, dtype=t.dtype)
        if mode == "edge":
            return F.broadcast_to(F.narrow(t, ax, 0 if at_start else n - 1, 1), tuple(shape))
        if mode == "linear_ramp":
            edge = F.narrow(t, ax, 0 if at_start else n - 1, 1)
            steps = np.arange(count, dtype=np.float64) / count
            frac = steps if at_start else steps[::-1]
            rs = [1] * t.ndim
            rs[ax] = count
            w = Tensor(frac.reshape(rs).astype(np.float32))
            end = F.full(tuple(edge.shape), value, dtype=t.dtype)
            ramp = F.cast(end, "float32") + (F.cast(edge, "float32") - F.cast(end, "float32")) * w
            return F.cast(ramp, t.dtype) if t.dtype.is_float else F.cast(F.round(ramp), t.dtype)
        idx = _pad_indices(n, count, at_start, mode)
        return F.gather(t, Tensor(idx.astype(np.int32)), ax)

    if before:
        parts.append(side(before, True, cval[0] if mode == "constant" else eval_[0]))
    parts.append(t)
    if after:
        parts.append(side(after, False, cval[1] if mode == "constant" else eval_[1]))
    return F.concat(parts, ax)


def _pad_indices(n: int, count: int, at_start: bool, mode: str) -> np.ndarray:
    """The source positions of ``count`` padded elements (the order as they appear in the output)."""
    # NumPy's own index arithmetic on a range gives exactly the positions each mode reads.
    src = np.arange(n)
    width = (count, 0) if at_start else (0, count)
    padded = np.pad(src, width, mode=mode)
    return padded[:count] if at_start else padded[-count:]


def pad(arr: Any, pad_width: Any, mode: str = "constant", stat_length: Any = None, constant_values: Any = 0,
        end_values: Any = 0, reflect_type: str = "even", **kwargs: Any) -> Tensor:
    """``mindspore.numpy.pad``: ``arr`` padded by ``pad_width`` ((before, after) per axis) in ``mode``:
    'constant', 'edge', 'linear_ramp', 'reflect', 'symmetric' or 'wrap'."""
    modes = ("constant", "edge", "linear_ramp", "reflect", "symmetric", "wrap")
    if mode not in modes:
        raise ValueError(f"pad: mode {mode!r} is not supported; use one of {', '.join(modes)}")
    if reflect_type != "even":
        raise ValueError("pad: only reflect_type='even' is supported")
    t = to_tensor(arr)
    widths = _pairs(pad_width, t.ndim, "pad_width")
    cvals = _pairs(constant_values, t.ndim, "constant_values")
    evals = _pairs(end_values, t.ndim, "end_values")
    for ax in range(t.ndim):
        before, after = int(widths[ax][0]), int(widths[ax][1])
        if before < 0 or after < 0:
            raise ValueError("pad: pad_width must not be negative")
        t = _pad_axis(t, ax, before, after, mode, cvals[ax], evals[ax])
    return t
