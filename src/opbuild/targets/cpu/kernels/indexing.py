"""CPU kernels of the indexing family (ops/indexing.py)."""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ..codegen import ctype
from .registry import register


def _gather_emit(k: KernelSpec) -> str:
    params, indices = k.inputs
    a = k.attrs["axis"]
    outer, n, inner, m = math.prod(params.shape[:a]), params.shape[a], math.prod(params.shape[a + 1:]), indices.size
    if k.outputs[0].size == 0:
        return "/* empty */"
    # Indices are read once per (outer, j); each gathered slice is one memcpy (or a store if inner == 1).
    # bounds="raise": [-n, 0) counts from the end and any other bad index is reported (ops/bounds.py).
    check = k.attrs.get("bounds") == "raise"
    copy = (f"out0[dst] = ok ? in0[src] : ({ctype(params.dtype)})0;" if inner == 1 else
            f"if (ok) memcpy(out0 + dst, in0 + src, {inner} * sizeof(*out0)); "
            f"else memset(out0 + dst, 0, {inner} * sizeof(*out0));")
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"for (int64_t j = 0; j < {m}; j++) {{\n"
            f"{'const ' if not check else ''}int64_t i = (int64_t)in1[j];\n"
            + (f"if (i < 0) i += {n};\n" if check else "") +
            f"const int ok = i >= 0 && i < {n};\n"
            + ("if (!ok) ob_fail(ob_status, (int64_t)in1[j], j);\n" if check else "") +
            f"const int64_t dst = (o * {m} + j) * {inner};\n"
            f"const int64_t src = ok ? (o * {n} + i) * {inner} : 0;\n"
            f"{copy}\n}}}}")


def _gatherd_emit(k: KernelSpec) -> str:
    x, index = k.inputs
    dim = k.attrs["dim"]
    outer, n, m, inner = math.prod(x.shape[:dim]), x.shape[dim], index.shape[dim], math.prod(x.shape[dim + 1:])
    if index.size == 0:
        return "/* empty */"
    check = k.attrs.get("bounds") == "raise"
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"for (int64_t j = 0; j < {m}; j++) {{\n"
            f"for (int64_t r = 0; r < {inner}; r++) {{\n"
            f"const int64_t q = (o * {m} + j) * {inner} + r;\n"
            f"int64_t i = (int64_t)in1[q];\n"
            f"if (i < 0) i += {n};\n"
            f"const int ok = i >= 0 && i < {n};\n"
            + ("if (!ok) ob_fail(ob_status, (int64_t)in1[q], q);\n" if check else "") +
            f"out0[q] = ok ? in0[(o * {n} + i) * {inner} + r] : ({ctype(x.dtype)})0;\n"
            f"}}}}}}")


def _gathernd_emit(k: KernelSpec) -> str:
    x, indices = k.inputs
    kk = indices.shape[-1]
    rows, inner = math.prod(indices.shape[:-1]), math.prod(x.shape[kk:])
    if k.outputs[0].size == 0:
        return "/* empty */"
    check = k.attrs.get("bounds") == "raise"
    dims = ", ".join(str(d) for d in x.shape[:kk]) or "0"
    # Each index row names one slice of `inner` elements (its flat offset from the row's K entries); a row with
    # an entry out of range gives zeros. bounds="ignore" counts negatives from the end; "raise" takes [0, n)
    # and reports any other entry (MindSpore's GatherNd).
    return (f"static const int64_t dims[] = {{{dims}}};\n"
            f"for (int64_t j = 0; j < {rows}; j++) {{\n"
            f"int64_t off = 0; int ok = 1;\n"
            f"for (int64_t d = 0; d < {kk}; d++) {{\n"
            f"int64_t i = (int64_t)in1[j * {kk} + d];\n"
            + ("" if check else "if (i < 0) i += dims[d];\n") +
            "const int good = i >= 0 && i < dims[d];\n"
            + (f"if (!good) ob_fail(ob_status, (int64_t)in1[j * {kk} + d], j * {kk} + d);\n" if check else "") +
            f"ok &= good;\n"
            f"off = off * dims[d] + i;\n}}\n"
            f"if (ok) memcpy(out0 + j * {inner}, in0 + off * {inner}, {inner} * sizeof(*out0));\n"
            f"else memset(out0 + j * {inner}, 0, {inner} * sizeof(*out0));\n}}")


def _segment_emit(k: KernelSpec) -> str:
    x, ids = k.inputs
    n, m = k.attrs["num_segments"], ids.size
    inner = math.prod(x.shape[ids.rank:])
    size = k.outputs[0].size
    # Rows of x are added into the row their id names; ids outside [0, num_segments) are dropped (MindSpore).
    return (f"{'memset(out0, 0, ' + str(size) + ' * sizeof(*out0));' if size else ''}\n"
            f"for (int64_t j = 0; j < {m}; j++) {{\n"
            f"const int64_t i = (int64_t)in1[j];\n"
            f"if (i < 0 || i >= {n}) continue;\n"
            f"{ctype(x.dtype)} *restrict dst = out0 + i * {inner};\n"
            f"const {ctype(x.dtype)} *restrict src = in0 + j * {inner};\n"
            f"for (int64_t q = 0; q < {inner}; q++) dst[q] += src[q];\n}}")


register("Gather", _gather_emit, copy=True)
register("GatherD", _gatherd_emit, copy=True)
register("GatherNd", _gathernd_emit, copy=True)
register("UnsortedSegmentSum", _segment_emit, copy=True)
