"""``mindspore.scipy.linalg``: SciPy's dense linear algebra names over opbuild's linalg ops (Cholesky,
MatrixInverse, MatrixTriangularSolve, CholeskySolve, Svd), with MindSpore 2.10's signatures, results and dtype
rules: int32/int64 inputs of ``inv`` and ``eigh`` compute in float64; ``cho_factor`` zeroes the unused
triangle; ``lstsq`` gives MindSpore's four outputs (solution, residual, rank, singular values), each filled or
empty by driver as MindSpore's are. ``overwrite_*``, ``check_finite``, ``debug`` and ``turbo`` are accepted
and change nothing (opbuild never writes into its inputs).

``lu_factor`` and ``lu`` compose the elimination of opbuild ops (scipy/lu.py); ``lu``'s permutation matrix is
int32, as MindSpore's, and ``permute_l=True`` gives ``P @ L`` in ``a``'s dtype (MindSpore 2.10's CPU fails there).
``eigh`` computes the eigenpairs of the symmetric matrix ``S`` (read from the chosen triangle) as the SVD of
``S + c I`` with ``c`` its Frobenius norm, a positive definite matrix whose singular values are ``S``'s
eigenvalues shifted by ``c``; the eigenvectors' signs are the SVD's (each is defined up to its sign).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor, as_tensor
from ..ops.primitive import apply
from . import lu as _lu

__all__ = ["block_diag", "inv", "cho_factor", "cholesky", "cho_solve", "eigh", "lu_factor", "lu", "solve_triangular",
           "lstsq"]

_FLOATS = ("float32", "float64")
_INTS = ("int32", "int64")


def _square(fn: str, a: Any, ints_to_float64: bool = False) -> Tensor:
    t = as_tensor(a)
    if t.ndim != 2:
        raise ValueError(f"scipy.linalg.{fn}: a must be a 2-D square matrix (N, N), got {t.ndim}-D {tuple(t.shape)}")
    if t.shape[0] != t.shape[1]:
        raise ValueError(f"scipy.linalg.{fn}: a must be a square matrix (N, N), got shape {tuple(t.shape)}")
    if ints_to_float64 and t.dtype.name in _INTS:
        return apply("Cast", {"dtype": "float64"}, [t])
    if t.dtype.name not in _FLOATS:
        allowed = "float32, float64, int32 or int64" if ints_to_float64 else "float32 or float64"
        raise TypeError(f"scipy.linalg.{fn}: a must be {allowed}, got {t.dtype}")
    return t


def _flag(fn: str, name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"scipy.linalg.{fn}: {name} must be a bool, got {type(value).__name__}")
    return value


def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> Tensor:
    """The inverse of the square matrix ``a`` (int32/int64 ``a`` gives a float64 inverse)."""
    return F.inverse(_square("inv", a, ints_to_float64=True))


def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Tensor:
    """The Cholesky factor of the symmetric positive definite ``a``: upper ``U`` (``a = U^T U``) by default,
    lower ``L`` (``a = L L^T``) with ``lower=True``."""
    return F.cholesky(_square("cholesky", a), upper=not _flag("cholesky", "lower", lower))


def cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Tensor, bool]:
    """``(c, lower)`` for :func:`cho_solve`: ``c`` is :func:`cholesky`'s factor (the other triangle zero)."""
    return cholesky(a, lower), lower


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True) -> Tensor:
    """Solve ``a x = b`` from ``cho_factor(a)``'s ``(c, lower)``; ``b`` is (N,) or (N, K)."""
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise TypeError("scipy.linalg.cho_solve: c_and_lower must be the (c, lower) pair cho_factor returns")
    c, lower = _square("cho_solve", c_and_lower[0]), _flag("cho_solve", "lower", c_and_lower[1])
    rhs = as_tensor(b)
    if rhs.ndim not in (1, 2) or rhs.shape[0] != c.shape[0]:
        raise ValueError(f"scipy.linalg.cho_solve: b must be (N,) or (N, K) with N = {c.shape[0]} (c's size), got "
                         f"shape {tuple(rhs.shape)}")
    if rhs.dtype != c.dtype:
        raise TypeError(f"scipy.linalg.cho_solve: b must have c's dtype {c.dtype}, got {rhs.dtype}")
    col = F.reshape(rhs, (rhs.shape[0], 1)) if rhs.ndim == 1 else rhs
    x = F.cholesky_solve(col, c, upper=not lower)
    return F.reshape(x, rhs.shape) if rhs.ndim == 1 else x


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[Tensor, Tensor]:
    """``(lu, piv)`` of the square ``a`` (int32/int64 ``a`` computes in float64): ``lu`` holds U on and above the
    diagonal and L's multipliers below it (L's unit diagonal not stored); ``piv`` (int32) says row i was
    swapped with row ``piv[i]``, LAPACK's 0-based pivots."""
    _flag("lu_factor", "overwrite_a", overwrite_a)
    _flag("lu_factor", "check_finite", check_finite)
    lu_, piv, _ = _lu.factor(_square("lu_factor", a, ints_to_float64=True))
    return lu_, piv


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Tensor, Tensor, Tensor] | tuple[Tensor, Tensor]:
    """``(p, l, u)`` with ``a = p @ l @ u`` for the (M, N) ``a``, M <= N (as MindSpore): ``p`` the (M, M) int32
    permutation matrix, ``l`` (M, M) unit lower triangular, ``u`` (M, N) upper trapezoidal; with
    ``permute_l=True``, ``(p @ l, u)``. int32/int64 ``a`` computes in float64."""
    _flag("lu", "permute_l", permute_l)
    t = as_tensor(a)
    if t.ndim != 2:
        raise ValueError(f"scipy.linalg.lu: a must be a 2-D matrix (M, N), got {t.ndim}-D {tuple(t.shape)}")
    if t.shape[0] > t.shape[1]:
        raise ValueError(f"scipy.linalg.lu: a must have no more rows than columns (M <= N, as MindSpore's lu), got "
                         f"shape {tuple(t.shape)}; factor its transpose instead")
    if t.dtype.name in _INTS:
        t = F.cast(t, "float64")
    elif t.dtype.name not in _FLOATS:
        raise TypeError(f"scipy.linalg.lu: a must be float32, float64, int32 or int64, got {t.dtype}")
    m = t.shape[0]
    lu_, _, p = _lu.factor(t)
    eye = F.eye(m, m, t.dtype)
    lower = F.add(F.tril(lu_[:, :m], -1), eye)
    upper = F.triu(lu_)
    if permute_l:
        return F.matmul(p, lower), upper
    return F.cast(p, "int32"), lower, upper


