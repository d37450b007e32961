"""CPU kernels of ops/linalg_factors.py: slogdet from LAPACKE getrf, geqrf and orgqr as they are, and the
Cholesky inverse by potri (which fills one triangle: the kernel mirrors it)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import scratch_plan as S
from .linalg import _ROW_MAJOR, _batch, _decl, _nan_fill, _t, oom
from .registry import emits
from .scratch import carve


@emits("LogMatrixDeterminant", blas=True)
def _slogdet(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    ct, p = _t(x.dtype)
    if b == 0:
        return "/* empty */"
    if n == 0:
        return f"for (int64_t m = 0; m < {b}; m++) {{ out0[m] = ({ct})1; out1[m] = ({ct})0; }}"
    return "\n".join([
        _decl(p, ct, "getrf"),
        f"const int64_t n = {n};",
        carve(S.lu_copy(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t m = 0; m < {b}; m++) {{",
        "memcpy(a, in0 + m * n * n, n * n * sizeof(*a));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}getrf)({_ROW_MAJOR}, n, n, a, n, ipiv);",
        oom("m"),
        "double sign = 1.0, logabs = 0.0;",
        "for (int64_t i = 0; i < n; i++) {",
        "const double d = a[i * n + i];",
        "if (d == 0.0) { sign = 0.0; logabs = -INFINITY; break; }",
        "if (d < 0) sign = -sign;",
        "if (ipiv[i] != i + 1) sign = -sign;",
        "logabs += log(fabs(d));",
        "}",
        f"out0[m] = info < 0 ? ({ct})NAN : ({ct})sign; out1[m] = info < 0 ? ({ct})NAN : ({ct})logabs;",
        "}"])


@emits("Geqrf", blas=True)
def _geqrf(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b, kk = _batch(x.shape), min(m, n)
    ct, p = _t(x.dtype)
    if x.size == 0:
        return "/* empty */"
    return "\n".join([
        _decl(p, ct, "geqrf"),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{ct} *y = out0 + t * {m * n}; {ct} *tau = out1 + t * {kk};",
        f"memcpy(y, in0 + t * {m * n}, {m * n} * sizeof(*y));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}geqrf)({_ROW_MAJOR}, {m}, {n}, y, {n}, tau);", oom("t"),
        "if (info != 0) { "
        + _nan_fill("y", str(m * n), ct) + " " + _nan_fill("tau", str(kk), ct) + " }",
        "}"])


@emits("Orgqr", blas=True)
def _orgqr(k: KernelSpec) -> str:
    x, tau = k.inputs
    m, n = x.shape[-2:]
    b, kk = _batch(x.shape), tau.shape[-1]
    ct, p = _t(x.dtype)
    if x.size == 0:
        return "/* empty */"
    return "\n".join([
        _decl(p, ct, "orgqr"),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{ct} *q = out0 + t * {m * n};",
        f"memcpy(q, in0 + t * {m * n}, {m * n} * sizeof(*q));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}orgqr)({_ROW_MAJOR}, {m}, {n}, {kk}, q, {n}, in1 + t * {kk});", oom("t"),
        "if (info != 0) { "
        + _nan_fill("q", str(m * n), ct) + " }",
        "}"])


@emits("CholeskyInverse", blas=True)
def _cholesky_inverse(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    if x.size == 0:
        return "/* empty */"
    ct, p = _t(x.dtype)
    upper = k.attrs["upper"]
    uplo = "'U'" if upper else "'L'"
    keep = "j >= i" if upper else "j <= i"
    return "\n".join([
        f"extern OB_BLAS_INT OB_LAPACKE({p}potri)(int, char, OB_BLAS_INT, {ct} *, OB_BLAS_INT);",
        f"const int64_t n = {n};",
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"const {ct} *src = in0 + t * n * n; {ct} *a = out0 + t * n * n;",
        f"for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < n; j++) a[i * n + j] = ({keep}) ? "
        f"src[i * n + j] : ({ct})0;",
        f"OB_BLAS_INT info = OB_LAPACKE({p}potri)({_ROW_MAJOR}, {uplo}, n, a, n);", oom("t"),
        "if (info != 0) { " + _nan_fill("a", "n * n", ct) + " }",
        # potri writes the triangle it was given: mirror it into the other one.
        "else for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < n; j++) "
        f"if (!({keep})) a[i * n + j] = a[j * n + i];",
        "}"])
