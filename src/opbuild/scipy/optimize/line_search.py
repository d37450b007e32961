"""``mindspore.scipy.optimize.line_search``: a step length along a descent direction that satisfies the strong
Wolfe conditions (Nocedal & Wright, "Numerical Optimization", algorithms 3.5 and 3.6): steps 1, 2, 4, ...
until one is acceptable or brackets an acceptable one, then a zoom into the bracket by safeguarded cubic,
quadratic or bisection steps. The step logic runs on host floats; ``f`` and its gradient are evaluated on
Tensors (the gradient by opbuild's autodiff unless ``jac`` is given).
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from ...autograd import value_and_grad
from ...core.tensor import Tensor, as_tensor

_LineSearchResults = namedtuple("_LineSearchResults",
                                ["failed", "nit", "nfev", "ngev", "k", "a_k", "f_k", "g_k", "status"])
LineSearchResults = _LineSearchResults

_CUBIC_MARGIN, _QUAD_MARGIN = 0.2, 0.1  # how far inside the bracket an interpolated step must fall
_ZOOM_MAXITER = 10  # zoom steps before the search gives up (MindSpore's count)
_TINY_BRACKET = 1e-9


def _cubicmin(a: float, fa: float, fpa: float, b: float, fb: float, c: float, fc: float) -> float:
    """The minimiser of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc); NaN if none."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    if denom == 0:
        return math.nan
    rb, rc = fb - fa - fpa * db, fc - fa - fpa * dc
    ca = (dc ** 2 * rb - db ** 2 * rc) / denom
    cb = (-dc ** 3 * rb + db ** 3 * rc) / denom
    disc = cb * cb - 3 * ca * fpa
    if ca == 0 or disc < 0:
        return math.nan
    return a + (-cb + math.sqrt(disc)) / (3 * ca)


def _quadmin(a: float, fa: float, fpa: float, b: float, fb: float) -> float:
    """The minimiser of the parabola through (a, fa) with slope fpa at a and (b, fb); NaN if none."""
    d = b - a
    curv = (fb - fa - fpa * d) / (d * d) if d else 0.0
    return a - fpa / (2 * curv) if curv > 0 else math.nan


class _Phi:
    """phi(a) = f(xk + a pk) and its slope, counting evaluations."""

    def __init__(self, value_grad: Callable, xk: Tensor, pk: np.ndarray):
        self.value_grad, self.xk, self.pk, self.count = value_grad, xk, pk, 0

    def __call__(self, a: float) -> tuple[float, float, Tensor]:
        self.count += 1
        x = Tensor(self.xk.asnumpy() + self.pk.dtype.type(a) * self.pk)
        f, g = self.value_grad(x)
        return float(f.asnumpy()), float(np.dot(g.asnumpy(), self.pk)), g


def _zoom(phi: _Phi, lo: tuple, hi: tuple, phi0: float, dphi0: float, c1: float, c2: float):
    """Narrow the bracket [lo, hi] (each (a, phi, dphi, g)) to a strong-Wolfe step: (found, step)."""
    rec = None  # the step the bracket dropped last, for the cubic
    for j in range(_ZOOM_MAXITER):
        a_lo, f_lo, d_lo, _ = lo
        a_hi, f_hi = hi[0], hi[1]
        width = a_hi - a_lo
        left, right = min(a_lo, a_hi), max(a_lo, a_hi)
        if abs(width) <= _TINY_BRACKET:
            break
        a_j = _cubicmin(a_lo, f_lo, d_lo, a_hi, f_hi, rec[0], rec[1]) if j > 0 and rec else math.nan
        if not left + _CUBIC_MARGIN * abs(width) < a_j < right - _CUBIC_MARGIN * abs(width):
            a_j = _quadmin(a_lo, f_lo, d_lo, a_hi, f_hi)
            if not left + _QUAD_MARGIN * abs(width) < a_j < right - _QUAD_MARGIN * abs(width):
                a_j = a_lo + 0.5 * width
        f_j, d_j, g_j = phi(a_j)
        point = (a_j, f_j, d_j, g_j)
        if f_j > phi0 + c1 * a_j * dphi0 or f_j >= f_lo:
            rec, hi = hi, point
            continue
        if abs(d_j) <= -c2 * dphi0:
            return True, point
        rec = lo  # the dropped low end: the cubic's third point
        if d_j * width >= 0:
            hi = lo
        lo = point
    return False, lo


