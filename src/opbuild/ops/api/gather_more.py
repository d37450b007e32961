"""Gather and search variants as compositions of registered ops: ``gather_d``, ``gather_nd`` (and the
``GatherNd`` primitive), ``index_fill``, ``searchsorted``, ``bucketize`` and ``unsorted_segment_max``/``min``/
``prod`` (and their primitive classes). Each is built from Gather, comparisons, Select and reductions, so it
runs in either mode, and is differentiable where MindSpore's is (through Gather and Select).

* gather_nd: the index rows become flat offsets (a Mul by the strides and a ReduceSum), then one Gather of the
  input viewed as (prod(shape[:K]), ...).
* searchsorted / bucketize: the count of sorted entries below (or not above) each value: a broadcast
  comparison summed over the sorted axis (O(values x sorted): meant for the moderate sizes of bucket tables).
* unsorted_segment_*: a (num_segments, *segment_ids.shape) membership mask, the data selected through it
  (the reduction's identity elsewhere) and reduced over the ids' axes. An empty segment gets MindSpore's
  value: the dtype's lowest finite value for max, its highest for min, 1 for prod.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..bitshift import bitwise_left_shift, bitwise_right_shift
from ..indexing import GatherNd
from ..primitive import Primitive, apply

_INTS = ("int32", "int64")


def gather_d(x: Any, dim: int, index: Any) -> Tensor:
    """``ops.gather_d(x, dim, index)``: ``np.take_along_axis(x, index, dim)`` (the GatherD primitive)."""
    return apply("GatherD", {"dim": dim, "bounds": "raise"}, [as_tensor(x), as_tensor(index)])


def gather_nd(input_x: Any, indices: Any) -> Tensor:
    """``ops.gather_nd(input_x, indices)``: the slices of ``input_x`` at the index rows of ``indices`` (shape
    ``(..., K)``): shape ``indices.shape[:-1] + input_x.shape[K:]``; an entry outside ``[-n, n)`` raises (the
    GatherNd primitive)."""
    return GatherNd()(as_tensor(input_x), as_tensor(indices))


def index_fill(x: Any, axis: int, index: Any, value: Any) -> Tensor:
    """``ops.index_fill(x, axis, index, value)``: ``x`` with the positions ``index`` (1-D int32) along
    ``axis`` set to ``value`` (a number or a 0-D Tensor)."""
    t, idx = as_tensor(x), as_tensor(index)
    if idx.dtype.name != "int32" or idx.ndim > 1:  # MindSpore's IndexFill takes int32 alone
        raise TypeError(f"index_fill: index must be a 0-D or 1-D int32 Tensor, got {idx.dtype} {tuple(idx.shape)}")
    if not isinstance(axis, int) or not -t.ndim <= axis < max(t.ndim, 1):
        raise ValueError(f"index_fill: axis must be an int in [-{t.ndim}, {t.ndim}), got {axis!r}")
    axis %= max(t.ndim, 1)
    n = t.shape[axis] if t.ndim else 1
    idx = apply("Reshape", {"shape": [-1]}, [idx])
    idx = apply("Select", {}, [apply("Less", {}, [idx, np.zeros((), idx.dtype.np_dtype)]),
                               apply("Add", {}, [idx, np.asarray(n, idx.dtype.np_dtype)]), idx])
    hits = apply("Equal", {}, [apply("Reshape", {"shape": [1, -1]}, [idx]),
                               np.arange(n, dtype=idx.dtype.np_dtype).reshape(n, 1)])
    counts = apply("ReduceSum", {"axis": [1], "keep_dims": False}, [apply("Cast", {"dtype": "int32"}, [hits])])
    mask = apply("Greater", {}, [counts, np.zeros((), np.int32)])
    mask = apply("Reshape", {"shape": [n if a == axis else 1 for a in range(t.ndim)]}, [mask])
    v = value if isinstance(value, Tensor) else np.asarray(value, t.dtype.np_dtype)
    v = apply("Cast", {"dtype": t.dtype.name}, [as_tensor(v)]) if as_tensor(v).dtype != t.dtype else v
    return apply("Select", {}, [apply("BroadcastTo", {"shape": list(t.shape)}, [mask]),
                                apply("BroadcastTo", {"shape": list(t.shape)}, [as_tensor(v)]), t])


def _count_below(sorted_seq: Tensor, values: Tensor, right: bool, out_dtype: str) -> Tensor:
    """For each value, how many entries of the last axis of ``sorted_seq`` are < it (``right``: <= it); a NaN
    value goes after every entry (its length: NaN sorts last, as torch's, NumPy's and MindSpore's answer)."""
    if sorted_seq.ndim == 1:
        seq = apply("Reshape", {"shape": [1] * values.ndim + [sorted_seq.shape[0]]}, [sorted_seq])
    else:
        seq = apply("ExpandDims", {"axis": sorted_seq.ndim - 1}, [sorted_seq])
    vals = apply("ExpandDims", {"axis": values.ndim}, [values])
    below = apply("LessEqual" if right else "Less", {}, [seq, vals])
    counts = apply("ReduceSum", {"axis": [values.ndim], "keep_dims": False},
                   [apply("Cast", {"dtype": "int64"}, [below])])
    if values.dtype.is_float:  # no comparison with NaN holds, so the count alone would put it first
        length = np.asarray(sorted_seq.shape[-1], np.int64)
        counts = apply("Select", {}, [apply("IsNan", {}, [values]), apply("Add", {}, [apply("ZerosLike", {}, [counts]),
                                                                                        length]), counts])
    return counts if out_dtype == "int64" else apply("Cast", {"dtype": out_dtype}, [counts])


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Any = None) -> Tensor:
    """``ops.searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None)``:
    the insertion index of each value into the last axis of ``sorted_sequence`` (1-D, or with values' leading
    axes); ``side='right'`` (or ``right=True``) places a value after equal entries."""
    seq, vals = as_tensor(sorted_sequence), as_tensor(values)
    if sorter is not None:
        raise NotImplementedError("searchsorted: sorter is not supported by opbuild; sort the sequence first")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise ValueError("searchsorted: right=True contradicts side='left'")
        right = side == "right"
    if seq.ndim != 1 and tuple(seq.shape[:-1]) != tuple(vals.shape[:-1]):
        raise ValueError(f"searchsorted: a sorted_sequence of rank > 1 must match values' leading axes, got "
                         f"{tuple(seq.shape)} and {tuple(vals.shape)}")
    if seq.dtype != vals.dtype:
        vals = apply("Cast", {"dtype": seq.dtype.name}, [vals])
    return _count_below(seq, vals, bool(right), "int32" if out_int32 else "int64")


