"""``mindspore.scipy.optimize.minimize``: unconstrained minimisation of a scalar function of a 1-D Tensor by
BFGS (dense inverse-Hessian updates) or L-BFGS (the two-loop recursion over the last ``history_size`` pairs),
each step's length from :func:`line_search`. ``OptimizeResults`` holds MindSpore's fields; ``status`` is 0
converged (the gradient's ``norm`` below ``gtol``), 1 ``maxiter`` reached, 2 + the line search's status when
the line search failed. The iteration runs on the host; ``func`` and its gradient are evaluated on Tensors.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from .line_search import _value_grad, search

OptimizeResults = namedtuple("OptimizeResults", ["x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev",
                                                 "nit"])
_METHODS = ("bfgs", "lbfgs")


def _status(converged: bool, k: int, maxiter: int, failed: bool, ls_status: int) -> int:
    if converged:
        return 0
    if k == maxiter:
        return 1
    return 2 + ls_status if failed else -1


def _bfgs(fun: Callable, x0: Tensor, maxiter: int, norm: float, gtol: float, ls_maxiter: int) -> dict:
    dt = x0.dtype.np_dtype
    n = x0.shape[0]
    f_k, g_k = fun(x0)
    x, g, h = x0.asnumpy().astype(dt), g_k.asnumpy(), np.eye(n, dtype=dt)
    f, nfev, k, failed, ls_status = float(f_k.asnumpy()), 1, 0, False, 0
    converged = bool(np.linalg.norm(g, ord=norm) < gtol)
    old_f = f + float(np.linalg.norm(g)) / 2  # SciPy's guess of a previous value: a first step of about 1/|g|
    while not converged and not failed and k < maxiter:
        p = -(h @ g).astype(dt)
        ls = search(fun, Tensor(x), p, f, Tensor(g), maxiter=ls_maxiter, old_phi0=old_f)
        old_f = f
        nfev += ls.nfev
        failed, ls_status, k = ls.failed, ls.status, k + 1
        s = (ls.a_k * p).astype(dt)
        x_new, g_new = (x + s).astype(dt), ls.g_k.asnumpy()
        y = g_new - g
        with np.errstate(divide="ignore"):
            rho = np.reciprocal(np.dot(y, s))
        if np.isfinite(rho):  # skip the update where the curvature pair says nothing
            w = np.eye(n, dtype=dt) - rho * np.outer(s, y)
            h = (w @ h @ w.T + rho * np.outer(s, s)).astype(dt)
        x, g, f = x_new, g_new, float(ls.f_k)
        converged = bool(np.linalg.norm(g, ord=norm) < gtol)
    return {"x": x, "f": f, "g": g, "h": h, "nfev": nfev, "k": k, "converged": converged, "failed": failed,
            "status": _status(converged, k, maxiter, failed, ls_status)}


def _two_loop(g: np.ndarray, ss: list, ys: list) -> np.ndarray:
    """-H g for the L-BFGS inverse Hessian of the pairs (s, y), scaled by the newest pair's y.s / y.y."""
    q, alphas = g.copy(), []
    for s, y in zip(reversed(ss), reversed(ys)):
        a = np.dot(s, q) / np.dot(y, s)
        alphas.append(a)
        q = q - a * y
    gamma = np.dot(ss[-1], ys[-1]) / np.dot(ys[-1], ys[-1]) if ss else 1.0
    r = gamma * q
    for (s, y), a in zip(zip(ss, ys), reversed(alphas)):
        b = np.dot(y, r) / np.dot(y, s)
        r = r + s * (a - b)
    return -r


