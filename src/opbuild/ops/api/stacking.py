"""Stacking, splitting and reshaping names of ``mindspore.ops``: ``hstack``/``vstack``/``dstack``/
``column_stack``, ``tensor_split`` and ``hsplit``/``vsplit``/``dsplit``, ``atleast_1d/2d/3d``, ``fliplr``/
``flipud``, ``movedim``, ``swapdims``, ``t``, ``ravel``, ``view_as``, ``block_diag``, ``cartesian_prod``,
``combinations``, ``meshgrid``, ``tril_indices``/``triu_indices`` and ``vander``.

Each is a composition of Concat, Reshape, Transpose, slicing and broadcasting, so it traces and differentiates
like its parts.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .more_math import moveaxis
from .tensor_math import flip, swapaxes


def _reshape(x: Tensor, shape) -> Tensor:
    return apply("Reshape", {"shape": tuple(shape)}, [x])


def _cat(ts: Sequence[Tensor], axis: int) -> Tensor:
    return apply("Concat", {"axis": axis}, list(ts))


def _seq(name: str, tensors) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (tuple, list)) or not tensors:
        raise TypeError(f"{name}: expected a non-empty tuple or list of Tensors, got {type(tensors).__name__}")
    return [as_tensor(t) for t in tensors]


def _atleast(x, n: int) -> Tensor:
    t = as_tensor(x)
    if t.ndim >= n:
        return t
    shape = {0: {1: (1,), 2: (1, 1), 3: (1, 1, 1)}, 1: {2: (1, -1), 3: (1, -1, 1)}, 2: {3: (*t.shape, 1)}}
    return _reshape(t, shape[t.ndim][n])


def atleast_1d(inputs):
    """``ops.atleast_1d(inputs)``: a Tensor (or each of a sequence) with at least one dimension."""
    return _atleast(inputs, 1) if not isinstance(inputs, (tuple, list)) else tuple(_atleast(x, 1) for x in inputs)


def atleast_2d(inputs):
    """``ops.atleast_2d(inputs)``: at least two dimensions (a 1-D tensor becomes one row)."""
    return _atleast(inputs, 2) if not isinstance(inputs, (tuple, list)) else tuple(_atleast(x, 2) for x in inputs)


def atleast_3d(inputs):
    """``ops.atleast_3d(inputs)``: at least three dimensions (1-D ``(N,)`` -> ``(1, N, 1)``, 2-D ``(M, N)`` ->
    ``(M, N, 1)``)."""
    return _atleast(inputs, 3) if not isinstance(inputs, (tuple, list)) else tuple(_atleast(x, 3) for x in inputs)


def hstack(tensors) -> Tensor:
    """``ops.hstack(tensors)``: join along the second axis (the first for 1-D tensors)."""
    ts = [_atleast(t, 1) for t in _seq("hstack", tensors)]
    return _cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs) -> Tensor:
    """``ops.vstack(inputs)``: join along the first axis, 1-D tensors taken as rows."""
    return _cat([_atleast(t, 2) for t in _seq("vstack", inputs)], 0)


def dstack(inputs) -> Tensor:
    """``ops.dstack(inputs)``: join along the third axis (tensors made at least 3-D first)."""
    return _cat([_atleast(t, 3) for t in _seq("dstack", inputs)], 2)


def column_stack(tensors) -> Tensor:
    """``ops.column_stack(tensors)``: 1-D tensors as columns, joined along the second axis."""
    ts = _seq("column_stack", tensors)
    return _cat([_reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in ts], 1)


def tensor_split(input, indices_or_sections, axis: int = 0) -> tuple[Tensor, ...]:
    """``ops.tensor_split(input, indices_or_sections, axis=0)``: an int ``n`` splits into ``n`` nearly equal
    parts (the first ``size % n`` one longer); a sequence gives the split points."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise ValueError("tensor_split: input must have at least one dimension")
    ax = axis + x.ndim if axis < 0 else axis
    if not 0 <= ax < x.ndim:
        raise ValueError(f"tensor_split: axis {axis} is out of range for a {x.ndim}-D input")
    size = x.shape[ax]
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError(f"tensor_split: the number of sections must be positive, got {n}")
        q, r = divmod(size, n)
        bounds = list(itertools.accumulate([0] + [q + 1] * r + [q] * (n - r)))
    elif isinstance(indices_or_sections, (tuple, list)):
        bounds = [0, *(min(max(int(i) + (size if i < 0 else 0), 0), size) for i in indices_or_sections), size]
    else:
        raise TypeError("tensor_split: indices_or_sections must be an int or a tuple/list of ints, got "
                        f"{type(indices_or_sections).__name__}")
    out = []
    for lo, hi in itertools.pairwise(bounds):
        key = [slice(None)] * x.ndim
        key[ax] = slice(lo, max(lo, hi))
        out.append(x[tuple(key)])
    return tuple(out)


