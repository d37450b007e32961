"""Linear algebra operators (MindSpore's primitives): ``MatrixInverse``, ``MatrixDeterminant``, ``Cholesky``,
``Qr``, ``Svd``, ``CholeskySolve``, ``MatrixTriangularSolve``, ``MatrixSolve``.

Every op works on the last two axes of a float32 or float64 tensor, batched over the leading ones. The CPU
kernels call LAPACK (the LAPACKE functions of the OpenBLAS the GEMM kernels link, so the provider is in the
key) rather than writing factorisations again. A factorisation that fails (a singular matrix to invert, a
matrix that is not positive definite) fills that matrix's outputs with NaN: the kernels have no error
channel, and MindSpore's CPU kernels raise there instead (docs/mindspore-compat.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor
from . import gradlib as G
from . import scratch_plan as S
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype
from .svd_jacobi import svd_reference

LAPACK_FLOATS = ("float32", "float64")


def _bool(op: str, attrs: dict, name: str, default: bool, ins: Sequence[TensorType]) -> bool:
    value = attrs.get(name, default)
    if not isinstance(value, (bool, np.bool_)):
        raise ShapeError(op, f"{name} must be a bool, got {value!r}", list(ins))
    return bool(value)


def _normalizer(op: str, **defaults: bool):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        unknown = set(attrs) - set(defaults)
        if unknown:
            raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected {sorted(defaults)})", list(ins))
        return {k: _bool(op, attrs, k, v, ins) for k, v in defaults.items()}
    return normalize


def _matrix(op: str, t: TensorType, ins: Sequence[TensorType], square: bool = True) -> tuple[int, int]:
    if len(t.shape) < 2:
        raise ShapeError(op, f"expects a tensor of rank >= 2 (a batch of matrices), got shape {t.shape}", list(ins))
    m, n = t.shape[-2:]
    if square and m != n:
        raise ShapeError(op, f"expects square matrices in the last two axes, got {m}x{n}", list(ins))
    return m, n


def _square_infer(op: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(op, ins, LAPACK_FLOATS)
        _matrix(op, ins[0], ins)
        return [TensorType(ins[0].shape, dt)]
    return infer


def _nan_on_error(fn, *arrays: np.ndarray):
    """``fn`` applied matrix by matrix; a matrix whose factorisation fails gives NaN, as the kernels do."""
    try:
        return fn(*arrays)
    except np.linalg.LinAlgError:
        pass
    a = arrays[0]
    batch = a.shape[:-2]
    results = []
    for idx in np.ndindex(*batch):
        try:
            results.append(np.asarray(fn(*(x[idx] for x in arrays))))
        except np.linalg.LinAlgError:
            results.append(None)
    like = next((r for r in results if r is not None), None)
    shape = like.shape if like is not None else a.shape[-2:]
    filled = [r if r is not None else np.full(shape, np.nan) for r in results]
    return np.stack(filled).reshape(batch + shape) if filled else np.zeros(batch + shape)


def _inverse_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    a = np.swapaxes(x, -1, -2) if attrs["adjoint"] else x
    return _nan_on_error(np.linalg.inv, a.astype(np.float64)).astype(x.dtype)


@defop(infer=_square_infer("MatrixInverse"), reference=_inverse_ref,
       normalize=_normalizer("MatrixInverse", adjoint=False), n_inputs=1,
       workspace=S.workspace_of(S.matrix_inverse), status=S.lapack_status("MatrixInverse"))
class MatrixInverse(Primitive):
    """``MatrixInverse(adjoint=False)(x)``: the inverse of each square matrix of ``x`` (of its transpose when
    ``adjoint``), float32 or float64."""

    def __init__(self, adjoint: bool = False):
        super().__init__(adjoint=adjoint)


def _det_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("MatrixDeterminant", ins, LAPACK_FLOATS)
    _matrix("MatrixDeterminant", ins[0], ins)
    return [TensorType(ins[0].shape[:-2], dt)]


@defop(infer=_det_infer, reference=lambda attrs, x: np.asarray(np.linalg.det(x.astype(np.float64)), x.dtype),
       normalize=_normalizer("MatrixDeterminant"), n_inputs=1, workspace=S.workspace_of(S.lu_copy),
       status=S.lapack_status("MatrixDeterminant"))
class MatrixDeterminant(Primitive):
    """``MatrixDeterminant()(x)``: the determinant of each square matrix of ``x``, shape ``x.shape[:-2]``."""


def _cholesky_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    low = _nan_on_error(np.linalg.cholesky, x.astype(np.float64))
    return (np.swapaxes(low, -1, -2) if attrs["upper"] else low).astype(x.dtype)


@defop(infer=_square_infer("Cholesky"), reference=_cholesky_ref, normalize=_normalizer("Cholesky", upper=False),
       n_inputs=1, status=S.lapack_status("Cholesky"))
class Cholesky(Primitive):
    """``Cholesky(upper=False)(x)``: the Cholesky factor of each symmetric positive-definite matrix, lower
    triangular (``x = L @ L.T``) or upper (``x = U.T @ U``); only the chosen triangle of ``x`` is read."""

    def __init__(self, upper: bool = False):
        super().__init__(upper=upper)


def _qr_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Qr", ins, LAPACK_FLOATS)
    m, n = _matrix("Qr", ins[0], ins, square=False)
    batch = ins[0].shape[:-2]
    cols = m if attrs["full_matrices"] else min(m, n)
    return [TensorType((*batch, m, cols), dt), TensorType((*batch, cols, n), dt)]


def _qr_ref(attrs: dict, x: np.ndarray):
    q, r = np.linalg.qr(x.astype(np.float64), mode="complete" if attrs["full_matrices"] else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


@defop(infer=_qr_infer, reference=_qr_ref, normalize=_normalizer("Qr", full_matrices=False), n_inputs=1,
       multi_output=True, workspace=S.workspace_of(S.qr), status=S.lapack_status("Qr"))
class Qr(Primitive):
    """``Qr(full_matrices=False)(x) -> (q, r)``: Householder QR of each m x n matrix; ``q`` is m x k and ``r``
    k x n with k = min(m, n), or m x m and m x n when ``full_matrices``."""

    def __init__(self, full_matrices: bool = False):
        super().__init__(full_matrices=full_matrices)


def _svd_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Svd", ins, LAPACK_FLOATS)
    m, n = _matrix("Svd", ins[0], ins, square=False)
    if not attrs["compute_uv"]:
        raise ShapeError("Svd", "compute_uv=False is not supported by the primitive: use ops.svd(x, "
                         "compute_uv=False), which returns s alone", list(ins))
    batch, k = ins[0].shape[:-2], min(m, n)
    full = attrs["full_matrices"]
    return [TensorType((*batch, k), dt), TensorType((*batch, m, m if full else k), dt),
            TensorType((*batch, n, n if full else k), dt)]


def _svd_ref(attrs: dict, x: np.ndarray):
    return svd_reference(x, attrs["full_matrices"])


@defop(infer=_svd_infer, reference=_svd_ref, normalize=_normalizer("Svd", full_matrices=False, compute_uv=True),
       n_inputs=1, multi_output=True, workspace=S.workspace_of(S.svd), status=S.lapack_status("Svd"))
class Svd(Primitive):
    """``Svd(full_matrices=False, compute_uv=True)(x) -> (s, u, v)``: ``x = u @ diag(s) @ v.T`` with the
    singular values ``s`` in descending order (``v``, not its transpose, as MindSpore returns it)."""

    def __init__(self, full_matrices: bool = False, compute_uv: bool = True):
        super().__init__(full_matrices=full_matrices, compute_uv=compute_uv)


def _solve_infer(op: str):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(op, ins, LAPACK_FLOATS)
        a, b = (ins[1], ins[0]) if op == "CholeskySolve" else (ins[0], ins[1])
        n, _ = _matrix(op, a, ins)
        _matrix(op, b, ins, square=False)
        if b.shape[-2] != n or b.shape[:-2] != a.shape[:-2]:
            raise ShapeError(op, f"the right-hand side must have shape (..., {n}, k) with the matrix's batch "
                             f"shape {a.shape[:-2]}, got {b.shape}", list(ins))
        return [TensorType(b.shape, dt)]
    return infer


def _cholesky_solve_ref(attrs: dict, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    c64 = c.astype(np.float64)
    low = np.swapaxes(c64, -1, -2) if attrs["upper"] else c64
    a = low @ np.swapaxes(low, -1, -2)
    return np.linalg.solve(a, b.astype(np.float64)).astype(b.dtype)


@defop(infer=_solve_infer("CholeskySolve"), reference=_cholesky_solve_ref,
       normalize=_normalizer("CholeskySolve", upper=False), n_inputs=2, status=S.lapack_status("CholeskySolve"))
class CholeskySolve(Primitive):
    """``CholeskySolve(upper=False)(x1, x2)``: solves ``A @ y = x1`` given ``x2``, the Cholesky factor of
    ``A`` (lower, or upper when ``upper``)."""

    def __init__(self, upper: bool = False):
        super().__init__(upper=upper)


def _triangular_ref(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64 = np.tril(a.astype(np.float64)) if attrs["lower"] else np.triu(a.astype(np.float64))
    if attrs["adjoint"]:
        a64 = np.swapaxes(a64, -1, -2)
    return np.linalg.solve(a64, b.astype(np.float64)).astype(b.dtype)


@defop(infer=_solve_infer("MatrixTriangularSolve"), reference=_triangular_ref,
       normalize=_normalizer("MatrixTriangularSolve", lower=True, adjoint=False), n_inputs=2,
       status=S.lapack_status("MatrixTriangularSolve"))
class MatrixTriangularSolve(Primitive):
    """``MatrixTriangularSolve(lower=True, adjoint=False)(matrix, rhs)``: solves ``T @ y = rhs`` (or
    ``T.T @ y = rhs`` when ``adjoint``), ``T`` the lower (or upper) triangle of ``matrix``."""

    def __init__(self, lower: bool = True, adjoint: bool = False):
        super().__init__(lower=lower, adjoint=adjoint)


def _matrix_solve_ref(attrs: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64 = a.astype(np.float64)
    if attrs["adjoint"]:
        a64 = np.swapaxes(a64, -1, -2)
    return _nan_on_error(np.linalg.solve, a64, b.astype(np.float64)).astype(b.dtype)


@defop(infer=_solve_infer("MatrixSolve"), reference=_matrix_solve_ref,
       normalize=_normalizer("MatrixSolve", adjoint=False), n_inputs=2,
       workspace=S.workspace_of(S.matrix_solve), status=S.lapack_status("MatrixSolve"))
class MatrixSolve(Primitive):
    """``MatrixSolve(adjoint=False)(matrix, rhs)``: solves ``matrix @ y = rhs`` (``matrix.T @ y = rhs`` when
    ``adjoint``) by LU with partial pivoting; a singular matrix gives NaN."""

    def __init__(self, adjoint: bool = False):
        super().__init__(adjoint=adjoint)


def _mm(a, b, ta: bool = False, tb: bool = False):
    op = "MatMul" if len(a.shape) == 2 else "BatchMatMul"
    return apply(op, {"transpose_a": ta, "transpose_b": tb}, [a, b])


@grad_rule("MatrixInverse")
def _inverse_grad(attrs, ins, outs, douts):
    y, dy = outs[0], douts[0]
    if attrs["adjoint"]:  # y = inv(x).T: dx = -y @ dy.T @ y
        return [G.neg(_mm(_mm(y, dy, tb=True), y))]
    return [G.neg(_mm(_mm(y, dy, ta=True), y, tb=True))]  # dx = -y.T @ dy @ y.T


@grad_rule("MatrixDeterminant")
def _det_grad(attrs, ins, outs, douts):
    x, d, dd = ins[0], outs[0], douts[0]
    scale = G.reshape(G.mul(dd, d), (*x.shape[:-2], 1, 1))
    return [G.mul(scale, apply("MatrixInverse", {"adjoint": True}, [x]))]  # d det = det * inv(x).T


def _mT(x):  # noqa: N802
    nd = len(x.shape)
    return G.transpose(x, [*range(nd - 2), nd - 1, nd - 2])


def _tri_mask(x, lower: bool, diag: float = 1.0):
    """A constant of ``x``'s dtype: ones on the lower (upper) triangle, ``diag`` on the diagonal."""
    n = x.shape[-1]
    m = np.tril(np.ones((n, n))) if lower else np.triu(np.ones((n, n)))
    m[np.diag_indices(n)] = diag
    return Tensor(m.astype(x.dtype.np_dtype))


