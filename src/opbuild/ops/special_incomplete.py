"""The incomplete gamma and beta functions and ``NextAfter``: MindSpore's ``Igamma``, ``Igammac``, ``Betainc``
and ``NextAfter`` primitives, broadcasting rows of the elementwise family's shape (float32 and float64).

* ``Igamma(a, x)`` is the regularised lower incomplete gamma function P(a, x), ``Igammac`` the upper one
  Q(a, x) = 1 - P(a, x): the power series of P where ``x <= 1`` or ``x <= a``, the continued fraction of Q
  (in its recurrence form, rescaled against overflow) elsewhere, both in double precision until the terms
  fall below double epsilon; the result is rounded once to the input's type. MindSpore's values at the
  edges (recorded): NaN for ``a <= 0``, ``x < 0`` or NaN; P(a, 0) = 0 and Q(a, 0) = 1; P(a, inf) = 1 and
  Q(a, inf) = NaN.
* ``IgammaGradA(a, x)`` is dP/da (the gradient of ``Igamma`` in ``a``; MindSpore's ``IgammaGradA``): the
  five-point central difference of the double-precision P with step ``1e-3 * a``, whose truncation error
  (order step^4) and rounding error (about 1e-16 / step) both stay near 1e-12 relative, far below float64
  results' use in gradients; documented in docs/mindspore-compat.md.
* ``Betainc(a, b, x)`` is the regularised incomplete beta function I_x(a, b), by the continued fraction
  (modified Lentz) on the side of ``(a + 1) / (a + b + 2)`` where it converges fast, the symmetry
  ``I_x(a, b) = 1 - I_{1-x}(b, a)`` on the other. NaN outside ``0 <= x <= 1`` or for non-positive a, b.
  Its gradient is MindSpore's: in ``x`` only (a and b get zeros, as MindSpore's bprop gives).
* ``NextAfter(x, y)``: the next representable value after ``x`` towards ``y``. MindSpore's CPU kernel steps
  float32 inputs in double and rounds back, so a float32 ``x`` comes back unchanged (``nextafter(1, 2)`` is
  1.0, as MindSpore's own documented example prints ``[False]`` for ``== 1 + eps``); float64 steps exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core.errors import ShapeError
from ..core.ir import TensorType
from . import gradlib as G
from .elementwise import Binary, _binary_def
from .primitive import Primitive, apply, declare
from .registry import OpDef, broadcast_shapes, grad_rule, same_dtype

FLOATS = ("float32", "float64")
_EPS = 1.1102230246251565e-16  # 2^-53: the series and fractions stop when a term is this small
_BIG, _BIGINV = 4503599627370496.0, 2.220446049250313e-16
_LOG_MIN = -708.3964185322641  # below this exp() underflows to 0

# C statements computing double p_ = P(a_, x_) and q_ = Q(a_, x_) (a_, x_ doubles in scope).
IGAM_C = (
    "double p_, q_; "
    "if (!(a_ > 0) || !(x_ >= 0)) { p_ = NAN; q_ = NAN; } "
    "else if (x_ == 0) { p_ = 0; q_ = 1; } "
    "else if (isinf(x_)) { p_ = 1; q_ = NAN; } "
    "else { double ax_ = a_ * log(x_) - x_ - lgamma(a_); "
    "if (x_ > 1 && x_ > a_) { "
    "double y_ = 1 - a_, z_ = x_ + y_ + 1, c_ = 0, pkm2_ = 1, qkm2_ = x_, pkm1_ = x_ + 1, qkm1_ = z_ * x_; "
    "double ans_ = pkm1_ / qkm1_, t_; int it_ = 0; "
    "do { c_ += 1; y_ += 1; z_ += 2; double yc_ = y_ * c_; "
    "double pk_ = pkm1_ * z_ - pkm2_ * yc_, qk_ = qkm1_ * z_ - qkm2_ * yc_; "
    "if (qk_ != 0) { double r_ = pk_ / qk_; t_ = fabs((ans_ - r_) / r_); ans_ = r_; } else t_ = 1; "
    "pkm2_ = pkm1_; pkm1_ = pk_; qkm2_ = qkm1_; qkm1_ = qk_; "
    f"if (fabs(pk_) > {_BIG!r}) {{ pkm2_ *= {_BIGINV!r}; pkm1_ *= {_BIGINV!r}; qkm2_ *= {_BIGINV!r}; "
    f"qkm1_ *= {_BIGINV!r}; }} }} while (t_ > {_EPS!r} && ++it_ < 2000); "
    f"q_ = ax_ < {_LOG_MIN!r} ? 0.0 : ans_ * exp(ax_); p_ = 1 - q_; }} "
    "else { double r_ = a_, c_ = 1, ans_ = 1; int it_ = 0; "
    f"do {{ r_ += 1; c_ *= x_ / r_; ans_ += c_; }} while (c_ / ans_ > {_EPS!r} && ++it_ < 2000); "
    f"p_ = ax_ < {_LOG_MIN!r} ? 0.0 : ans_ * exp(ax_) / a_; q_ = 1 - p_; }} }} ")


def _igam_scalar(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)) in double, the steps of :data:`IGAM_C`."""
    if not (a > 0) or not (x >= 0):
        return math.nan, math.nan
    if x == 0:
        return 0.0, 1.0
    if math.isinf(x):
        return 1.0, math.nan
    ax = a * math.log(x) - x - math.lgamma(a)
    if x > 1 and x > a:
        y, z, c = 1 - a, x + 2 - a, 0.0
        pkm2, qkm2, pkm1, qkm1 = 1.0, x, x + 1, z * x
        ans, it = pkm1 / qkm1, 0
        while True:
            c, y, z = c + 1, y + 1, z + 2
            yc = y * c
            pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
            if qk != 0:
                r = pk / qk
                t, ans = abs((ans - r) / r), r
            else:
                t = 1.0
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if abs(pk) > _BIG:
                pkm2, pkm1, qkm2, qkm1 = pkm2 * _BIGINV, pkm1 * _BIGINV, qkm2 * _BIGINV, qkm1 * _BIGINV
            it += 1
            if not (t > _EPS and it < 2000):
                break
        q = 0.0 if ax < _LOG_MIN else ans * math.exp(ax)
        return 1 - q, q
    r, c, ans, it = a, 1.0, 1.0, 0
    while True:
        r += 1
        c *= x / r
        ans += c
        it += 1
        if not (c / ans > _EPS and it < 2000):
            break
    p = 0.0 if ax < _LOG_MIN else ans * math.exp(ax) / a
    return p, 1 - p


