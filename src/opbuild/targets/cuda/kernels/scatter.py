"""GPU kernels of the scatters: TensorScatterUpdate/Add/Sub/Mul/Div/Max/Min and TensorScatterElements
(ops/scatters.py), and the in-place ScatterNd*Inplace behind MindSpore's Scatter*/ScatterNd* (ops/
scatters_inplace.py).

Gather form, deterministic with repeated indices: one thread per OUTPUT element loads its old value, then scans
the updates in their order and combines each one aimed at its element, exactly as the CPU's loop over the
updates does (targets/cpu/kernels/scatters.py: rows in order, so repeated indices combine in turn and the last
Update wins), then stores once. No two threads write one element and no atomics are needed; the in-place form
reads its element through the input pointer before the same thread writes it. The price is a scan of the index
rows per output element (``size * rows`` index reads), cheap for the small index sets of a train step; a
sort-based scatter for large ones is to be chosen by measurement on a GPU. Half types: values load into
float and every combine rounds to the type, as the CPU stores each one.
"""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ....ops.scatters import ND_OPS
from ....ops.scatters_inplace import INPLACE_OPS
from .. import half
from ..codegen import Unsupported, ctype, grid_loop
from .registry import register

# reduction -> combine of the current value a and the update b (max/min keep a NaN already there), as the CPU.
_COMBINE = {
    "none": "b",
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * b",
    "div": "a / b",
    "max": "(a > b || a != a) ? a : b",
    "min": "(a < b || a != a) ? a : b",
}


def _combine(op: str, dt: str, reduction: str) -> str:
    """``a = combine(a, b)`` in the element type (a half type: computed in float, rounded to it)."""
    if dt == "bool" and reduction != "none":
        raise Unsupported(f"{op}: reduction {reduction!r} is not defined for bool tensors")
    if half.is_half(dt):
        return f"a = {half.round_trip(dt, _COMBINE[reduction])};"
    return f"a = ({ctype(dt)})({_COMBINE[reduction]});"


def nd_body(k: KernelSpec, reduction: str) -> str:
    """One thread per element of ``out0``: ``input_x``'s value, combined with every update row aimed at its
    slice, in row order."""
    x, indices, _ = k.inputs
    if x.size == 0:
        return "  /* empty */"
    kk = indices.shape[-1]
    inner, rows = math.prod(x.shape[kk:]), math.prod(indices.shape[:-1])
    t = half.compute_ctype(x.dtype)
    # The flat slice offset of index row j (-1 when out of range): negatives count from the end. bounds="raise"
    # (ops/bounds.py): [0, n), and every thread first checks every entry, so with a bad one no element is
    # updated (an in-place Parameter stays as it was) and thread 0 reports the first.
    check = k.attrs.get("bounds") == "raise" and rows * kk > 0
    off = "int64_t off = 0; "
    for d in range(kk):
        n = x.shape[d]
        off += (f"{{ int64_t i = (int64_t)in1[j * {kk}LL + {d}]; {'' if check else f'if (i < 0) i += {n}LL; '}"
                f"if (i < 0 || i >= {n}LL) off = -1; else if (off >= 0) off = off * {n}LL + i; }} ")
    dims = ", ".join(f"{d}LL" for d in x.shape[:kk])
    validate = (f"{{ const int64_t dims[] = {{{dims}}}; bool bad = false; "
                f"for (int64_t e = 0; e < {rows * kk}LL && !bad; e++) {{ const int64_t i = (int64_t)in1[e]; "
                f"if (i < 0 || i >= dims[e % {kk}LL]) {{ bad = true; if (o == 0) ob_fail(ob_status, i, e); }} }} "
                f"if (bad) {{ out0[o] = in0[o]; continue; }} }} ") if check else ""
    scan = (f"for (int64_t j = 0; j < {rows}LL; j++) {{ {off}if (off != s) continue; "
            f"const {t} b = {half.load(x.dtype, f'in2[j * {inner}LL + c]')}; {_combine(k.op, x.dtype, reduction)} }} "
            ) if inner else ""
    return grid_loop(x.size, "o", f"{validate}const int64_t s = o / {max(inner, 1)}LL, c = o % {max(inner, 1)}LL; "
                                  f"{t} a = {half.load(x.dtype, 'in0[o]')}; {scan}"
                                  f"out0[o] = {half.store(x.dtype, 'a', t)};")


def _nd(k: KernelSpec) -> str:
    return nd_body(k, ND_OPS[k.op])


def _nd_inplace(k: KernelSpec) -> str:
    return nd_body(k, INPLACE_OPS[k.op])


def _elements(k: KernelSpec) -> str:
    """TensorScatterElements: the updates aimed at output element ``p`` are those at positions ``u`` of
    ``indices`` equal to ``p`` off ``axis`` whose index names ``p[axis]``; in C order of ``u`` they come in
    ascending ``u[axis]``, the order the CPU applies them."""
    x, indices, _ = k.inputs
    if x.size == 0:
        return "  /* empty */"
    axis, t = k.attrs["axis"], half.compute_ctype(x.dtype)
    n, m = x.shape[axis], indices.shape[axis]
    if indices.size == 0:
        return grid_loop(x.size, "o", "out0[o] = in0[o];")
    # Coordinates of o in x, the position u (with u[axis] = 0) in indices, and whether p lies inside indices.
    coords, rem = [], "o"
    ustride, ustrides = 1, [0] * x.rank
    for d in range(x.rank - 1, -1, -1):
        ustrides[d] = ustride
        ustride *= indices.shape[d]
    for d in range(x.rank):
        below = math.prod(x.shape[d + 1:])
        coords.append(f"const int64_t p{d} = ({rem} / {below}LL) % {x.shape[d]}LL;")
    inside = " && ".join(f"p{d} < {indices.shape[d]}LL" for d in range(x.rank) if d != axis) or "true"
    base = " + ".join(f"p{d} * {ustrides[d]}LL" for d in range(x.rank) if d != axis) or "0"
    scan = (f"if ({inside}) {{ const int64_t u0 = {base}; "
            f"for (int64_t j = 0; j < {m}LL; j++) {{ const int64_t u = u0 + j * {ustrides[axis]}LL; "
            f"int64_t i = (int64_t)in1[u]; if (i < 0) i += {n}LL; if (i != p{axis}) continue; "
            f"const {t} b = {half.load(x.dtype, 'in2[u]')}; {_combine(k.op, x.dtype, k.attrs['reduction'])} }} }} ")
    # bounds="raise": every thread checks every index first; with a bad one no element is updated and thread 0
    # reports the first.
    validate = (f"{{ bool bad = false; for (int64_t e = 0; e < {indices.size}LL && !bad; e++) {{ "
                f"const int64_t i = (int64_t)in1[e]; if (i < -{n}LL || i >= {n}LL) {{ bad = true; "
                f"if (o == 0) ob_fail(ob_status, i, e); }} }} if (bad) {{ out0[o] = in0[o]; continue; }} }} "
                ) if k.attrs.get("bounds") == "raise" else ""
    return grid_loop(x.size, "o", f"{validate}{' '.join(coords)} {t} a = {half.load(x.dtype, 'in0[o]')}; {scan}"
                                  f"out0[o] = {half.store(x.dtype, 'a', t)};")


for _op in ND_OPS:
    register(_op, _nd)
for _op in INPLACE_OPS:
    register(_op, _nd_inplace)
register("TensorScatterElements", _elements)
half.allow(*ND_OPS, *INPLACE_OPS, "TensorScatterElements")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = (*ND_OPS, *INPLACE_OPS, "TensorScatterElements")

__all__ = ["OPS", "nd_body"]
