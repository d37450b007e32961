"""GPU kernels of the scans (ops/scan.py): CumSum, CumProd (exclusive, reverse) and Cummax, Cummin (values and
indices).

One thread per lane (an ``(outer, inner)`` position) walks the axis in the scan's order keeping the running
value, so the combines happen in the CPU's order (targets/cpu/kernels/scan.py) and give its results exactly:
each running value is rounded to the element type as the CPU stores it (a half type: combined in float,
rounded per step; Cummax/Cummin compare in float and copy the element's bits). Parallel across lanes only; a scan
along the axis (a block-wide prefix sum) for few long lanes is to be chosen by measurement on a GPU.
"""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ....ops.scan import SCANS
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register

_COMBINE = {"CumSum": "acc + e", "CumProd": "acc * e"}
# A running extremum takes over an equal element's index (MindSpore's rule, the CPU's), hence >= and <=.
_CMP = {"Cummax": ">=", "Cummin": "<="}


def _lanes(shape: tuple, axis: int) -> tuple[int, int, int]:
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def _scan(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return "  /* empty */"
    dt = x.dtype
    t = half.compute_ctype(dt)
    outer, n, inner = _lanes(x.shape or (1,), k.attrs["axis"])
    excl, rev = k.attrs["exclusive"], k.attrs["reverse"]
    pos = f"{n - 1}LL - s" if rev else "s"
    at = f"(o * {n}LL + ({pos})) * {inner}LL + r"
    step = f"const {t} e = {half.load(dt, f'in0[{at}]')}; acc = {half.round_trip(dt, _COMBINE[k.op], t)};"
    put = f"out0[{at}] = {half.store(dt, 'acc', t)};"
    if excl:  # out[first] = identity; each later out = the running value of the elements before it
        walk = (f"{t} acc = ({t}){SCANS[k.op].identity}; "
                f"for (int64_t s = 0; s < {n}LL; s++) {{ {put} {step} }}")
    else:
        walk = (f"{t} acc = ({t})0; for (int64_t s = 0; s < {n}LL; s++) {{ "
                f"if (s == 0) acc = {half.load(dt, f'in0[{at}]')}; else {{ {step} }} {put} }}")
    return grid_loop(outer * inner, "l", f"const int64_t o = l / {inner}LL, r = l % {inner}LL; {walk}")


def _extremum(k: KernelSpec) -> str:
    x = k.inputs[0]
    if x.size == 0:
        return "  /* empty */"
    dt, cmp = x.dtype, _CMP[k.op]
    t = half.compute_ctype(dt)
    outer, n, inner = _lanes(x.shape, k.attrs["axis"])
    take = f"e != e || (best == best && e {cmp} best)" if dt.startswith(("float", "bfloat")) else f"e {cmp} best"
    walk = (f"{t} best = {half.load(dt, f'in0[o * {n * inner}LL + r]')}; int64_t at = 0; "
            f"for (int64_t j = 0; j < {n}LL; j++) {{ const int64_t q = (o * {n}LL + j) * {inner}LL + r; "
            f"const {t} e = {half.load(dt, 'in0[q]')}; if (j > 0 && ({take})) {{ best = e; at = j; }} "
            f"out0[q] = in0[o * {n * inner}LL + at * {inner}LL + r]; out1[q] = ({ctype(k.outputs[1].dtype)})at; }}")
    return grid_loop(outer * inner, "l", f"const int64_t o = l / {inner}LL, r = l % {inner}LL; {walk}")


register("CumSum", _scan)
register("CumProd", _scan)
register("Cummax", _extremum)
register("Cummin", _extremum)
half.allow(*_COMBINE, *_CMP)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("CumSum", "CumProd", "Cummax", "Cummin")

__all__ = ["OPS"]
