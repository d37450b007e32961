"""Shape and data-movement operators: Reshape, Transpose, ExpandDims, Squeeze, Flatten, Concat, Split, Slice,
StridedSlice, Gather, GatherD, Tile, BroadcastTo, Pad, OnesLike, ZerosLike and Fill.

Every non-tensor call argument (a shape, a permutation, an axis, slice bounds) is static: the primitive
classes move it into the op's attributes and ``normalize`` turns it into one canonical form (negative axes
resolved, ``-1`` sizes filled in, StridedSlice masks expanded to per-dim start/step/count), so equal
requests share one kernel. ``normalize`` must be idempotent: the build re-derives each kernel's spec from
the already-normalised attributes stored in the graph node.

Kernels are specialised on static shapes and move data with :func:`~opbuild.codegen.c.strided_copy`, which
copies contiguous runs with ``memcpy`` (whole rows for Concat/Split/Slice/Tile/Pad, one block for
Reshape-like ops) and blocks transposes into cache tiles.

Out-of-range gather indices: the index of each gathered element is checked at run time. An index outside
the valid range writes zeros to the elements it would have produced (as MindSpore's CPU kernels do), never
reads out of bounds and never clamps. Gather accepts ``[0, n)``; GatherD accepts ``[-n, n)`` (negative
counts from the end, as ``np.take_along_axis``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..codegen.c import c_literal, ctype, strided_copy, strides
from ..dtypes import ANY, INTS, dtype_of
from ..errors import ShapeError
from ..ir import TensorType
from ..tensor import Tensor
from .primitive import Primitive, apply
from .registry import KernelSpec, OpDef, norm_axis, register, same_dtype

# ---- helpers --------------------------------------------------------------------------------------------


def _prod(xs: Sequence[int]) -> int:
    n = 1
    for x in xs:
        n *= int(x)
    return n


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _static_ints(op: str, what: str, value: Any, ins: Sequence[TensorType],
                 allow_scalar: bool = False) -> list[int]:
    """A static tuple of ints given as a call argument (tuple, list, ndarray or a concrete Tensor), as a list.

    A traced (symbolic) Tensor is rejected: its values exist only when the graph runs, and every kernel is
    specialised on the shape it produces.
    """
    if isinstance(value, Tensor):
        if value._data is None:
            raise ShapeError(op, f"{what} must be known when the graph is traced (a tuple of ints), "
                                 f"got a traced Tensor", list(ins))
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim else value.item()
    if allow_scalar and _is_int(value):
        value = [value]
    if not isinstance(value, (tuple, list)) or not all(_is_int(v) for v in value):
        raise ShapeError(op, f"{what} must be a tuple of ints, got {value!r}", list(ins))
    return [int(v) for v in value]


def _static_int(op: str, what: str, value: Any, ins: Sequence[TensorType]) -> int:
    if isinstance(value, Tensor) and value._data is not None and value.ndim == 0:
        value = value.asnumpy().item()
    if not _is_int(value):
        raise ShapeError(op, f"{what} must be an int, got {value!r}", list(ins))
    return int(value)


def _copy_all(k: KernelSpec) -> str:
    """Body of an op whose output is its input's bytes in a new shape (Reshape, Squeeze, ...)."""
    n = k.outputs[0].size
    return f"memcpy(out0, in0, {n} * sizeof(*out0));" if n else "/* empty */"


def _fill_body(n: int, literal: str) -> str:
    """Fill ``out0`` with a constant (a plain loop gcc vectorises; zero-size outputs emit nothing)."""
    return f"for (int64_t o = 0; o < {n}; o++) out0[o] = {literal};" if n else "/* empty */"


def _attr_shape_infer(op: str):
    """Infer for ops whose canonical attrs hold the output shape (Reshape, StridedSlice, BroadcastTo)."""

    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(tuple(attrs["shape"]), same_dtype(op, ins, ANY))]

    return infer


# ---- Reshape ------------------------------------------------------------------------------------------

