"""Max pooling that also returns where each maximum came from (MindSpore's ``return_indices=True``,
``MaxPoolWithArgmaxV2``, ``MaxPool3DWithArgmax``, adaptive and fractional max pooling), for any window
shape: dilated, padded, ``ceil_mode``, variable-length (adaptive) or placed by random samples (fractional).

Everything is one composition of existing primitives, written once for every variant: the windows are
described by a constant (P, K) table holding, for each of the P output positions, the flat spatial index of
each of its K elements, or ``S`` (the spatial size) for an element that lies in the padding. The input,
flattened to (..., S) and extended by one lowest-valued element at index ``S``, is gathered through the table
to (..., P, K); ArgMax over K picks the first maximum of each window (the window's row-major order, as
MindSpore's kernels scan it), GatherD takes its value (so the gradient reaches that one element only, as
MindSpore's and PyTorch's max-pool gradients do) and a Gather of the table turns the window position into the
flat index of the input (int64, relative to each (n, c) plane: MindSpore's ``argmax``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .padding import pad_pairs


def out_len(fn: str, n: int, k: int, s: int, d: int, pb: int, pa: int, ceil_mode: bool) -> int:
    """Output length of a pooled axis of size ``n`` (window ``k`` dilated by ``d``, stride ``s``, padding
    ``pb``/``pa``); with ``ceil_mode`` a last partial window counts when it starts inside the input or its
    head padding (PyTorch's and MindSpore's rule)."""
    span = n + pb + pa - d * (k - 1) - 1
    if span < 0:
        raise ValueError(f"{fn}: the window {k} (dilation {d}) is larger than the padded axis ({n + pb + pa})")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + pb:
        out -= 1
    return out


def strided_windows(n: int, k: int, s: int, d: int, pb: int, out: int) -> np.ndarray:
    """(out, k) input positions of the windows of one axis (-1 where a position falls outside the input)."""
    pos = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d - pb
    return np.where((pos >= 0) & (pos < n), pos, -1)


def adaptive_windows(n: int, m: int) -> np.ndarray:
    """(m, longest) positions of MindSpore's adaptive windows ``[floor(i n / m), ceil((i + 1) n / m))``,
    -1 filling the shorter ones."""
    starts = [(i * n) // m for i in range(m)]
    ends = [-(-((i + 1) * n) // m) for i in range(m)]
    width = max(e - b for b, e in zip(starts, ends, strict=True))
    pos = np.full((m, width), -1, np.int64)
    for i, (b, e) in enumerate(zip(starts, ends, strict=True)):
        pos[i, :e - b] = np.arange(b, e)
    return pos


def window_table(sizes: Sequence[int], axes: Sequence[np.ndarray]) -> np.ndarray:
    """The (P, K) table of flat indices into the ``sizes`` box for the cartesian product of per-axis windows
    ``axes`` (each (out_a, k_a)); elements outside the input get ``prod(sizes)``."""
    dims = len(sizes)
    strides = [int(np.prod(sizes[a + 1:])) for a in range(dims)]
    flat = np.zeros([1] * (2 * dims), np.int64)
    bad = np.zeros([1] * (2 * dims), bool)
    for a, pos in enumerate(axes):
        shape = [1] * (2 * dims)
        shape[a], shape[dims + a] = pos.shape
        p = pos.reshape(shape)
        flat = flat + np.maximum(p, 0) * strides[a]
        bad = bad | (p < 0)
    table = np.where(bad, int(np.prod(sizes)), flat)
    outs = [pos.shape[0] for pos in axes]
    return table.reshape(int(np.prod(outs)), -1)


def max_by_table(fn: str, x, dims: int, table: np.ndarray, out_shape: Sequence[int]) -> tuple[Tensor, Tensor]:
    """(values, int64 indices) of the maxima of ``x``'s last ``dims`` axes over the windows of ``table``
    (see the module docstring; (P, K) for every plane, or (*planes, P, K) for a table per plane), shaped
    ``x.shape[:-dims] + out_shape``."""
    t = as_tensor(x)
    if t.ndim < dims:
        raise ValueError(f"{fn}: the input needs at least {dims} axes, got shape {t.shape}")
    if t.dtype.name not in ("float16", "bfloat16", "float32", "float64", "int32", "int64"):
        raise TypeError(f"{fn}: the input must be a float, int32 or int64 Tensor, got {t.dtype}")
    lead = tuple(t.shape[:t.ndim - dims])
    size = int(np.prod(t.shape[t.ndim - dims:]))
    flat = A.reshape(t, (*lead, size))
    info = np.finfo(t.dtype.np_dtype) if t.dtype.is_float else np.iinfo(t.dtype.np_dtype)
    lowest = np.full((*lead, 1), info.min, t.dtype.np_dtype)
    flat = A.cat([flat, Tensor(lowest)], len(lead))
    p, k = table.shape[-2:]
    if table.ndim == 2:  # one table for every plane
        g = apply("Gather", {"axis": len(lead)}, [flat, Tensor(table.astype(np.int64))])  # (*lead, P, K)
    else:  # a table per plane (fractional pooling): (*lead, P, K)
        if table.shape[:-2] != lead:
            raise ValueError(f"{fn}: the window table {table.shape} does not match the input's planes {lead}")
        g = apply("GatherD", {"dim": len(lead)}, [flat, Tensor(table.reshape(*lead, p * k).astype(np.int64))])
        g = A.reshape(g, (*lead, p, k))
    arg = apply("ArgMax", {"axis": -1, "output_type": "int64"}, [g])                       # (*lead, P)
    values = apply("GatherD", {"dim": len(lead) + 1}, [g, A.expand_dims(arg, -1)])
    where = arg + Tensor(np.arange(p, dtype=np.int64) * k)
    if table.ndim == 2:
        index = apply("Gather", {"axis": 0}, [Tensor(table.reshape(-1).astype(np.int64)), where])
    else:
        index = apply("GatherD", {"dim": len(lead)}, [Tensor(table.reshape(*lead, p * k).astype(np.int64)),
                                                       where])
    shape = (*lead, *out_shape)
    return A.reshape(values, shape), A.reshape(index, shape)


def mean_by_table(fn: str, x, dims: int, table: np.ndarray, out_shape: Sequence[int]) -> Tensor:
    """The means of ``x``'s last ``dims`` axes over the windows of a (P, K) ``table`` (entries ``S``, the
    padding, count as nothing): a Gather of the windows from the input extended by one zero, a sum, and a
    division by each window's constant element count."""
    t = as_tensor(x)
    lead = tuple(t.shape[:t.ndim - dims])
    size = int(np.prod(t.shape[t.ndim - dims:]))
    flat = A.cat([A.reshape(t, (*lead, size)), Tensor(np.zeros((*lead, 1), t.dtype.np_dtype))], len(lead))
    g = apply("Gather", {"axis": len(lead)}, [flat, Tensor(table.astype(np.int64))])
    counts = np.maximum((table < size).sum(axis=1), 1).astype(t.dtype.np_dtype)
    return A.reshape(M.div(M.sum(g, -1), Tensor(counts)), (*lead, *out_shape))


