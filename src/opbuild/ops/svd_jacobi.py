"""The singular value decomposition as MindSpore's CPU kernel computes it for matrices of fewer than 16
columns, in NumPy: Eigen's two-sided Jacobi SVD (BDCSVD hands such matrices to JacobiSVD) with its
column-pivoting Householder QR preconditioner. The singular vectors' signs are a result of the algorithm's
path, so matching MindSpore's ``ops.svd`` values (not only ``u @ diag(s) @ v.T``) means taking the same path:

1. scale by the largest magnitude; a tall matrix is reduced to its R factor by QR with column pivoting (U
   starts as Q, V as the column permutation), a wide one through its transpose, a square one as it is;
2. sweep the pairs (p, q), q < p, while an off-diagonal entry exceeds ``2 eps`` times the largest diagonal
   one: each 2x2 block is made symmetric by a rotation, then diagonalised by a Jacobi rotation, the rotations
   applied to the work matrix and accumulated into U and V;
3. negative diagonal entries flip their U column; the values are sorted by a selection sort that swaps.

Everything runs in the input's precision (float32 stays float32), as there. The CPU kernel
(targets/cpu/kernels/svd_jacobi.py) is the same steps in C; this module is its reference and the statement of
the algorithm. Matrices with 16 columns or more go to LAPACK's gesdd (MindSpore's BDCSVD takes another path
there, so signs may differ: docs/mindspore-compat.md).
"""

from __future__ import annotations

import numpy as np

JACOBI_MAX_COLS = 16  # Eigen's BDCSVD switch (m_algoswap): fewer columns go to JacobiSVD


def _householder(col: np.ndarray, dt) -> tuple[np.ndarray, object, object]:
    """Eigen's makeHouseholder of ``col``: (essential part, tau, beta)."""
    tail = col[1:]
    tail_sq = dt(np.sum(tail * tail)) if tail.size else dt(0)
    c0 = col[0]
    tiny = np.finfo(dt).tiny
    if tail_sq <= tiny:
        return np.zeros_like(tail), dt(0), c0
    beta = dt(np.sqrt(c0 * c0 + tail_sq))
    if c0 >= 0:
        beta = -beta
    return (tail / (c0 - beta)).astype(dt), dt((beta - c0) / beta), beta


def _apply_householder_left(block: np.ndarray, ess: np.ndarray, tau, dt) -> None:
    """In place: ``block = (I - tau [1; ess] [1; ess]^T) block``."""
    if block.shape[0] == 1:
        block *= dt(1) - tau
        return
    if tau == 0:
        return
    tmp = (ess @ block[1:] + block[0]).astype(dt)
    block[0] -= tau * tmp
    block[1:] -= (tau * np.outer(ess, tmp)).astype(dt)


