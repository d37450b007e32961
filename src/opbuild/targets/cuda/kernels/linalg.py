"""GPU kernels of the small dense linear algebra (ops/linalg.py, ops/linalg_factors.py): one block per matrix of
the batch (a block-stride loop over the batch), the matrix in shared memory, the block's threads sharing each
step's row operations, ``__syncthreads`` between steps. The algorithms are LAPACK's unblocked ones, which the
CPU's kernels call (their blocked forms do the same operations in another order), so the results agree within
rounding:

* LU with partial pivoting (getf2: the first row of largest magnitude, whole-row swaps, multipliers scaled by
  the pivot's reciprocal; an exactly zero pivot column is skipped and marks the matrix singular), giving the
  determinant (product of U's diagonal in double, one sign flip per swap), slogdet, the inverse (the solve of
  ``A X = I``, a column per thread: getri's result) and MatrixSolve (gesv), NaN where LAPACK reports a
  singular matrix;
* Cholesky (potf2, lower; the upper factor is the transpose of the lower one of the matrix its upper triangle
  defines), NaN for a matrix that is not positive definite; CholeskySolve (potrs), CholeskyInverse (the
  triangle inverted in place as trti2 does, then ``inv(L)^T inv(L)``, exactly symmetric as potri's mirrored
  result), MatrixTriangularSolve (trtrs: NaN when the diagonal holds a zero).

Eig and FFTN (cuSOLVER, cuFFT: not wired) are refused by name.

The right-hand sides and the inverse's columns are computed one column per thread directly in the output,
which each thread alone writes. Float32 computes in float, float64 in double, as LAPACK's s/d routines do.
Matrices must fit one block's static shared memory (:data:`SHARED_LIMIT`); larger ones, and the
decompositions that need cuSOLVER (Eig, Svd of 16 columns or more) or cuFFT (FFTN), are refused naming the op.
"""

from __future__ import annotations

from collections.abc import Callable

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ..codegen import Unsupported, ctype, grid_loop
from . import special
from .registry import EmitFn, register
from .special import MATH_CONSTANTS


def emits(*ops: str) -> Callable[[EmitFn], EmitFn]:
    """Register as the GPU emitter of ``ops``; the math macros the bodies use (special.py) are in their keys."""

    def attach(fn: EmitFn) -> EmitFn:
        for op in ops:
            register(op, fn, (special,))
        return fn

    return attach


#: Bytes of static shared memory one block may declare (CUDA's limit without opting in to more).
SHARED_LIMIT = 48 * 1024
_TID = "threadIdx.x"
_STEP = "blockDim.x"


