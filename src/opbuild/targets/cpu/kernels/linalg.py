"""CPU kernels of the linear-algebra family (ops/linalg.py): each calls LAPACKE of the OpenBLAS the GEMM kernels
link (``OB_LAPACKE(f)`` names the provider's symbol, defined by the compile command: compilers/blas.py), one
matrix of the batch at a time, on a row-major copy (LAPACKE_ROW_MAJOR), so the inputs are never written.
The declarations sit inside each body (block-scope ``extern``), so the shared prelude needs no LAPACK part.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import scratch_plan as S
from ....ops.svd_jacobi import JACOBI_MAX_COLS
from .registry import emits
from .scratch import carve
from .svd_jacobi import jacobi_svd_body

_ROW_MAJOR = 101


def _t(dtype: str) -> tuple[str, str]:
    """(C type, LAPACK precision letter)."""
    return ("float", "s") if dtype == "float32" else ("double", "d")


def _decl(p: str, ct: str, name: str) -> str:
    """A block-scope declaration of LAPACKE routine ``<p><name>`` (``OB_BLAS_INT`` is lapack_int)."""
    I, A = "OB_BLAS_INT", f"{ct} *"  # noqa: E741, N806
    sig = {
        "getrf": f"int, {I}, {I}, {A}, {I}, {I} *",
        "getri": f"int, {I}, {A}, {I}, const {I} *",
        "potrf": f"int, char, {I}, {A}, {I}",
        "potrs": f"int, char, {I}, {I}, const {A}, {I}, {A}, {I}",
        "geqrf": f"int, {I}, {I}, {A}, {I}, {A}",
        "orgqr": f"int, {I}, {I}, {I}, {A}, {I}, const {A}",
        "gesdd": f"int, char, {I}, {I}, {A}, {I}, {A}, {A}, {I}, {A}, {I}",
        "trtrs": f"int, char, char, char, {I}, {I}, const {A}, {I}, {A}, {I}",
        "gesv": f"int, {I}, {I}, {A}, {I}, {I} *, {A}, {I}",
    }[name]
    return f"extern {I} OB_LAPACKE({p}{name})({sig});"


def _batch(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape[:-2]:
        n *= d
    return n


def oom(item: str, info: str = "info") -> str:
    """C reporting LAPACKE's own allocation failures for batch item ``item`` (its row-major copies and work
    arrays, sized inside it: LAPACK_WORK_MEMORY_ERROR, LAPACK_TRANSPOSE_MEMORY_ERROR) through the status words
    (ops/scratch_plan.py ``lapack_status``), instead of NaN results that look computed."""
    return f"if ({info} == -1010 || {info} == -1011) {{ ob_fail(ob_status, {item}, {info}); return; }}"


def _nan_fill(ptr: str, count: str, ct: str) -> str:
    return f"for (int64_t e = 0; e < {count}; e++) {ptr}[e] = ({ct})NAN;"


@emits("MatrixInverse", blas=True)
def _inverse(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    if x.size == 0:
        return "/* empty */"
    ct, p = _t(x.dtype)
    copy = ("for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < n; j++) a[i * n + j] = src[j * n + i];"
            if k.attrs["adjoint"] else "memcpy(a, src, n * n * sizeof(*a));")
    return "\n".join([
        _decl(p, ct, "getrf"), _decl(p, ct, "getri"),
        f"const int64_t n = {n};",
        carve(S.matrix_inverse(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t m = 0; m < {b}; m++) {{",
        f"const {ct} *src = in0 + m * n * n; {ct} *a = out0 + m * n * n;",
        copy,
        f"OB_BLAS_INT info = OB_LAPACKE({p}getrf)({_ROW_MAJOR}, n, n, a, n, ipiv);",
        f"if (info == 0) info = OB_LAPACKE({p}getri)({_ROW_MAJOR}, n, a, n, ipiv);",
        oom("m"),
        "if (info != 0) { " + _nan_fill("a", "n * n", ct) + " }",
        "}"])


@emits("MatrixDeterminant", blas=True)
def _det(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    ct, p = _t(x.dtype)
    if b == 0:
        return "/* empty */"
    if n == 0:
        return f"for (int64_t m = 0; m < {b}; m++) out0[m] = ({ct})1;"
    return "\n".join([
        _decl(p, ct, "getrf"),
        f"const int64_t n = {n};",
        carve(S.lu_copy(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t m = 0; m < {b}; m++) {{",
        "memcpy(a, in0 + m * n * n, n * n * sizeof(*a));",
        # info > 0 is an exact zero pivot: the product of the diagonal is then 0, the determinant.
        f"OB_BLAS_INT info = OB_LAPACKE({p}getrf)({_ROW_MAJOR}, n, n, a, n, ipiv);",
        oom("m"),
        "double d = 1.0;",
        "for (int64_t i = 0; i < n; i++) { d *= a[i * n + i]; if (ipiv[i] != i + 1) d = -d; }",
        f"out0[m] = info < 0 ? ({ct})NAN : ({ct})d;",
        "}"])


@emits("Cholesky", blas=True)
def _cholesky(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    if x.size == 0:
        return "/* empty */"
    ct, p = _t(x.dtype)
    upper = k.attrs["upper"]
    uplo = "'U'" if upper else "'L'"
    keep = "j >= i" if upper else "j <= i"
    return "\n".join([
        _decl(p, ct, "potrf"),
        f"const int64_t n = {n};",
        f"for (int64_t m = 0; m < {b}; m++) {{",
        f"const {ct} *src = in0 + m * n * n; {ct} *a = out0 + m * n * n;",
        f"for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < n; j++) a[i * n + j] = ({keep}) ? "
        f"src[i * n + j] : ({ct})0;",
        f"OB_BLAS_INT info = OB_LAPACKE({p}potrf)({_ROW_MAJOR}, {uplo}, n, a, n);", oom("m"),
        "if (info != 0) { " + _nan_fill("a", "n * n", ct) + " }",
        "}"])


@emits("Qr", blas=True)
def _qr(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b = _batch(x.shape)
    qc = k.outputs[0].shape[-1]  # columns of q: min(m, n), or m when full_matrices
    kk = min(m, n)
    ct, p = _t(x.dtype)
    if b == 0 or m == 0:
        return "/* empty */"
    if kk == 0:  # no reflectors: q is the identity (m x m) and r is empty
        return (f"memset(out0, 0, {k.outputs[0].size} * sizeof(*out0)); for (int64_t t = 0; t < {b}; t++) "
                f"for (int64_t i = 0; i < {min(m, qc)}; i++) out0[t * {m * qc} + i * {qc} + i] = ({ct})1;")
    return "\n".join([
        _decl(p, ct, "geqrf"), _decl(p, ct, "orgqr"),
        f"const int64_t m = {m}, n = {n}, qc = {qc}, kk = {kk};",
        carve(S.qr(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{ct} *q = out0 + t * m * qc; {ct} *r = out1 + t * qc * n;",
        "memcpy(a, in0 + t * m * n, m * n * sizeof(*a));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}geqrf)({_ROW_MAJOR}, m, n, a, n, tau);",
        f"for (int64_t i = 0; i < qc; i++) for (int64_t j = 0; j < n; j++) r[i * n + j] = "
        f"(j >= i && i < kk) ? a[i * n + j] : ({ct})0;",
        f"for (int64_t i = 0; i < m; i++) for (int64_t j = 0; j < qc; j++) q[i * qc + j] = j < n ? a[i * n + j] "
        f": ({ct})0;",
        f"if (info == 0) info = OB_LAPACKE({p}orgqr)({_ROW_MAJOR}, m, qc, kk, q, qc, tau);",
        oom("t"),
        "if (info != 0) { " + _nan_fill("q", "m * qc", ct) + " " + _nan_fill("r", "qc * n", ct) + " }",
        "}"])


@emits("Svd", blas=True)
def _svd(k: KernelSpec) -> str:
    x = k.inputs[0]
    m, n = x.shape[-2:]
    b = _batch(x.shape)
    uc, vc = k.outputs[1].shape[-1], k.outputs[2].shape[-1]
    kk = min(m, n)
    ct, p = _t(x.dtype)
    if b == 0:
        return "/* empty */"
    if kk == 0:  # nothing to decompose: u and v are identities (full) or empty
        return "\n".join([
            "memset(out1, 0, sizeof(*out1) * " + str(k.outputs[1].size) + ");",
            "memset(out2, 0, sizeof(*out2) * " + str(k.outputs[2].size) + ");",
            f"for (int64_t t = 0; t < {b}; t++) {{",
            f"for (int64_t i = 0; i < {min(m, uc)}; i++) out1[t * {m * uc} + i * {uc} + i] = ({ct})1;",
            f"for (int64_t i = 0; i < {min(n, vc)}; i++) out2[t * {n * vc} + i * {vc} + i] = ({ct})1;",
            "}"])
    if n < JACOBI_MAX_COLS:  # MindSpore's path, and its singular vectors' signs (ops/svd_jacobi.py)
        return jacobi_svd_body(k)
    jobz = "'A'" if k.attrs["full_matrices"] else "'S'"
    return "\n".join([
        _decl(p, ct, "gesdd"),
        f"const int64_t m = {m}, n = {n}, uc = {uc}, vc = {vc}, kk = {kk};",
        carve(S.svd(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{ct} *s = out0 + t * kk; {ct} *u = out1 + t * m * uc; {ct} *v = out2 + t * n * vc;",
        "memcpy(a, in0 + t * m * n, m * n * sizeof(*a));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}gesdd)({_ROW_MAJOR}, {jobz}, m, n, a, n, s, u, uc, vt, n);",
        oom("t"),
        # gesdd gives v's transpose (vc x n); MindSpore returns v itself (n x vc).
        "for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < vc; j++) v[i * vc + j] = vt[j * n + i];",
        "if (info != 0) { " + " ".join(_nan_fill(v, c, ct) for v, c in
                                       (("s", "kk"), ("u", "m * uc"), ("v", "n * vc"))) + " }",
        "}"])


def _solve_in_place(k: KernelSpec, rhs_in: int, routine: str, args: str) -> str:
    """C for a LAPACK solver that overwrites the right-hand side: per batch item, ``in<rhs_in>`` copied into the
    output, then ``routine(args)`` on it (``args``: the call's arguments between the layout and ``y, c``); a
    failure (info != 0) fills that item with NaN."""
    rhs = k.inputs[rhs_in]
    n, cols = rhs.shape[-2:]
    if rhs.size == 0:
        return "/* empty */"
    ct, p = _t(rhs.dtype)
    return "\n".join([
        _decl(p, ct, routine),
        f"const int64_t n = {n}, c = {cols};",
        f"for (int64_t t = 0; t < {_batch(rhs.shape)}; t++) {{",
        f"{ct} *y = out0 + t * n * c;",
        f"memcpy(y, in{rhs_in} + t * n * c, n * c * sizeof(*y));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}{routine})({_ROW_MAJOR}, {args}, y, c);", oom("t"),
        "if (info != 0) { " + _nan_fill("y", "n * c", ct) + " }",
        "}"])


@emits("CholeskySolve", blas=True)
def _cholesky_solve(k: KernelSpec) -> str:
    uplo = "'U'" if k.attrs["upper"] else "'L'"
    return _solve_in_place(k, 0, "potrs", f"{uplo}, n, c, in1 + t * n * n, n")


@emits("MatrixTriangularSolve", blas=True)
def _triangular_solve(k: KernelSpec) -> str:
    uplo = "'L'" if k.attrs["lower"] else "'U'"
    trans = "'T'" if k.attrs["adjoint"] else "'N'"
    # info > 0: a zero on the diagonal (a singular triangle).
    return _solve_in_place(k, 1, "trtrs", f"{uplo}, {trans}, 'N', n, c, in0 + t * n * n, n")


@emits("MatrixSolve", blas=True)
def _matrix_solve(k: KernelSpec) -> str:
    mat, rhs = k.inputs
    n, cols = rhs.shape[-2:]
    b = _batch(rhs.shape)
    if rhs.size == 0:
        return "/* empty */"
    ct, p = _t(rhs.dtype)
    copy = ("for (int64_t i = 0; i < n; i++) for (int64_t j = 0; j < n; j++) a[i * n + j] = src[j * n + i];"
            if k.attrs["adjoint"] else "memcpy(a, src, n * n * sizeof(*a));")
    return "\n".join([
        _decl(p, ct, "gesv"),
        f"const int64_t n = {n}, c = {cols};",
        carve(S.matrix_solve(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"const {ct} *src = in0 + t * n * n; {ct} *y = out0 + t * n * c;",
        copy,
        "memcpy(y, in1 + t * n * c, n * c * sizeof(*y));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}gesv)({_ROW_MAJOR}, n, c, a, n, ipiv, y, c);", oom("t"),
        "if (info != 0) { "
        + _nan_fill("y", "n * c", ct) + " }",
        "}"])
