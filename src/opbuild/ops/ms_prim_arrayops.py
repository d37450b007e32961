"""MindSpore primitive classes of the array and sparse families (the pattern of ms_prim_classes.py: one table
row per class, MindSpore 2.10's constructor attributes, a call over the functional API or a small composition):
``MirrorPad``, ``SpaceToBatchND``, ``BatchToSpaceND``, ``Col2Im``, ``Im2Col``, ``NonZero``, ``Unique``,
``UniqueConsecutive``, ``ReverseSequence``, ``IndexPut``, ``InplaceIndexAdd``, ``ParallelConcat``,
``DataFormatDimMap``, ``EmbeddingLookup``, ``Median``, ``Bincount``, ``SparseToDense``, ``SparseTensorDenseAdd``,
``SparseTensorDenseMatmul`` and ``CTCLossV2``. Checked against MindSpore in tests/compat/test_arrayops.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .api.padding import pad_pairs
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive, apply


def _ints(name: str, v: Any, n: int, fn: str) -> tuple[int, ...]:
    """An int or a sequence of ints as ``n`` ints (one int repeated; MindSpore's 1-or-n forms)."""
    t = (v,) if isinstance(v, int) and not isinstance(v, bool) else tuple(v)
    if len(t) == 1:
        t = t * n
    if len(t) != n or not all(isinstance(a, int) and not isinstance(a, bool) for a in t):
        raise ValueError(f"{fn}: {name} must be an int or {n} ints, got {v!r}")
    return t


def _col2im(a: dict, x: Any, output_size: Any) -> Tensor:
    return F.col2im(x, output_size, a["kernel_size"], a["dilation"], a["padding"], a["stride"])


def _im2col(a: dict, x: Any) -> Tensor:
    fn = "Im2Col"
    t = as_tensor(x)
    if t.ndim != 4:
        raise ValueError(f"{fn}: x must be (N, C, H, W), got shape {tuple(t.shape)}")
    k = _ints("ksizes", a["ksizes"], 2, fn)
    s, d = _ints("strides", a["strides"], 2, fn), _ints("dilations", a["dilations"], 2, fn)
    pads = a["pads"]
    p = (pads,) * 4 if isinstance(pads, int) else tuple(pads)
    if len(p) == 1:
        p = p * 4
    elif len(p) == 2:
        p = (p[0], p[0], p[1], p[1])
    if len(p) != 4 or any(v < 0 for v in p):
        raise ValueError(f"{fn}: pads must be 1, 2 or 4 non-negative ints (top, bottom, left, right), got {pads!r}")
    if any(p):
        t = pad_pairs(fn, t, [[0, 0], [0, 0], [p[0], p[1]], [p[2], p[3]]])
    cols = F.unfold(t, k, d, 0, s)
    n, c = t.shape[0], t.shape[1]
    return F.reshape(cols, (n, c, k[0] * k[1], -1))


def _unique(a: dict, x: Any) -> tuple:
    t = as_tensor(x)
    if t.ndim != 1:
        raise ValueError(f"Unique: x must be 1-D, got shape {tuple(t.shape)}")
    return F.unique(t)


def _unique_consecutive(a: dict, x: Any) -> Any:
    return F.unique_consecutive(x, a["return_inverse"], a["return_counts"], a["dim"])


def _index_put(a: dict, x1: Any, x2: Any, indices: Any) -> Tensor:
    fn = "IndexPut"
    x, v = as_tensor(x1), as_tensor(x2)
    idx = [as_tensor(i) for i in indices]
    if a["accumulate"] not in (0, 1):
        raise ValueError(f"{fn}: accumulate must be 0 or 1, got {a['accumulate']!r}")
    if not idx or len(idx) > x.ndim or any(i.dtype.name not in ("int32", "int64") or i.ndim != 1 for i in idx):
        raise ValueError(f"{fn}: indices must be 1 to {x.ndim} 1-D int32/int64 Tensors")
    if v.dtype != x.dtype or v.ndim != 1:
        raise TypeError(f"{fn}: x2 must be a 1-D Tensor of x1's dtype {x.dtype}, got {v.dtype} {tuple(v.shape)}")
    count = max(i.shape[0] for i in idx)
    if any(i.shape[0] not in (1, count) for i in idx):
        raise ValueError(f"{fn}: the index tensors must have one length (or 1), got {[i.shape[0] for i in idx]}")
    cols = [F.broadcast_to(F.cast(i, "int64"), (count,)) for i in idx]
    # Negative indices count from the end of their axis, as in Python indexing.
    cols = [F.where(F.less(c, 0), F.add(c, x.shape[k]), c) for k, c in enumerate(cols)]
    nd = F.stack(cols, 1)
    rest = tuple(x.shape[len(idx):])
    # x2 broadcasts to every indexed slice: (count,) for elements, (count, *rest) for trailing slices.
    want = rest[-1] if rest else count
    if v.shape[0] not in (1, want):
        raise ValueError(f"{fn}: x2 must have 1 or {want} elements, got {v.shape[0]}")
    upd = F.broadcast_to(v, (count, *rest))
    return F.tensor_scatter_add(x, nd, upd) if a["accumulate"] else F.tensor_scatter_update(x, nd, upd)


def _parallel_concat(a: dict, values: Any) -> Tensor:
    ts = [as_tensor(v) for v in values]
    if not ts or any(t.ndim < 1 or t.shape[0] != 1 for t in ts):
        raise ValueError("ParallelConcat: every input must have a first axis of size 1, got "
                         f"{[tuple(t.shape) for t in ts]}")
    return F.concat(ts, 0)


def _data_format_dim_map(a: dict, x: Any) -> Tensor:
    src, dst = a["src_format"], a["dst_format"]
    if sorted(src) != sorted(dst) or len(src) not in (4, 5) or len(set(src)) != len(src):
        raise ValueError(f"DataFormatDimMap: src_format and dst_format must be permutations of one 4 or 5 letter "
                         f"format, got {src!r} and {dst!r}")
    t = as_tensor(x)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"DataFormatDimMap: x must be int32 or int64, got {t.dtype}")
    n = len(src)
    table = Tensor(np.array([src.index(c) for c in dst], t.dtype.np_dtype))
    return F.gather(table, F.floor_mod(t, n), 0)