def line_search(f: Callable, xk: Any, pk: Any, jac: Callable | None = None, gfk: Any = None, old_fval: Any = None,
                old_old_fval: Any = None, c1: float = 1e-4, c2: float = 0.9, maxiter: int = 20) -> _LineSearchResults:
    """A strong-Wolfe step length ``a_k`` along ``pk`` from ``xk`` for the scalar function ``f`` (gradient
    ``jac``, else autodiff): ``_LineSearchResults(failed, nit, nfev, ngev, k, a_k, f_k, g_k, status)`` with
    ``f_k``, ``g_k`` the value and gradient at ``xk + a_k pk``; status 0 found, 1 failed (no such step within
    ``maxiter`` doublings, or the zoom did not converge). ``gfk``/``old_fval`` spare the first evaluation;
    ``old_old_fval`` (the previous point's value) sets the first trial step, else it is 1."""
    x = as_tensor(xk)
    p = as_tensor(pk).asnumpy().astype(x.dtype.np_dtype)
    if x.ndim != 1 or p.shape != tuple(x.shape):
        raise ValueError(f"scipy.optimize.line_search: xk and pk must be 1-D of one shape, got {tuple(x.shape)} "
                         f"and {p.shape}")
    value_grad = _value_grad(f, jac)
    if old_fval is None or gfk is None:
        f0, g0 = value_grad(x)
        return search(value_grad, x, p, float(f0.asnumpy()), g0, c1, c2, maxiter, evaluated=1,
                      old_phi0=old_old_fval)
    return search(value_grad, x, p, float(as_tensor(old_fval).asnumpy()), as_tensor(gfk), c1, c2, maxiter,
                  old_phi0=old_old_fval)


def search(value_grad: Callable, x: Tensor, p: np.ndarray, phi0: float, g0: Tensor, c1: float = 1e-4,
           c2: float = 0.9, maxiter: int = 20, evaluated: int = 0, old_phi0: Any = None) -> _LineSearchResults:
    """:func:`line_search` given ``value_grad(x) -> (f, grad)`` and the value and gradient at ``x``. With the
    previous point's value ``old_phi0``, the first step is the one that would repeat its decrease (at most 1),
    as SciPy and MindSpore start."""
    phi = _Phi(value_grad, x, p)
    phi.count = evaluated
    dphi0 = float(np.dot(g0.asnumpy(), p))
    start = 1.0
    if old_phi0 is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            guess = 1.01 * 2 * (phi0 - float(as_tensor(old_phi0).asnumpy())) / np.float64(dphi0)
        start = min(float(guess), 1.0) if np.isfinite(guess) else 1.0
    prev = (0.0, phi0, dphi0, g0)
    best, found, i = prev, False, 1
    while i <= maxiter:
        a_i = start if i == 1 else prev[0] * 2.0
        f_i, d_i, g_i = phi(a_i)
        point = (a_i, f_i, d_i, g_i)
        i += 1
        if f_i > phi0 + c1 * a_i * dphi0 or (f_i >= prev[1] and i > 2):
            found, best = _zoom(phi, prev, point, phi0, dphi0, c1, c2)
            break
        if abs(d_i) <= -c2 * dphi0:
            found, best = True, point
            break
        if d_i >= 0:
            found, best = _zoom(phi, point, prev, phi0, dphi0, c1, c2)
            break
        prev = point
    failed = not found
    return _LineSearchResults(failed=failed, nit=i - 1, nfev=phi.count, ngev=phi.count, k=i, a_k=best[0],
                              f_k=best[1], g_k=best[3], status=1 if failed else 0)


def _value_grad(f: Callable, jac: Callable | None) -> Callable:
    if jac is None:
        return value_and_grad(f)

    def both(x: Tensor) -> tuple[Tensor, Tensor]:
        return as_tensor(f(x)), as_tensor(jac(x))

    return both
