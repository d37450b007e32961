"""Gamma and Poisson samplers as compositions of the sampling kernels (ops/random_sample.py) and elementwise ops,
so ``random_gamma``/``RandomGamma`` and ``random_poisson``/``RandomPoisson`` trace into graphs and advance their
generator state there like every other random op.

Rejection samplers need a variable number of tries; here every element gets a fixed number of candidates
(:data:`TRIES`) drawn at once and keeps the first accepted one. Gamma: Marsaglia and Tsang's method (acceptance
above 0.95 for every shape >= 1; shapes below 1 sample shape + 1 and multiply by U ** (1 / shape)). Poisson:
inversion over the first :data:`TERMS` terms of the distribution function for rates below 10, Hoermann's PTRS
transformed rejection (acceptance above 0.9) from 10 on. All candidates rejected (probability below 1e-10 per
element) falls back to the first candidate: a bias far below what a sample can show.
"""

from __future__ import annotations

import math

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..primitive import apply
from ..random_sample import draw
from . import array as A
from . import math as M
from .math_more import cumsum
from .special import lgamma

TRIES = 10
TERMS = 48  # P(X >= 48) < 1e-17 for a Poisson rate below 10
_SWITCH = 10.0


def _first_accepted(ok: Tensor, candidates: Tensor) -> Tensor:
    """The candidate (axis 0) of the first True of ``ok`` along axis 0 (the first one when none is)."""
    first = A.expand_dims(M.argmax(M._cast(ok, "int32"), 0), 0)
    return A.squeeze(apply("GatherD", {"dim": 0}, [candidates, first]), 0)


def gamma_sample(shape: tuple[int, ...], alpha: Tensor, state: Parameter) -> Tensor:
    """Gamma(alpha, 1) samples of ``shape + alpha.shape`` in alpha's (float) dtype."""
    out = tuple(shape) + tuple(alpha.shape)
    a = A.broadcast_to(M._cast(alpha, "float32") if alpha.dtype.name == "float16" else alpha, out)
    dt = a.dtype.name
    boost = M.lt(a, 1.0)
    a1 = M.where(boost, M.add(a, 1.0), a)
    d = M.sub(a1, 1.0 / 3.0)
    c = M.div(1.0, M.sqrt(M.mul(d, 9.0)))
    z = M._cast(draw("StandardNormal", {"shape": (TRIES, *out)}, state), dt)
    u = M._cast(draw("UniformReal", {"shape": (TRIES, *out)}, state), dt)
    t = M.add(M.mul(c, z), 1.0)
    v = M.mul(M.mul(t, t), t)
    positive = M.gt(v, 0.0)
    log_v = M.log(M.where(positive, v, 1.0))
    bound = M.add(M.mul(M.mul(z, z), 0.5), M.add(M.sub(d, M.mul(d, v)), M.mul(d, log_v)))
    ok = M.logical_and(positive, M.lt(M.log(u), bound))
    g = _first_accepted(ok, M.mul(d, M.where(positive, v, 1.0)))
    u2 = M._cast(draw("UniformReal", {"shape": out}, state), dt)
    g = M.where(boost, M.mul(g, M.exp(M.div(M.log(u2), a))), g)
    return M._cast(g, alpha.dtype)


def poisson_sample(shape: tuple[int, ...], rate: Tensor, state: Parameter, dtype: str) -> Tensor:
    """Poisson(rate) samples of ``shape + rate.shape`` in ``dtype``."""
    out = tuple(shape) + tuple(rate.shape)
    lam = A.broadcast_to(M._cast(rate, "float64" if rate.dtype.name == "float64" else "float32"), out)
    dt = lam.dtype.name
    small = M.lt(lam, _SWITCH)
    # Inversion for small rates: the count of distribution-function values below one uniform.
    lam_s = M.minimum(lam, _SWITCH)
    ks = np.arange(TERMS, dtype=np.float64).reshape((TERMS,) + (1,) * len(out))
    log_fact = np.array([math.lgamma(k + 1.0) for k in range(TERMS)]).reshape(ks.shape)
    log_lam = M.log(M.maximum(lam_s, 1e-30))
    log_pmf = M.sub(M.sub(M.mul(Tensor(ks.astype(dt)), log_lam), lam_s), Tensor(log_fact.astype(dt)))
    cdf = cumsum(M.exp(log_pmf), 0)
    u = M._cast(draw("UniformReal", {"shape": out}, state), dt)
    by_inversion = M.sum(M._cast(M.gt(u, cdf), dt), 0)
    # PTRS (Hoermann 1993) for the others, on a rate kept >= 10 so its constants stay finite everywhere.
    lam_b = M.maximum(lam, _SWITCH)
    slam, loglam = M.sqrt(lam_b), M.log(lam_b)
    b = M.add(M.mul(slam, 2.53), 0.931)
    a = M.add(M.mul(b, 0.02483), -0.059)
    inv_alpha = M.add(M.div(1.1328, M.sub(b, 3.4)), 1.1239)
    vr = M.sub(0.9277, M.div(3.6224, M.sub(b, 2.0)))
    uu = M.sub(M._cast(draw("UniformReal", {"shape": (TRIES, *out)}, state), dt), 0.5)
    vv = M._cast(draw("UniformReal", {"shape": (TRIES, *out)}, state), dt)
    us = M.sub(0.5, M.abs(uu))
    k = M.floor(M.add(M.add(M.mul(M.add(M.div(M.mul(a, 2.0), us), b), uu), lam_b), 0.43))
    quick = M.logical_and(M.ge(us, 0.07), M.le(vv, vr))
    k_safe = M.maximum(k, 0.0)
    lhs = M.sub(M.add(M.log(vv), M.log(inv_alpha)), M.log(M.add(M.div(a, M.mul(us, us)), b)))
    rhs = M.sub(M.sub(M.mul(k_safe, loglam), lam_b), lgamma(M.add(k_safe, 1.0)))
    usable = M.logical_and(M.ge(k, 0.0), M.logical_not(M.logical_and(M.lt(us, 0.013), M.gt(vv, us))))
    ok = M.logical_or(quick, M.logical_and(usable, M.le(lhs, rhs)))
    by_rejection = _first_accepted(ok, k_safe)
    return M._cast(M.where(small, by_inversion, by_rejection), dtype)