def _embedding_lookup(a: dict, params: Any, indices: Any, offset: Any) -> Tensor:
    idx = as_tensor(indices)
    off = int(offset.asnumpy()) if isinstance(offset, Tensor) else int(offset)
    # The Gather op itself, not ops.gather: an id below the offset reads zeros (MindSpore's EmbeddingLookup,
    # recorded), where ops.gather would count it from the table's end.
    return apply("Gather", {"axis": 0}, [as_tensor(params), F.sub(idx, Tensor(np.array(off, idx.dtype.np_dtype)))])


def _median(a: dict, x: Any) -> tuple:
    t = as_tensor(x)
    if a["global_median"]:
        t, axis, keep = F.reshape(t, (-1,)), 0, False
    else:
        axis, keep = a["axis"], a["keep_dims"]
    if not a["ignore_nan"] or not t.dtype.is_float:
        return F.median(t, axis, keep)
    # NaN sorts last: the lower median of each lane's non-NaN values sits at (count - 1) // 2.
    ax = axis % max(t.ndim, 1)
    vals, idx = F.sort(t, ax)
    count = F.sum(F.cast(F.logical_not(F.isnan(t)), "int64"), ax, True)
    k = F.maximum(F.floor_divide(F.sub(count, 1), 2), Tensor(np.array(0, np.int64)))
    v, i = F.gather_elements(vals, ax, k), F.gather_elements(F.cast(idx, "int64"), ax, k)
    return (v, i) if keep else (F.squeeze(v, ax), F.squeeze(i, ax))


def _bincount(a: dict, array: Any, size: Any, weights: Any) -> Tensor:
    arr, w = as_tensor(array), as_tensor(weights)
    n = int(size.asnumpy()) if isinstance(size, Tensor) else int(size)
    if n < 0:
        raise ValueError(f"Bincount: size must be non-negative, got {n}")
    if arr.dtype.name != "int32" or tuple(w.shape) not in (tuple(arr.shape), (0,)):
        raise ValueError(f"Bincount: array must be int32 and weights of its shape (or empty), got {arr.dtype} "
                         f"{tuple(arr.shape)} and {tuple(w.shape)}")
    if tuple(w.shape) == (0,):
        w = F.ones(arr.shape, w.dtype)
    # Values outside [0, size) are dropped, as UnsortedSegmentSum drops out-of-range segment ids.
    return F.unsorted_segment_sum(F.reshape(w, (-1,)), F.reshape(arr, (-1,)), n)


def _shape_of(v: Any) -> tuple[int, ...]:
    shape = v.asnumpy().tolist() if isinstance(v, Tensor) else list(v)
    return tuple(int(d) for d in shape)


def _sparse_to_dense(a: dict, indices: Any, values: Any, sparse_shape: Any) -> Tensor:
    return F.scatter_nd(indices, values, _shape_of(sparse_shape))


def _sparse_dense_add(a: dict, x1_indices: Any, x1_values: Any, x1_shape: Any, x2: Any) -> Tensor:
    dense = as_tensor(x2)
    if _shape_of(x1_shape) != tuple(dense.shape):
        raise ValueError(f"SparseTensorDenseAdd: x1_shape {_shape_of(x1_shape)} must equal x2's shape "
                         f"{tuple(dense.shape)}")
    return F.tensor_scatter_add(dense, x1_indices, x1_values)