def _reshape_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    shape = _static_ints("Reshape", "shape", attrs.get("shape"), ins, allow_scalar=True)
    holes = [i for i, d in enumerate(shape) if d == -1]
    if len(holes) > 1 or any(d < -1 for d in shape):
        raise ShapeError("Reshape", f"shape {tuple(shape)} may hold one -1 and otherwise non-negative sizes",
                         [x])
    if holes:
        known = _prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise ShapeError("Reshape", f"cannot infer the -1 of shape {tuple(shape)} for {x.size} elements",
                             [x])
        shape[holes[0]] = x.size // known
    if _prod(shape) != x.size:
        raise ShapeError("Reshape", f"cannot reshape {x.size} elements into shape {tuple(shape)}", [x])
    return {"shape": shape}


# ---- Transpose ----------------------------------------------------------------------------------------

def _transpose_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    rank = ins[0].rank
    perm = _static_ints("Transpose", "perm", attrs.get("perm"), ins)
    canon = [p + rank if p < 0 else p for p in perm]
    if sorted(canon) != list(range(rank)):
        raise ShapeError("Transpose", f"perm {tuple(perm)} is not a permutation of the {rank} axes",
                         list(ins))
    return {"perm": canon}


def _transpose_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Transpose", ins, ANY)
    return [TensorType(tuple(ins[0].shape[p] for p in attrs["perm"]), dt)]