def _tri_solve(a, b, lower: bool, adjoint: bool):
    return apply("MatrixTriangularSolve", {"lower": lower, "adjoint": adjoint}, [a, b])


@grad_rule("MatrixSolve")
def _matrix_solve_grad(attrs, ins, outs, douts):
    a, y, dy = ins[0], outs[0], douts[0]
    db = apply("MatrixSolve", {"adjoint": not attrs["adjoint"]}, [a, dy])
    da = _mm(y, db, tb=True) if attrs["adjoint"] else _mm(db, y, tb=True)  # A.T y = b: dA = -(db y.T).T
    return [G.neg(da), db]


@grad_rule("MatrixTriangularSolve")
def _triangular_solve_grad(attrs, ins, outs, douts):
    a, y, dy = ins[0], outs[0], douts[0]
    lower, adjoint = attrs["lower"], attrs["adjoint"]
    db = _tri_solve(a, dy, lower, not adjoint)
    da = _mm(y, db, tb=True) if adjoint else _mm(db, y, tb=True)
    return [G.mul(G.neg(da), _tri_mask(a, lower)), db]  # only the triangle read is an input


@grad_rule("CholeskySolve")
def _cholesky_solve_grad(attrs, ins, outs, douts):
    c, y, dy = ins[1], outs[0], douts[0]
    db = apply("CholeskySolve", {"upper": attrs["upper"]}, [dy, c])  # A is symmetric
    da = G.neg(_mm(db, y, tb=True))
    sym = G.add(da, _mT(da))
    # A = L L.T: dL = (dA + dA.T) L; A = U.T U: dU = U (dA + dA.T); the factor's other triangle is unread.
    dc = _mm(c, sym) if attrs["upper"] else _mm(sym, c)
    return [db, G.mul(dc, _tri_mask(c, not attrs["upper"]))]