# The five-point stencil of dP/da: offsets (in steps) and weights (over 12 steps).
_STENCIL = ((-2.0, 1.0), (-1.0, -8.0), (1.0, 8.0), (2.0, -1.0))


def _igam_da_c() -> str:
    offs = ", ".join(repr(o) for o, _ in _STENCIL)
    wts = ", ".join(repr(w) for _, w in _STENCIL)
    return ("({ double a0_ = (double)a, x_ = (double)b, h_ = 1e-3 * a0_, s_ = 0; "
            f"static const double off_[4] = {{{offs}}}, w_[4] = {{{wts}}}; "
            "for (int j_ = 0; j_ < 4; j_++) { double a_ = a0_ + off_[j_] * h_; " + IGAM_C + "s_ += w_[j_] * p_; } "
            "(TYPE)((a0_ > 0 && x_ > 0 && !isinf(x_)) ? s_ / (12 * h_) : (x_ == 0 || isinf(x_)) && a0_ > 0 ? 0.0 "
            ": NAN); })")


def _igam_da_scalar(a: float, x: float) -> float:
    if a > 0 and (x == 0 or math.isinf(x)):
        return 0.0
    if not (a > 0 and x > 0):
        return math.nan
    h = 1e-3 * a
    return sum(w * _igam_scalar(a + o * h, x)[0] for o, w in _STENCIL) / (12 * h)


def _vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


def _typed(fn):
    """A float64 scalar function as a reference whose result has the inputs' dtype."""
    v = _vec(fn)
    return lambda *xs: v(*xs).astype(np.result_type(*xs))


IGAMMA = Binary("({ double a_ = (double)a, x_ = (double)b; " + IGAM_C + "(TYPE)p_; })", FLOATS,
                _typed(lambda a, x: _igam_scalar(a, x)[0]))
