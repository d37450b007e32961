"""``mindspore.ops`` functions whose output shape depends on the input's values: ``argwhere``,
``masked_select``, ``unique`` and ``unique_consecutive``.

A traced graph has static shapes, so these run eagerly (PyNative mode) and refuse clearly inside GRAPH_MODE
(and so inside ``grad``, which traces).
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def _concrete(name: str, *xs: Tensor) -> None:
    for x in xs:
        if x._data is None:
            raise RuntimeError(f"{name}: the output shape depends on the input's values, which a GRAPH_MODE trace "
                               f"does not have; call it in PYNATIVE_MODE (outside construct)")


def argwhere(input) -> Tensor:  # noqa: A002 - MindSpore's argument name
    """``ops.argwhere(input)``: the int64 (N, ndim) coordinates of the non-zero elements, row-major."""
    x = as_tensor(input)
    _concrete("argwhere", x)
    return Tensor(np.argwhere(x.asnumpy()).astype(np.int64).reshape(-1, x.ndim))


def masked_select(input, mask) -> Tensor:  # noqa: A002
    """``ops.masked_select(input, mask)``: the 1-D tensor of ``input``'s elements where ``mask`` (broadcast with
    it) is True."""
    x, m = as_tensor(input), as_tensor(mask)
    _concrete("masked_select", m)
    if m.dtype.name != "bool":
        raise TypeError(f"masked_select: mask must be a bool tensor, got {m.dtype}")
    shape = np.broadcast_shapes(tuple(x.shape), tuple(m.shape))
    xb = x if tuple(x.shape) == shape else apply("BroadcastTo", {"shape": shape}, [x])
    pos = np.flatnonzero(np.broadcast_to(m.asnumpy(), shape)).astype(np.int64)
    return apply("Gather", {"axis": 0}, [apply("Reshape", {"shape": (-1,)}, [xb]), Tensor(pos)])


def unique(input) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``ops.unique(input)``: the distinct elements in order of first appearance (MindSpore 2.10 on the CPU
    does not sort them) and, for each input element, the index of its value among them (shaped like
    ``input``; int64 for an int64 input, else int32, as MindSpore's)."""
    x = as_tensor(input)
    _concrete("unique", x)
    flat = x.asnumpy().reshape(-1)
    _, first, inv = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    vals = flat[np.sort(first)]
    index_dtype = np.int64 if x.dtype.name == "int64" else np.int32
    return Tensor(vals, dtype=x.dtype), Tensor(rank[inv.reshape(-1)].reshape(x.shape).astype(index_dtype))


def unique_consecutive(input, return_idx: bool = False, return_counts: bool = False, dim: int | None = None):  # noqa: A002
    """``ops.unique_consecutive(input, return_idx=False, return_counts=False, dim=None)``: runs of equal
    consecutive elements (or slices along ``dim``) collapsed to one; optionally the run index of each input
    element and the length of each run (int64)."""
    x = as_tensor(input)
    _concrete("unique_consecutive", x)
    a = x.asnumpy()
    axis = dim
    if axis is None:
        flat = a.reshape(-1)
        change = np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else np.zeros(0, bool)
        out = flat[change]
        inv = (np.cumsum(change) - 1).reshape(a.shape)
    else:
        ax = axis + a.ndim if axis < 0 else axis
        if not 0 <= ax < a.ndim:
            raise ValueError(f"unique_consecutive: dim {axis} is out of range for a {a.ndim}-D input")
        moved = np.moveaxis(a, ax, 0).reshape(a.shape[ax], -1)
        change = np.concatenate([[True], np.any(moved[1:] != moved[:-1], axis=1)]) if len(moved) else \
            np.zeros(0, bool)
        out = np.take(a, np.flatnonzero(change), axis=ax)
        inv = np.cumsum(change) - 1
    counts = np.diff(np.append(np.flatnonzero(change), len(change)))
    result = [Tensor(out.astype(a.dtype), dtype=x.dtype)]
    if return_idx:
        result.append(Tensor(inv.astype(np.int64)))
    if return_counts:
        result.append(Tensor(counts.astype(np.int64)))
    return result[0] if len(result) == 1 else tuple(result)


__all__ = ["argwhere", "masked_select", "unique", "unique_consecutive"]
