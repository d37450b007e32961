"""CPU kernels of the sorting family (ops/sorting.py): TopK."""

from __future__ import annotations

import math

from ....core.ir import KernelSpec
from ..codegen import ctype, load
from . import emits


@emits("TopK")
def topk_emit(k: KernelSpec) -> str:
    """C body: per slice, a stable merge sort of its indices (workspace), then the first k copied out."""
    x = k.inputs[0]
    dt = x.dtype
    axis, kk = k.attrs["axis"], k.attrs["k"]
    outer, n, inner = math.prod(x.shape[:axis]), x.shape[axis], math.prod(x.shape[axis + 1:])
    if kk == 0 or outer * inner == 0:
        return "/* empty */"
    v = lambda i: load(dt, f"s[({i}) * {inner}]")  # noqa: E731
    floats = dt.startswith(("float", "bfloat"))
    if k.attrs["largest"]:
        before = f"({v('b')} > {v('a')})" + (f" || ({v('b')} != {v('b')} && {v('a')} == {v('a')})" if floats else "")
    else:
        before = f"({v('b')} < {v('a')})" + (f" || ({v('a')} != {v('a')} && {v('b')} == {v('b')})" if floats else "")
    # before: element b (right run) must precede element a (left run); ties keep the left one (stable).
    return (f"int64_t *const wa = (int64_t *)ob_ws, *const wb = wa + {n};\n"
            f"for (int64_t o = 0; o < {outer}; o++)\n"
            f"for (int64_t r = 0; r < {inner}; r++) {{\n"
            f"const {ctype(dt)} *s = in0 + o * {n * inner} + r;\n"
            f"int64_t *src = wa, *dst = wb;\n"
            f"for (int64_t i = 0; i < {n}; i++) src[i] = i;\n"
            f"for (int64_t w = 1; w < {n}; w *= 2) {{\n"
            f"for (int64_t lo = 0; lo < {n}; lo += 2 * w) {{\n"
            f"int64_t mid = lo + w < {n} ? lo + w : {n}, hi = lo + 2 * w < {n} ? lo + 2 * w : {n};\n"
            f"int64_t i = lo, j = mid, t = lo;\n"
            f"while (i < mid && j < hi) {{ const int64_t a = src[i], b = src[j];\n"
            f"if ({before}) {{ dst[t++] = b; j++; }} else {{ dst[t++] = a; i++; }} }}\n"
            f"while (i < mid) dst[t++] = src[i++];\n"
            f"while (j < hi) dst[t++] = src[j++];\n}}\n"
            f"int64_t *tmp = src; src = dst; dst = tmp;\n}}\n"
            f"for (int64_t j = 0; j < {kk}; j++) {{\n"
            f"const int64_t q = o * {kk * inner} + j * {inner} + r;\n"
            f"out0[q] = s[src[j] * {inner}];\n"
            f"out1[q] = ({ctype(k.attrs['index_dtype'])})src[j];\n}}\n}}")