IGAMMAC = Binary("({ double a_ = (double)a, x_ = (double)b; " + IGAM_C + "(TYPE)q_; })", FLOATS,
                 _typed(lambda a, x: _igam_scalar(a, x)[1]))
IGAMMA_GRAD_A = Binary(_igam_da_c(), FLOATS, _typed(_igam_da_scalar))


def _nextafter_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype == np.float32:  # MindSpore: stepped in double, rounded back
        return np.nextafter(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    return np.nextafter(x, y)


NEXTAFTER = Binary("(TYPE)nextafter((double)a, (double)b)", FLOATS, _nextafter_ref)

ROWS: dict[str, Binary] = {"Igamma": IGAMMA, "Igammac": IGAMMAC, "IgammaGradA": IGAMMA_GRAD_A,
                           "NextAfter": NEXTAFTER}
_DOCS = {
    "Igamma": "``Igamma()(a, x)``: the regularised lower incomplete gamma function P(a, x) (broadcasting).",
    "Igammac": "``Igammac()(a, x)``: the regularised upper incomplete gamma function Q(a, x) = 1 - P(a, x).",
    "IgammaGradA": "``IgammaGradA()(a, x)``: dP(a, x)/da, the gradient of Igamma in ``a``.",
    "NextAfter": "``NextAfter()(x1, x2)``: the next representable value after ``x1`` towards ``x2``.",
}
PRIMITIVES: dict[str, type[Primitive]] = {n: declare(_binary_def(n, r), _DOCS[n]) for n, r in ROWS.items()}


# ---- Betainc (three inputs) -----------------------------------------------------------------------------

_FPMIN = 1e-300

BETACF_C = (
    "double qab_ = aa_ + bb_, qap_ = aa_ + 1, qam_ = aa_ - 1, c_ = 1, d_ = 1 - qab_ * xx_ / qap_, h_; "
    f"if (fabs(d_) < {_FPMIN!r}) d_ = {_FPMIN!r}; d_ = 1 / d_; h_ = d_; "
    "for (int m_ = 1; m_ <= 1000; m_++) { double m2_ = 2.0 * m_, t_; "
    "t_ = m_ * (bb_ - m_) * xx_ / ((qam_ + m2_) * (aa_ + m2_)); "
    f"d_ = 1 + t_ * d_; if (fabs(d_) < {_FPMIN!r}) d_ = {_FPMIN!r}; "
    f"c_ = 1 + t_ / c_; if (fabs(c_) < {_FPMIN!r}) c_ = {_FPMIN!r}; d_ = 1 / d_; h_ *= d_ * c_; "
    "t_ = -(aa_ + m_) * (qab_ + m_) * xx_ / ((aa_ + m2_) * (qap_ + m2_)); "
    f"d_ = 1 + t_ * d_; if (fabs(d_) < {_FPMIN!r}) d_ = {_FPMIN!r}; "
    f"c_ = 1 + t_ / c_; if (fabs(c_) < {_FPMIN!r}) c_ = {_FPMIN!r}; d_ = 1 / d_; "
    f"double del_ = d_ * c_; h_ *= del_; if (fabs(del_ - 1) < {_EPS!r}) break; }} ")

BETAINC_C = (
    "({ double a_ = (double)a, b_ = (double)b, x_ = (double)x, r_; "
    "if (!(a_ > 0) || !(b_ > 0) || !(x_ >= 0 && x_ <= 1)) r_ = NAN; "
    "else if (x_ == 0) r_ = 0; else if (x_ == 1) r_ = 1; "
    "else { double lbt_ = lgamma(a_ + b_) - lgamma(a_) - lgamma(b_) + a_ * log(x_) + b_ * log1p(-x_); "
    "int flip_ = x_ >= (a_ + 1) / (a_ + b_ + 2); "
    "double aa_ = flip_ ? b_ : a_, bb_ = flip_ ? a_ : b_, xx_ = flip_ ? 1 - x_ : x_; "
    + BETACF_C +
    "double f_ = exp(lbt_) * h_ / aa_; r_ = flip_ ? 1 - f_ : f_; } (TYPE)r_; })")


def _betacf(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) >= _FPMIN else _FPMIN)
    h = d
    for m in range(1, 1001):
        m2 = 2.0 * m
        for t in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + t * d
            d = d if abs(d) >= _FPMIN else _FPMIN
            c = 1 + t / c
            c = c if abs(c) >= _FPMIN else _FPMIN
            d = 1 / d
            h *= d * c
        if abs(d * c - 1) < _EPS:
            break
    return h


