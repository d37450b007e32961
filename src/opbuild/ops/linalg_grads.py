"""The gradient rules of the decompositions Qr and Svd (MindSpore differentiates both), built from primitives.

Both are the reduced decompositions' textbook rules: QR's for ``m >= n`` with the reduced ``q`` (TensorFlow's
``_QrGrad``, Walter and Lehmann's derivation), SVD's for distinct non-zero singular values (Townsend's "Differentiating
the singular value decomposition"), so the gradient of a loss that depends on the signs of the singular vectors
(not fixed by the decomposition) is as arbitrary as the signs. What the rules do not cover (``full_matrices`` with
a non-square input, QR of a wide matrix) is refused with a message saying what to do instead.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor
from . import gradlib as G
from .linalg import _mm, _mT, _tri_solve
from .registry import grad_rule


def _or_zeros(d, like):
    return G.zeros_like(like) if d is None else d


def _times_inv_rt(x, r):
    """``x @ inv(r).T`` for an upper-triangular ``r`` (a triangular solve, no inverse formed)."""
    return _mT(_tri_solve(r, _mT(x), False, False))


@grad_rule("Qr")
def _qr_grad(attrs, ins, outs, douts):
    q, r = outs
    m, n = ins[0].shape[-2:]
    if m < n or (attrs["full_matrices"] and m != n):
        raise NotImplementedError(
            f"the gradient of Qr is implemented for matrices with at least as many rows as columns and the reduced "
            f"q (full_matrices=False); got {m}x{n} with full_matrices={attrs['full_matrices']}: differentiate the "
            "QR of the transposed matrix or take full_matrices=False")
    dq, dr = _or_zeros(douts[0], q), _or_zeros(douts[1], r)
    qdq = _mm(q, dq, ta=True)
    rdr = _mm(r, dr, tb=True)
    low = G.mul(G.add(G.sub(qdq, _mT(qdq)), G.sub(rdr, _mT(rdr))), _lower_mask(r))
    grad_a = _mm(q, G.add(dr, _times_inv_rt(low, r)))
    grad_b = _times_inv_rt(G.sub(dq, _mm(q, qdq)), r)
    return [G.add(grad_a, grad_b)]


def _lower_mask(x):
    n = x.shape[-1]
    return Tensor(np.tril(np.ones((n, n))).astype(x.dtype.np_dtype))


def _eye(k: int, like):
    return Tensor(np.eye(k).astype(like.dtype.np_dtype))


def _row(v):
    """``v`` (..., k) as (..., 1, k): multiplying a matrix by it scales its columns."""
    return G.reshape(v, (*v.shape[:-1], 1, v.shape[-1]))


def _col(v):
    """``v`` (..., k) as (..., k, 1): multiplying a matrix by it scales its rows."""
    return G.reshape(v, (*v.shape, 1))


@grad_rule("Svd")
def _svd_grad(attrs, ins, outs, douts):
    s, u, v = outs
    m, n = ins[0].shape[-2:]
    if attrs["full_matrices"] and m != n:
        raise NotImplementedError(
            f"the gradient of Svd with full_matrices=True is implemented for square matrices only (got {m}x{n}): "
            "take full_matrices=False, whose u and v span the same singular subspaces")
    k = s.shape[-1]
    eye = _eye(k, s)
    ds, du, dv = douts
    inner = G.mul(_row(_or_zeros(ds, s)), eye)  # diag(ds)
    s2 = G.mul(s, s)
    # F[i, j] = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it (the diagonal's denominator is made 1 first).
    f = G.div(G.sub(G.const(1.0, s), eye), G.add(G.sub(_row(s2), _col(s2)), eye))
    inv_s = G.div(G.const(1.0, s), s)
    if du is not None:
        j = G.mul(f, _mm(u, du, ta=True))
        inner = G.add(inner, G.mul(G.add(j, _mT(j)), _row(s)))
    if dv is not None:
        kk = G.mul(f, _mm(v, dv, ta=True))
        inner = G.add(inner, G.mul(_col(s), G.add(kk, _mT(kk))))
    grad = _mm(_mm(u, inner), v, tb=True)
    if du is not None and m > k:  # the part of du outside u's span
        proj = G.sub(du, _mm(u, _mm(u, du, ta=True)))
        grad = G.add(grad, _mm(G.mul(proj, _row(inv_s)), v, tb=True))
    if dv is not None and n > k:  # the part of dv outside v's span
        proj = G.sub(dv, _mm(v, _mm(v, dv, ta=True)))
        grad = G.add(grad, _mm(u, G.mul(_col(inv_s), _mT(proj))))
    return [grad]
