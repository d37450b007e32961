"""Array functions of ``mindspore.ops`` over the registered primitives: ``mirror_pad``, ``space_to_batch_nd``,
``batch_to_space_nd``, ``col2im``, ``nonzero``, ``unique_with_pad``, ``inplace_index_add``, ``diff_ext`` and
``sparse_segment_mean``.

Each is a composition (Gather with constant index tables, Reshape/Transpose, Pad/Slice, UnsortedSegmentSum), so
it traces, caches and differentiates as its primitives do; the ones whose output shape depends on values
(``nonzero``, ``unique_with_pad``, ``sparse_segment_mean``'s segment count) read them eagerly.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import array as A
from . import math as M
from .data_dependent import _concrete, unique
from .more_math import diff
from .patches import fold
from .rows_update import index_add

_INTS = ("int32", "int64")


def _int_table(fn: str, name: str, v, rows: int | None = None) -> list[list[int]]:
    """``v`` (a Tensor or nested sequence of ints) as a list of (before, after) pairs."""
    if isinstance(v, Tensor):
        if v._data is None:
            raise ValueError(f"{fn}: {name} must be a constant (its values shape the output); pass a tuple")
        v = v.asnumpy().tolist()
    try:
        table = [[int(a), int(b)] for a, b in v]
    except (TypeError, ValueError):
        raise ValueError(f"{fn}: {name} must be a sequence of (before, after) int pairs, got {v!r}") from None
    if rows is not None and len(table) != rows:
        raise ValueError(f"{fn}: {name} must hold {rows} (before, after) pairs, got {len(table)}")
    return table


def mirror_pad(input_x, paddings, mode: str) -> Tensor:
    """``ops.mirror_pad(input_x, paddings, mode)``: ``paddings`` (rank, 2) gives (before, after) for every axis;
    'REFLECT' mirrors without the edge element (at most size - 1 per side), 'SYMMETRIC' with it (at most size)."""
    fn = "mirror_pad"
    x = as_tensor(input_x)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"{fn}: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    pairs = _int_table(fn, "paddings", paddings, x.ndim)
    for axis, (before, after) in enumerate(pairs):
        if before == after == 0:
            continue
        n = x.shape[axis]
        limit = n - 1 if mode == "REFLECT" else n
        if min(before, after) < 0 or max(before, after) > limit:
            raise ValueError(f"{fn}: {mode} padding of axis {axis} must be in [0, {limit}] (the axis has size {n}), "
                             f"got {(before, after)}")
        index = np.pad(np.arange(n, dtype=np.int64), (before, after), mode=mode.lower())
        x = apply("Gather", {"axis": axis}, [x, Tensor(index)])
    return x


def _block(fn: str, name: str, v, rank: int) -> list[int]:
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        v = [int(v)] * 2
    try:
        out = [int(b) for b in v]
    except (TypeError, ValueError):
        raise ValueError(f"{fn}: {name} must be an int or a sequence of ints, got {v!r}") from None
    if not out or any(b < 1 for b in out) or rank < len(out) + 1:
        raise ValueError(f"{fn}: {name} must hold M ints >= 1 for an input of rank M + 1 or more (a batch axis "
                         f"first), got {v!r} for rank {rank}")
    return out


def space_to_batch_nd(input_x, block_size, paddings) -> Tensor:
    """``ops.space_to_batch_nd(input_x, block_size, paddings)``: the last M axes of ``input_x`` (N, C, S1..SM)
    padded by ``paddings`` (M pairs) and split into ``block_size`` blocks moved into the batch: the output is
    (N * prod(block_size), C, S1 / b1, ..., SM / bM), block position major, batch minor."""
    fn = "space_to_batch_nd"
    x = as_tensor(input_x)
    blocks = _block(fn, "block_size", block_size, x.ndim)
    m = len(blocks)
    pairs = _int_table(fn, "paddings", paddings, m)
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{fn}: paddings must be non-negative, got {pairs}")
    lead = x.ndim - m
    if any(pairs[i] != [0, 0] for i in range(m)):
        x = apply("Pad", {"paddings": [[0, 0]] * lead + pairs}, [x])
    spatial = x.shape[lead:]
    for s, b in zip(spatial, blocks, strict=True):
        if s % b:
            raise ValueError(f"{fn}: each padded spatial size must be divisible by its block, got sizes "
                             f"{tuple(spatial)} and blocks {tuple(blocks)}")
    n, rest = x.shape[0], tuple(x.shape[1:lead])
    split = [d for s, b in zip(spatial, blocks, strict=True) for d in (s // b, b)]
    y = A.reshape(x, (n, *rest, *split))
    block_axes = [lead + 2 * i + 1 for i in range(m)]
    outer_axes = [lead + 2 * i for i in range(m)]
    y = A.transpose(y, (*block_axes, 0, *range(1, lead), *outer_axes))
    return A.reshape(y, (n * math.prod(blocks), *rest, *(s // b for s, b in zip(spatial, blocks, strict=True))))


def batch_to_space_nd(input_x, block_shape, crops) -> Tensor:
    """``ops.batch_to_space_nd(input_x, block_shape, crops)``: the inverse of :func:`space_to_batch_nd`: the
    batch (N * prod(block_shape)) folded back into the last M axes, which are then cropped by ``crops``."""
    fn = "batch_to_space_nd"
    x = as_tensor(input_x)
    blocks = _block(fn, "block_shape", block_shape, x.ndim)
    m = len(blocks)
    pairs = _int_table(fn, "crops", crops, m)
    lead = x.ndim - m
    total = math.prod(blocks)
    if x.shape[0] % total:
        raise ValueError(f"{fn}: the batch ({x.shape[0]}) must be divisible by prod(block_shape) ({total})")
    n, rest, spatial = x.shape[0] // total, tuple(x.shape[1:lead]), tuple(x.shape[lead:])
    y = A.reshape(x, (*blocks, n, *rest, *spatial))
    perm = [m, *range(m + 1, m + lead)]
    for i in range(m):
        perm += [m + lead + i, i]
    y = A.reshape(A.transpose(y, perm), (n, *rest, *(s * b for s, b in zip(spatial, blocks, strict=True))))
    full = y.shape[lead:]
    if any(v < 0 for p in pairs for v in p) or any(b + a >= s for (b, a), s in zip(pairs, full, strict=True)):
        raise ValueError(f"{fn}: crops must be non-negative and leave something of {tuple(full)}, got {pairs}")
    if any(p != [0, 0] for p in pairs):
        begin = [0] * lead + [b for b, _ in pairs]
        size = list(y.shape[:lead]) + [s - b - a for (b, a), s in zip(pairs, full, strict=True)]
        y = apply("Slice", {"begin": begin, "size": size}, [y])
    return y


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride) -> Tensor:
    """``ops.col2im(input_x, output_size, kernel_size, dilation, padding_value, stride)``: the (N, C, kh * kw, L)
    columns summed back into an (N, C, H, W) image of ``output_size`` (overlaps add up), ``ops.fold`` on the
    columns flattened to (N, C * kh * kw, L)."""
    x = as_tensor(input_x)
    if x.ndim != 4:
        raise ValueError(f"col2im: input_x must be (N, C, kh * kw, L), got shape {tuple(x.shape)}")
    n, c, kk, length = x.shape
    return fold(A.reshape(x, (n, c * kk, length)), output_size, kernel_size, dilation, padding_value, stride)


def nonzero(input, *, as_tuple: bool = False):  # noqa: A002 - MindSpore's argument name
    """``ops.nonzero(input, *, as_tuple=False)``: the int64 (N, ndim) coordinates of the non-zero elements,
    row-major, or with ``as_tuple`` one 1-D tensor of coordinates per axis."""
    x = as_tensor(input)
    _concrete("nonzero", x)
    coords = np.argwhere(x.asnumpy()).astype(np.int64)
    if not as_tuple:
        return Tensor(coords)
    return tuple(Tensor(np.ascontiguousarray(coords[:, i])) for i in range(coords.shape[1]))


def unique_with_pad(x, pad_num) -> tuple[Tensor, Tensor]:
    """``ops.unique_with_pad(x, pad_num)``: the distinct elements of the 1-D ``x`` in order of first appearance,
    padded with ``pad_num`` to ``x``'s length, and for each element the index of its value among them."""
    t = as_tensor(x)
    if t.ndim != 1 or t.dtype.name not in _INTS:
        raise ValueError(f"unique_with_pad: x must be a 1-D int32/int64 Tensor, got {t.dtype} {tuple(t.shape)}")
    _concrete("unique_with_pad", t)
    values, idx = unique(t)
    n = int(values.shape[0])
    padded = np.full(t.shape, int(pad_num), t.dtype.np_dtype)
    padded[:n] = values.asnumpy()
    return Tensor(padded, dtype=t.dtype), Tensor(idx.asnumpy().astype(t.dtype.np_dtype), dtype=t.dtype)


