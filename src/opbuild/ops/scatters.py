"""Scatters: MindSpore's ``TensorScatterUpdate``/``Add``/``Sub``/``Mul``/``Div``/``Max``/``Min`` (ONNX
ScatterND) and ``TensorScatterElements`` (ONNX ScatterElements).

``TensorScatter*(input_x, indices, updates)``: the output is ``input_x`` with the slices
``out[indices[j]]`` (``indices`` of shape ``(..., K)`` index the first K axes) combined with ``updates[j]``
(shape ``indices.shape[:-1] + input_x.shape[K:]``). ``TensorScatterElements(axis, reduction)(input_x,
indices, updates)``: ``out[p with p[axis] := indices[p]]`` combined with ``updates[p]`` for every position p of
``indices`` (same rank as input_x, each axis no longer than input_x's).

Updates are applied in order, so with repeated indices the last update wins (``none``/``Update``) or all are
combined. A negative index counts from the end of its axis; an index out of range skips its update (never
writes out of bounds).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ANY, FLOATS, HALFS, INTS
from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from ..core.tensor import Tensor
from ..targets.cpu.codegen import ctype, load, store
from .primitive import Primitive, apply, defop
from .registry import norm_axis, same_dtype
from .shape_args import static_int

# reduction -> (C combine of the current value a and the update b, NumPy in-place combine)
COMBINE: dict[str, tuple[Callable[[str, str], str], Callable[[np.ndarray, np.ndarray], np.ndarray]]] = {
    "none": (lambda a, b: b, lambda a, b: b),
    "add": (lambda a, b: f"({a}) + ({b})", np.add),
    "sub": (lambda a, b: f"({a}) - ({b})", np.subtract),
    "mul": (lambda a, b: f"({a}) * ({b})", np.multiply),
    "div": (lambda a, b: f"({a}) / ({b})", np.divide),
    "max": (lambda a, b: f"(({a}) > ({b}) || ({a}) != ({a})) ? ({a}) : ({b})", np.maximum),
    "min": (lambda a, b: f"(({a}) < ({b}) || ({a}) != ({a})) ? ({a}) : ({b})", np.minimum),
}
ND_OPS = {"TensorScatterUpdate": "none", "TensorScatterAdd": "add", "TensorScatterSub": "sub",
          "TensorScatterMul": "mul", "TensorScatterDiv": "div", "TensorScatterMax": "max",
          "TensorScatterMin": "min"}


def _combine(dt: str, reduction: str, a: str, b: str) -> str:
    if reduction == "none":
        return b
    if dt == "bool":
        raise ShapeError("TensorScatter", f"reduction {reduction!r} is not defined for bool tensors", [])
    return store(dt, COMBINE[reduction][0](load(dt, a), load(dt, b)))


# ---- TensorScatter* (ScatterND) -------------------------------------------------------------------------

def _nd_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        x, indices, updates = ins
        allowed = (*FLOATS, *HALFS) if ND_OPS[op] == "div" else ANY if ND_OPS[op] == "none" else \
            tuple(d for d in ANY if d != "bool")
        same_dtype(op, [x, updates], allowed)
        if indices.dtype not in INTS:
            raise ShapeError(op, f"indices must be int32 or int64, got {indices.dtype}", list(ins))
        if indices.rank < 1 or indices.shape[-1] > x.rank:
            raise ShapeError(op, "indices must have rank >= 1 and a last axis no longer than input_x's rank",
                             list(ins))
        k = indices.shape[-1]
        want = indices.shape[:-1] + x.shape[k:]
        if updates.shape != want:
            raise ShapeError(op, f"updates must have shape indices.shape[:-1] + input_x.shape[K:] = {list(want)}",
                             list(ins))
        return [TensorType(x.shape, x.dtype)]

    return infer


def nd_emit(k: KernelSpec) -> str:
    """C body: copy input_x, then combine each update slice into the slice its index row names."""
    x, indices, _ = k.inputs
    kk = indices.shape[-1]
    inner = math.prod(x.shape[kk:])
    rows = math.prod(indices.shape[:-1])
    dims = ", ".join(str(d) for d in x.shape[:kk]) or "0"
    copy = f"memcpy(out0, in0, {x.size} * sizeof(*out0));" if x.size else ""
    if rows == 0 or inner == 0:
        return copy or "/* empty */"
    body = _combine(x.dtype, ND_OPS[k.op], "dst[q]", "src[q]")
    return (f"{copy}\nstatic const int64_t dims[] = {{{dims}}};\n"
            f"for (int64_t j = 0; j < {rows}; j++) {{\n"
            f"int64_t off = 0; int ok = 1;\n"
            f"for (int64_t d = 0; d < {kk}; d++) {{\n"
            f"int64_t i = (int64_t)in1[j * {kk} + d];\n"
            f"if (i < 0) i += dims[d];\n"
            f"ok &= (i >= 0 && i < dims[d]);\n"
            f"off = off * dims[d] + i;\n}}\n"
            f"if (!ok) continue;\n"
            f"{ctype(x.dtype)} *restrict dst = out0 + off * {inner};\n"
            f"const {ctype(x.dtype)} *restrict src = in2 + j * {inner};\n"
            f"for (int64_t q = 0; q < {inner}; q++) dst[q] = {body};\n}}")


def nd_reference(reduction: str, x: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """NumPy TensorScatter*: updates applied one index row at a time, in order."""
    out = x.copy()
    kk = indices.shape[-1]
    rows = indices.reshape(-1, kk).astype(np.int64)
    ups = updates.reshape((rows.shape[0],) + x.shape[kk:])
    fn = COMBINE[reduction][1]
    with np.errstate(all="ignore"):
        for j, row in enumerate(rows):
            row = np.where(row < 0, row + np.asarray(x.shape[:kk], np.int64), row)
            if np.any(row < 0) or np.any(row >= np.asarray(x.shape[:kk], np.int64)):
                continue
            at = tuple(int(i) for i in row)
            out[at] = fn(out[at], ups[j]).astype(x.dtype) if reduction != "none" else ups[j]
    return out


def _nd_class(op: str) -> type[Primitive]:
    reduction = ND_OPS[op]

    class _Cls(Primitive):
        __doc__ = (f"``{op}()(input_x, indices, updates)``: input_x with the slices named by the rows of "
                   f"``indices`` {'replaced by' if reduction == 'none' else 'combined (' + reduction + ') with'} "
                   f"``updates`` (see the module).")

        def __call__(self, input_x: Any, indices: Any, updates: Any) -> Tensor:
            return apply(op, {}, [input_x, indices, updates])

    _Cls.__name__ = _Cls.__qualname__ = op
    return defop(infer=_nd_infer(op), emit=nd_emit, n_inputs=3,
                 reference=lambda attrs, x, i, u: nd_reference(reduction, x, i, u))(_Cls)


PRIMITIVES: dict[str, type[Primitive]] = {op: _nd_class(op) for op in ND_OPS}


# ---- TensorScatterElements (ScatterElements) -------------------------------------------------------------

ELEMENT_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _el_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    if x.rank == 0:
        raise ShapeError("TensorScatterElements", "input_x must have rank >= 1", list(ins))
    axis = static_int("TensorScatterElements", "axis", attrs.get("axis", 0), ins)
    reduction = attrs.get("reduction", "none")
    if reduction not in ELEMENT_REDUCTIONS:
        raise ShapeError("TensorScatterElements", f"reduction must be one of {', '.join(ELEMENT_REDUCTIONS)}, "
                         f"got {reduction!r}", list(ins))
    return {"axis": norm_axis("TensorScatterElements", axis, x.rank, ins), "reduction": reduction}


def _el_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, indices, updates = ins
    allowed = ANY if attrs["reduction"] == "none" else tuple(d for d in ANY if d != "bool")
    same_dtype("TensorScatterElements", [x, updates], allowed)
    if indices.dtype not in INTS:
        raise ShapeError("TensorScatterElements", f"indices must be int32 or int64, got {indices.dtype}", list(ins))
    if indices.shape != updates.shape or indices.rank != x.rank or any(
            i > n for d, (i, n) in enumerate(zip(indices.shape, x.shape, strict=True)) if d != attrs["axis"]):
        raise ShapeError("TensorScatterElements", "indices and updates must have one shape, of input_x's rank, no "
                         "longer than input_x along the axes other than axis", list(ins))
    return [TensorType(x.shape, x.dtype)]


def elements_emit(k: KernelSpec) -> str:
    """C body: copy input_x, then combine each update into the element its index names along ``axis``."""
    x, indices, _ = k.inputs
    axis = k.attrs["axis"]
    copy = f"memcpy(out0, in0, {x.size} * sizeof(*out0));" if x.size else ""
    if indices.size == 0:
        return copy or "/* empty */"
    rank = x.rank
    ishape = ", ".join(str(d) for d in indices.shape)
    xstrides = ", ".join(str(math.prod(x.shape[d + 1:])) for d in range(rank))
    n = x.shape[axis]
    body = _combine(x.dtype, k.attrs["reduction"], "out0[off]", "in2[q]")
    return (f"{copy}\nstatic const int64_t ishape[] = {{{ishape}}};\n"
            f"static const int64_t xstride[] = {{{xstrides}}};\n"
            f"for (int64_t q = 0; q < {indices.size}; q++) {{\n"
            f"int64_t rem = q, off = 0;\n"
            f"for (int64_t d = {rank - 1}; d >= 0; d--) {{\n"
            f"int64_t c = rem % ishape[d]; rem /= ishape[d];\n"
            f"if (d == {axis}) {{ c = (int64_t)in1[q]; if (c < 0) c += {n}; }}\n"
            f"off += c * xstride[d];\n}}\n"
            f"const int64_t i = (int64_t)in1[q] < 0 ? (int64_t)in1[q] + {n} : (int64_t)in1[q];\n"
            f"if (i < 0 || i >= {n}) continue;\n"
            f"out0[off] = {body};\n}}")


def elements_reference(attrs: dict, x: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """NumPy TensorScatterElements: updates applied in C order of ``indices``."""
    out = x.copy()
    axis, fn = attrs["axis"], COMBINE[attrs["reduction"]][1]
    n = x.shape[axis]
    with np.errstate(all="ignore"):
        for p in np.ndindex(*indices.shape):
            i = int(indices[p])
            i = i + n if i < 0 else i
            if not 0 <= i < n:
                continue
            at = p[:axis] + (i,) + p[axis + 1:]
            out[at] = updates[p] if attrs["reduction"] == "none" else fn(out[at], updates[p])
    return out


@defop(infer=_el_infer, emit=elements_emit, reference=elements_reference, normalize=_el_normalize, n_inputs=3)
class TensorScatterElements(Primitive):
    """``TensorScatterElements(axis=0, reduction="none")(input_x, indices, updates)``: input_x with
    ``out[p with p[axis] := indices[p]]`` replaced by (or combined with, ``reduction`` add/mul/max/min)
    ``updates[p]``."""

    def __init__(self, axis: int = 0, reduction: str = "none"):
        super().__init__(axis=axis, reduction=reduction)


PRIMITIVES["TensorScatterElements"] = TensorScatterElements

from . import scatters_grad  # noqa: E402,F401  (attaches the gradient rules)

__all__ = ["COMBINE", "ELEMENT_REDUCTIONS", "ND_OPS", "PRIMITIVES", "TensorScatterElements", "elements_emit",
           "elements_reference", "nd_emit", "nd_reference"]