def _batch(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape[:-2]:
        n *= d
    return n


def _fits(op: str, dtype: str, elements: int, n: int) -> None:
    """Refuse ``op`` when its shared arrays (``elements`` of ``dtype`` plus ``n`` indices) exceed one block's."""
    size = elements * BY_NAME[dtype].np_dtype.itemsize + 2 * 4 * n + 64
    if size > SHARED_LIMIT:
        raise Unsupported(f"{op}: the GPU target solves matrices in one block's shared memory ({SHARED_LIMIT} "
                          f"bytes); {n}x{n} {dtype} matrices need {size}: use device_target='CPU' for them "
                          "(cuSOLVER is not wired)")


def _each(count: str, var: str, stmt: str) -> str:
    """``stmt`` for every ``var`` in ``[0, count)``, spread over the block's threads."""
    return f"for (int64_t {var} = {_TID}; {var} < {count}; {var} += {_STEP}) {{ {stmt} }}"


def _per_matrix(batch: int, lines: list[str]) -> str:
    """The block-stride loop over the batch around ``lines`` (``m``: the matrix), a barrier closing each pass
    (the next matrix overwrites the shared arrays)."""
    return "\n".join([f"  for (int64_t m = blockIdx.x; m < {batch}; m += gridDim.x) {{", *lines,
                      "__syncthreads();", "}"])


def _shared(ct: str, n: int, extra: str = "") -> str:
    """The shared arrays of one matrix: ``a`` (n x n), the row order and pivots, the failure flag, a pivot."""
    rows = max(n, 1)
    return MATH_CONSTANTS + (f"__shared__ {ct} a[{max(n * n, 1)}]; __shared__ int32_t perm[{rows}], ipiv[{rows}]; "
                             f"__shared__ int32_t flag, piv;{extra}")


def _load(n: int, src: str, transpose: bool, keep: str | None = None) -> str:
    """Copy matrix ``src`` (row-major n x n) into ``a`` (transposed when ``transpose``; entries outside
    ``keep``, a condition in i, j, zeroed); reset ``perm`` and ``flag``."""
    value = f"{src}[j * {n} + i]" if transpose else f"{src}[e]"
    if keep:
        value = f"(({keep}) ? {value} : 0)"
    return "\n".join([
        _each(f"{n * n}", "e", f"const int64_t i = e / {n}, j = e % {n}; (void)i; (void)j; a[e] = {value};"),
        _each(f"{n}", "e", "perm[e] = (int32_t)e;"),
        f"if ({_TID} == 0) flag = 0;",
        "__syncthreads();"])


def _lu(n: int, ct: str) -> str:
    """getf2 on ``a`` in place: ``perm`` the rows' order (P A = L U), ``ipiv`` LAPACK's pivots (0-based),
    ``flag`` set where a pivot is exactly zero."""
    rest = f"({n} - k - 1)"
    return "\n".join([
        f"for (int64_t k = 0; k < {n}; k++) {{",
        f"if ({_TID} == 0) {{ int64_t p = k; {ct} best = fabs(a[k * {n} + k]); "
        f"for (int64_t i = k + 1; i < {n}; i++) {{ const {ct} v = fabs(a[i * {n} + k]); "
        "if (v > best) { best = v; p = i; } } "
        "piv = (int32_t)p; ipiv[k] = (int32_t)p; if (best == 0) flag = 1; "
        "if (p != k) { const int32_t t = perm[k]; perm[k] = perm[p]; perm[p] = t; } }",
        "__syncthreads();",
        "const int64_t p = piv;",
        "if (p != k) { " + _each(f"{n}", "j", f"const {ct} t = a[k * {n} + j]; a[k * {n} + j] = a[p * {n} + j]; "
                                              f"a[p * {n} + j] = t;") + " }",
        "__syncthreads();",
        f"const {ct} d = a[k * {n} + k];",
        "if (d != 0) {",
        f"const {ct} r = ({ct})1 / d;",
        _each(rest, "q", f"a[(k + 1 + q) * {n} + k] *= r;"),
        "__syncthreads();",
        _each(f"{rest} * {rest}", "e", f"const int64_t i = k + 1 + e / {rest}, j = k + 1 + e % {rest}; "
                                       f"a[i * {n} + j] -= a[i * {n} + k] * a[k * {n} + j];"),
        "__syncthreads();",
        "}",
        "}"])


def _zero_diagonal(n: int) -> str:
    """Thread 0 sets ``flag`` where ``a``'s diagonal holds an exact zero (LAPACK's singular triangle)."""
    return f"if ({_TID} == 0) for (int64_t i = 0; i < {n}; i++) if (a[i * {n} + i] == 0) flag = 1;"


def _nan_fill(ptr: str, count: str, ct: str) -> str:
    return _each(count, "e", f"{ptr}[e] = ({ct})NAN;")


def _lu_solve(n: int, ct: str, col: str, cols: int, rhs: str, out: str) -> str:
    """Each thread one column ``col`` of ``cols``: solve L U x = P b_col into ``out`` (row stride ``cols``);
    ``rhs(i)``: the C of b's element in row i of that column."""
    return "\n".join([
        f"for (int64_t i = 0; i < {n}; i++) {{ {ct} s = {rhs}; "
        f"for (int64_t k = 0; k < i; k++) s -= a[i * {n} + k] * {out}[k * {cols} + {col}]; "
        f"{out}[i * {cols} + {col}] = s; }}",
        f"for (int64_t i = {n} - 1; i >= 0; i--) {{ {ct} s = {out}[i * {cols} + {col}]; "
        f"for (int64_t k = i + 1; k < {n}; k++) s -= a[i * {n} + k] * {out}[k * {cols} + {col}]; "
        f"{out}[i * {cols} + {col}] = s / a[i * {n} + i]; }}"])


def _float(op: str, dtype: str) -> str:
    if dtype not in ("float32", "float64"):
        raise Unsupported(f"{op}: the GPU target emits it for float32 and float64 only, not {dtype}")
    return ctype(dtype)


@emits("MatrixInverse")
def _inverse(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b, ct = x.shape[-1], _batch(x.shape), _float(k.op, x.dtype)
    if x.size == 0:
        return "  /* empty */"
    _fits(k.op, x.dtype, n * n, n)
    y = f"(out0 + m * {n * n})"
    return _shared(ct, n) + "\n" + _per_matrix(b, [
        _load(n, f"(in0 + m * {n * n})", k.attrs["adjoint"]), _lu(n, ct),
        f"if (flag) {{ {_nan_fill(y, str(n * n), ct)} }}",
        "else { " + _each(f"{n}", "c", _lu_solve(n, ct, "c", n, f"({ct})(perm[i] == c ? 1 : 0)", y)) + " }"])


def _lu_diagonal(k: KernelSpec, tail: str, empty_value: str) -> str:
    """LU of each matrix, then ``tail`` by thread 0 (the determinant's family); n == 0 gives ``empty_value``."""
    x = k.inputs[0]
    n, b, ct = x.shape[-1], _batch(x.shape), _float(k.op, x.dtype)
    if b == 0:
        return "  /* empty */"
    if n == 0:
        return grid_loop(b, "m", empty_value)
    _fits(k.op, x.dtype, n * n, n)
    return _shared(ct, n) + "\n" + _per_matrix(b, [
        _load(n, f"(in0 + m * {n * n})", False), _lu(n, ct), f"if ({_TID} == 0) {{ {tail} }}"])


@emits("MatrixDeterminant")
def _det(k: KernelSpec) -> str:
    ct, n = ctype(k.inputs[0].dtype), k.inputs[0].shape[-1]
    return _lu_diagonal(k, f"double d = 1.0; for (int64_t i = 0; i < {n}; i++) {{ d *= a[i * {n} + i]; "
                           f"if (ipiv[i] != i) d = -d; }} out0[m] = ({ct})d;", f"out0[m] = ({ct})1;")


@emits("LogMatrixDeterminant")
def _slogdet(k: KernelSpec) -> str:
    ct, n = ctype(k.inputs[0].dtype), k.inputs[0].shape[-1]
    return _lu_diagonal(k, "double sign = 1.0, logabs = 0.0; "
                           f"for (int64_t i = 0; i < {n}; i++) {{ const double d = a[i * {n} + i]; "
                           "if (d == 0.0) { sign = 0.0; logabs = -INFINITY; break; } if (d < 0) sign = -sign; "
                           "if (ipiv[i] != i) sign = -sign; logabs += log(fabs(d)); } "
                           f"out0[m] = ({ct})sign; out1[m] = ({ct})logabs;",
                        f"out0[m] = ({ct})1; out1[m] = ({ct})0;")


@emits("MatrixSolve")
def _matrix_solve(k: KernelSpec) -> str:
    mat, rhs = k.inputs
    n, c = rhs.shape[-2:]
    ct = _float(k.op, rhs.dtype)
    if rhs.size == 0:
        return "  /* empty */"
    _fits(k.op, rhs.dtype, n * n, n)
    y = f"(out0 + m * {n * c})"
    return _shared(ct, n) + "\n" + _per_matrix(_batch(rhs.shape), [
        _load(n, f"(in0 + m * {n * n})", k.attrs["adjoint"]), _lu(n, ct),
        f"if (flag) {{ {_nan_fill(y, str(n * c), ct)} }}",
        "else { " + _each(f"{c}", "c", _lu_solve(n, ct, "c", c, f"in1[m * {n * c} + perm[i] * {c} + c]", y)) + " }"])


def _cholesky_lower(n: int, ct: str) -> str:
    """potf2 (lower) on ``a`` in place; ``flag`` set (and the loop left) at a non-positive or NaN pivot."""
    return "\n".join([
        f"for (int64_t j = 0; j < {n}; j++) {{",
        f"if ({_TID} == 0) {{ {ct} s = a[j * {n} + j]; for (int64_t k = 0; k < j; k++) "
        f"s -= a[j * {n} + k] * a[j * {n} + k]; if (!(s > 0)) flag = 1; else a[j * {n} + j] = sqrt(s); }}",
        "__syncthreads();",
        "if (flag) break;",
        f"const {ct} r = ({ct})1 / a[j * {n} + j];",
        _each(f"({n} - j - 1)", "q", f"const int64_t i = j + 1 + q; {ct} s = a[i * {n} + j]; "
                                     f"for (int64_t k = 0; k < j; k++) s -= a[i * {n} + k] * a[j * {n} + k]; "
                                     f"a[i * {n} + j] = s * r;"),
        "__syncthreads();",
        "}"])


@emits("Cholesky")
def _cholesky(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b, ct = x.shape[-1], _batch(x.shape), _float(k.op, x.dtype)
    if x.size == 0:
        return "  /* empty */"
    _fits(k.op, x.dtype, n * n, n)
    upper = k.attrs["upper"]
    y = f"(out0 + m * {n * n})"
    # The upper factor U = L^T, L the lower factor of the symmetric matrix the upper triangle defines.
    store = (f"const int64_t i = e / {n}, j = e % {n}; {y}[e] = "
             + (f"j >= i ? a[j * {n} + i] : ({ct})0;" if upper else f"j <= i ? a[i * {n} + j] : ({ct})0;"))
    return _shared(ct, n) + "\n" + _per_matrix(b, [
        _load(n, f"(in0 + m * {n * n})", upper, "j <= i"), _cholesky_lower(n, ct),
        f"if (flag) {{ {_nan_fill(y, str(n * n), ct)} }} else {{ {_each(str(n * n), 'e', store)} }}"])


@emits("CholeskyInverse")
def _cholesky_inverse(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b, ct = x.shape[-1], _batch(x.shape), _float(k.op, x.dtype)
    if x.size == 0:
        return "  /* empty */"
    _fits(k.op, x.dtype, n * n + n, n)
    y = f"(out0 + m * {n * n})"
    invert = "\n".join([  # trti2, lower: columns from the last, each from the inverted trailing block
        f"for (int64_t j = {n} - 1; j >= 0; j--) {{",
        f"if ({_TID} == 0) a[j * {n} + j] = ({ct})1 / a[j * {n} + j];",
        _each(f"({n} - j - 1)", "q", f"col[j + 1 + q] = a[(j + 1 + q) * {n} + j];"),
        "__syncthreads();",
        _each(f"({n} - j - 1)", "q", f"const int64_t i = j + 1 + q; {ct} s = 0; "
                                     f"for (int64_t t = j + 1; t <= i; t++) s += a[i * {n} + t] * col[t]; "
                                     f"a[i * {n} + j] = -s * a[j * {n} + j];"),
        "__syncthreads();",
        "}"])
    product = (f"const int64_t i = e / {n}, j = e % {n}; {ct} s = 0; "
               f"for (int64_t t = i > j ? i : j; t < {n}; t++) s += a[t * {n} + i] * a[t * {n} + j]; {y}[e] = s;")
    zero_diag = _zero_diagonal(n)
    return _shared(ct, n, f" __shared__ {ct} col[{max(n, 1)}];") + "\n" + _per_matrix(b, [
        _load(n, f"(in0 + m * {n * n})", k.attrs["upper"], "j <= i"), zero_diag, "__syncthreads();",
        "if (!flag) {", invert, "}",
        f"if (flag) {{ {_nan_fill(y, str(n * n), ct)} }} else {{ {_each(str(n * n), 'e', product)} }}"])


def _triangular(n: int, ct: str, lower: bool, cols: int, rhs: str, out: str, diag_inverse: bool = False) -> str:
    """Each thread one column ``c``: solve ``a x = b_c`` by substitution, ``a`` lower (forward) or upper
    (backward), into ``out``; ``rhs``: b's element in row i of column c."""
    span = "for (int64_t k = 0; k < i; k++)" if lower else f"for (int64_t k = i + 1; k < {n}; k++)"
    rows = f"for (int64_t i = 0; i < {n}; i++)" if lower else f"for (int64_t i = {n} - 1; i >= 0; i--)"
    return (f"{rows} {{ {ct} s = {rhs}; {span} s -= a[i * {n} + k] * {out}[k * {cols} + c]; "
            f"{out}[i * {cols} + c] = s / a[i * {n} + i]; }}")


@emits("CholeskySolve")
def _cholesky_solve(k: KernelSpec) -> str:
    rhs, factor = k.inputs
    n, c = rhs.shape[-2:]
    ct = _float(k.op, rhs.dtype)
    if rhs.size == 0:
        return "  /* empty */"
    _fits(k.op, rhs.dtype, n * n, n)
    y = f"(out0 + m * {n * c})"
    # A = L L^T: L y = b forward, then L^T x = y backward (L^T's row i is L's column i).
    backward = (f"for (int64_t i = {n} - 1; i >= 0; i--) {{ {ct} s = {y}[i * {c} + c]; "
                f"for (int64_t k = i + 1; k < {n}; k++) s -= a[k * {n} + i] * {y}[k * {c} + c]; "
                f"{y}[i * {c} + c] = s / a[i * {n} + i]; }}")
    return _shared(ct, n) + "\n" + _per_matrix(_batch(rhs.shape), [
        _load(n, f"(in1 + m * {n * n})", k.attrs["upper"], "j <= i"),
        _each(str(c), "c", _triangular(n, ct, True, c, f"in0[m * {n * c} + i * {c} + c]", y) + " " + backward)])


@emits("MatrixTriangularSolve")
def _triangular_solve(k: KernelSpec) -> str:
    mat, rhs = k.inputs
    n, c = rhs.shape[-2:]
    ct = _float(k.op, rhs.dtype)
    if rhs.size == 0:
        return "  /* empty */"
    _fits(k.op, rhs.dtype, n * n, n)
    lower, adjoint = k.attrs["lower"], k.attrs["adjoint"]
    # The matrix solved: the triangle, or its transpose (adjoint), which is lower exactly when one of them is.
    keep = ("j <= i" if lower else "j >= i") if not adjoint else ("i <= j" if lower else "i >= j")
    solves_lower = lower != adjoint
    y = f"(out0 + m * {n * c})"
    zero_diag = _zero_diagonal(n)
    return _shared(ct, n) + "\n" + _per_matrix(_batch(rhs.shape), [
        _load(n, f"(in0 + m * {n * n})", adjoint, keep), zero_diag, "__syncthreads();",
        f"if (flag) {{ {_nan_fill(y, str(n * c), ct)} }} else {{ "
        + _each(str(c), "c", _triangular(n, ct, solves_lower, c, f"in1[m * {n * c} + i * {c} + c]", y)) + " }"])


def _not_wired(library: str):
    def refuse(k: KernelSpec) -> str:
        raise Unsupported(f"{k.op}: the GPU target has no kernel for it ({library} is not wired into the GPU "
                          "target yet); use device_target='CPU' for this op")
    return refuse


@emits("Eig")
def _needs_cusolver(k: KernelSpec) -> str:
    return _not_wired("cuSOLVER")(k)


@emits("FFTN")
def _needs_cufft(k: KernelSpec) -> str:
    return _not_wired("cuFFT")(k)


#: The ops this module computes (tests, the GPU suite); Eig and FFTN are refused by name (Svd: linalg_svd.py).
OPS: tuple[str, ...] = ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "MatrixSolve", "Cholesky",
                        "CholeskyInverse", "CholeskySolve", "MatrixTriangularSolve")

__all__ = ["OPS", "SHARED_LIMIT"]