def _transpose_emit(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    st = strides(x.shape)
    return strided_copy(out.shape, "out0", strides(out.shape), "in0", [st[p] for p in k.attrs["perm"]])


# ---- ExpandDims / Squeeze / Flatten ------------------------------------------------------------------

def _expand_dims_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    rank = ins[0].rank
    axis = _static_int("ExpandDims", "axis", attrs.get("axis"), ins)
    if not -rank - 1 <= axis <= rank:
        raise ShapeError("ExpandDims", f"axis {axis} is out of range [{-rank - 1}, {rank}] for rank {rank}",
                         list(ins))
    return {"axis": axis + rank + 1 if axis < 0 else axis}


def _expand_dims_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    shape = list(ins[0].shape)
    shape.insert(attrs["axis"], 1)
    return [TensorType(tuple(shape), same_dtype("ExpandDims", ins, ANY))]


def _squeeze_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    axis = _static_ints("Squeeze", "axis", attrs.get("axis", ()), ins, allow_scalar=True)
    if not axis:  # () squeezes every size-1 dim
        return {"axis": [d for d, n in enumerate(x.shape) if n == 1]}
    canon = [norm_axis("Squeeze", a, x.rank, ins) for a in axis]
    if x.rank == 0 or len(set(canon)) != len(canon):
        raise ShapeError("Squeeze", f"axis {tuple(axis)} must name distinct axes of a rank-{x.rank} input",
                         [x])
    bad = [a for a in canon if x.shape[a] != 1]
    if bad:
        raise ShapeError("Squeeze", f"cannot squeeze axis {bad[0]} of size {x.shape[bad[0]]} (only size-1 "
                                    f"axes)", [x])
    return {"axis": sorted(canon)}


def _squeeze_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    drop = set(attrs["axis"])
    shape = tuple(n for d, n in enumerate(ins[0].shape) if d not in drop)
    return [TensorType(shape, same_dtype("Squeeze", ins, ANY))]


def _flatten_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("Flatten", "input must have rank >= 1 (shape (N, ...))", [x])
    return [TensorType((x.shape[0], _prod(x.shape[1:])), same_dtype("Flatten", ins, ANY))]


# ---- Concat / Split ------------------------------------------------------------------------------------

def _concat_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if not ins:
        raise ShapeError("Concat", "needs at least one input tensor", [])
    rank = ins[0].rank
    if rank == 0 or any(t.rank != rank for t in ins):
        raise ShapeError("Concat", "inputs must all have the same rank >= 1", list(ins))
    return {"axis": norm_axis("Concat", attrs.get("axis", 0), rank, ins)}


def _concat_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Concat", ins, ANY)
    axis = attrs["axis"]
    first = ins[0].shape
    for t in ins[1:]:
        if any(a != b for d, (a, b) in enumerate(zip(first, t.shape, strict=True)) if d != axis):
            raise ShapeError("Concat", f"input shapes must match except along axis {axis}", list(ins))
    out = list(first)
    out[axis] = sum(t.shape[axis] for t in ins)
    return [TensorType(tuple(out), dt)]


def _concat_emit(k: KernelSpec) -> str:
    axis, out = k.attrs["axis"], k.outputs[0]
    outer, out_inner = _prod(out.shape[:axis]), _prod(out.shape[axis:])
    parts, offset = [], 0
    for i, t in enumerate(k.inputs):
        inner = _prod(t.shape[axis:])
        parts.append(strided_copy([outer, inner], "out0", [out_inner, 1], f"in{i}", [inner, 1],
                                  dst_base=offset))
        offset += inner
    return "\n".join(parts)


def _split_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("Split", "input must have rank >= 1", [x])
    axis = norm_axis("Split", attrs.get("axis", 0), x.rank, ins)
    num = _static_int("Split", "output_num", attrs.get("output_num", 1), ins)
    if num < 1 or x.shape[axis] % num:
        raise ShapeError("Split", f"axis {axis} of size {x.shape[axis]} cannot be split evenly into "
                                  f"output_num={num} parts", [x])
    return {"axis": axis, "output_num": num}


def _split_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Split", ins, ANY)
    shape = list(ins[0].shape)
    shape[attrs["axis"]] //= attrs["output_num"]
    return [TensorType(tuple(shape), dt)] * attrs["output_num"]


def _split_emit(k: KernelSpec) -> str:
    axis, x = k.attrs["axis"], k.inputs[0]
    outer, in_inner = _prod(x.shape[:axis]), _prod(x.shape[axis:])
    inner = in_inner // k.attrs["output_num"]
    return "\n".join(
        strided_copy([outer, inner], f"out{j}", [inner, 1], "in0", [in_inner, 1], src_base=j * inner)
        for j in range(k.attrs["output_num"]))


# ---- Slice / StridedSlice ------------------------------------------------------------------------------

def _slice_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    begin = _static_ints("Slice", "begin", attrs.get("begin"), ins)
    size = _static_ints("Slice", "size", attrs.get("size"), ins)
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
    return [TensorType(tuple(attrs["size"]), same_dtype("Slice", ins, ANY))]


def _slice_emit(k: KernelSpec) -> str:
    x, size = k.inputs[0], k.attrs["size"]
    st = strides(x.shape)
    base = sum(b * s for b, s in zip(k.attrs["begin"], st, strict=True))
    return strided_copy(size, "out0", strides(size), "in0", st, src_base=base)


_SS_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _strided_slice_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    """TensorFlow/MindSpore StridedSlice semantics -> per-input-dim ``start``, ``step``, ``count`` and the
    output ``shape`` (new axes added, shrunk axes removed). The kernel depends on that canonical form only."""
    x = ins[0]
    if "count" in attrs:  # already canonical (re-derived from a graph node)
        return {k: list(attrs[k]) for k in ("start", "step", "count", "shape")}
    op = "StridedSlice"
    begin = _static_ints(op, "begin", attrs.get("begin"), ins)
    end = _static_ints(op, "end", attrs.get("end"), ins)
    stride = _static_ints(op, "strides", attrs.get("strides"), ins)
    if not len(begin) == len(end) == len(stride):
        raise ShapeError(op, f"begin {tuple(begin)}, end {tuple(end)} and strides {tuple(stride)} must have "
                             f"the same length", [x])
    masks = {m: _static_int(op, m, attrs.get(m, 0), ins) for m in _SS_MASKS}
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


def _strided_slice_emit(k: KernelSpec) -> str:
    st = strides(k.inputs[0].shape)
    start, step, count = k.attrs["start"], k.attrs["step"], k.attrs["count"]
    base = sum(b * s for b, s in zip(start, st, strict=True))
    src = [s * t for s, t in zip(step, st, strict=True)]
    return strided_copy(count, "out0", strides(count), "in0", src, src_base=base)


def _strided_slice_reference(attrs: dict, x: np.ndarray) -> np.ndarray:
    dims = zip(attrs["start"], attrs["step"], attrs["count"], strict=True)
    idx = [b + s * np.arange(c) for b, s, c in dims]
    return x[np.ix_(*idx)].reshape(attrs["shape"]) if idx else x.reshape(attrs["shape"])


# ---- Gather / GatherD ----------------------------------------------------------------------------------

def _gather_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if ins[0].rank == 0:
        raise ShapeError("Gather", "input_params must have rank >= 1", list(ins))
    axis = _static_int("Gather", "axis", attrs.get("axis"), ins)
    return {"axis": norm_axis("Gather", axis, ins[0].rank, ins)}


def _gather_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    params, indices = ins
    same_dtype("Gather", [params], ANY)
    if indices.dtype not in INTS:
        raise ShapeError("Gather", f"input_indices must be int32 or int64, got {indices.dtype}", list(ins))
    a = attrs["axis"]
    return [TensorType(params.shape[:a] + indices.shape + params.shape[a + 1:], params.dtype)]


def _gather_emit(k: KernelSpec) -> str:
    params, indices = k.inputs
    a = k.attrs["axis"]
    outer, n, inner, m = _prod(params.shape[:a]), params.shape[a], _prod(params.shape[a + 1:]), indices.size
    if k.outputs[0].size == 0:
        return "/* empty */"
    # Indices are read once per (outer, j); each gathered slice is one memcpy (or a store if inner == 1).
    copy = (f"out0[dst] = ok ? in0[src] : ({ctype(params.dtype)})0;" if inner == 1 else
            f"if (ok) memcpy(out0 + dst, in0 + src, {inner} * sizeof(*out0)); "
            f"else memset(out0 + dst, 0, {inner} * sizeof(*out0));")
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"for (int64_t j = 0; j < {m}; j++) {{\n"
            f"const int64_t i = (int64_t)in1[j];\n"
            f"const int ok = i >= 0 && i < {n};\n"
            f"const int64_t dst = (o * {m} + j) * {inner};\n"
            f"const int64_t src = ok ? (o * {n} + i) * {inner} : 0;\n"
            f"{copy}\n}}}}")


