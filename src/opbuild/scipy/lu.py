"""LU factorisation with partial pivoting (``mindspore.scipy.linalg.lu_factor`` and ``lu``), composed of opbuild
ops: one elimination step per column, unrolled over the (static) column count, each step on the whole matrix
with constant masks, so every step reuses the same kernels and the whole factorisation traces into a graph.

The pivot of column k is the first row at or below k of the largest magnitude (LAPACK getrf's choice, so the
pivot indices are LAPACK's, 0-based); a zero pivot column is left unscaled, as getrf leaves it.
"""

from __future__ import annotations

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor


def _const(values: np.ndarray, dtype) -> Tensor:
    return Tensor(values.astype(dtype.np_dtype))


def factor(a: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """``(lu, pivots, p)`` of the (M, N) matrix ``a`` with M <= N: ``lu`` holds U in its upper triangle and L's
    multipliers below the diagonal; ``pivots`` (int32, M) says row k was swapped with row ``pivots[k]``; ``p``
    is the permutation matrix (``a``'s dtype) with ``a = p @ L @ U``."""
    m, n = a.shape
    rows = np.arange(m)
    pivots = []
    swaps = _const(np.eye(m), a.dtype)  # the row swaps so far, applied to the identity
    for k in range(min(m, n)):
        e_k = _const(np.eye(n)[:, k:k + 1], a.dtype)
        col = F.reshape(F.matmul(a, e_k), (m,))
        # Rows above k cannot be chosen: their magnitude is replaced by -1, below any real one.
        candidates = F.where(Tensor(rows >= k), F.abs(col), F.full_like(col, -1.0))
        p = F.argmax(candidates, 0)
        pivots.append(F.cast(p, "int32"))
        hot_p = F.cast(F.one_hot(p, m, Tensor(1.0), Tensor(0.0)), a.dtype.name)
        hot_k = _const(np.eye(m)[k], a.dtype)
        # Swap rows k and p: a += (e_k - e_p)(row_p - row_k), with row_x = e_x^T a.
        diff = F.sub(hot_k, hot_p)
        row_p = F.matmul(F.reshape(hot_p, (1, m)), a)
        row_k = F.matmul(F.reshape(hot_k, (1, m)), a)
        a = F.add(a, F.matmul(F.reshape(diff, (m, 1)), F.sub(row_p, row_k)))
        swaps = F.add(swaps, F.matmul(F.reshape(diff, (m, 1)), F.matmul(F.reshape(F.neg(diff), (1, m)), swaps)))
        col = F.reshape(F.matmul(a, e_k), (m,))
        pivot = F.reduce_sum(F.mul(col, hot_k))
        below = _const((rows > k).astype(np.float64), a.dtype)
        safe = F.where(F.equal(pivot, 0.0), F.ones_like(pivot), pivot)
        mult = F.mul(F.div(col, safe), below)
        # Eliminate below row k in the columns right of k, then store the multipliers in column k.
        right = _const((np.arange(n) > k).astype(np.float64), a.dtype)
        pivot_row = F.mul(F.matmul(F.reshape(hot_k, (1, m)), a), F.reshape(right, (1, n)))
        a = F.sub(a, F.matmul(F.reshape(mult, (m, 1)), pivot_row))
        keep = _const(1.0 - np.outer(rows > k, np.arange(n) == k), a.dtype)
        a = F.add(F.mul(a, keep), F.matmul(F.reshape(mult, (m, 1)), F.reshape(e_k, (1, n))))
    piv = F.stack(pivots) if pivots else Tensor(np.zeros((0,), np.int32))
    # swaps @ a_in = L U, and swaps is a permutation: a_in = swaps^T L U.
    return a, piv, F.swapaxes(swaps, 0, 1)
