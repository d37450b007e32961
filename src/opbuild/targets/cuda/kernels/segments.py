"""GPU kernels of UnsortedSegmentSum and GatherD (ops/indexing.py), StridedSliceGrad (ops/slicing.py) and StopGradient
(ops/python_calls.py).

UnsortedSegmentSum in gather form: one thread per output element (segment ``s``, column ``c``) scans the ids in order
and adds the rows naming ``s``, so no two threads write one element, no atomics are needed, and the sum is made in the
CPU's order (targets/cpu/kernels/indexing.py: ids in turn, in the element type); ids outside ``[0, num_segments)`` name
no segment and are dropped. GatherD: one thread per output element, an index in ``[-n, n)`` (negative counts from the
end), zero elsewhere (reported with ``bounds="raise"``), as the CPU. StridedSliceGrad: one thread per element of the
input's shape, which holds the cotangent element the slice read there (a position the slice reads is ``start + step *
q`` on every axis, ``q < count``) or zero. StopGradient copies its input. The last three move elements as they are, so
they take the half types as stored (zero is +0's bits); UnsortedSegmentSum takes none (the op refuses them, as the CPU's
kernel).
"""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register


def _zero(dtype: str) -> str:
    """C++: zero of ``dtype`` as stored (a half type's +0 bits)."""
    return half.literal(0.0, dtype) if half.is_half(dtype) else f"({ctype(dtype)})0"


def _segment_sum(k: KernelSpec) -> str:
    x, ids = k.inputs
    out = k.outputs[0]
    inner, m = math.prod(x.shape[ids.rank:]), ids.size
    if out.size == 0:
        return "  /* empty */"
    t = ctype(out.dtype)
    return grid_loop(out.size, "o", f"const int64_t s = o / {inner}LL, c = o % {inner}LL; {t} acc = ({t})0; "
                                    f"for (int64_t j = 0; j < {m}LL; j++) if ((int64_t)in1[j] == s) "
                                    f"acc = ({t})(acc + in0[j * {inner}LL + c]); out0[o] = acc;")


def _gather_d(k: KernelSpec) -> str:
    x, index = k.inputs
    dim = k.attrs["dim"]
    n, m, inner = x.shape[dim], index.shape[dim], math.prod(x.shape[dim + 1:])
    if index.size == 0:
        return "  /* empty */"
    return grid_loop(index.size, "q", f"const int64_t o = q / ({m * inner}LL), r = q % {inner}LL; "
                                      f"int64_t i = (int64_t)in1[q]; if (i < 0) i += {n}LL; "
                                      + (f"if (i < 0 || i >= {n}LL) ob_fail(ob_status, (int64_t)in1[q], q); "
                                         if k.attrs.get("bounds") == "raise" else "") +
                                      f"out0[q] = (i >= 0 && i < {n}LL) ? in0[(o * {n}LL + i) * {inner}LL + r] "
                                      f": {_zero(x.dtype)};")


def _strided_slice_grad(k: KernelSpec) -> str:
    out = k.outputs[0]
    if out.size == 0:
        return "  /* empty */"
    start, step, count = k.attrs["start"], k.attrs["step"], k.attrs["count"]
    shape = tuple(k.attrs["xshape"])
    if math.prod(count) == 0:
        return grid_loop(out.size, "o", f"out0[o] = {_zero(out.dtype)};")
    terms, stride = [], 1
    for d in range(len(shape) - 1, -1, -1):  # q_d of the cotangent, or a miss, per axis
        terms.append(f"{{ const int64_t c = (o / {math.prod(shape[d + 1:])}LL) % {shape[d]}LL - {start[d]}LL; "
                     f"if (c % {step[d]}LL != 0 || c / {step[d]}LL < 0 || c / {step[d]}LL >= {count[d]}LL) "
                     "hit = false; "
                     f"else src += (c / {step[d]}LL) * {stride}LL; }}")
        stride *= count[d]
    return grid_loop(out.size, "o", f"bool hit = true; int64_t src = 0; {' '.join(terms)} "
                                    f"out0[o] = hit ? in0[src] : {_zero(out.dtype)};")


def _copy(k: KernelSpec) -> str:
    return grid_loop(k.outputs[0].size, "o", "out0[o] = in0[o];")


register("UnsortedSegmentSum", _segment_sum)
register("GatherD", _gather_d)
register("StridedSliceGrad", _strided_slice_grad)
register("StopGradient", _copy)
half.allow("GatherD", "StridedSliceGrad", "StopGradient")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("UnsortedSegmentSum", "GatherD", "StridedSliceGrad", "StopGradient")

__all__ = ["OPS"]