def _gather_reference(attrs: dict, params: np.ndarray, indices: np.ndarray) -> np.ndarray:
    a = attrs["axis"]
    n = params.shape[a]
    out_shape = params.shape[:a] + indices.shape + params.shape[a + 1:]
    idx = indices.astype(np.int64)
    valid = (idx >= 0) & (idx < n)
    if n == 0:
        return np.zeros(out_shape, params.dtype)
    out = np.take(params, np.where(valid, idx, 0), axis=a)
    mask = valid.reshape((1,) * a + indices.shape + (1,) * (params.ndim - a - 1))
    return np.where(mask, out, np.zeros((), params.dtype))


def _gatherd_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    if ins[0].rank == 0:
        raise ShapeError("GatherD", "x must have rank >= 1", list(ins))
    dim = _static_int("GatherD", "dim", attrs.get("dim"), ins)
    return {"dim": norm_axis("GatherD", dim, ins[0].rank, ins)}


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


def _gatherd_emit(k: KernelSpec) -> str:
    x, index = k.inputs
    dim = k.attrs["dim"]
    outer, n, m, inner = _prod(x.shape[:dim]), x.shape[dim], index.shape[dim], _prod(x.shape[dim + 1:])
    if index.size == 0:
        return "/* empty */"
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"for (int64_t j = 0; j < {m}; j++) {{\n"
            f"for (int64_t r = 0; r < {inner}; r++) {{\n"
            f"const int64_t q = (o * {m} + j) * {inner} + r;\n"
            f"int64_t i = (int64_t)in1[q];\n"
            f"if (i < 0) i += {n};\n"
            f"out0[q] = (i >= 0 && i < {n}) ? in0[(o * {n} + i) * {inner} + r] : ({ctype(x.dtype)})0;\n"
            f"}}}}}}")


