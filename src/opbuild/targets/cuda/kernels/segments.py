"""GPU kernels of UnsortedSegmentSum and GatherD (ops/indexing.py) and of StopGradient (ops/python_calls.py).

UnsortedSegmentSum in gather form: one thread per output element (segment ``s``, column ``c``) scans the ids in
order and adds the rows naming ``s``, so no two threads write one element, no atomics are needed, and the sum
is made in the CPU's order (targets/cpu/kernels/indexing.py: ids in turn, in the element type); ids outside
``[0, num_segments)`` name no segment and are dropped. GatherD: one thread per output element, an index in
``[-n, n)`` (negative counts from the end), zero elsewhere, as the CPU. StopGradient copies its input.
"""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ..codegen import ctype, grid_loop
from .registry import register


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
                                      f"out0[q] = (i >= 0 && i < {n}LL) ? in0[(o * {n}LL + i) * {inner}LL + r] "
                                      f": ({ctype(x.dtype)})0;")


def _copy(k: KernelSpec) -> str:
    return grid_loop(k.outputs[0].size, "o", "out0[o] = in0[o];")


register("UnsortedSegmentSum", _segment_sum)
register("GatherD", _gather_d)
register("StopGradient", _copy)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("UnsortedSegmentSum", "GatherD", "StopGradient")

__all__ = ["OPS"]