def _betainc_scalar(a: float, b: float, x: float) -> float:
    if not (a > 0) or not (b > 0) or not (0 <= x <= 1):
        return math.nan
    if x in (0.0, 1.0):
        return x
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x >= (a + 1) / (a + b + 2):
        return 1 - math.exp(lbt) * _betacf(b, a, 1 - x) / b
    return math.exp(lbt) * _betacf(a, b, x) / a


_betainc_ref = _typed(_betainc_scalar)


def _betainc_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    if len(ins) != 3:
        raise ShapeError("Betainc", f"expects 3 inputs (a, b, x), got {len(ins)}", list(ins))
    dt = same_dtype("Betainc", ins, FLOATS)
    return [TensorType(broadcast_shapes("Betainc", ins), dt)]


def _betainc_reference(attrs: dict, a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _betainc_ref(a, b, x)


PRIMITIVES["Betainc"] = declare(
    OpDef("Betainc", _betainc_infer, _betainc_reference, n_inputs=3),
    "``Betainc()(a, b, x)``: the regularised incomplete beta function I_x(a, b) (float32/float64, broadcasting).")


# ---- gradient rules -------------------------------------------------------------------------------------

def _dpdx(a, x):
    """d P(a, x) / dx = exp(-x + (a - 1) log x - lgamma(a))."""
    lx = G.unary("Log", x)
    return G.unary("Exp", G.sub(G.sub(G.mul(G.sub(a, 1.0), lx), x), G.unary("Lgamma", a)))


def _igamma_grads(sign: float):
    def rule(attrs, ins, outs, douts):
        a, x = ins
        dy = douts[0]
        da = G.mul(dy, apply("IgammaGradA", {}, [a, x]))
        dx = G.mul(dy, _dpdx(a, x))
        if sign < 0:
            da, dx = G.neg(da), G.neg(dx)
        return [G.unbroadcast(da, a._type.shape), G.unbroadcast(dx, x._type.shape)]
    return rule


grad_rule("Igamma")(_igamma_grads(1.0))
grad_rule("Igammac")(_igamma_grads(-1.0))


@grad_rule("Betainc")
def _betainc_grad(attrs, ins, outs, douts):
    """MindSpore's rule: the derivative in x, x^(a-1) (1-x)^(b-1) / B(a, b); zeros for a and b."""
    a, b, x = ins
    lg = G.sub(G.unary("Lgamma", G.add(a, b)), G.add(G.unary("Lgamma", a), G.unary("Lgamma", b)))
    log_term = G.add(G.mul(G.sub(a, 1.0), G.unary("Log", x)),
                     G.mul(G.sub(b, 1.0), G.unary("Log1p", G.neg(x))))
    dx = G.mul(douts[0], G.unary("Exp", G.add(log_term, lg)))
    return [G.unbroadcast(G.mul(douts[0], 0.0), a._type.shape), G.unbroadcast(G.mul(douts[0], 0.0), b._type.shape),
            G.unbroadcast(dx, x._type.shape)]


@grad_rule("NextAfter")
def _nextafter_grad(attrs, ins, outs, douts):
    """MindSpore's rule: the output follows x one for one, y does not move it."""
    x, y = ins
    return [G.unbroadcast(douts[0], x._type.shape), G.unbroadcast(G.mul(douts[0], 0.0), y._type.shape)]


@grad_rule("IgammaGradA")
def _igamma_grad_a_grad(attrs, ins, outs, douts):
    raise NotImplementedError("second derivatives of igamma in a (the gradient of IgammaGradA) are not implemented "
                              "in opbuild")


__all__ = ["BETAINC_C", "IGAMMA", "IGAMMAC", "IGAMMA_GRAD_A", "NEXTAFTER", "PRIMITIVES", "ROWS"]
