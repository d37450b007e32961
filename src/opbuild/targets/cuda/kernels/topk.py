"""GPU kernel of TopK (ops/sorting.py): the ``k`` largest (or smallest) elements of every slice along ``axis``,
in order, with their indices; equal elements keep their input order and NaN counts as larger than every number,
the CPU's stable merge sort order (targets/cpu/kernels/sorting.py).

The CPU sorts each slice in a workspace, which the GPU ABI does not have. Here one thread per input element
computes its rank in that order (how many elements of its slice come before it: the ones that compare before
it, and the equal ones at smaller indices), and the element whose rank is below ``k`` writes itself at that
rank: the ranks are a permutation, so every output element is written by exactly one thread. That is
``n`` comparisons per element; a block-wide sort for long slices is to be chosen by measurement on a GPU.
Half types compare in float (the conversion is exact and monotonic) and are written as stored.
"""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register


def _emit(k: KernelSpec) -> str:
    x = k.inputs[0]
    axis, kk = k.attrs["axis"], k.attrs["k"]
    n, inner = x.shape[axis], math.prod(x.shape[axis + 1:])
    if kk == 0 or x.size == 0:
        return "  /* empty */"
    t, c, floats = ctype(x.dtype), half.compute_ctype(x.dtype), x.dtype.startswith(("float", "bfloat"))
    # b_before_a: element b comes before element a (strictly) in the op's order.
    if k.attrs["largest"]:
        before = "(b > a)" + (" || (b != b && a == a)" if floats else "")
    else:
        before = "(b < a)" + (" || (a != a && b == b)" if floats else "")
    ties = "!(" + before + ") && !(" + before.replace("a", "@").replace("b", "a").replace("@", "b") + ")"
    stmt = (f"const int64_t o = e / {n * inner}LL, i = (e / {inner}LL) % {n}LL, r = e % {inner}LL; "
            f"const {t} *sl = in0 + o * {n * inner}LL + r; "
            f"const {c} a = {half.load(x.dtype, f'sl[i * {inner}LL]')}; "
            f"int64_t rank = 0; for (int64_t j = 0; j < {n}LL && rank < {kk}LL; j++) {{ "
            f"const {c} b = {half.load(x.dtype, f'sl[j * {inner}LL]')}; "
            f"if (({before}) || (j < i && {ties})) rank++; }} "
            f"if (rank < {kk}LL) {{ const int64_t q = o * {kk * inner}LL + rank * {inner}LL + r; "
            f"out0[q] = sl[i * {inner}LL]; "
            f"out1[q] = ({ctype(k.attrs['index_dtype'])})i; }}")
    return grid_loop(x.size, "e", stmt)


register("TopK", _emit)
half.allow("TopK")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("TopK",)

__all__ = ["OPS"]
