"""Slicing and joining operators: Concat, Split, Slice and StridedSlice.

Call arguments become canonical attributes in ``normalize`` (ops/shape_args.py): StridedSlice's masks are
expanded to per-dim start/step/count, so equal requests share one kernel. The CPU's kernels (pure data
movement) are in targets/cpu/kernels/slicing.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY, ANY_C
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from .primitive import Primitive, apply, defop
from .registry import allow_complex, norm_axis, same_dtype
from .shape_args import attr_shape_infer, static_int, static_ints

# ---- Concat -------------------------------------------------------------------------------------------

def _concat_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if not ins:
        raise ShapeError("Concat", "needs at least one input tensor", [])
    rank = ins[0].rank
    if rank == 0 or any(t.rank != rank for t in ins):
        raise ShapeError("Concat", "inputs must all have the same rank >= 1", list(ins))
    return {"axis": norm_axis("Concat", attrs.get("axis", 0), rank, ins)}


def _concat_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Concat", ins, ANY_C)
    axis = attrs["axis"]
    first = ins[0].shape
    for t in ins[1:]:
        if any(a != b for d, (a, b) in enumerate(zip(first, t.shape, strict=True)) if d != axis):
            raise ShapeError("Concat", f"input shapes must match except along axis {axis}", list(ins))
    out = list(first)
    out[axis] = sum(t.shape[axis] for t in ins)
    return [TensorType(tuple(out), dt)]


@defop(infer=_concat_infer, normalize=_concat_normalize,
       reference=lambda attrs, *xs: np.concatenate(xs, axis=attrs["axis"]))
class Concat(Primitive):
    """``Concat(axis=0)((x1, x2, ...))``: join tensors of equal shapes (except along ``axis``)."""

    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)

    def __call__(self, input_x: Sequence[Any]) -> Tensor:
        if not isinstance(input_x, (tuple, list)):
            given = [input_x._type] if isinstance(input_x, Tensor) else []
            raise ShapeError("Concat", f"expects a tuple or list of tensors, got {type(input_x).__name__}",
                             given)
        return apply("Concat", self.attrs, list(input_x))


# ---- Split --------------------------------------------------------------------------------------------

def _split_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("Split", "input must have rank >= 1", [x])
    axis = norm_axis("Split", attrs.get("axis", 0), x.rank, ins)
    num = static_int("Split", "output_num", attrs.get("output_num", 1), ins)
    if num < 1 or x.shape[axis] % num:
        raise ShapeError("Split", f"axis {axis} of size {x.shape[axis]} cannot be split evenly into "
                                  f"output_num={num} parts", [x])
    return {"axis": axis, "output_num": num}


def _split_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Split", ins, ANY)
    shape = list(ins[0].shape)
    shape[attrs["axis"]] //= attrs["output_num"]
    return [TensorType(tuple(shape), dt)] * attrs["output_num"]


@defop(infer=_split_infer, normalize=_split_normalize, n_inputs=1, multi_output=True,
       reference=lambda attrs, x: np.split(x, attrs["output_num"], axis=attrs["axis"]))
class Split(Primitive):
    """``Split(axis=0, output_num=1)(x)``: a tuple of ``output_num`` equal parts along ``axis``."""

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__(axis=axis, output_num=output_num)


# ---- Slice --------------------------------------------------------------------------------------------

def _slice_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    begin = static_ints("Slice", "begin", attrs.get("begin"), ins)
    size = static_ints("Slice", "size", attrs.get("size"), ins)
    if len(begin) != x.rank or len(size) != x.rank:
        raise ShapeError("Slice", f"begin {tuple(begin)} and size {tuple(size)} need one entry per axis "
                                  f"(rank {x.rank})", [x])
    size = [n - b if s == -1 else s for b, s, n in zip(begin, size, x.shape, strict=True)]
    for d, (b, s, n) in enumerate(zip(begin, size, x.shape, strict=True)):
        if b < 0 or s < 0 or b + s > n:
            raise ShapeError("Slice", f"begin {tuple(begin)} / size {tuple(attrs.get('size'))} is out of "
                                      f"bounds on axis {d} (size {n}); need begin >= 0, size >= 0 or -1 and "
                                      f"begin + size <= dim", [x])
    return {"begin": begin, "size": size}


def _slice_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return [TensorType(tuple(attrs["size"]), same_dtype("Slice", ins, ANY_C))]


@defop(infer=_slice_infer, normalize=_slice_normalize, n_inputs=1,
       reference=lambda attrs, x: x[tuple(slice(b, b + s)
                                          for b, s in zip(attrs["begin"], attrs["size"], strict=True))])
class Slice(Primitive):
    """``Slice()(x, begin, size)``: the box at ``begin`` with extent ``size`` (``-1``: to the end)."""

    def __call__(self, x: Any, begin: Sequence[int], size: Sequence[int]) -> Tensor:
        return apply("Slice", {"begin": begin, "size": size}, [x])


# ---- StridedSlice -------------------------------------------------------------------------------------

_SS_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    """TensorFlow/MindSpore StridedSlice semantics -> per-input-dim ``start``, ``step``, ``count`` and the
    output ``shape`` (new axes added, shrunk axes removed). The kernel depends on that canonical form only."""
    x = ins[0]
    if "count" in attrs:  # already canonical (re-derived from a graph node)
        return {k: list(attrs[k]) for k in ("start", "step", "count", "shape")}
    op = "StridedSlice"
    begin = static_ints(op, "begin", attrs.get("begin"), ins)
    end = static_ints(op, "end", attrs.get("end"), ins)
    stride = static_ints(op, "strides", attrs.get("strides"), ins)
    if not len(begin) == len(end) == len(stride):
        raise ShapeError(op, f"begin {tuple(begin)}, end {tuple(end)} and strides {tuple(stride)} must have "
                             f"the same length", [x])
    masks = {m: static_int(op, m, attrs.get(m, 0), ins) for m in _SS_MASKS}
    ell = masks["ellipsis_mask"]
    if ell & (ell - 1):
        raise ShapeError(op, f"ellipsis_mask {ell} sets more than one bit (only one ellipsis allowed)", [x])
    n = len(begin)

    def bit(m: str, i: int) -> bool:
        return bool(masks[m] >> i & 1)

    # Expand the sparse spec (with an implicit trailing ellipsis) into one entry per input dim, recording
    # where the output gets each dim from: an input dim, a new axis (None), or nothing (shrunk).
    if not any(bit("ellipsis_mask", i) for i in range(n)):
        entries = list(range(n)) + ["..."]
    else:
        entries = ["..." if bit("ellipsis_mask", i) else i for i in range(n)]
    consumed = sum(1 for e in entries if e != "..." and not bit("new_axis_mask", e))
    dense: list[tuple[int, int, int, bool, bool, bool]] = []  # (begin, end, stride, begin_m, end_m, shrink)
    gather: list[int | None] = []  # output dims: input dim index, or None for a new axis
    for e in entries:
        if e == "...":
            for _ in range(max(x.rank - consumed, 0)):
                gather.append(len(dense))
                dense.append((0, 0, 1, True, True, False))
        elif bit("new_axis_mask", e):
            gather.append(None)
        else:
            if len(dense) == x.rank:
                raise ShapeError(op, f"the slice spec indexes more than the input's {x.rank} axes", [x])
            shrink = bit("shrink_axis_mask", e)
            if not shrink:
                gather.append(len(dense))
            dense.append((begin[e], end[e], stride[e], bit("begin_mask", e), bit("end_mask", e), shrink))
    start, step, count = [], [], []
    for d, (b, e, s, bm, em, shrink) in enumerate(dense):
        dim = x.shape[d]
        if s == 0:
            raise ShapeError(op, f"strides {tuple(stride)} has a zero stride (axis {d})", [x])
        if shrink:
            if s < 0:
                raise ShapeError(op, f"a shrunk axis (axis {d}) needs a positive stride, got {s}", [x])
            i = b + dim if b < 0 else b
            if not 0 <= i < dim:
                raise ShapeError(op, f"index {b} is out of bounds for axis {d} of size {dim}", [x])
            lo, c = i, 1
        else:  # the same clamping as Python's slice.indices
            lo, hi, _ = slice(None if bm else b, None if em else e, s).indices(dim)
            c = len(range(lo, hi, s))
        start.append(lo)
        step.append(s)
        count.append(c)
    if 0 in count:  # an empty result reads nothing: one kernel per (input, output shape)
        start, step = [0] * len(count), [1] * len(count)
    step = [1 if c == 1 else s for c, s in zip(count, step, strict=True)]
    shape = [1 if g is None else count[g] for g in gather]
    return {"start": start, "step": step, "count": count, "shape": shape}


def _strided_slice_reference(attrs: dict, x: np.ndarray) -> np.ndarray:
    dims = zip(attrs["start"], attrs["step"], attrs["count"], strict=True)
    idx = [b + s * np.arange(c) for b, s, c in dims]
    return x[np.ix_(*idx)].reshape(attrs["shape"]) if idx else x.reshape(attrs["shape"])


@defop(infer=attr_shape_infer("StridedSlice"), reference=_strided_slice_reference,
       normalize=_strided_slice_normalize, n_inputs=1)
class StridedSlice(Primitive):
    """``StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    (x, begin, end, strides)``: TensorFlow/MindSpore strided slicing (``x[b0:e0:s0, ...]`` without
    ``__getitem__``), including negative indices and strides, masks, ellipsis, new and shrunk axes."""

    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                 shrink_axis_mask: int = 0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                         new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)

    def __call__(self, x: Any, begin: Sequence[int], end: Sequence[int], strides: Sequence[int]) -> Tensor:
        return apply("StridedSlice", {**self.attrs, "begin": begin, "end": end, "strides": strides}, [x])


PRIMITIVES: dict[str, type[Primitive]] = {cls.__name__: cls for cls in (Concat, Split, Slice, StridedSlice)}


# ---- StridedSliceGrad and the gradient rules ------------------------------------------------------------

def _ss_grad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return [TensorType(tuple(attrs["xshape"]), same_dtype("StridedSliceGrad", ins, ANY))]


def _ss_grad_reference(attrs: dict, dy: np.ndarray) -> np.ndarray:
    out = np.zeros(attrs["xshape"], dy.dtype)
    idx = [b + s * np.arange(c) for b, s, c in zip(attrs["start"], attrs["step"], attrs["count"], strict=True)]
    if idx:
        out[np.ix_(*idx)] = dy.reshape(attrs["count"])
    else:
        out[...] = dy.reshape(())
    return out


@defop(infer=_ss_grad_infer, reference=_ss_grad_reference, n_inputs=1, scenario="backward")
class StridedSliceGrad(Primitive):
    """Internal backward op (MindSpore's StridedSliceGrad): the cotangent ``dy`` of a StridedSlice written
    into zeros of the input's shape, at the canonical ``start``/``step``/``count`` the slice read."""


from . import gradlib as G  # noqa: E402
from .registry import grad_rule  # noqa: E402


@grad_rule("Concat")
def _concat_grad(attrs, ins, outs, douts):
    axis, dy, grads, at = attrs["axis"], douts[0], [], 0
    for x in ins:
        begin = [0] * len(x.shape)
        begin[axis] = at
        grads.append(apply("Slice", {"begin": begin, "size": list(x.shape)}, [dy]))
        at += x.shape[axis]
    return grads


@grad_rule("Split")
def _split_grad(attrs, ins, outs, douts):
    # Outputs nobody used have no cotangent: zeros stand in for them in the concatenation.
    parts = [d if d is not None else G.zeros_like(o) for d, o in zip(douts, outs, strict=True)]
    return [parts[0] if len(parts) == 1 else apply("Concat", {"axis": attrs["axis"]}, parts)]


@grad_rule("Slice")
def _slice_grad(attrs, ins, outs, douts):
    pads = [[b, n - b - s] for b, s, n in zip(attrs["begin"], attrs["size"], ins[0].shape, strict=True)]
    return [apply("Pad", {"paddings": pads}, [douts[0]]) if ins[0].shape else douts[0]]


@grad_rule("StridedSlice")
def _strided_slice_grad(attrs, ins, outs, douts):
    canon = {k: list(attrs[k]) for k in ("start", "step", "count")}
    return [apply("StridedSliceGrad", {**canon, "xshape": list(ins[0].shape)}, [douts[0]])]

# Pure data movement: complex elements move like any other (docs/fft.md).
allow_complex("Concat", "Slice", "StridedSlice")