@grad_rule("Cholesky")
def _cholesky_grad(attrs, ins, outs, douts):
    low, dlow = outs[0], douts[0]
    if attrs["upper"]:
        low, dlow = _mT(low), _mT(dlow)
    # dA = L^-T Phi(L^T dL) L^-1, symmetrised (Phi: the lower triangle with the diagonal halved).
    phi = G.mul(_mm(low, dlow, ta=True), _tri_mask(low, True, 0.5))
    x = _tri_solve(low, phi, True, True)
    da = _mT(_tri_solve(low, _mT(x), True, True))
    return [G.mul(G.add(da, _mT(da)), G.const(0.5, da))]


@grad_rule("Qr")
def _qr_grad(attrs, ins, outs, douts):
    # Differentiable in MindSpore; refused here rather than answered wrongly (no rule written yet).
    raise NotImplementedError("the gradients of Qr and Svd (full_matrices with non-square inputs) are not "
                              "implemented in opbuild; stop the gradient before them (ops.stop_gradient) or "
                              "differentiate another formulation")


def _first_cols(t, k: int):
    shape = tuple(t.shape)
    return t if shape[-1] == k else apply("Slice", {"begin": (0,) * len(shape), "size": (*shape[:-1], k)}, [t])


@grad_rule("Svd")
def _svd_grad(attrs, ins, outs, douts):
    """The real SVD's backward (reduced factors; torch's formula, with V rather than V^T): with E_jk =
    s_k^2 - s_j^2 (1 on the diagonal) and skew(X) = X - X^T, dA = U [(skew(U^T dU) s + s skew(V^T dV)) / E +
    diag(ds)] V^T + (I - U U^T) dU S^-1 V^T + U S^-1 dV^T (I - V V^T). Undefined where singular values repeat
    or vanish (as in every framework); the vectors' signs cancel in it."""
    x = ins[0]
    s, u, v = outs
    ds, du, dv = douts
    m, n = x.shape[-2:]
    k = s.shape[-1]
    if attrs["full_matrices"] and m != n and (du is not None or dv is not None):
        raise NotImplementedError("the gradient of Svd through u or v with full_matrices=True and a non-square "
                                  "input is not implemented (the extra vectors are not unique); use "
                                  "full_matrices=False")
    u, v = _first_cols(u, k), _first_cols(v, k)
    du = None if du is None else _first_cols(du, k)
    dv = None if dv is None else _first_cols(dv, k)
    srow = apply("ExpandDims", {"axis": len(s.shape) - 1}, [s])  # (..., 1, k)
    scol = apply("ExpandDims", {"axis": len(s.shape)}, [s])  # (..., k, 1)
    inner = None
    if du is not None or dv is not None:
        s2 = G.mul(s, s)
        e = G.sub(apply("ExpandDims", {"axis": len(s.shape) - 1}, [s2]),
                  apply("ExpandDims", {"axis": len(s.shape)}, [s2]))
        e = G.add(e, Tensor(np.eye(k, dtype=_np(x))))
        terms = []
        if du is not None:
            utdu = _mm(u, du, ta=True)
            terms.append(G.mul(G.sub(utdu, _mT(utdu)), srow))
        if dv is not None:
            vtdv = _mm(v, dv, ta=True)
            terms.append(G.mul(scol, G.sub(vtdv, _mT(vtdv))))
        inner = G.div(terms[0] if len(terms) == 1 else G.add(terms[0], terms[1]), e)
    if ds is not None:
        dsm = G.mul(apply("ExpandDims", {"axis": len(s.shape) - 1}, [ds]), Tensor(np.eye(k, dtype=_np(x))))
        inner = dsm if inner is None else G.add(inner, dsm)
    grad = _mm(_mm(u, inner), v, tb=True) if inner is not None else None

    def add(t):
        nonlocal grad
        grad = t if grad is None else G.add(grad, t)

    if du is not None and m > k:
        proj = G.sub(du, _mm(u, _mm(u, du, ta=True)))
        add(_mm(G.div(proj, srow), v, tb=True))
    if dv is not None and n > k:
        proj = G.sub(dv, _mm(v, _mm(v, dv, ta=True)))
        add(_mm(G.div(u, srow), proj, tb=True))
    return [grad if grad is not None else G.zeros_like(x)]


def _np(t):
    return np.float32 if t._type.dtype == "float32" else np.float64


PRIMITIVES: dict[str, type[Primitive]] = {
    "MatrixInverse": MatrixInverse, "MatrixDeterminant": MatrixDeterminant, "Cholesky": Cholesky, "Qr": Qr,
    "Svd": Svd, "CholeskySolve": CholeskySolve, "MatrixTriangularSolve": MatrixTriangularSolve,
    "MatrixSolve": MatrixSolve}