def _gatherd_reference(attrs: dict, x: np.ndarray, index: np.ndarray) -> np.ndarray:
    dim = attrs["dim"]
    n = x.shape[dim]
    idx = index.astype(np.int64)
    idx = np.where(idx < 0, idx + n, idx)
    valid = (idx >= 0) & (idx < n)
    if n == 0:
        return np.zeros(index.shape, x.dtype)
    return np.where(valid, np.take_along_axis(x, np.where(valid, idx, 0), axis=dim), np.zeros((), x.dtype))


# ---- Tile / BroadcastTo --------------------------------------------------------------------------------

def _tile_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    mult = _static_ints("Tile", "multiples", attrs.get("multiples"), ins, allow_scalar=True)
    if any(m < 0 for m in mult):
        raise ShapeError("Tile", f"multiples {tuple(mult)} must be non-negative", [x])
    return {"multiples": [1] * (x.rank - len(mult)) + mult}  # np.tile: the shorter side is padded with 1s


def _tile_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    mult = attrs["multiples"]
    shape = (1,) * (len(mult) - ins[0].rank) + ins[0].shape
    return [TensorType(tuple(s * m for s, m in zip(shape, mult, strict=True)), same_dtype("Tile", ins, ANY))]


def _replicate(in_shape: Sequence[int], mult: Sequence[int]) -> str:
    """Body writing ``np.tile(in0, mult)`` into ``out0`` (``in_shape`` has the rank of ``mult``).

    The input is copied once into the first tile; then, innermost dim first, the block already written
    along each dim (contiguous, since every inner dim is complete) is replicated with memcpy. Every byte is
    written once and every copy is a contiguous run.
    """
    out_shape = [s * m for s, m in zip(in_shape, mult, strict=True)]
    if _prod(out_shape) == 0:
        return "/* empty */"
    ost = strides(out_shape)
    parts = [strided_copy(in_shape, "out0", ost, "in0", strides(in_shape))]
    for d in range(len(in_shape) - 1, -1, -1):
        if mult[d] == 1:
            continue
        block = in_shape[d] * ost[d]
        counts = list(in_shape[:d]) + [mult[d] - 1, block]
        parts.append(strided_copy(counts, "out0", ost[:d] + [block, 1], "out0", ost[:d] + [0, 1],
                                  dst_base=block, var=f"t{d}_"))
    return "\n".join(parts)


def _tile_emit(k: KernelSpec) -> str:
    mult = k.attrs["multiples"]
    return _replicate((1,) * (len(mult) - k.inputs[0].rank) + k.inputs[0].shape, mult)


def _broadcast_to_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    shape = _static_ints("BroadcastTo", "shape", attrs.get("shape"), ins, allow_scalar=True)
    lead = len(shape) - x.rank
    if lead < 0:
        raise ShapeError("BroadcastTo", f"target shape {tuple(shape)} has fewer dims than the input", [x])
    out = []
    for d, t in enumerate(shape):
        src = x.shape[d - lead] if d >= lead else None
        if t == -1 and src is not None:
            t = src
        if t < 0 or (src is not None and src not in (1, t)):
            raise ShapeError("BroadcastTo", f"cannot broadcast to shape {tuple(shape)} (-1 keeps an input "
                                            f"dim; other dims must equal the input's or broadcast a 1)", [x])
        out.append(t)
    return {"shape": out}


def _broadcast_to_emit(k: KernelSpec) -> str:
    out = k.attrs["shape"]
    shape = [1] * (len(out) - k.inputs[0].rank) + list(k.inputs[0].shape)
    return _replicate(shape, [t if s == 1 else 1 for s, t in zip(shape, out, strict=True)])


# ---- Pad -----------------------------------------------------------------------------------------------

def _pad_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    raw = attrs.get("paddings")
    if isinstance(raw, np.ndarray):
        raw = raw.tolist()
    ok = isinstance(raw, (tuple, list)) and len(raw) == x.rank and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(_is_int(v) and v >= 0 for v in p) for p in raw)
    if not ok:
        raise ShapeError("Pad", f"paddings must be one (before, after) pair of non-negative ints per axis "
                                f"(rank {x.rank}), got {raw!r}", [x])
    return {"paddings": [[int(a), int(b)] for a, b in raw]}