def colpiv_qr(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eigen's ColPivHouseholderQR of ``a`` (rows >= cols): (R, Q full, column permutation indices)."""
    dt = a.dtype.type
    qr = a.copy()
    rows, cols = qr.shape
    size = min(rows, cols)
    eps = np.finfo(dt).eps
    direct = np.sqrt(np.sum(qr * qr, axis=0)).astype(dt)
    updated = direct.copy()
    down_threshold = dt(np.sqrt(eps))
    perm = np.arange(cols)
    essentials, taus = [], []
    for k in range(size):
        big = k + int(np.argmax(updated[k:]))
        if big != k:
            qr[:, [k, big]] = qr[:, [big, k]]
            updated[[k, big]] = updated[[big, k]]
            direct[[k, big]] = direct[[big, k]]
            perm[[k, big]] = perm[[big, k]]
        ess, tau, beta = _householder(qr[k:, k].copy(), dt)
        qr[k, k] = beta
        qr[k + 1:, k] = ess
        essentials.append(ess)
        taus.append(tau)
        if k + 1 < cols:
            _apply_householder_left(qr[k:, k + 1:], ess, tau, dt)
        for j in range(k + 1, cols):
            if updated[j] != 0:
                t = dt(abs(qr[k, j]) / updated[j])
                t = dt((dt(1) + t) * (dt(1) - t))
                t = max(t, dt(0))
                t2 = dt(t * (updated[j] / direct[j]) ** 2)
                if t2 <= down_threshold:
                    direct[j] = dt(np.sqrt(np.sum(qr[k + 1:, j] * qr[k + 1:, j])))
                    updated[j] = direct[j]
                else:
                    updated[j] = dt(updated[j] * np.sqrt(t))
    q = np.eye(rows, dtype=dt)
    for k in range(size - 1, -1, -1):
        _apply_householder_left(q[k:, k:], essentials[k], taus[k], dt)
    return np.triu(qr[:cols, :cols]), q, perm


def _rot_rows(w: np.ndarray, p: int, q: int, c, s) -> None:
    """Eigen's applyOnTheLeft(p, q, J(c, s)): rows p, q <- (c x + s y, -s x + c y)."""
    x, y = w[p].copy(), w[q].copy()
    w[p], w[q] = c * x + s * y, -s * x + c * y


def _rot_cols(w: np.ndarray, p: int, q: int, c, s) -> None:
    """Eigen's applyOnTheRight(p, q, J(c, s)): columns p, q <- (c x - s y, s x + c y)."""
    x, y = w[:, p].copy(), w[:, q].copy()
    w[:, p], w[:, q] = c * x - s * y, s * x + c * y


def _two_by_two(w: np.ndarray, p: int, q: int, dt) -> tuple[tuple, tuple]:
    """Eigen's real_2x2_jacobi_svd: the left and right rotations (c, s) that diagonalise block (p, q)."""
    tiny = np.finfo(dt).tiny
    m = np.array([[w[p, p], w[p, q]], [w[q, p], w[q, q]]], dt)
    t, d = dt(m[0, 0] + m[1, 1]), dt(m[1, 0] - m[0, 1])
    if abs(d) < tiny:
        c1, s1 = dt(1), dt(0)
    else:
        u = dt(t / d)
        tmp = dt(np.sqrt(dt(1) + u * u))
        c1, s1 = dt(u / tmp), dt(dt(1) / tmp)
    _rot_rows(m, 0, 1, c1, s1)
    x, y, z = m[0, 0], m[0, 1], m[1, 1]
    deno = dt(2 * abs(y))
    if deno < tiny:
        c2, s2 = dt(1), dt(0)
    else:
        tau = dt((x - z) / deno)
        wv = dt(np.sqrt(tau * tau + dt(1)))
        tt = dt(dt(1) / (tau + wv)) if tau > 0 else dt(dt(1) / (tau - wv))
        sign_t = dt(1) if tt > 0 else dt(-1)
        n = dt(dt(1) / np.sqrt(tt * tt + dt(1)))
        s2 = dt(-sign_t * (y / abs(y)) * abs(tt) * n)
        c2 = n
    # left = rot1 * right^T, right^T = (c2, -s2)
    cl = dt(c1 * c2 - s1 * -s2)
    sl = dt(c1 * -s2 + s1 * c2)
    return (cl, sl), (c2, s2)


def jacobi_svd(a: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, u, v) of one matrix ``a`` (float32 or float64), as Eigen's JacobiSVD returns them."""
    dt = a.dtype.type
    rows, cols = a.shape
    k = min(rows, cols)
    scale = dt(np.max(np.abs(a))) if a.size else dt(0)
    if not np.isfinite(scale):
        nan = dt(np.nan)
        return (np.full(k, nan, dt), np.full((rows, rows if full else k), nan, dt),
                np.full((cols, cols if full else k), nan, dt))
    if scale == 0:
        scale = dt(1)
    x = (a / scale).astype(dt)
    if rows > cols:
        w, q, perm = colpiv_qr(x)
        u = q if full else q[:, :cols].copy()
        v = np.zeros((cols, cols), dt)
        v[perm, np.arange(cols)] = 1
    elif cols > rows:
        r, q, perm = colpiv_qr(np.ascontiguousarray(x.T))
        w = np.ascontiguousarray(r.T)
        v = q if full else q[:, :rows].copy()
        u = np.zeros((rows, rows), dt)
        u[perm, np.arange(rows)] = 1
    else:
        w = x.copy()
        u, v = np.eye(rows, dtype=dt), np.eye(cols, dtype=dt)
    precision, tiny = dt(2 * np.finfo(dt).eps), np.finfo(dt).tiny
    max_diag = dt(np.max(np.abs(np.diag(w)))) if k else dt(0)
    finished = False
    while not finished:
        finished = True
        for p in range(1, k):
            for q in range(p):
                threshold = max(tiny, dt(precision * max_diag))
                if abs(w[p, q]) > threshold or abs(w[q, p]) > threshold:
                    finished = False
                    (cl, sl), (cr, sr) = _two_by_two(w, p, q, dt)
                    _rot_rows(w, p, q, cl, sl)
                    _rot_cols(u, p, q, cl, -sl)  # U.applyOnTheRight(p, q, left^T)
                    _rot_cols(w, p, q, cr, sr)
                    _rot_cols(v, p, q, cr, sr)
                    max_diag = max(max_diag, max(abs(w[p, p]), abs(w[q, q])))
    s = np.abs(np.diag(w)).astype(dt)
    for i in range(k):
        if w[i, i] < 0:
            u[:, i] = -u[:, i]
    s = (s * scale).astype(dt)
    for i in range(k):
        pos = int(np.argmax(s[i:]))
        if s[i + pos] == 0:
            break
        if pos:
            pos += i
            s[[i, pos]] = s[[pos, i]]
            u[:, [i, pos]] = u[:, [pos, i]]
            v[:, [i, pos]] = v[:, [pos, i]]
    return s, u, v


def svd_reference(x: np.ndarray, full: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Batched (s, u, v): Jacobi for fewer than :data:`JACOBI_MAX_COLS` columns, LAPACK's gesdd otherwise."""
    rows, cols = x.shape[-2:]
    if cols >= JACOBI_MAX_COLS:
        u, s, vt = np.linalg.svd(x.astype(np.float64), full_matrices=full)
        return s.astype(x.dtype), u.astype(x.dtype), np.swapaxes(vt, -1, -2).astype(x.dtype)
    k = min(rows, cols)
    batch = x.shape[:-2]
    s_out = np.zeros((*batch, k), x.dtype)
    u_out = np.zeros((*batch, rows, rows if full else k), x.dtype)
    v_out = np.zeros((*batch, cols, cols if full else k), x.dtype)
    for idx in np.ndindex(*batch):
        s_out[idx], u_out[idx], v_out[idx] = jacobi_svd(np.ascontiguousarray(x[idx]), full)
    return s_out, u_out, v_out
