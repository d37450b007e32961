"""The functional API of the linear-algebra family (MindSpore's ``ops.inverse``, ``ops.det``, ``ops.cholesky``,
``ops.qr``, ``ops.svd``, ``ops.cholesky_solve``, ``ops.matrix_solve``, ``ops.slogdet``, ``ops.logdet``,
``ops.geqrf``, ``ops.orgqr``, ``ops.cholesky_inverse``, ``ops.matrix_power``) over the primitives of ops/linalg.py, and
``fftshift``/``ifftshift`` as compositions (two slices and a concat per axis)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply


def _float(name: str, x: Tensor) -> Tensor:
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{name}: input must be float32 or float64, got {x.dtype.name} (cast it first)")
    return x


def inverse(input) -> Tensor:
    """``ops.inverse(input)``: the inverse of each square matrix in the last two axes (float32/float64)."""
    return apply("MatrixInverse", {"adjoint": False}, [_float("inverse", as_tensor(input))])


def matrix_determinant(input) -> Tensor:
    """``ops.matrix_determinant(input)``: the determinant of each square matrix, shape ``input.shape[:-2]``."""
    return apply("MatrixDeterminant", {}, [_float("matrix_determinant", as_tensor(input))])


def det(input) -> Tensor:
    """``ops.det(input)``: alias of :func:`matrix_determinant`."""
    return apply("MatrixDeterminant", {}, [_float("det", as_tensor(input))])


def cholesky(input_x, upper: bool = False) -> Tensor:
    """``ops.cholesky(input_x, upper=False)``: the lower (or upper) Cholesky factor of each symmetric
    positive-definite matrix (NaN for a matrix that is not; MindSpore raises)."""
    return apply("Cholesky", {"upper": upper}, [_float("cholesky", as_tensor(input_x))])


def qr(input, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """``ops.qr(input, mode='reduced')``: ``(q, r)``; mode ``'complete'`` gives the full m x m ``q``."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return apply("Qr", {"full_matrices": mode == "complete"}, [_float("qr", as_tensor(input))])


def svd(input, full_matrices: bool = False, compute_uv: bool = True):
    """``ops.svd(input, full_matrices=False, compute_uv=True)``: ``(s, u, v)`` with ``input = u @ diag(s) @
    v.T``, or ``s`` alone when not ``compute_uv``. Below 16 columns the vectors are MindSpore's, signs
    included (Eigen's Jacobi path, ops/svd_jacobi.py); from 16 columns they are LAPACK gesdd's."""
    s, u, v = apply("Svd", {"full_matrices": full_matrices, "compute_uv": True}, [_float("svd", as_tensor(input))])
    return (s, u, v) if compute_uv else s


def cholesky_solve(input, input2, upper: bool = False) -> Tensor:
    """``ops.cholesky_solve(input, input2, upper=False)``: solves ``A @ y = input`` where ``input2`` is the
    Cholesky factor of ``A`` (lower, or upper when ``upper``)."""
    return apply("CholeskySolve", {"upper": upper}, [_float("cholesky_solve", as_tensor(input)),
                                                     _float("cholesky_solve", as_tensor(input2))])


def matrix_solve(matrix, rhs, adjoint: bool = False) -> Tensor:
    """``ops.matrix_solve(matrix, rhs, adjoint=False)``: solves ``matrix @ y = rhs`` (the transpose when
    ``adjoint``) for each square matrix of the batch; a singular matrix gives NaN."""
    return apply("MatrixSolve", {"adjoint": adjoint}, [_float("matrix_solve", as_tensor(matrix)),
                                                       _float("matrix_solve", as_tensor(rhs))])


def slogdet(input) -> tuple[Tensor, Tensor]:
    """``ops.slogdet(input)``: ``(sign, log_abs_det)`` of each square matrix (sign 0 and -inf when singular)."""
    return apply("LogMatrixDeterminant", {}, [_float("slogdet", as_tensor(input))])


def logdet(input) -> Tensor:
    """``ops.logdet(input)``: ``log(det(input))``: NaN for a negative determinant, -inf for a singular
    matrix (the log of the sign added to ``slogdet``'s log-magnitude)."""
    sign, logabs = slogdet(input)
    return logabs + apply("Log", {}, [sign])


def geqrf(input) -> tuple[Tensor, Tensor]:
    """``ops.geqrf(input)``: LAPACK's compact QR ``(y, tau)`` (see ``Geqrf``)."""
    return apply("Geqrf", {}, [_float("geqrf", as_tensor(input))])