_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(a: Any, b: Any, trans: int | str = 0, lower: bool = False, unit_diagonal: bool = False,
                     overwrite_b: bool = False, debug: Any = None, check_finite: bool = True) -> Tensor:
    """Solve ``a x = b`` (``trans`` 0/'N'), ``a^T x = b`` (1/'T') or ``a^H x = b`` (2/'C') for ``x``, reading only
    ``a``'s upper (default) or lower triangle; ``unit_diagonal`` takes ``a``'s diagonal as ones."""
    t = _square("solve_triangular", a)
    if trans not in _TRANS or isinstance(trans, bool):
        raise ValueError(f"scipy.linalg.solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    lower = _flag("solve_triangular", "lower", lower)
    rhs = as_tensor(b)
    if rhs.ndim not in (1, 2) or rhs.shape[0] != t.shape[0]:
        raise ValueError(f"scipy.linalg.solve_triangular: b must be (N,) or (N, K) with N = {t.shape[0]} (a's "
                         f"size), got shape {tuple(rhs.shape)}")
    if rhs.dtype != t.dtype:
        raise TypeError(f"scipy.linalg.solve_triangular: b must have a's dtype {t.dtype}, got {rhs.dtype}")
    tri = F.tril(t) if lower else F.triu(t)
    if _flag("solve_triangular", "unit_diagonal", unit_diagonal):
        eye = F.eye(t.shape[0], t.shape[0], t.dtype)
        tri = F.add(F.sub(tri, F.mul(tri, eye)), eye)
    col = F.reshape(rhs, (rhs.shape[0], 1)) if rhs.ndim == 1 else rhs
    x = apply("MatrixTriangularSolve", {"lower": lower, "adjoint": _TRANS[trans]}, [tri, col])
    return F.reshape(x, rhs.shape) if rhs.ndim == 1 else x


def block_diag(*arrs: Any) -> Tensor:
    """The block diagonal matrix of 0-, 1- (a row) or 2-D Tensors; no argument gives a (1, 0) float32 matrix."""
    if not arrs:
        return Tensor(np.zeros((1, 0), np.float32))
    return F.block_diag(*arrs)


def eigh(a: Any, b: Any = None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals: Any = None, type: int = 1,  # noqa: A002
         check_finite: bool = True) -> Tensor | tuple[Tensor, Tensor]:
    """The eigenvalues (ascending) of the symmetric matrix held in ``a``'s lower (default) or upper triangle,
    and with ``eigvals_only=False`` the unit eigenvectors in the columns: ``(w, v)``. The generalized problem
    (``b``) and ``eigvals`` subsets are not implemented, as in MindSpore."""
    for name, value in (("lower", lower), ("eigvals_only", eigvals_only), ("overwrite_a", overwrite_a),
                        ("overwrite_b", overwrite_b), ("turbo", turbo), ("check_finite", check_finite)):
        _flag("eigh", name, value)
    if b is not None or eigvals is not None:
        raise ValueError("scipy.linalg.eigh: only the standard problem is implemented (b=None, eigvals=None), "
                         "as in MindSpore")
    t = _square("eigh", a, ints_to_float64=True)
    tri = F.tril(t) if lower else F.triu(t)
    sym = F.add(tri, F.swapaxes(F.tril(t, -1) if lower else F.triu(t, 1), 0, 1))
    n = t.shape[0]
    # c >= the spectral radius, so S + c I is positive semi-definite and its SVD is its eigen-decomposition.
    c = F.sqrt(F.reduce_sum(F.mul(sym, sym)))
    eye = F.eye(n, n, t.dtype)
    s, u, _ = F.svd(F.add(sym, F.mul(eye, c)))
    w = F.flip(F.sub(s, c), (0,))
    return w if eigvals_only else (w, F.flip(u, (1,)))


_DRIVERS = (None, "gels", "gelsy", "gelss", "gelsd")


def lstsq(A: Any, B: Any, rcond: Any = None, driver: str | None = None):  # noqa: N803 - MindSpore's names
    """The least-squares solution of ``A X = B`` for ``A`` (*, M, N) and ``B`` (*, M, K), as MindSpore's four
    outputs: ``(solution (*, N, K), residual, rank, singular_values)``. The residual (squared 2-norm of each
    column of ``A X - B``, (*, K)) is filled for drivers 'gels', 'gelss', 'gelsd' when M > N, the rank ((*),
    int64) for 'gelsy' (the default), 'gelss', 'gelsd', the singular values ((*, min(M, N))) for 'gelss' and
    'gelsd'; the others are empty Tensors. ``rcond`` is ignored, as in MindSpore."""
    if driver not in _DRIVERS:
        raise ValueError(f"scipy.linalg.lstsq: driver must be one of {list(_DRIVERS)}, got {driver!r}")
    driver = driver or "gelsy"
    a, rhs = as_tensor(A), as_tensor(B)
    if a.ndim < 2 or rhs.ndim != a.ndim or rhs.shape[-2] != a.shape[-2]:
        raise ValueError(f"scipy.linalg.lstsq: A must be (*, M, N) and B (*, M, K) with the same M, got shapes "
                         f"{tuple(a.shape)} and {tuple(rhs.shape)}")
    if a.dtype != rhs.dtype or a.dtype.name not in _FLOATS:
        raise TypeError(f"scipy.linalg.lstsq: A and B must be float32 or float64 of one dtype, got {a.dtype} and "
                        f"{rhs.dtype}")
    m, n = a.shape[-2], a.shape[-1]
    x = F.matmul(F.pinv(a), rhs)
    batch, empty = tuple(a.shape[:-2]), (lambda dt: Tensor(np.zeros((0,), dt)))
    if driver != "gelsy" and m > n:
        diff = F.sub(F.matmul(a, x), rhs)
        residual = F.reduce_sum(F.mul(diff, diff), -2)
    else:
        residual = empty(a.dtype.np_dtype)
    rank = empty(np.int64)
    if driver != "gels":
        s = F.svd(a, compute_uv=False)
        # numpy.linalg.matrix_rank's tolerance: singular values above eps * max(M, N) * the largest count.
        smax = apply("ReduceMax", {"axis": (-1,), "keep_dims": True}, [s])
        tol = F.mul(smax, float(np.finfo(a.dtype.np_dtype).eps) * max(m, n))
        rank = F.reduce_sum(F.cast(F.greater(s, tol), "int64"), -1)
        rank = F.reshape(rank, batch)
    sv = F.svd(a, compute_uv=False) if driver in ("gelss", "gelsd") else empty(a.dtype.np_dtype)
    return x, residual, rank, sv
