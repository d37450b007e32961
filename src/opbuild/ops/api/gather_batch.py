"""``ops.gather`` with ``batch_dims`` > 0 (``Tensor.gather`` too): one flat Gather over the batches, written
with primitives only, so it traces, caches and differentiates as Gather does."""

from __future__ import annotations

import math

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply

_INTS = ("int32", "int64")


def _i64(v: int) -> Tensor:
    return Tensor(np.array(v, np.int64))


def _reshape(x: Tensor, shape: tuple) -> Tensor:
    return apply("Reshape", {"shape": tuple(shape)}, [x])


def _transpose(x: Tensor, perm: tuple) -> Tensor:
    return apply("Transpose", {"perm": tuple(perm)}, [x])


def gather_batched(input_params, input_indices, axis: int, batch_dims: int) -> Tensor:
    """``ops.gather`` with ``batch_dims`` > 0: the first ``batch_dims`` axes of ``input_params`` and
    ``input_indices`` are shared batch axes, and each batch gathers along ``axis`` with its own indices; the
    output is ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``. Indices out of
    range give zeros (one flat Gather over the batches, out-of-range entries sent to -1)."""
    fn = "gather"
    p, i = as_tensor(input_params), as_tensor(input_indices)
    if i.dtype.name not in _INTS:
        raise TypeError(f"{fn}: input_indices must be int32 or int64, got {i.dtype}")
    b = batch_dims + i.ndim if batch_dims < 0 else batch_dims
    ax = axis + p.ndim if axis < 0 else axis
    if not 0 <= b <= i.ndim or not b <= ax < p.ndim:
        raise ValueError(f"{fn}: need 0 <= batch_dims <= indices' rank and batch_dims <= axis < params' rank, got "
                         f"batch_dims={batch_dims}, axis={axis} for ranks {p.ndim} and {i.ndim}")
    if tuple(p.shape[:b]) != tuple(i.shape[:b]):
        raise ValueError(f"{fn}: the first {b} axes of params and indices must match, got {tuple(p.shape)} and "
                         f"{tuple(i.shape)}")
    batch, mid, size = tuple(p.shape[:b]), tuple(p.shape[b:ax]), p.shape[ax]
    tail, idx_shape = tuple(p.shape[ax + 1:]), tuple(i.shape[b:])
    nb, nm, nt, ni = math.prod(batch), math.prod(mid), math.prod(tail), math.prod(idx_shape)
    flat = _transpose(_reshape(p, (nb, nm, size, nt)), (0, 2, 1, 3))         # (B, A, M, T)
    flat = _reshape(flat, (nb * size, nm, nt))
    idx = _reshape(apply("Cast", {"dtype": "int64"}, [i]), (nb, ni))
    ok = apply("LogicalAnd", {}, [apply("GreaterEqual", {}, [idx, _i64(0)]), apply("Less", {}, [idx, _i64(size)])])
    offset = Tensor((np.arange(nb, dtype=np.int64) * size).reshape(nb, 1))
    outside = apply("BroadcastTo", {"shape": (nb, ni)}, [_i64(-1)])
    glob = apply("Select", {}, [ok, apply("Add", {}, [idx, offset]), outside])
    g = apply("Gather", {"axis": 0}, [flat, _reshape(glob, (nb * ni,))])       # (B I, M, T)
    g = _transpose(_reshape(g, (nb, ni, nm, nt)), (0, 2, 1, 3))
    return _reshape(g, (*batch, *mid, *idx_shape, *tail))