def _pad_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    shape = tuple(n + a + b for n, (a, b) in zip(ins[0].shape, attrs["paddings"], strict=True))
    return [TensorType(shape, same_dtype("Pad", ins, ANY))]


def _pad_emit(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    if out.size == 0:
        return "/* empty */"
    ost = strides(out.shape)
    base = sum(a * s for (a, _), s in zip(k.attrs["paddings"], ost, strict=True))
    interior = strided_copy(x.shape, "out0", ost, "in0", strides(x.shape), dst_base=base)
    if out.size == x.size:
        return interior
    # All-zero bytes are 0 for every supported dtype; memset then the interior rows is two streaming passes.
    return f"memset(out0, 0, {out.size} * sizeof(*out0));\n{interior}"


# ---- OnesLike / ZerosLike / Fill -----------------------------------------------------------------------

def _like_infer(op: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return [TensorType(ins[0].shape, same_dtype(op, ins, ANY))]

    return infer


def _fill_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    try:
        dt = dtype_of(attrs.get("dtype")).name
    except TypeError as e:
        raise ShapeError("Fill", str(e)) from None
    shape = _static_ints("Fill", "shape", attrs.get("shape"), ins, allow_scalar=True)
    if any(d < 0 for d in shape):
        raise ShapeError("Fill", f"shape {tuple(shape)} has a negative dim")
    value = attrs.get("value")
    if isinstance(value, Tensor) and value._data is not None and value.ndim == 0:
        value = value.asnumpy().item()
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (bool, int, float)):
        raise ShapeError("Fill", f"value must be a Python scalar (bool, int or float), got {value!r}")
    if dt in INTS and not (np.isfinite(value) and np.iinfo(dt).min <= value <= np.iinfo(dt).max):
        raise ShapeError("Fill", f"value {value} does not fit in {dt}")
    # The value as the output dtype holds it (NumPy's conversion), so 1 and 1.0 give one float32 kernel.
    return {"dtype": dt, "shape": shape, "value": np.asarray(value).astype(dt).item()}


def _fill_emit(k: KernelSpec) -> str:
    dt = k.attrs["dtype"]
    return _fill_body(k.outputs[0].size, c_literal(k.attrs["value"], dt))


def _fill_reference(attrs: dict) -> np.ndarray:
    return np.full(attrs["shape"], attrs["value"], dtype=attrs["dtype"])


# ---- registration ----------------------------------------------------------------------------------------

register(OpDef("Reshape", _attr_shape_infer("Reshape"), _copy_all,
               lambda attrs, x: x.reshape(attrs["shape"]), normalize=_reshape_normalize, n_inputs=1))
register(OpDef("Transpose", _transpose_infer, _transpose_emit,
               lambda attrs, x: np.transpose(x, attrs["perm"]), normalize=_transpose_normalize, n_inputs=1))
register(OpDef("ExpandDims", _expand_dims_infer, _copy_all,
               lambda attrs, x: np.expand_dims(x, attrs["axis"]), normalize=_expand_dims_normalize,
               n_inputs=1))
register(OpDef("Squeeze", _squeeze_infer, _copy_all,
               lambda attrs, x: np.squeeze(x, tuple(attrs["axis"])), normalize=_squeeze_normalize,
               n_inputs=1))
register(OpDef("Flatten", _flatten_infer, _copy_all,
               lambda attrs, x: x.reshape(x.shape[0], _prod(x.shape[1:])),
               n_inputs=1))
register(OpDef("Concat", _concat_infer, _concat_emit,
               lambda attrs, *xs: np.concatenate(xs, axis=attrs["axis"]), normalize=_concat_normalize))
register(OpDef("Split", _split_infer, _split_emit,
               lambda attrs, x: np.split(x, attrs["output_num"], axis=attrs["axis"]),
               normalize=_split_normalize, n_inputs=1, multi_output=True))
register(OpDef("Slice", _slice_infer, _slice_emit,
               lambda attrs, x: x[tuple(slice(b, b + s)
                                        for b, s in zip(attrs["begin"], attrs["size"], strict=True))],
               normalize=_slice_normalize, n_inputs=1))
register(OpDef("StridedSlice", _attr_shape_infer("StridedSlice"), _strided_slice_emit,
               _strided_slice_reference, normalize=_strided_slice_normalize, n_inputs=1))
register(OpDef("Gather", _gather_infer, _gather_emit, _gather_reference, normalize=_gather_normalize,
               n_inputs=2))
register(OpDef("GatherD", _gatherd_infer, _gatherd_emit, _gatherd_reference, normalize=_gatherd_normalize,
               n_inputs=2))
register(OpDef("Tile", _tile_infer, _tile_emit, lambda attrs, x: np.tile(x, attrs["multiples"]),
               normalize=_tile_normalize, n_inputs=1))
register(OpDef("BroadcastTo", _attr_shape_infer("BroadcastTo"), _broadcast_to_emit,
               lambda attrs, x: np.broadcast_to(x, attrs["shape"]).copy(), normalize=_broadcast_to_normalize,
               n_inputs=1))
register(OpDef("Pad", _pad_infer, _pad_emit, lambda attrs, x: np.pad(x, attrs["paddings"]) if x.ndim else x,
               normalize=_pad_normalize, n_inputs=1))
register(OpDef("OnesLike", _like_infer("OnesLike"),
               lambda k: _fill_body(k.outputs[0].size, c_literal(1, k.outputs[0].dtype)),
               lambda attrs, x: np.ones_like(x), n_inputs=1))
register(OpDef("ZerosLike", _like_infer("ZerosLike"),
               lambda k: f"memset(out0, 0, {k.outputs[0].size} * sizeof(*out0));" if k.outputs[0].size
               else "/* empty */",
               lambda attrs, x: np.zeros_like(x), n_inputs=1))
register(OpDef("Fill", lambda attrs, ins: [TensorType(tuple(attrs["shape"]), attrs["dtype"])], _fill_emit,
               _fill_reference, normalize=_fill_normalize, n_inputs=0))


# ---- user-facing primitive classes -----------------------------------------------------------------------

class Reshape(Primitive):
    """``Reshape()(x, shape)``: the same elements in a new shape; one ``-1`` in ``shape`` is inferred."""

    op_name = "Reshape"

    def __call__(self, x: Any, shape: Sequence[int]) -> Tensor:
        return apply("Reshape", {"shape": shape}, [x])


class Transpose(Primitive):
    """``Transpose()(x, perm)``: output axis ``i`` is input axis ``perm[i]`` (as ``np.transpose``)."""

    op_name = "Transpose"

    def __call__(self, x: Any, perm: Sequence[int]) -> Tensor:
        return apply("Transpose", {"perm": perm}, [x])


class ExpandDims(Primitive):
    """``ExpandDims()(x, axis)``: insert a size-1 axis at ``axis`` (in ``[-rank-1, rank]``)."""

    op_name = "ExpandDims"

    def __call__(self, x: Any, axis: int) -> Tensor:
        return apply("ExpandDims", {"axis": axis}, [x])


class Squeeze(Primitive):
    """``Squeeze(axis=())(x)``: remove the given size-1 axes (an int or a tuple); ``()`` removes them all."""

    op_name = "Squeeze"

    def __init__(self, axis: int | Sequence[int] = ()):
        super().__init__(axis=axis)


class Flatten(Primitive):
    """``Flatten()(x)``: shape ``(N, ...)`` -> ``(N, prod(...))``."""

    op_name = "Flatten"


class Concat(Primitive):
    """``Concat(axis=0)((x1, x2, ...))``: join tensors of equal shapes (except along ``axis``)."""

    op_name = "Concat"

    def __init__(self, axis: int = 0):
        super().__init__(axis=axis)

    def __call__(self, input_x: Sequence[Any]) -> Tensor:
        if not isinstance(input_x, (tuple, list)):
            given = [input_x._type] if isinstance(input_x, Tensor) else []
            raise ShapeError("Concat", f"expects a tuple or list of tensors, got {type(input_x).__name__}",
                             given)
        return apply("Concat", self.attrs, list(input_x))


class Split(Primitive):
    """``Split(axis=0, output_num=1)(x)``: a tuple of ``output_num`` equal parts along ``axis``."""

    op_name = "Split"

    def __init__(self, axis: int = 0, output_num: int = 1):
        super().__init__(axis=axis, output_num=output_num)


class Slice(Primitive):
    """``Slice()(x, begin, size)``: the box at ``begin`` with extent ``size`` (``-1``: to the end)."""

    op_name = "Slice"

    def __call__(self, x: Any, begin: Sequence[int], size: Sequence[int]) -> Tensor:
        return apply("Slice", {"begin": begin, "size": size}, [x])


class StridedSlice(Primitive):
    """``StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
    (x, begin, end, strides)``: TensorFlow/MindSpore strided slicing (``x[b0:e0:s0, ...]`` without
    ``__getitem__``), including negative indices and strides, masks, ellipsis, new and shrunk axes."""

    op_name = "StridedSlice"

    def __init__(self, begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                 shrink_axis_mask: int = 0):
        super().__init__(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                         new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)

    def __call__(self, x: Any, begin: Sequence[int], end: Sequence[int], strides: Sequence[int]) -> Tensor:
        return apply("StridedSlice", {**self.attrs, "begin": begin, "end": end, "strides": strides}, [x])


class Gather(Primitive):
    """``Gather()(input_params, input_indices, axis)``: slices of ``input_params`` along ``axis`` picked by
    the int32/int64 ``input_indices`` (output shape ``params[:axis] + indices + params[axis+1:]``). An index
    outside ``[0, params.shape[axis])`` yields zeros for its slice."""

    op_name = "Gather"

    def __call__(self, input_params: Any, input_indices: Any, axis: int) -> Tensor:
        return apply("Gather", {"axis": axis}, [input_params, input_indices])


class GatherD(Primitive):
    """``GatherD()(x, dim, index)``: ``np.take_along_axis(x, index, dim)``; ``index`` has x's shape except
    along ``dim``. Indices in ``[-n, n)`` are valid (negative counts from the end); others yield zeros."""

    op_name = "GatherD"

    def __call__(self, x: Any, dim: int, index: Any) -> Tensor:
        return apply("GatherD", {"dim": dim}, [x, index])


class Tile(Primitive):
    """``Tile()(x, multiples)``: repeat ``x`` ``multiples[i]`` times along axis ``i`` (as ``np.tile``)."""

    op_name = "Tile"

    def __call__(self, x: Any, multiples: Sequence[int]) -> Tensor:
        return apply("Tile", {"multiples": multiples}, [x])


class BroadcastTo(Primitive):
    """``BroadcastTo(shape)(x)``: NumPy broadcasting to ``shape``; a ``-1`` keeps the input's dim."""

    op_name = "BroadcastTo"

    def __init__(self, shape: Sequence[int]):
        super().__init__(shape=shape)


class Pad(Primitive):
    """``Pad(paddings)(x)``: zero padding, ``paddings`` = one ``(before, after)`` pair per axis."""

    op_name = "Pad"

    def __init__(self, paddings: Sequence[Sequence[int]]):
        super().__init__(paddings=paddings)


class OnesLike(Primitive):
    """``OnesLike()(x)``: ones of x's shape and dtype."""

    op_name = "OnesLike"


class ZerosLike(Primitive):
    """``ZerosLike()(x)``: zeros of x's shape and dtype."""

    op_name = "ZerosLike"


class Fill(Primitive):
    """``Fill()(type, shape, value)``: a new tensor of dtype ``type`` and ``shape`` filled with ``value``
    (converted to ``type`` as NumPy's ``astype`` does). It has no tensor inputs."""

    op_name = "Fill"

    def __call__(self, type: Any, shape: Sequence[int], value: bool | int | float) -> Tensor:
        return apply("Fill", {"dtype": type, "shape": shape, "value": value}, [])


PRIMITIVES: dict[str, type[Primitive]] = {cls.__name__: cls for cls in (
    Reshape, Transpose, ExpandDims, Squeeze, Flatten, Concat, Split, Slice, StridedSlice, Gather, GatherD,
    Tile, BroadcastTo, Pad, OnesLike, ZerosLike, Fill)}