def orgqr(input, input2) -> Tensor:
    """``ops.orgqr(input, input2)``: the explicit ``q`` (first n columns) from :func:`geqrf`'s ``(y, tau)``."""
    return apply("Orgqr", {}, [_float("orgqr", as_tensor(input)), _float("orgqr", as_tensor(input2))])


def cholesky_inverse(input_x, upper: bool = False) -> Tensor:
    """``ops.cholesky_inverse(input_x, upper=False)``: the inverse of ``A = X @ X^T`` (``X^T @ X`` when
    ``upper``) for the Cholesky factor ``X``. As MindSpore 2.10's, the whole matrix is read (a factor with
    entries off its triangle gives the inverse of that product); float16 computes in float32."""
    x = as_tensor(input_x)
    name = x.dtype.name
    if name not in ("float16", "float32", "float64"):
        raise TypeError(f"cholesky_inverse: input must be float16, float32 or float64, got {name} (cast it first)")
    work = apply("Cast", {"dtype": "float32"}, [x]) if name == "float16" else x
    if work.ndim < 2 or work.shape[-1] != work.shape[-2]:
        raise ValueError(f"cholesky_inverse: input must be a square matrix (or a batch of them), got shape "
                         f"{tuple(x.shape)}")
    perm = (*range(work.ndim - 2), work.ndim - 1, work.ndim - 2)
    xt = apply("Transpose", {"perm": perm}, [work])
    a, b = (xt, work) if upper else (work, xt)
    out = apply("MatrixInverse", {"adjoint": False}, [apply("BatchMatMul", {}, [a, b])])
    return apply("Cast", {"dtype": name}, [out]) if name == "float16" else out


def _product(a: Tensor, b: Tensor) -> Tensor:
    op = "MatMul" if a.ndim == 2 else "BatchMatMul"
    return apply(op, {"transpose_a": False, "transpose_b": False}, [a, b])


def matrix_power(input, n: int) -> Tensor:
    """``ops.matrix_power(input, n)``: ``input`` multiplied by itself ``n`` times (square matrices in the last
    two axes) by repeated squaring; ``n`` = 0 gives identities, a negative ``n`` powers the inverse (float
    inputs only)."""
    x = as_tensor(input)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"matrix_power: n must be an int, got {n!r}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_power: input must hold square matrices in its last two axes, got {x.shape}")
    if n == 0:
        eye = np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype.np_dtype), x.shape)
        return Tensor(np.ascontiguousarray(eye))
    if n < 0:
        x, n = inverse(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else _product(result, base)
        n >>= 1
        if n:
            base = _product(base, base)
    return result


def _dims(x: Tensor, dim) -> list[int]:
    if dim is None:
        return list(range(x.ndim))
    dims = [dim] if isinstance(dim, numbers.Integral) else list(dim)
    for d in dims:
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"fftshift: dim {d} is out of range for a tensor of rank {x.ndim}")
    return [d % x.ndim for d in dims]


def _roll(x: Tensor, shifts: Sequence[int], dims: Sequence[int]) -> Tensor:
    for shift, d in zip(shifts, dims):
        n = x.shape[d]
        k = shift % n if n else 0
        if k:
            head = apply("Slice", _slice_attrs(x, d, 0, n - k), [x])
            tail = apply("Slice", _slice_attrs(x, d, n - k, n), [x])
            x = apply("Concat", {"axis": d}, [tail, head])
    return x


def _slice_attrs(x: Tensor, axis: int, start: int, stop: int) -> dict:
    begin, size = [0] * x.ndim, list(x.shape)
    begin[axis], size[axis] = start, stop - start
    return {"begin": begin, "size": size}


def fftshift(input, dim: int | Sequence[int] | None = None) -> Tensor:
    """``ops.fftshift(input, dim=None)``: moves the zero-frequency term to the centre (a roll by ``n // 2``
    along each of ``dim``, every axis when None)."""
    x = as_tensor(input)
    dims = _dims(x, dim)
    return _roll(x, [x.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim: int | Sequence[int] | None = None) -> Tensor:
    """``ops.ifftshift(input, dim=None)``: the inverse of :func:`fftshift` (a roll by ``-(n // 2)``)."""
    x = as_tensor(input)
    dims = _dims(x, dim)
    return _roll(x, [-(x.shape[d] // 2) for d in dims], dims)


__all__ = ["inverse", "matrix_determinant", "det", "cholesky", "qr", "svd", "cholesky_solve", "matrix_solve",
           "slogdet", "logdet", "geqrf", "orgqr", "cholesky_inverse", "matrix_power", "fftshift",
           "ifftshift"]
