"""More of MindSpore's linear-algebra functions, each a composition of registered primitives (so their
gradients come from those): ``ops.batch_dot``, ``ops.lu_unpack``, ``ops.lu_solve``, ``ops.lstsq`` and
``ops.matrix_norm`` (with the matrix norms ``ops.norm`` delegates to it: ``'nuc'``, 1, -1, 2, -2, inf, -inf).

The permutation of ``lu_unpack``/``lu_solve`` is built from LAPACK-style pivots (1-based row swaps, applied in
order) as a product of transposition matrices made with ``OneHot``, so pivots may be a graph's input.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .array import one_hot
from .math_tail import pinv


def _mT(t: Tensor) -> Tensor:  # noqa: N802 - the matrix transpose, as in the other linalg modules
    perm = (*range(t.ndim - 2), t.ndim - 1, t.ndim - 2)
    return apply("Transpose", {"perm": perm}, [t])


def _mm(a: Tensor, b: Tensor) -> Tensor:
    return apply("BatchMatMul" if a.ndim > 2 or b.ndim > 2 else "MatMul", {}, [a, b])


def batch_dot(x1: Any, x2: Any, axes: Any = None) -> Tensor:
    """``ops.batch_dot(x1, x2, axes=None)``: for each index of the first (batch) axis, the dot product of
    ``x1`` and ``x2`` over ``axes`` (an int for the same axis of both, or a pair; default the last axis of
    ``x1`` with the second last of ``x2``, or its last when ``x2`` is 2-D). The result has the batch axis,
    then ``x1``'s remaining axes, then ``x2``'s; a (B,) result is returned as (B, 1)."""
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"batch_dot: x1 and x2 must be at least 2-D, got {a.ndim}-D and {b.ndim}-D")
    if a.dtype != b.dtype:
        raise TypeError(f"batch_dot: x1 and x2 must have one dtype, got {a.dtype} and {b.dtype}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"batch_dot: the batch (first) axes differ: {a.shape[0]} and {b.shape[0]}")
    if axes is None:
        axes = (a.ndim - 1, b.ndim - 1 if b.ndim == 2 else b.ndim - 2)
    elif isinstance(axes, int) and not isinstance(axes, bool):
        axes = (axes, axes)
    if not isinstance(axes, (tuple, list)) or len(axes) != 2 or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in axes):
        raise TypeError(f"batch_dot: axes must be None, an int or a pair of ints, got {axes!r}")
    ax1, ax2 = axes[0] % a.ndim, axes[1] % b.ndim
    if ax1 == 0 or ax2 == 0:
        raise ValueError(f"batch_dot: axes must not name the batch axis 0, got {tuple(axes)}")
    if a.shape[ax1] != b.shape[ax2]:
        raise ValueError(f"batch_dot: the summed axes differ in size: x1 axis {ax1} has {a.shape[ax1]}, x2 axis "
                         f"{ax2} has {b.shape[ax2]}")
    batch, k = a.shape[0], a.shape[ax1]
    keep1 = [d for d in range(1, a.ndim) if d != ax1]
    keep2 = [d for d in range(1, b.ndim) if d != ax2]
    rest1, rest2 = [a.shape[d] for d in keep1], [b.shape[d] for d in keep2]
    m, n = int(np.prod(rest1, dtype=np.int64)), int(np.prod(rest2, dtype=np.int64))
    lhs = apply("Reshape", {"shape": (batch, m, k)}, [apply("Transpose", {"perm": (0, *keep1, ax1)}, [a])])
    rhs = apply("Reshape", {"shape": (batch, k, n)}, [apply("Transpose", {"perm": (0, ax2, *keep2)}, [b])])
    out_shape = (batch, *rest1, *rest2) if rest1 or rest2 else (batch, 1)
    return apply("Reshape", {"shape": out_shape}, [apply("BatchMatMul", {}, [lhs, rhs])])


def _permutation(pivots: Tensor, rows: int, dtype: str) -> Tensor:
    """The (..., rows, rows) matrix P of LAPACK pivots (row i swapped with row pivots[i] - 1, in order), with
    ``A = P @ L @ U``: the product of the transpositions."""
    lead = tuple(pivots.shape[:-1])
    eye = np.eye(rows)
    perm = Tensor(np.broadcast_to(eye, (*lead, rows, rows)).astype(dtype))
    piv = apply("Sub", {}, [apply("Cast", {"dtype": "int64"}, [pivots]), Tensor(np.array(1, np.int64))])
    on, off = Tensor(np.array(1, dtype)), Tensor(np.array(0, dtype))
    for i in range(pivots.shape[-1]):
        p = apply("Slice", {"begin": (0,) * len(lead) + (i,), "size": (*lead, 1)}, [piv])
        e_p = one_hot(p, rows, on, off)  # (..., 1, rows)
        e_i = Tensor(np.broadcast_to(eye[i:i + 1], (*lead, 1, rows)).astype(dtype))
        # T = I - e_i e_i^T - e_p e_p^T + e_i e_p^T + e_p e_i^T (the identity when p == i)
        d = apply("Sub", {}, [e_p, e_i])
        swap = apply("Sub", {}, [Tensor(np.broadcast_to(eye, (*lead, rows, rows)).astype(dtype)),
                                 _mm(_mT(d), d)])
        perm = _mm(perm, swap)
    return perm


def _lu_parts(name: str, lu_data: Any, lu_pivots: Any) -> tuple[Tensor, Tensor, Tensor]:
    lu, piv = as_tensor(lu_data), as_tensor(lu_pivots)
    if lu.ndim < 2:
        raise ValueError(f"{name}: LU_data must be at least 2-D, got {lu.ndim}-D")
    if not lu.dtype.is_float:
        raise TypeError(f"{name}: LU_data must be a float tensor, got {lu.dtype}")
    if piv.dtype.name not in ("int8", "uint8", "int16", "int32", "int64"):
        raise TypeError(f"{name}: LU_pivots must be an integer tensor, got {piv.dtype}")
    m, n = lu.shape[-2:]
    k = min(m, n)
    if tuple(piv.shape) != (*lu.shape[:-2], k):
        raise ValueError(f"{name}: LU_pivots must have shape {(*lu.shape[:-2], k)} for LU_data of shape "
                         f"{tuple(lu.shape)}, got {tuple(piv.shape)}")
    if piv._data is not None and piv.size:
        vals = piv.asnumpy()
        if vals.min() < 1 or vals.max() > m:
            raise ValueError(f"{name}: LU_pivots must lie in [1, {m}], got values from {vals.min()} to {vals.max()}")
    dt = lu.dtype.np_dtype
    low_mask = np.tril(np.ones((m, k), dt), -1)
    low = apply("Add", {}, [apply("Mul", {}, [apply("Slice", {"begin": (0,) * lu.ndim,
                                                               "size": (*lu.shape[:-1], k)}, [lu]),
                                              Tensor(low_mask)]), Tensor(np.eye(m, k, dtype=dt))])
    up = apply("Mul", {}, [apply("Slice", {"begin": (0,) * lu.ndim, "size": (*lu.shape[:-2], k, n)}, [lu]),
                           Tensor(np.triu(np.ones((k, n), dt)))])
    return _permutation(piv, m, lu.dtype.name), low, up


def lu_unpack(LU_data: Any, LU_pivots: Any, unpack_data: bool = True, unpack_pivots: bool = True):  # noqa: N803
    """``ops.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)`` -> ``(P, L, U)``: the
    permutation matrix, the unit lower factor and the upper factor of a packed LU factorisation, ``A = P @ L
    @ U``. Only the default flags are supported (both parts unpacked)."""
    if unpack_data is not True or unpack_pivots is not True:
        raise NotImplementedError("lu_unpack: only unpack_data=True and unpack_pivots=True are supported")
    return _lu_parts("lu_unpack", LU_data, LU_pivots)


def lu_solve(b: Any, LU_data: Any, LU_pivots: Any) -> Tensor:  # noqa: N803
    """``ops.lu_solve(b, LU_data, LU_pivots)``: the solution ``x`` of ``A @ x = b`` from ``A``'s packed LU
    factorisation (square, as ``ops.lu_factor`` gives it): triangular solves of ``P.T @ b``."""
    rhs = as_tensor(b)
    lu = as_tensor(LU_data)
    if lu.ndim < 2 or lu.shape[-1] != lu.shape[-2]:
        raise ValueError(f"lu_solve: LU_data must be square matrices, got shape {tuple(lu.shape)}")
    if rhs.ndim < 2 or rhs.shape[-2] != lu.shape[-1]:
        raise ValueError(f"lu_solve: b must be (..., {lu.shape[-1]}, k), got shape {tuple(rhs.shape)}")
    if rhs.dtype != lu.dtype:
        raise TypeError(f"lu_solve: b and LU_data must have one dtype, got {rhs.dtype} and {lu.dtype}")
    perm, low, up = _lu_parts("lu_solve", lu, LU_pivots)
    shape = tuple(np.broadcast_shapes(tuple(lu.shape[:-2]), tuple(rhs.shape[:-2])))
    if tuple(rhs.shape[:-2]) != shape:
        rhs = apply("BroadcastTo", {"shape": (*shape, *rhs.shape[-2:])}, [rhs])

    def full(t: Tensor) -> Tensor:
        return t if tuple(t.shape[:-2]) == shape else apply("BroadcastTo", {"shape": (*shape, *t.shape[-2:])}, [t])

    y = apply("MatrixTriangularSolve", {"lower": True, "adjoint": False}, [full(low), _mm(_mT(full(perm)), rhs)])
    return apply("MatrixTriangularSolve", {"lower": False, "adjoint": False}, [full(up), y])


def lstsq(input: Any, A: Any) -> Tensor:  # noqa: A002, N803 - MindSpore's names
    """``ops.lstsq(input, A)``: the least-squares solution ``x`` of ``input @ x = A`` (the minimum-norm one
    when ``input`` lacks full rank), by the pseudo-inverse: ``input`` (m, n), ``A`` (m, k) or (m,); the
    result (n, k), or (n, 1) for a vector ``A``."""
    x, a = as_tensor(input), as_tensor(A)
    if x.ndim != 2 or a.ndim not in (1, 2) or a.shape[0] != x.shape[0]:
        raise ValueError(f"lstsq: input must be (m, n) and A (m, k) or (m,), got {tuple(x.shape)} and "
                         f"{tuple(a.shape)}")
    if x.dtype != a.dtype or x.dtype.name not in ("float16", "float32", "float64"):
        raise TypeError(f"lstsq: input and A must be float16, float32 or float64 of one dtype, got {x.dtype} and "
                        f"{a.dtype}")
    if a.ndim == 1:
        a = apply("Reshape", {"shape": (a.shape[0], 1)}, [a])
    if x.dtype.name == "float16":
        wide = [apply("Cast", {"dtype": "float32"}, [t]) for t in (x, a)]
        return apply("Cast", {"dtype": "float16"}, [_mm(pinv(wide[0]), wide[1])])
    return _mm(pinv(x), a)


MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _ord_ok(ord: Any) -> bool:  # noqa: A002
    return (isinstance(ord, str) and ord in ("fro", "nuc")) or \
        (isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord in (1, -1, 2, -2, math.inf, -math.inf))


def matrix_norm(A: Any, ord: Any = "fro", axis: Any = (-2, -1), keepdims: bool = False, *,  # noqa: A002, N803
                dtype: Any = None) -> Tensor:
    """``ops.matrix_norm(A, ord='fro', axis=(-2, -1), keepdims=False, *, dtype=None)``: the matrix norm over
    the two ``axis``: ``'fro'`` (Frobenius), ``'nuc'`` (sum of singular values), 1 / -1 (max / min column
    sum of ``|A|``), inf / -inf (max / min row sum), 2 / -2 (largest / smallest singular value)."""
    t = as_tensor(A)
    if dtype is not None:
        t = apply("Cast", {"dtype": getattr(dtype, "name", dtype)}, [t])
    if not t.dtype.is_float:
        raise TypeError(f"matrix_norm: A must be a float tensor, got {t.dtype} (pass dtype=)")
    if not _ord_ok(ord):
        raise ValueError(f"matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf, got {ord!r}")
    if not isinstance(axis, (tuple, list)) or len(axis) != 2 or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in axis):
        raise TypeError(f"matrix_norm: axis must be a pair of ints, got {axis!r}")
    if t.ndim < 2:
        raise ValueError(f"matrix_norm: A must be at least 2-D, got {t.ndim}-D")
    r, c = axis[0] % t.ndim, axis[1] % t.ndim
    if not (-t.ndim <= axis[0] < t.ndim and -t.ndim <= axis[1] < t.ndim) or r == c:
        raise ValueError(f"matrix_norm: axis must name two different axes of a {t.ndim}-D tensor, got {axis!r}")
    keep = bool(keepdims)
    if ord == "fro":
        sq = apply("ReduceSum", {"axis": (r, c), "keep_dims": keep}, [apply("Square", {}, [t])])
        return apply("Sqrt", {}, [sq])
    if ord in (1, -1, math.inf, -math.inf):
        summed, other = (r, c) if ord in (1, -1) else (c, r)
        sums = apply("ReduceSum", {"axis": (summed,), "keep_dims": True}, [apply("Abs", {}, [t])])
        red = "ReduceMax" if ord > 0 else "ReduceMin"
        out = apply(red, {"axis": (other,), "keep_dims": True}, [sums])
        return out if keep else apply("Squeeze", {"axis": (r, c)}, [out])
    # Singular values: move the two axes last, in order.
    rest = [d for d in range(t.ndim) if d not in (r, c)]
    moved = apply("Transpose", {"perm": (*rest, r, c)}, [t])
    s = apply("Svd", {"full_matrices": False, "compute_uv": True}, [moved])[0]
    if ord == "nuc":
        out = apply("ReduceSum", {"axis": (-1,), "keep_dims": False}, [s])
    else:
        out = apply("ReduceMax" if ord == 2 else "ReduceMin", {"axis": (-1,), "keep_dims": False}, [s])
    if keep:
        for d in sorted((r, c)):
            out = apply("ExpandDims", {"axis": d}, [out])
    return out





def _eig_input(name: str, A: Any) -> Tensor:  # noqa: N803
    t = as_tensor(A)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"{name}: A must be square matrices (..., n, n), got shape {tuple(t.shape)}")
    if t.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{name}: A must be float32 or float64 (opbuild's Eig takes real matrices), got {t.dtype}")
    return t


def eig(A: Any) -> tuple[Tensor, Tensor]:  # noqa: N803
    """``ops.eig(A)`` -> ``(eigenvalues, eigenvectors)``: complex64 (complex128 for float64), the values by
    increasing magnitude, unit eigenvectors in the columns (ops/linalg_eig.py says how they are normalised)."""
    return apply("Eig", {"compute_v": True}, [_eig_input("eig", A)])


def eigvals(A: Any) -> Tensor:  # noqa: N803
    """``ops.eigvals(A)``: the complex eigenvalues of each square matrix, by increasing magnitude."""
    return apply("Eig", {"compute_v": False}, [_eig_input("eigvals", A)])[0]


__all__ = ["batch_dot", "eig", "eigvals", "lstsq", "lu_solve", "lu_unpack", "matrix_norm"]
