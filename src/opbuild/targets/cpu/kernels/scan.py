"""CPU kernels of the scans (ops/scan.py): CumSum/CumProd and Cummax/Cummin."""

from __future__ import annotations

import math
from collections.abc import Callable

from ....core.ir import KernelSpec
from ....ops.scan import SCANS
from ..codegen import c_literal, compute_ctype, load, store
from .registry import emits

# Each scan's combine of the running value a and the next element b, in C.
_COMBINE: dict[str, Callable[[str, str], str]] = {
    "CumSum": lambda a, b: f"({a}) + ({b})",
    "CumProd": lambda a, b: f"({a}) * ({b})",
}
# A running extremum takes over an equal element's index (MindSpore's rule), hence >= and <=; after a NaN
# only a later NaN takes over (ops/scan.py).
_CMP = {"Cummax": ">=", "Cummin": "<="}


@emits("CumSum", "CumProd")
def scan_emit(k: KernelSpec) -> str:
    """C body: per (outer, inner) lane, a sequential scan along the axis (vectorised across the inner lanes)."""
    x = k.inputs[0]
    dt = x.dtype
    if x.size == 0:
        return "/* empty */"
    scan = SCANS[k.op]
    combine = _COMBINE[k.op]
    shape = x.shape or (1,)
    axis, excl, rev = k.attrs["axis"], k.attrs["exclusive"], k.attrs["reverse"]
    outer, n, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])
    # Positions along the axis in scan order: t -> i; the previous position is i - step.
    step = -1 if rev else 1
    first = n - 1 if rev else 0
    at = f"(o * {n} + (i)) * {inner} + r"
    prev = at.replace("(i)", f"(i - ({step}))")
    src = prev if excl else at
    head = c_literal(scan.identity, dt) if excl else f"in0[{at}]"
    combined = store(dt, combine(load(dt, f"out0[{prev}]"), load(dt, f"in0[{src}]")))
    pos = f"{n - 1} - t" if rev else "t"
    return (f"for (int64_t o = 0; o < {outer}; o++) {{\n"
            f"{{ const int64_t i = {first};\n"
            f"for (int64_t r = 0; r < {inner}; r++) out0[{at}] = {head}; }}\n"
            f"for (int64_t t = 1; t < {n}; t++) {{\n"
            f"const int64_t i = {pos};\n"
            f"for (int64_t r = 0; r < {inner}; r++) out0[{at}] = {combined};\n"
            f"}}}}")


@emits("Cummax", "Cummin")
def extremum_emit(k: KernelSpec) -> str:
    """C body: per lane, one pass along the axis keeping the running value and its index."""
    x = k.inputs[0]
    dt = x.dtype
    cmp = _CMP[k.op]
    axis = k.attrs["axis"]
    outer, n, inner = math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:])
    if x.size == 0:
        return "/* empty */"
    floats = dt.startswith(("float", "bfloat"))
    e, v = load(dt, "in0[q]"), "best"
    take = (f"e != e || ({v} == {v} && e {cmp} {v})" if floats else f"e {cmp} {v}")
    return (f"for (int64_t o = 0; o < {outer}; o++)\n"
            f"for (int64_t r = 0; r < {inner}; r++) {{\n"
            f"{compute_ctype(dt)} best = {load(dt, f'in0[o * {n * inner} + r]')}; int64_t at = 0;\n"
            f"for (int64_t j = 0; j < {n}; j++) {{\n"
            f"const int64_t q = (o * {n} + j) * {inner} + r;\n"
            f"const {compute_ctype(dt)} e = {e};\n"
            f"if (j > 0 && ({take})) {{ best = e; at = j; }}\n"
            f"out0[q] = in0[o * {n * inner} + at * {inner} + r];\n"
            f"out1[q] = at;\n}}}}")