def max_pool_nd(fn: str, x, dims: int, k: Sequence[int], s: Sequence[int], d: Sequence[int],
                pads: Sequence[tuple[int, int]], ceil_mode: bool) -> tuple[Tensor, Tensor]:
    """Max pooling of ``x``'s last ``dims`` axes with kernel ``k``, stride ``s``, dilation ``d`` and
    (before, after) ``pads`` per axis: (values, int64 flat indices into each input plane)."""
    t = as_tensor(x)
    sizes = t.shape[t.ndim - dims:]
    for kk, dd, (pb, pa) in zip(k, d, pads, strict=True):
        if max(pb, pa) > (dd * (kk - 1) + 1) // 2:
            raise ValueError(f"{fn}: the padding {[list(p) for p in pads]} must be at most half the kernel "
                             f"size {list(k)}")
    outs = [out_len(fn, n, kk, ss, dd, pb, pa, ceil_mode)
            for n, kk, ss, dd, (pb, pa) in zip(sizes, k, s, d, pads, strict=True)]
    axes = [strided_windows(n, kk, ss, dd, pb, o)
            for n, kk, ss, dd, (pb, _), o in zip(sizes, k, s, d, pads, outs, strict=True)]
    return max_by_table(fn, t, dims, window_table(sizes, axes), outs)


def max_pool_values(fn: str, x, dims: int, k: Sequence[int], s: Sequence[int], d: Sequence[int],
                    pads: Sequence[tuple[int, int]], ceil_mode: bool) -> Tensor:
    """The values of :func:`max_pool_nd` without the indices: separable (one Gather of the windows and one
    ReduceMax per axis, as ops/api/volumetric.py pools), which reads ``sum(k)`` rather than ``prod(k)``
    elements per output."""
    t = as_tensor(x)
    if not t.dtype.is_float:
        raise TypeError(f"{fn}: the input must be a float Tensor, got {t.dtype}")
    sizes = t.shape[t.ndim - dims:]
    lowest = float(np.finfo(t.dtype.np_dtype).min)
    for a, (n, kk, ss, dd, (pb, pa)) in enumerate(zip(sizes, k, s, d, pads, strict=True)):
        if max(pb, pa) > (dd * (kk - 1) + 1) // 2:
            raise ValueError(f"{fn}: the padding {[list(p) for p in pads]} must be at most half the kernel "
                             f"size {list(k)}")
        out = out_len(fn, n, kk, ss, dd, pb, pa, ceil_mode)
        axis = t.ndim - dims + a
        idx = np.arange(out)[:, None] * ss + np.arange(kk)[None, :] * dd     # into the padded axis
        pairs = [[0, 0] for _ in range(t.ndim)]
        pairs[axis] = [pb, max(pa, int(idx.max()) + 1 - (n + pb), 0)]     # ceil_mode may read past the tail pad
        if any(pairs[axis]):
            t = pad_pairs(fn, t, pairs, "constant", lowest)
        t = M.amax(apply("Gather", {"axis": axis}, [t, Tensor(idx.astype(np.int64))]), axis + 1)
    return t


def adaptive_max_nd(fn: str, x, dims: int, outs: Sequence[int]) -> tuple[Tensor, Tensor]:
    """Adaptive max pooling of the last ``dims`` axes to ``outs``: (values, int64 flat indices)."""
    t = as_tensor(x)
    sizes = t.shape[t.ndim - dims:]
    axes = [adaptive_windows(n, m) for n, m in zip(sizes, outs, strict=True)]
    return max_by_table(fn, t, dims, window_table(sizes, axes), outs)


__all__ = ["adaptive_max_nd", "max_by_table", "max_pool_nd", "max_pool_values", "mean_by_table", "window_table"]
