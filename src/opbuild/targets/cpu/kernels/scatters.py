"""CPU kernels of the scatters (ops/scatters.py): TensorScatter* (ScatterND) and TensorScatterElements, and the
in-place Scatter*/ScatterNd* of ops/scatters_inplace.py."""

from __future__ import annotations

import math
from collections.abc import Callable

from ....core.errors import ShapeError
from ....core.ir import KernelSpec
from ....ops.scatters import ND_OPS
from ....ops.scatters_inplace import INPLACE_OPS
from ..codegen import ctype, load, store
from .registry import emits, register

# reduction -> C combine of the current value a and the update b (max/min keep a NaN already there)
_C_COMBINE: dict[str, Callable[[str, str], str]] = {
    "add": lambda a, b: f"({a}) + ({b})",
    "sub": lambda a, b: f"({a}) - ({b})",
    "mul": lambda a, b: f"({a}) * ({b})",
    "div": lambda a, b: f"({a}) / ({b})",
    "max": lambda a, b: f"(({a}) > ({b}) || ({a}) != ({a})) ? ({a}) : ({b})",
    "min": lambda a, b: f"(({a}) < ({b}) || ({a}) != ({a})) ? ({a}) : ({b})",
}


def _combine(dt: str, reduction: str, a: str, b: str) -> str:
    if reduction == "none":
        return b
    if dt == "bool":
        raise ShapeError("TensorScatter", f"reduction {reduction!r} is not defined for bool tensors", [])
    return store(dt, _C_COMBINE[reduction](load(dt, a), load(dt, b)))


def nd_emit(k: KernelSpec) -> str:
    """C body: copy input_x, then combine each update slice into the slice its index row names."""
    return nd_body(k, ND_OPS[k.op])


def nd_inplace_emit(k: KernelSpec) -> str:
    """The in-place scatters (ops/scatters_inplace.py): the same body, copying in only where the output is not
    the input's own buffer (PyNative passes the Parameter's array as both)."""
    body = nd_body(k, INPLACE_OPS[k.op])
    copy = f"memcpy(out0, in0, {k.inputs[0].size} * sizeof(*out0));"
    return body.replace(copy, f"if ((const void *)out0 != (const void *)in0) {copy}", 1)


def nd_body(k: KernelSpec, reduction: str) -> str:
    """C body of an ND scatter with ``reduction`` over inputs (input_x, indices, updates)."""
    x, indices, _ = k.inputs
    kk = indices.shape[-1]
    inner = math.prod(x.shape[kk:])
    rows = math.prod(indices.shape[:-1])
    dims = ", ".join(str(d) for d in x.shape[:kk]) or "0"
    copy = f"memcpy(out0, in0, {x.size} * sizeof(*out0));" if x.size else ""
    # bounds="raise" (ops/bounds.py): [0, n); the indices are checked before any update, so a refused call
    # reports the first bad entry and leaves the output (an in-place Parameter) as it was. Otherwise negatives
    # count from the end and a row out of range is skipped.
    check = k.attrs.get("bounds") == "raise" and rows * kk > 0
    validate = (f"static const int64_t dims[] = {{{dims}}};\n"
                f"for (int64_t e = 0; e < {rows * kk}; e++) {{\n"
                f"const int64_t i = (int64_t)in1[e];\n"
                f"if (i < 0 || i >= dims[e % {kk}]) {{ ob_fail(ob_status, i, e); return; }}\n}}\n") if check else ""
    if rows == 0 or inner == 0:
        return validate + copy or "/* empty */"
    body = _combine(x.dtype, reduction, "dst[q]", "src[q]")
    return ((validate or f"static const int64_t dims[] = {{{dims}}};\n") + f"{copy}\n"
            f"for (int64_t j = 0; j < {rows}; j++) {{\n"
            f"int64_t off = 0; int ok = 1;\n"
            f"for (int64_t d = 0; d < {kk}; d++) {{\n"
            f"int64_t i = (int64_t)in1[j * {kk} + d];\n"
            + ("" if check else "if (i < 0) i += dims[d];\n") +
            "ok &= (i >= 0 && i < dims[d]);\n"
            f"off = off * dims[d] + i;\n}}\n"
            f"if (!ok) continue;\n"
            f"{ctype(x.dtype)} *restrict dst = out0 + off * {inner};\n"
            f"const {ctype(x.dtype)} *restrict src = in2 + j * {inner};\n"
            f"for (int64_t q = 0; q < {inner}; q++) dst[q] = {body};\n}}")


for _op in ND_OPS:
    register(_op, nd_emit)
for _op in INPLACE_OPS:
    register(_op, nd_inplace_emit)


@emits("TensorScatterElements")
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
    # bounds="raise": every index checked before any update (the first outside [-n, n) reported).
    validate = (f"for (int64_t q = 0; q < {indices.size}; q++) {{\n"
                f"const int64_t i = (int64_t)in1[q];\n"
                f"if (i < -{n} || i >= {n}) {{ ob_fail(ob_status, i, q); return; }}\n}}\n"
                ) if k.attrs.get("bounds") == "raise" else ""
    return (f"{validate}{copy}\nstatic const int64_t ishape[] = {{{ishape}}};\n"
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
