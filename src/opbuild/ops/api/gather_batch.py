"""``ops.gather`` with ``batch_dims`` > 0 (``Tensor.gather`` too): one flat Gather over the batches, written
with primitives only, so it traces, caches and differentiates as Gather does."""

from __future__ import annotations

import math

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply

_INTS = ("int32", "int64")


def _reshape(x: Tensor, shape: tuple) -> Tensor:
    return apply("Reshape", {"shape": tuple(shape)}, [x])


def _transpose(x: Tensor, perm: tuple) -> Tensor:
    return apply("Transpose", {"perm": tuple(perm)}, [x])


def gather_batched(input_params, input_indices, axis: int, batch_dims: int) -> Tensor:
    """``ops.gather`` with ``batch_dims`` > 0: the first ``batch_dims`` axes of ``input_params`` and
    ``input_indices`` are shared batch axes, and each batch gathers along ``axis`` with its own indices; the
    output is ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``. An index in
    ``[-n, 0)`` counts from the end; one outside ``[-n, n)`` raises a KernelInputError, as ``ops.gather``'s."""
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
    # Each index through a Gather of 0..size-1 (bounds="raise"): [-size, 0) counted from the end, any other
    # index reported as ops.gather's own (ops/bounds.py); then offset into its batch's rows.
    idx = apply("Gather", {"axis": 0, "bounds": "raise"}, [Tensor(np.arange(size, dtype=np.int64)), idx])
    offset = Tensor((np.arange(nb, dtype=np.int64) * size).reshape(nb, 1))
    glob = apply("Add", {}, [idx, offset])
    g = apply("Gather", {"axis": 0}, [flat, _reshape(glob, (nb * ni,))])       # (B I, M, T)
    g = _transpose(_reshape(g, (nb, ni, nm, nt)), (0, 2, 1, 3))
    return _reshape(g, (*batch, *mid, *idx_shape, *tail))