def _split_at(name: str, input, indices_or_sections, axis: int, min_ndim: int) -> tuple[Tensor, ...]:
    x = as_tensor(input)
    if x.ndim < min_ndim:
        raise ValueError(f"{name}: input must have at least {min_ndim} dimensions, got {x.ndim}")
    return tensor_split(x, indices_or_sections, axis)


def hsplit(input, indices_or_sections) -> tuple[Tensor, ...]:
    """``ops.hsplit(input, indices_or_sections)``: :func:`tensor_split` along axis 1 (axis 0 for 1-D)."""
    x = as_tensor(input)
    return _split_at("hsplit", x, indices_or_sections, 0 if x.ndim == 1 else 1, 1)


def vsplit(input, indices_or_sections) -> tuple[Tensor, ...]:
    """``ops.vsplit(input, indices_or_sections)``: :func:`tensor_split` along axis 0 (input at least 2-D)."""
    return _split_at("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections) -> tuple[Tensor, ...]:
    """``ops.dsplit(input, indices_or_sections)``: :func:`tensor_split` along axis 2 (input at least 3-D)."""
    return _split_at("dsplit", input, indices_or_sections, 2, 3)


def fliplr(input) -> Tensor:
    """``ops.fliplr(input)``: reverse the columns (axis 1) of an at-least-2-D tensor."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"fliplr: input must be at least 2-D, got {x.ndim}-D")
    return flip(x, (1,))


def flipud(input) -> Tensor:
    """``ops.flipud(input)``: reverse the rows (axis 0) of an at-least-1-D tensor."""
    x = as_tensor(input)
    if x.ndim < 1:
        raise ValueError("flipud: input must be at least 1-D")
    return flip(x, (0,))


def movedim(x, source, destination) -> Tensor:
    """``ops.movedim(x, source, destination)``: alias of :func:`moveaxis`."""
    return moveaxis(x, source, destination)


def swapdims(input, dim0: int, dim1: int) -> Tensor:
    """``ops.swapdims(input, dim0, dim1)``: alias of ``swapaxes``."""
    return swapaxes(input, dim0, dim1)


def t(input) -> Tensor:
    """``ops.t(input)``: the transpose of a 2-D tensor; a 1-D tensor is returned as it is."""
    x = as_tensor(input)
    if x.ndim > 2:
        raise ValueError(f"t: input must be 1-D or 2-D, got {x.ndim}-D")
    return x if x.ndim < 2 else apply("Transpose", {"perm": (1, 0)}, [x])


def ravel(input) -> Tensor:
    """``ops.ravel(input)``: the elements as a 1-D tensor."""
    return _reshape(as_tensor(input), (-1,))


def view_as(input, other) -> Tensor:
    """``ops.view_as(input, other)``: ``input`` reshaped to ``other``'s shape."""
    return _reshape(as_tensor(input), tuple(as_tensor(other).shape))


def block_diag(*inputs) -> Tensor:
    """``ops.block_diag(*inputs)``: a block diagonal matrix of the (0-, 1- or 2-D) inputs."""
    ts = [as_tensor(t) for t in inputs]
    if not ts:
        raise ValueError("block_diag: needs at least one tensor")
    mats = []
    for x in ts:
        if x.ndim > 2:
            raise ValueError(f"block_diag: inputs must be at most 2-D, got {x.ndim}-D")
        mats.append(_reshape(x, (1, 1)) if x.ndim == 0 else _reshape(x, (1, -1)) if x.ndim == 1 else x)
    dt = mats[0].dtype
    for m in mats[1:]:
        if m.dtype != dt:
            raise TypeError(f"block_diag: every input must have the same dtype, got {dt} and {m.dtype}")
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        pad = [(0, 0), (left, cols - left - m.shape[1])]
        rows.append(apply("Pad", {"paddings": tuple(pad)}, [m]) if cols != m.shape[1] else m)
        left += m.shape[1]
    return _cat(rows, 0)


def meshgrid(*inputs, indexing: str = "xy") -> tuple[Tensor, ...]:
    """``ops.meshgrid(*inputs, indexing='xy')``: coordinate grids of 1-D tensors ('xy' swaps the first two
    output axes, 'ij' keeps matrix order)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    ts = [as_tensor(x) for x in inputs]
    if not ts or any(x.ndim != 1 for x in ts):
        raise ValueError("meshgrid: inputs must be one or more 1-D tensors")
    n = len(ts)
    sizes = [x.shape[0] for x in ts]
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(ts):
        pos = i if indexing == "ij" or n < 2 else {0: 1, 1: 0}.get(i, i)
        shape = [1] * n
        shape[pos] = -1
        out.append(apply("BroadcastTo", {"shape": tuple(sizes)}, [_reshape(x, shape)]))
    return tuple(out)


def cartesian_prod(*inputs) -> Tensor:
    """``ops.cartesian_prod(*inputs)``: the rows of all combinations of the 1-D inputs' elements."""
    grids = meshgrid(*inputs, indexing="ij")
    if len(grids) == 1:
        return grids[0]
    return apply("Concat", {"axis": 1}, [_reshape(g, (-1, 1)) for g in grids])


def combinations(input, r: int = 2, with_replacement: bool = False) -> Tensor:
    """``ops.combinations(input, r=2, with_replacement=False)``: the length-``r`` combinations of a 1-D
    tensor's elements, one per row."""
    x = as_tensor(input)
    if x.ndim != 1:
        raise ValueError(f"combinations: input must be 1-D, got {x.ndim}-D")
    if not isinstance(r, numbers.Integral) or r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r!r}")
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    if idx.shape[0] == 0 or r == 0:
        return Tensor(np.zeros((0,) if r == 0 else (0, r), x.dtype.np_dtype))
    return _reshape(apply("Gather", {"axis": 0}, [x, Tensor(idx.reshape(-1))]), idx.shape)


