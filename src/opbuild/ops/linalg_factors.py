"""More linear-algebra primitives (MindSpore's): ``LogMatrixDeterminant`` (slogdet), ``Geqrf``, ``Orgqr`` and
``CholeskyInverse``, LAPACK kernels as in ops/linalg.py (float32/float64, batched over leading axes; a failed
factorisation gives NaN)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from . import gradlib as G
from . import scratch_plan as S
from .linalg import LAPACK_FLOATS, _matrix, _mm, _mT, _normalizer, _square_infer, _tri_mask
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype


def _slogdet_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("LogMatrixDeterminant", ins, LAPACK_FLOATS)
    _matrix("LogMatrixDeterminant", ins[0], ins)
    return [TensorType(ins[0].shape[:-2], dt)] * 2


def _slogdet_ref(attrs: dict, x: np.ndarray):
    sign, logabs = np.linalg.slogdet(x.astype(np.float64))
    return sign.astype(x.dtype), logabs.astype(x.dtype)


@defop(infer=_slogdet_infer, reference=_slogdet_ref, normalize=_normalizer("LogMatrixDeterminant"), n_inputs=1,
       multi_output=True, workspace=S.workspace_of(S.lu_copy), status=S.lapack_status("LogMatrixDeterminant"))
class LogMatrixDeterminant(Primitive):
    """``LogMatrixDeterminant()(x) -> (sign, log_abs_det)``: the sign (1, -1, or 0 for a singular matrix) and
    the log of the absolute determinant (-inf when singular) of each square matrix."""


def _geqrf_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Geqrf", ins, LAPACK_FLOATS)
    m, n = _matrix("Geqrf", ins[0], ins, square=False)
    return [TensorType(ins[0].shape, dt), TensorType((*ins[0].shape[:-2], min(m, n)), dt)]


def _householder(x: np.ndarray):
    """LAPACK's geqrf of one matrix in NumPy: R above the diagonal, the reflectors' tails below, and tau."""
    a = x.astype(np.float64).copy()
    m, n = a.shape
    tau = np.zeros(min(m, n))
    for j in range(min(m, n)):
        alpha, tail = a[j, j], a[j + 1:, j]
        norm = np.hypot(alpha, np.linalg.norm(tail)) if tail.size else abs(alpha)
        if not tail.size or np.linalg.norm(tail) == 0.0:
            continue  # H = I (tau 0), as dlarfg does when the tail is zero
        beta = -np.copysign(norm, alpha)
        tau[j] = (beta - alpha) / beta
        v = np.concatenate([[1.0], tail / (alpha - beta)])
        a[j + 1:, j] = v[1:]
        a[j, j] = beta
        block = a[j:, j + 1:]
        a[j:, j + 1:] = block - tau[j] * np.outer(v, v @ block)
    return a, tau


def _geqrf_ref(attrs: dict, x: np.ndarray):
    batch = x.shape[:-2]
    ys, taus = zip(*(_householder(x[idx]) for idx in np.ndindex(*batch))) if x.size else ((), ())
    k = min(x.shape[-2:])
    y = np.array(ys).reshape(x.shape) if ys else np.zeros(x.shape)
    tau = np.array(taus).reshape((*batch, k)) if taus else np.zeros((*batch, k))
    return y.astype(x.dtype), tau.astype(x.dtype)


@defop(infer=_geqrf_infer, reference=_geqrf_ref, normalize=_normalizer("Geqrf"), n_inputs=1, multi_output=True,
       status=S.lapack_status("Geqrf"))
class Geqrf(Primitive):
    """``Geqrf()(x) -> (y, tau)``: LAPACK's QR in compact form: ``r`` on and above the diagonal of ``y``, the
    Householder vectors below it, their scales in ``tau``."""


def _orgqr_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("Orgqr", ins, LAPACK_FLOATS)
    m, n = _matrix("Orgqr", ins[0], ins, square=False)
    tau = ins[1]
    if n > m or tau.shape[:-1] != ins[0].shape[:-2] or not tau.shape or tau.shape[-1] > n:
        raise ShapeError("Orgqr", "expects x of shape (..., m, n) with n <= m and tau of shape (..., k) with "
                         "k <= n and the same batch shape", list(ins))
    return [TensorType(ins[0].shape, dt)]


def _orgqr_ref(attrs: dict, x: np.ndarray, tau: np.ndarray) -> np.ndarray:
    out = np.zeros(x.shape, np.float64)
    m, n = x.shape[-2:]
    for idx in np.ndindex(*x.shape[:-2]):
        q = np.eye(m)
        for j in range(tau.shape[-1] - 1, -1, -1):
            v = np.concatenate([np.zeros(j), [1.0], x[idx][j + 1:, j].astype(np.float64)])
            q = q - tau[idx][j] * np.outer(v, v @ q)
        out[idx] = q[:, :n]
    return out.astype(x.dtype)


@defop(infer=_orgqr_infer, reference=_orgqr_ref, normalize=_normalizer("Orgqr"), n_inputs=2,
       status=S.lapack_status("Orgqr"))
class Orgqr(Primitive):
    """``Orgqr()(x, tau)``: the first n columns of the product of the Householder reflectors that
    :class:`Geqrf` returns (``x`` m x n, n <= m)."""


def _cholesky_inverse_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    f = x.astype(np.float64)
    f = np.triu(f) if attrs["upper"] else np.tril(f)
    a = np.swapaxes(f, -1, -2) @ f if attrs["upper"] else f @ np.swapaxes(f, -1, -2)
    return np.linalg.inv(a).astype(x.dtype)


@defop(infer=_square_infer("CholeskyInverse"), reference=_cholesky_inverse_ref,
       normalize=_normalizer("CholeskyInverse", upper=False), n_inputs=1, status=S.lapack_status("CholeskyInverse"))
class CholeskyInverse(Primitive):
    """``CholeskyInverse(upper=False)(x)``: the inverse of ``A = L @ L.T`` (``U.T @ U`` when ``upper``) given
    its Cholesky factor ``x``."""

    def __init__(self, upper: bool = False):
        super().__init__(upper=upper)


@grad_rule("LogMatrixDeterminant")
def _slogdet_grad(attrs, ins, outs, douts):
    x, dlog = ins[0], douts[1]
    if dlog is None:  # the sign is piecewise constant
        return [G.zeros_like(x)]
    scale = G.reshape(dlog, (*x.shape[:-2], 1, 1))
    return [G.mul(scale, apply("MatrixInverse", {"adjoint": True}, [x]))]


@grad_rule("CholeskyInverse")
def _cholesky_inverse_grad(attrs, ins, outs, douts):
    c, y, dy = ins[0], outs[0], douts[0]
    da = G.neg(_mm(_mm(y, dy, ta=True), y, tb=True))  # of A's inverse, y = inv(A)
    sym = G.add(da, _mT(da))
    dc = _mm(c, sym) if attrs["upper"] else _mm(sym, c)
    return [G.mul(dc, _tri_mask(c, not attrs["upper"]))]


@grad_rule("Geqrf", "Orgqr")
def _householder_grad(attrs, ins, outs, douts):
    raise NotImplementedError("the gradients of Geqrf and Orgqr are not implemented in opbuild; stop the "
                              "gradient before them (ops.stop_gradient)")


PRIMITIVES: dict[str, type[Primitive]] = {"LogMatrixDeterminant": LogMatrixDeterminant, "Geqrf": Geqrf,
                                          "Orgqr": Orgqr, "CholeskyInverse": CholeskyInverse}