def _lbfgs(fun: Callable, x0: Tensor, maxiter: int, norm: float, gtol: float, ls_maxiter: int,
           history_size: int) -> dict:
    dt = x0.dtype.np_dtype
    f_k, g_k = fun(x0)
    x, g = x0.asnumpy().astype(dt), g_k.asnumpy()
    f, nfev, k, failed, ls_status = float(f_k.asnumpy()), 1, 0, False, 0
    ss: list = []
    ys: list = []
    converged = bool(np.linalg.norm(g, ord=norm) < gtol)
    while not converged and not failed and k < maxiter:
        p = _two_loop(g, ss, ys).astype(dt)
        ls = search(fun, Tensor(x), p, f, Tensor(g), maxiter=ls_maxiter)
        nfev += ls.nfev
        failed, ls_status, k = ls.failed, ls.status, k + 1
        s = (ls.a_k * p).astype(dt)
        g_new = ls.g_k.asnumpy()
        y = g_new - g
        if np.dot(y, s) > 0:  # keep only pairs of positive curvature (the inverse Hessian stays definite)
            ss.append(s)
            ys.append(y)
            del ss[:-history_size], ys[:-history_size]
        x, g, f = (x + s).astype(dt), g_new, float(ls.f_k)
        converged = bool(np.linalg.norm(g, ord=norm) < gtol)
    return {"x": x, "f": f, "g": g, "h": None, "nfev": nfev, "k": k, "converged": converged, "failed": failed,
            "status": _status(converged, k, maxiter, failed, ls_status)}


def minimize(func: Callable, x0: Any, args: tuple = (), method: str | None = None, jac: Callable | None = None,
             hess: Any = None, hessp: Any = None, bounds: Any = None, constraints: Any = (), tol: Any = None,
             callback: Any = None, options: dict | None = None) -> OptimizeResults:
    """Minimise ``func(x, *args)`` (a scalar) over the 1-D float Tensor ``x`` from ``x0`` with ``method``
    'BFGS' or 'LBFGS' (required; any case). ``jac(x, *args)`` gives the gradient, else autodiff does.
    ``options``: ``maxiter`` (default 200 * x0.size), ``gtol`` (1e-5), ``norm`` (inf), ``line_search_maxiter``
    (10), and for LBFGS ``history_size`` (20). ``hess``, ``hessp``, ``bounds``, ``tol``, ``callback`` are not
    implemented, as in MindSpore; 'LAGRANGE' (MindSpore's GPU-only constrained method) is not provided."""
    if method is None:
        raise ValueError("scipy.optimize.minimize: method must be given: 'BFGS' or 'LBFGS'")
    if not isinstance(args, tuple):
        raise TypeError(f"scipy.optimize.minimize: args must be a tuple, got {type(args).__name__}")
    if not isinstance(method, str) or method.lower() not in _METHODS:
        raise ValueError(f"scipy.optimize.minimize: method must be 'BFGS' or 'LBFGS', got {method!r} ('LAGRANGE', "
                         "MindSpore's GPU-only constrained method, is not provided)")
    opts = dict(options or {})
    x = as_tensor(x0)
    if x.ndim != 1 or x.dtype.name not in ("float32", "float64"):
        raise ValueError(f"scipy.optimize.minimize: x0 must be a 1-D float32 or float64 Tensor, got {x.ndim}-D "
                         f"{x.dtype}")
    allowed = {"maxiter", "gtol", "norm", "line_search_maxiter"} | ({"history_size"} if method.lower() == "lbfgs"
                                                                   else set())
    unknown = set(opts) - allowed
    if unknown:
        raise TypeError(f"scipy.optimize.minimize: unknown {method} options {sorted(unknown)}; known: "
                        f"{sorted(allowed)}")
    f = (lambda t: func(t, *args)) if args else func
    fun = _value_grad(f, None if jac is None else ((lambda t: jac(t, *args)) if args else jac))
    maxiter = opts.get("maxiter") or 200 * x.shape[0]
    common = (maxiter, float(opts.get("norm", np.inf)), float(opts.get("gtol", 1e-5)),
              int(opts.get("line_search_maxiter", 10)))
    if method.lower() == "bfgs":
        r = _bfgs(fun, x, *common)
    else:
        r = _lbfgs(fun, x, *common, int(opts.get("history_size", 20)))
    return OptimizeResults(x=Tensor(r["x"]), success=r["converged"] and not r["failed"], status=r["status"],
                           fun=r["f"], jac=Tensor(r["g"]), hess_inv=None if r["h"] is None else Tensor(r["h"]),
                           nfev=r["nfev"], njev=r["nfev"], nit=r["k"])
