"""GPU kernels of the Householder QR family (Qr in ops/linalg.py; Geqrf, Orgqr in ops/linalg_factors.py), one block
per matrix as linalg.py's, computing what the CPU's LAPACK geqrf/orgqr compute (their unblocked forms geqr2 and
org2r, so the reflectors' signs are LAPACK's and the results agree within rounding):

* geqr2 in shared memory: for each column, dlarfg by thread 0 (``beta = -sign(alpha) hypot(alpha, |x|)``,
  ``tau = (beta - alpha) / beta``, the tail scaled by ``1 / (alpha - beta)``; a zero tail leaves ``H = I``,
  ``tau = 0``), the tail scaled by the threads, then ``H`` applied to the columns on the right, a column per
  thread;
* org2r on the output itself, in global memory: each output column belongs to one thread (``c`` modulo the
  block's size) for the whole kernel, so every element has one writer; a barrier separates a step's use of
  reflector ``i`` (column ``i``) by every thread from its owner's overwriting it.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ..codegen import grid_loop
from .linalg import _batch, _each, _fits, _float, _per_matrix, emits

_TID, _STEP = "threadIdx.x", "blockDim.x"


def _geqr2(m: int, n: int, ct: str, tau: str) -> str:
    """Householder QR of ``a`` (m x n, shared) in place; ``tau(j)``: where reflector j's scale is stored."""
    return "\n".join([
        f"for (int64_t j = 0; j < {min(m, n)}; j++) {{",
        f"if ({_TID} == 0) {{ {ct} ss = 0; "
        f"for (int64_t i = j + 1; i < {m}; i++) ss += a[i * {n} + j] * a[i * {n} + j]; "
        f"const {ct} alpha = a[j * {n} + j], xnorm = sqrt(ss); "
        f"if (xnorm == 0) {{ ht = 0; hs = 1; }} else {{ const {ct} beta = alpha >= 0 ? -hypot(alpha, xnorm) "
        f": hypot(alpha, xnorm); ht = (beta - alpha) / beta; hs = ({ct})1 / (alpha - beta); a[j * {n} + j] = beta; }} "
        f"{tau.replace('@', 'j')} = ht; }}",
        "__syncthreads();",
        f"const {ct} t = ht, s = hs;",
        "if (t != 0) {",
        _each(f"({m} - j - 1)", "q", f"a[(j + 1 + q) * {n} + j] *= s;"),
        "__syncthreads();",
        _each(f"({n} - j - 1)", "q", f"const int64_t c = j + 1 + q; {ct} w = a[j * {n} + c]; "
                                     f"for (int64_t i = j + 1; i < {m}; i++) w += a[i * {n} + j] * a[i * {n} + c]; "
                                     f"const {ct} u = -t * w; a[j * {n} + c] += u; "
                                     f"for (int64_t i = j + 1; i < {m}; i++) a[i * {n} + c] += a[i * {n} + j] * u;"),
        "}",
        "__syncthreads();",
        "}"])


def _org2r(m: int, cols: int, k: int, ct: str, q: str, tau: str) -> str:
    """Q's first ``cols`` columns from the ``k`` reflectors in ``q`` (m x cols, global, row stride ``cols``),
    in place; ``tau(@)``: reflector @'s scale. Columns k.. start as the identity's."""
    col = f"{q}[l * {cols} + c]"
    return "\n".join([
        _each(str(cols), "c", f"if (c >= {k}) for (int64_t l = 0; l < {m}; l++) {col} = ({ct})(l == c ? 1 : 0);"),
        "__syncthreads();",
        f"for (int64_t i = {k} - 1; i >= 0; i--) {{",
        f"const {ct} t = {tau.replace('@', 'i')};",
        _each(str(cols), "c", f"if (c > i) {{ {ct} w = {q}[i * {cols} + c]; "
                              f"for (int64_t l = i + 1; l < {m}; l++) w += {q}[l * {cols} + i] * {col}; "
                              f"const {ct} u = -t * w; {q}[i * {cols} + c] += u; "
                              f"for (int64_t l = i + 1; l < {m}; l++) {col} += {q}[l * {cols} + i] * u; }}"),
        "__syncthreads();",
        f"if (i % {_STEP} == {_TID}) {{ for (int64_t l = i + 1; l < {m}; l++) {q}[l * {cols} + i] *= -t; "
        f"{q}[i * {cols} + i] = ({ct})1 - t; for (int64_t l = 0; l < i; l++) {q}[l * {cols} + i] = 0; }}",
        "__syncthreads();",
        "}"])