def bucketize(input: Any, boundaries: Sequence[float], *, right: bool = False) -> Tensor:  # noqa: A002
    """``ops.bucketize(input, boundaries, *, right=False)``: the bucket of each element for the sorted list
    ``boundaries`` (int32): the count of boundaries below it (``right``: not above it)."""
    x = as_tensor(input)
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"bucketize: boundaries must be a list of floats, got {type(boundaries).__name__}")
    table = Tensor(np.asarray(boundaries, x.dtype.np_dtype if x.dtype.is_float else np.float32))
    xs = x if x.dtype.is_float else apply("Cast", {"dtype": "float32"}, [x])
    return _count_below(table, xs, right, "int32")


def _segment(op: str, x: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    t, ids = as_tensor(x), as_tensor(segment_ids)
    if ids.dtype.name not in _INTS:
        raise TypeError(f"unsorted_segment_{op}: segment_ids must be int32 or int64, got {ids.dtype}")
    if tuple(t.shape[:ids.ndim]) != tuple(ids.shape):
        raise ValueError(f"unsorted_segment_{op}: segment_ids' shape {tuple(ids.shape)} must be a prefix of x's "
                         f"{tuple(t.shape)}")
    num = int(np.asarray(num_segments.asnumpy()).reshape(())) if isinstance(num_segments, Tensor) \
        else int(num_segments)
    if num <= 0:
        raise ValueError(f"unsorted_segment_{op}: num_segments must be positive, got {num}")
    rest = list(t.shape[ids.ndim:])
    seg = np.arange(num, dtype=ids.dtype.np_dtype).reshape((num,) + (1,) * ids.ndim)
    member = apply("Equal", {}, [apply("ExpandDims", {"axis": 0}, [ids]), seg])
    member = apply("Reshape", {"shape": [num, *ids.shape] + [1] * len(rest)}, [member])
    full = [num, *t.shape]
    info = np.finfo(t.dtype.np_dtype) if t.dtype.is_float else np.iinfo(t.dtype.np_dtype)
    fill = {"max": info.min, "min": info.max, "prod": 1}[op]
    data = apply("Select", {}, [apply("BroadcastTo", {"shape": full}, [member]),
                                apply("BroadcastTo", {"shape": full}, [apply("ExpandDims", {"axis": 0}, [t])]),
                                np.full(full, fill, t.dtype.np_dtype)])
    reduce = {"max": "ReduceMax", "min": "ReduceMin", "prod": "ReduceProd"}[op]
    return apply(reduce, {"axis": list(range(1, ids.ndim + 1)), "keep_dims": False}, [data])


def unsorted_segment_max(x: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    """``ops.unsorted_segment_max(x, segment_ids, num_segments)``: the maximum of each segment."""
    return _segment("max", x, segment_ids, num_segments)


def unsorted_segment_min(x: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    """``ops.unsorted_segment_min(x, segment_ids, num_segments)``: the minimum of each segment."""
    return _segment("min", x, segment_ids, num_segments)


def unsorted_segment_prod(x: Any, segment_ids: Any, num_segments: Any) -> Tensor:
    """``ops.unsorted_segment_prod(x, segment_ids, num_segments)``: the product of each segment."""
    return _segment("prod", x, segment_ids, num_segments)


def _segment_class(op: str) -> type[Primitive]:
    name = f"UnsortedSegment{op.capitalize()}"

    def call(self, x: Any, segment_ids: Any, num_segments: Any) -> Tensor:
        return _segment(op, x, segment_ids, num_segments)

    return type(name, (Primitive,), {"__call__": call, "op_name": name,
                                     "__doc__": f"``{name}()(x, segment_ids, num_segments)``: see "
                                                f"``ops.unsorted_segment_{op}``."})


PRIMITIVES: dict[str, type[Primitive]] = {"GatherNd": GatherNd,
                                          **{f"UnsortedSegment{o.capitalize()}": _segment_class(o)
                                             for o in ("max", "min", "prod")}}

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "bucketize", "gather_d", "gather_nd", "index_fill",
           "searchsorted", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod"]