def _sparse_dense_matmul(a: dict, indices: Any, values: Any, sparse_shape: Any, dense: Any) -> Tensor:
    sp = F.scatter_nd(indices, values, _shape_of(sparse_shape))
    d = as_tensor(dense)
    if a["adjoint_st"]:
        sp = F.transpose(sp, (1, 0))
    if a["adjoint_dt"]:
        d = F.transpose(d, (1, 0))
    return F.matmul(sp, d)


def _ctc_loss_v2(a: dict, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any) -> tuple:
    if a["reduction"] != "none":
        raise ValueError(f"CTCLossV2: reduction must be 'none' (MindSpore's only one; ops.ctc_loss reduces), got "
                         f"{a['reduction']!r}")
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, a["blank"], a["reduction"],
                      a["zero_infinity"])


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "MirrorPad": ((("mode", "REFLECT"),), lambda a, x, paddings: F.mirror_pad(x, paddings, a["mode"]),
                  "Pads every axis by mirroring ('REFLECT' without the edge, 'SYMMETRIC' with it)."),
    "SpaceToBatchND": ((("block_shape", REQUIRED), ("paddings", REQUIRED)),
                       lambda a, x: F.space_to_batch_nd(x, a["block_shape"], a["paddings"]),
                       "Spatial blocks moved into the batch (``ops.space_to_batch_nd``)."),
    "BatchToSpaceND": ((("block_shape", REQUIRED), ("crops", REQUIRED)),
                       lambda a, x: F.batch_to_space_nd(x, a["block_shape"], a["crops"]),
                       "The batch folded back into spatial blocks, then cropped (``ops.batch_to_space_nd``)."),
    "Col2Im": ((("kernel_size", REQUIRED), ("dilation", 1), ("padding", 0), ("stride", 1)), _col2im,
               "(N, C, kh * kw, L) columns summed into an (N, C, H, W) image (``ops.col2im``)."),
    "Im2Col": ((("ksizes", REQUIRED), ("strides", 1), ("dilations", 1), ("pads", 0)), _im2col,
               "The sliding patches of an (N, C, H, W) input as (N, C, kh * kw, L) columns."),
    "NonZero": ((), lambda a, x: F.argwhere(x), "The int64 (N, ndim) coordinates of the non-zero elements."),
    "Unique": ((), _unique, "The distinct elements of a 1-D tensor and each element's index among them."),
    "UniqueConsecutive": ((("return_inverse", False), ("return_counts", False), ("dim", None)), _unique_consecutive,
                          "Runs of equal consecutive elements collapsed (``ops.unique_consecutive``)."),
    "ReverseSequence": ((("seq_dim", REQUIRED), ("batch_dim", 0)),
                        lambda a, x, lengths: F.reverse_sequence(x, lengths, a["seq_dim"], a["batch_dim"]),
                        "Reverses the first ``seq_lengths[i]`` elements along ``seq_dim`` of each batch entry."),
    "IndexPut": ((("accumulate", 0),), _index_put,
                 "``x1`` with the positions named by ``indices`` (one 1-D tensor per leading axis) set to (or, "
                 "``accumulate=1``, increased by) ``x2``."),
    "InplaceIndexAdd": ((("axis", REQUIRED),),
                        lambda a, var, indices, updates: F.inplace_index_add(var, indices, updates, a["axis"]),
                        "Adds ``updates`` into the Parameter ``var`` at ``indices`` along ``axis``, in place."),
    "ParallelConcat": ((), _parallel_concat, "Concatenates tensors whose first axis has size 1 along it."),
    "DataFormatDimMap": ((("src_format", "NHWC"), ("dst_format", "NCHW")), _data_format_dim_map,
                         "Maps axis numbers of ``dst_format`` to the same axes' numbers in ``src_format``."),
    "EmbeddingLookup": ((), _embedding_lookup,
                        "Rows ``indices - offset`` of ``input_params`` (zeros for rows outside the table)."),
    "Median": ((("global_median", False), ("axis", 0), ("keep_dims", False), ("ignore_nan", False)), _median,
               "The lower median along ``axis`` (or of all elements) and its index."),
    "Bincount": ((), _bincount, "Per value in [0, size), the sum of the weights of the elements equal to it."),
    "SparseToDense": ((), _sparse_to_dense, "The dense tensor of a COO (indices, values, shape) triple."),
    "SparseTensorDenseAdd": ((), _sparse_dense_add, "A COO sparse tensor added to a dense tensor of its shape."),
    "SparseTensorDenseMatmul": ((("adjoint_st", False), ("adjoint_dt", False)), _sparse_dense_matmul,
                                "A 2-D COO sparse tensor times a dense matrix (either transposed first)."),
    "CTCLossV2": ((("blank", 0), ("reduction", "none"), ("zero_infinity", False)), _ctc_loss_v2,
                  "The CTC loss and log-alpha of log-probabilities (``ops.ctc_loss``)."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