def _tri_indices(name: str, row: int, col: int, offset: int, dtype, lower: bool) -> Tensor:
    dt = dtype_of(dtype)
    if dt.name not in ("int32", "int64"):
        raise TypeError(f"{name}: dtype must be int32 or int64, got {dt}")
    idx = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return Tensor(np.stack(idx).astype(dt.np_dtype).reshape(2, -1))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DType | str = "int64") -> Tensor:
    """``ops.tril_indices(row, col, offset=0, *, dtype=int64)``: the (2, N) coordinates of the lower triangle
    of a ``row`` x ``col`` matrix."""
    return _tri_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DType | str = "int64") -> Tensor:
    """``ops.triu_indices(row, col, offset=0, *, dtype=int64)``: the coordinates of the upper triangle."""
    return _tri_indices("triu_indices", row, col, offset, dtype, False)


def vander(x, N: int | None = None) -> Tensor:  # noqa: N803 - MindSpore's argument name
    """``ops.vander(x, N=None)``: the Vandermonde matrix of a 1-D tensor, powers decreasing from ``N - 1``
    (``N`` defaults to the length of ``x``); integer inputs give int64."""
    v = as_tensor(x)
    if v.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got {v.ndim}-D")
    n = v.shape[0] if N is None else int(N)
    if not v.dtype.is_float:  # MindSpore computes integer powers in int64
        v = apply("Cast", {"dtype": "int64"}, [v])
    if n < 0:
        raise ValueError(f"vander: N must be non-negative, got {N}")
    powers = Tensor(np.arange(n - 1, -1, -1).astype(v.dtype.np_dtype))
    return apply("Pow", {}, [_reshape(v, (-1, 1)), _reshape(powers, (1, -1))])


__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack", "tensor_split",
           "hsplit", "vsplit", "dsplit", "fliplr", "flipud", "movedim", "swapdims", "t", "ravel", "view_as",
           "block_diag", "meshgrid", "cartesian_prod", "combinations", "tril_indices", "triu_indices", "vander"]