def _shared(ct: str, m: int, n: int) -> str:
    return (f"__shared__ {ct} a[{max(m * n, 1)}]; __shared__ {ct} taus[{max(min(m, n), 1)}]; "
            f"__shared__ {ct} ht, hs;")


@emits("Geqrf")
def _geqrf(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    ct = _float(k.op, x.dtype)
    if x.size == 0:
        return "  /* empty */"
    _fits(k.op, x.dtype, m * n + min(m, n), max(m, n))
    kk = min(m, n)
    return _shared(ct, m, n) + "\n" + _per_matrix(_batch(x.shape), [
        _each(str(m * n), "e", f"a[e] = in0[m * {m * n} + e];"), "__syncthreads();",
        _geqr2(m, n, ct, f"out1[m * {kk} + @]"),
        _each(str(m * n), "e", f"out0[m * {m * n} + e] = a[e];")])


@emits("Orgqr")
def _orgqr(k: KernelSpec) -> str:
    x, tau = k.inputs
    m, n = x.shape[-2:]
    kk = tau.shape[-1]
    ct = _float(k.op, x.dtype)
    if x.size == 0:
        return "  /* empty */"
    q = f"(out0 + m * {m * n})"
    return "\n".join([
        f"  for (int64_t m = blockIdx.x; m < {_batch(x.shape)}; m += gridDim.x) {{",
        _each(str(n), "c", f"for (int64_t l = 0; l < {m}; l++) {q}[l * {n} + c] = in0[m * {m * n} + l * {n} + c];"),
        _org2r(m, n, kk, ct, q, f"in1[m * {kk} + @]"), "}"])


@emits("Qr")
def _qr(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b, qc, kk = _batch(x.shape), k.outputs[0].shape[-1], min(m, n)
    ct = _float(k.op, x.dtype)
    if b == 0 or m == 0:
        return "  /* empty */"
    if kk == 0:  # no reflectors: q is the identity's first columns, r is empty
        return grid_loop(k.outputs[0].size, "e", f"const int64_t i = (e % {m * qc}) / {qc}, j = e % {qc}; "
                                                 f"out0[e] = ({ct})(i == j ? 1 : 0);")
    _fits(k.op, x.dtype, m * n + kk, max(m, n))
    q, r = f"(out0 + m * {m * qc})", f"(out1 + m * {qc * n})"
    return _shared(ct, m, n) + "\n" + _per_matrix(b, [
        _each(str(m * n), "e", f"a[e] = in0[m * {m * n} + e];"), "__syncthreads();",
        _geqr2(m, n, ct, "taus[@]"),
        _each(str(qc * n), "e", f"const int64_t i = e / {n}, j = e % {n}; "
                                f"{r}[e] = (j >= i && i < {kk}) ? a[e] : ({ct})0;"),
        _each(str(qc), "c", f"for (int64_t l = 0; l < {m}; l++) {q}[l * {qc} + c] = c < {n} ? a[l * {n} + c] "
                            f": ({ct})0;"),
        _org2r(m, qc, kk, ct, q, "taus[@]")])


#: The ops of this module (tests, the GPU suite).
OPS: tuple[str, ...] = ("Qr", "Geqrf", "Orgqr")

__all__ = ["OPS"]
