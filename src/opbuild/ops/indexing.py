"""Indexing operators: Gather, GatherD and GatherNd.

Out-of-range indices, per the ``bounds`` attribute (ops/bounds.py). ``"raise"`` (what users call:
``ops.Gather()``, ``ops.gather``, ``index_select``, ``take``, ``embedding``, ONNX Gather and GatherElements):
an index in ``[-n, 0)`` counts from the end and one outside ``[-n, n)`` makes the kernel report it, raised as
a :class:`~opbuild.core.errors.KernelInputError` after the call, as MindSpore 2.10 raises. ``"ignore"``
(opbuild's own compositions, the default): Gather takes ``[0, n)`` and gives zeros for any other index (a
composition sends a row it wants zero to -1); GatherD and GatherNd take ``[-n, n)`` and give zeros outside
(GatherNd: for the whole slice of an index row with any entry outside). GatherNd's ``"raise"`` takes ``[0, n)``
only, as MindSpore's (ONNX GatherND counts negatives from the end before it: frontends/onnx_ops/shapes.py). Neither mode
ever reads out of bounds. The axis (``dim``) is a static call argument, made canonical in ``normalize``
(ops/shape_args.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY, INTS
from ..core.errors import KernelInputError, ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .bounds import index_report, norm_bounds, raise_out_of_range
from .primitive import Primitive, apply, defop
from .registry import norm_axis, same_dtype
from .shape_args import static_int

# ---- Gather -------------------------------------------------------------------------------------------

def _gather_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if ins[0].rank == 0:
        raise ShapeError("Gather", "input_params must have rank >= 1", list(ins))
    axis = static_int("Gather", "axis", attrs.get("axis"), ins)
    out = {"axis": norm_axis("Gather", axis, ins[0].rank, ins), "bounds": norm_bounds("Gather", attrs, ins)}
    if attrs.get("subscript") is not None:  # the check of an index tensor of ``x[i, j]`` (ops/api/indexing.py)
        out["subscript"] = static_int("Gather", "subscript", attrs["subscript"], ins)
    return out


def _gather_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    params, indices = ins
    same_dtype("Gather", [params], ANY)
    if indices.dtype not in INTS:
        raise ShapeError("Gather", f"input_indices must be int32 or int64, got {indices.dtype}", list(ins))
    a = attrs["axis"]
    return [TensorType(params.shape[:a] + indices.shape + params.shape[a + 1:], params.dtype)]


def _subscript_report(at: int, indices: TensorType, value: int, position: int, n: int) -> KernelInputError:
    """The error for an entry out of range in the index tensor at position ``at`` of a subscript with several
    index tensors (``x[i, j]``), which a Gather of ``0..n-1`` checks: what the user wrote, not that Gather."""
    where = ", ".join(str(int(i)) for i in np.unravel_index(position, indices.shape)) if indices.shape else ""
    return KernelInputError(
        "Tensor.__getitem__",
        f"the index tensor at position {at} of the subscript holds {value} at [{where}], out of range for the dim "
        f"of size {n} it indexes: its entries must lie in [{-n}, {n}) (a negative one counts from the end); clip "
        f"them (ops.clamp) or mask them out before indexing, or check that the tensor indexes the dim meant",
        value, position)


def _gather_status(attrs: dict, ins: Sequence[TensorType], value: int, position: int) -> str | KernelInputError:
    params, indices = ins
    a = attrs["axis"]
    if "subscript" in attrs:
        return _subscript_report(attrs["subscript"], indices, value, position, params.shape[a])
    return index_report("input_indices", indices.shape, value, position, params.shape[a],
                        f"axis {a} of input_params (shape {tuple(params.shape)})")


def _gather_reference(attrs: dict, params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    a = attrs["axis"]
    n = params.shape[a]
    out_shape = params.shape[:a] + indices.shape + params.shape[a + 1:]
    idx = indices.astype(np.int64)
    if attrs.get("bounds", "ignore") == "raise":
        raise_out_of_range("Gather", _gather_status, attrs, params, indices, idx, n)
        idx = np.where(idx < 0, idx + n, idx)
    valid = (idx >= 0) & (idx < n)
    if n == 0:
        return np.zeros(out_shape, params.dtype)
    out = np.take(params, np.where(valid, idx, 0), axis=a)
    mask = valid.reshape((1,) * a + indices.shape + (1,) * (params.ndim - a - 1))
    return np.where(mask, out, np.zeros((), params.dtype))


@defop(infer=_gather_infer, reference=_gather_reference, normalize=_gather_normalize,
       n_inputs=2, status=_gather_status)
class Gather(Primitive):
    """``Gather()(input_params, input_indices, axis)``: slices of ``input_params`` along ``axis`` picked by
    the int32/int64 ``input_indices`` (output shape ``params[:axis] + indices + params[axis+1:]``). An index
    in ``[-n, 0)`` counts from the end (MindSpore's CPU); one outside ``[-n, n)`` raises a
    :class:`~opbuild.core.errors.KernelInputError` (a RuntimeError) when the kernel meets it."""

    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Tensor:
        return apply("Gather", {"axis": axis, "bounds": "raise"}, [input_params, input_indices])


# ---- GatherD ------------------------------------------------------------------------------------------

def _gatherd_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if ins[0].rank == 0:
        raise ShapeError("GatherD", "x must have rank >= 1", list(ins))
    dim = static_int("GatherD", "dim", attrs.get("dim"), ins)
    return {"dim": norm_axis("GatherD", dim, ins[0].rank, ins), "bounds": norm_bounds("GatherD", attrs, ins)}


def _gatherd_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, index = ins
    same_dtype("GatherD", [x], ANY)
    if index.dtype not in INTS:
        raise ShapeError("GatherD", f"index must be int32 or int64, got {index.dtype}", list(ins))
    dim = attrs["dim"]
    if index.rank != x.rank or any(a != b for d, (a, b) in enumerate(zip(x.shape, index.shape, strict=True))
                                   if d != dim):
        raise ShapeError("GatherD", f"index must have the rank of x and its shape except along dim {dim}",
                         list(ins))
    return [TensorType(index.shape, x.dtype)]


def _gatherd_status(attrs: dict, ins: Sequence[TensorType], value: int, position: int) -> str:
    x, index = ins
    d = attrs["dim"]
    return index_report("index", index.shape, value, position, x.shape[d], f"dim {d} of x (shape {tuple(x.shape)})")


def _gatherd_reference(attrs: dict, x: np.ndarray, index: np.ndarray) -> np.ndarray:
    dim = attrs["dim"]
    n = x.shape[dim]
    idx = index.astype(np.int64)
    if attrs.get("bounds", "ignore") == "raise":
        raise_out_of_range("GatherD", _gatherd_status, attrs, x, index, idx, n)
    idx = np.where(idx < 0, idx + n, idx)
    valid = (idx >= 0) & (idx < n)
    if n == 0:
        return np.zeros(index.shape, x.dtype)
    return np.where(valid, np.take_along_axis(x, np.where(valid, idx, 0), axis=dim), np.zeros((), x.dtype))


@defop(infer=_gatherd_infer, reference=_gatherd_reference, normalize=_gatherd_normalize,
       n_inputs=2, status=_gatherd_status)
class GatherD(Primitive):
    """``GatherD()(x, dim, index)``: ``np.take_along_axis(x, index, dim)``; ``index`` has x's shape except
    along ``dim``. Indices in ``[-n, n)`` are valid (negative counts from the end); another raises a
    :class:`~opbuild.core.errors.KernelInputError` when the kernel meets it (as MindSpore's GatherD)."""

    def __call__(self, x: Any, dim: int, index: Any) -> Tensor:
        return apply("GatherD", {"dim": dim, "bounds": "raise"}, [x, index])


# ---- GatherNd -----------------------------------------------------------------------------------------

def _gathernd_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, indices = ins
    same_dtype("GatherNd", [x], ANY)
    if indices.dtype not in INTS:
        raise ShapeError("GatherNd", f"indices must be int32 or int64, got {indices.dtype}", list(ins))
    if indices.rank < 1 or indices.shape[-1] > x.rank:
        raise ShapeError("GatherNd", f"indices must have rank >= 1 and a last axis no longer than input_x's rank "
                         f"{x.rank}", list(ins))
    return [TensorType(indices.shape[:-1] + x.shape[indices.shape[-1]:], x.dtype)]


def _gathernd_status(attrs: dict, ins: Sequence[TensorType], value: int, position: int) -> str:
    x, indices = ins
    d = position % indices.shape[-1]
    return index_report("indices", indices.shape, value, position, x.shape[d],
                        f"axis {d} of input_x (shape {tuple(x.shape)})", from_end=False)


def _gathernd_reference(attrs: dict, x: np.ndarray, indices: np.ndarray) -> np.ndarray:
    k = indices.shape[-1]
    dims = np.asarray(x.shape[:k], np.int64)
    idx = indices.astype(np.int64)
    if attrs.get("bounds", "ignore") == "raise":
        raise_out_of_range("GatherNd", _gathernd_status, attrs, x, indices, idx, dims, from_end=False)
    idx = np.where(idx < 0, idx + dims, idx)
    ok = ((idx >= 0) & (idx < dims)).all(axis=-1)
    rows = idx.reshape(-1, k)[ok.reshape(-1)]
    out = np.zeros(indices.shape[:-1] + x.shape[k:], x.dtype)
    out.reshape((-1,) + x.shape[k:])[ok.reshape(-1)] = x[tuple(rows.T)]
    return out


@defop(infer=_gathernd_infer, reference=_gathernd_reference, normalize=lambda attrs, ins: {
    "bounds": norm_bounds("GatherNd", attrs, ins)}, n_inputs=2, status=_gathernd_status)
class GatherNd(Primitive):
    """``GatherNd()(input_x, indices)``: the slices of ``input_x`` at the index rows of ``indices`` (shape
    ``(..., K)``, each row indexing the first K axes): shape ``indices.shape[:-1] + input_x.shape[K:]``. An entry
    outside ``[0, n)`` raises a
    :class:`~opbuild.core.errors.KernelInputError` when the kernel meets it (as MindSpore's GatherNd)."""

    def __call__(self, input_x: Any, indices: Any) -> Tensor:
        return apply("GatherNd", {"bounds": "raise"}, [input_x, indices])


PRIMITIVES: dict[str, type[Primitive]] = {cls.__name__: cls for cls in (Gather, GatherD, GatherNd)}


# ---- UnsortedSegmentSum (Gather's backward) and the gradient rules --------------------------------------

def _segment_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    num = static_int("UnsortedSegmentSum", "num_segments", attrs.get("num_segments"), ins)
    if num < 0:
        raise ShapeError("UnsortedSegmentSum", f"num_segments must be >= 0, got {num}", list(ins))
    return {"num_segments": num}


def _segment_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, ids = ins
    same_dtype("UnsortedSegmentSum", [x], ("float32", "float64", "int32", "int64"))
    if ids.dtype not in INTS:
        raise ShapeError("UnsortedSegmentSum", f"segment_ids must be int32 or int64, got {ids.dtype}", list(ins))
    if x.shape[:ids.rank] != ids.shape:
        raise ShapeError("UnsortedSegmentSum", "segment_ids' shape must be a prefix of x's shape", list(ins))
    return [TensorType((attrs["num_segments"],) + x.shape[ids.rank:], x.dtype)]


def _segment_reference(attrs: dict, x: np.ndarray, ids: np.ndarray) -> np.ndarray:
    n = attrs["num_segments"]
    rows = x.reshape((ids.size, -1))
    out = np.zeros((n, rows.shape[1]), x.dtype)
    flat = ids.reshape(-1).astype(np.int64)
    ok = (flat >= 0) & (flat < n)
    np.add.at(out, flat[ok], rows[ok])
    return out.reshape((n,) + x.shape[ids.ndim:])


@defop(infer=_segment_infer, reference=_segment_reference, normalize=_segment_normalize,
       n_inputs=2)
class UnsortedSegmentSum(Primitive):
    """``UnsortedSegmentSum()(input_x, segment_ids, num_segments)``: ``out[segment_ids[j], ...] +=
    input_x[j, ...]`` over a prefix of x's axes; ids outside ``[0, num_segments)`` are dropped. The scatter-add
    that is Gather's backward (as in MindSpore)."""

    def __call__(self, input_x: Any, segment_ids: Any, num_segments: int) -> Tensor:
        return apply("UnsortedSegmentSum", {"num_segments": num_segments}, [input_x, segment_ids])


PRIMITIVES["UnsortedSegmentSum"] = UnsortedSegmentSum

from . import gradlib as G  # noqa: E402
from .registry import grad_rule  # noqa: E402


@grad_rule("Gather")
def _gather_grad(attrs, ins, outs, douts):
    """The indices' axes of dout are moved to the front, summed into the rows they picked (negative indices of
    ``bounds="raise"`` counted from the end; out-of-range indices of ``"ignore"`` contribute nothing, as they
    read nothing), and the gathered axis is moved back to ``axis``."""
    params, indices = ins
    a, ri, dy = attrs["axis"], len(indices.shape), douts[0]
    rank = len(dy.shape)
    front = list(range(a, a + ri)) + list(range(a)) + list(range(a + ri, rank))
    rows, dt = G.transpose(dy, front), dy._type.dtype
    if attrs.get("bounds") == "raise":  # [-n, 0) read from the end: those rows get their cotangent too
        idt, n = indices._type.dtype, params.shape[a]
        shifted = apply("Add", {}, [indices, Tensor(np.asarray(n, idt))])
        indices = apply("Select", {}, [apply("Less", {}, [indices, Tensor(np.asarray(0, idt))]), shifted, indices])
    if dt in ("float16", "bfloat16"):  # UnsortedSegmentSum takes no half type: summed in float32, rounded once
        rows = apply("Cast", {"dtype": "float32"}, [rows])
    summed = apply("UnsortedSegmentSum", {"num_segments": params.shape[a]}, [rows, indices])
    if dt in ("float16", "bfloat16"):
        summed = apply("Cast", {"dtype": dt}, [summed])
    back = list(range(1, a + 1)) + [0] + list(range(a + 1, len(params.shape)))
    return [G.transpose(summed, back), None]


@grad_rule("UnsortedSegmentSum")
def _segment_sum_grad(attrs, ins, outs, douts):
    """Each input row went to segment ``ids[j]``: its gradient is that segment's (a Gather of dy; ids outside
    ``[0, num_segments)`` contributed nothing and read zeros)."""
    return [apply("Gather", {"axis": 0}, [douts[0], ins[1]]), None]


@grad_rule("GatherD")
def _gatherd_grad(attrs, ins, outs, douts):
    """out[p] = x[p with p[dim] := index[p]]: dy is scatter-added into x's shape at those positions. The flat
    target of each element is a constant base (its coordinates other than ``dim``, from the static shapes)
    plus the normalised index times the stride of ``dim``; an index outside [-n, n) reads nothing and is sent
    to segment -1, which UnsortedSegmentSum drops."""
    x, index = ins
    dim, n = attrs["dim"], x.shape[attrs["dim"]]
    strides = [math.prod(x.shape[i + 1:]) for i in range(len(x.shape))]
    coords = np.indices(index.shape, dtype=np.int64)
    base = sum(coords[i] * strides[i] for i in range(len(x.shape)) if i != dim)
    idt = index._type.dtype
    zero, size = Tensor(np.zeros((), idt)), Tensor(np.array(n, idt))
    idx = apply("Select", {}, [apply("Less", {}, [index, zero]), apply("Add", {}, [index, size]), index])
    valid = apply("LogicalAnd", {}, [apply("GreaterEqual", {}, [idx, zero]), apply("Less", {}, [idx, size])])
    flat = apply("Add", {}, [Tensor(np.asarray(base, np.int64).astype(idt)),
                             apply("Mul", {}, [idx, Tensor(np.array(strides[dim], idt))])])
    flat = apply("Select", {}, [valid, flat, Tensor(np.full(index.shape, -1, idt))])
    total = math.prod(x.shape)
    summed = apply("UnsortedSegmentSum", {"num_segments": total},
                   [G.reshape(douts[0], [math.prod(index.shape)]), G.reshape(flat, [math.prod(index.shape)])])
    return [G.reshape(summed, list(x.shape)), None]


@grad_rule("GatherNd")
def _gathernd_grad(attrs, ins, outs, douts):
    """Each index row's slice of dy is added into x's shape at the slice it read (TensorScatterAdd over zeros;
    a row out of range read zeros and adds nothing)."""
    x, indices = ins
    zeros = Tensor(np.zeros(tuple(x.shape), douts[0]._type.dtype))
    return [apply("TensorScatterAdd", {}, [zeros, indices, douts[0]]), None]