def inplace_index_add(var, indices, updates, axis: int) -> Tensor:
    """``ops.inplace_index_add(var, indices, updates, axis)``: adds the slices of ``updates`` along ``axis``
    into the Parameter ``var`` at the positions ``indices`` (1-D int32) of that axis, in place; returns
    ``var``."""
    return index_add(var, indices, updates, axis)


def diff_ext(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:  # noqa: A002
    """``ops.diff_ext(input, n=1, dim=-1, prepend=None, append=None)``: the ``n``-th forward difference along
    ``dim`` (``ops.diff`` with MindSpore's ``dim`` name)."""
    return diff(input, n, dim, prepend, append)


def sparse_segment_mean(x, indices, segment_ids) -> Tensor:
    """``ops.sparse_segment_mean(x, indices, segment_ids)``: row ``s`` of the output is the mean of the rows
    ``x[indices[j]]`` with ``segment_ids[j] == s`` (0 for a segment with none); the output has
    ``segment_ids[-1] + 1`` rows (``segment_ids`` sorted, read eagerly)."""
    fn = "sparse_segment_mean"
    t, idx, seg = as_tensor(x), as_tensor(indices), as_tensor(segment_ids)
    if not t.dtype.is_float or t.ndim < 1:
        raise TypeError(f"{fn}: x must be a float Tensor of rank >= 1, got {t.dtype} {tuple(t.shape)}")
    if idx.ndim != 1 or seg.shape != idx.shape or idx.dtype.name not in _INTS or seg.dtype.name not in _INTS:
        raise ValueError(f"{fn}: indices and segment_ids must be 1-D int32/int64 Tensors of one length, got "
                         f"{idx.dtype} {tuple(idx.shape)} and {seg.dtype} {tuple(seg.shape)}")
    _concrete(fn, seg)
    ids = seg.asnumpy()
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise ValueError(f"{fn}: segment_ids must be sorted and non-negative, got {ids.tolist()}")
    if idx._data is not None and np.any((idx.asnumpy() < 0) | (idx.asnumpy() >= t.shape[0])):
        raise ValueError(f"{fn}: indices must be in [0, {t.shape[0]}), got {idx.asnumpy().tolist()}")
    segments = int(ids[-1]) + 1 if ids.size else 0
    rows = apply("Gather", {"axis": 0}, [t, idx])
    sums = apply("UnsortedSegmentSum", {"num_segments": segments}, [rows, seg])
    counts = np.bincount(ids, minlength=segments).astype(t.dtype.np_dtype)
    shape = (segments,) + (1,) * (t.ndim - 1)
    return M.div(sums, Tensor(np.maximum(counts, 1).reshape(shape)))


__all__ = ["mirror_pad", "nonzero", "space_to_batch_nd", "batch_to_space_nd", "col2im", "unique_with_pad",
           "inplace_index_add", "diff_ext", "sparse_segment_mean"]
