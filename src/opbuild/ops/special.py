"""Special functions: MindSpore's ``lgamma``, ``digamma``, ``polygamma``, ``erfinv``, ``sinc``, ``zeta`` (Hurwitz)
and the Bessel functions ``bessel_j0``/``j1``/``y0``/``y1``, ``bessel_i0``/``i0e``/``i1``/``i1e`` (``i0``) and
``bessel_k0``/``k0e``/``k1``/``k1e``, as rows of the
elementwise family's shape (ops/elementwise.py's :class:`Unary`: a C expression, the float dtypes, a NumPy
reference), with their gradient rules.

Each is computed in double whatever the input's dtype, rounded once to it (float16 via float32, as every
elementwise kernel): libm where the C library has the function (``lgamma``, ``j0``, ``j1``, ``y0``, ``y1``),
otherwise a short algorithm written here:

* digamma: reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)`` below 0, the recurrence ``psi(x) = psi(x + 1) -
  1 / x`` up to 6, then the asymptotic series (to x^-10);
* polygamma(n >= 1): ``(-1)^(n+1) n! sum_k (x + k)^-(n+1)``, the first terms summed up to ``x + k >= 20``,
  the rest by Euler-Maclaurin (Bernoulli numbers to B10);
* erfinv: Giles' single-precision approximation refined by two Newton steps on ``erf`` (accurate to the last
  bits up to |x| -> 1, where MindSpore 2.10's CPU kernel is not: it gives erfinv(0.9999) = 2.4168, whose erf
  is 0.99931; opbuild gives 2.7510, tests/compat/test_special.py);
* I0, I1 (and the scaled forms ``exp(-|x|) I``): the power series up to |x| = 30, the asymptotic series
  beyond (no cancellation in either: every term is positive there);
* K0, K1 (and ``exp(x) K``): the trapezoid rule on the integral ``int_0^inf exp(-x cosh t) cosh(nu t) dt``;
* zeta(s, q): the first terms summed up to ``q + k >= 20``, then Euler-Maclaurin (to B14).

At the poles MindSpore's values: ``lgamma`` and ``digamma`` give inf / -inf at 0, NaN for the other
non-positive integers of digamma; ``polygamma(n, 0)`` is inf. Checked against MindSpore 2.10's outputs and
gradients (tests/compat/test_special.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.dtypes import ALL_FLOATS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor, as_tensor
from . import gradlib as G
from .elementwise import Binary, Unary, _binary_def, _unary_def, half_ref
from .primitive import Primitive, apply, declare
from .registry import OpDef, grad_rule, same_dtype

_LIBM = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
for _f in ("j0", "j1", "y0", "y1"):
    getattr(_LIBM, _f).restype = ctypes.c_double
    getattr(_LIBM, _f).argtypes = [ctypes.c_double]


def _libm(name: str):
    f = getattr(_LIBM, name)
    return np.vectorize(lambda v: f(float(v)), otypes=[np.float64])


def _d(body: str) -> str:
    """A C statement expression computing ``r_`` (double) from ``x_ = (double)x``; the value in TYPE."""
    return f"({{ double x_ = (double)x, r_; {body} (TYPE)r_; }})"


_DIGAMMA_C = _d(
    "if (x_ <= 0 && floor(x_) == x_) r_ = x_ == 0 ? -INFINITY : NAN; else { r_ = 0; "
    "if (x_ < 0) { r_ = -M_PI / tan(M_PI * x_); x_ = 1 - x_; } "
    "while (x_ < 6) { r_ -= 1 / x_; x_ += 1; } "
    "const double f_ = 1 / (x_ * x_); "
    "r_ += log(x_) - 0.5 / x_ - f_ * (1.0 / 12 - f_ * (1.0 / 120 - f_ * (1.0 / 252 - f_ * (1.0 / 240 - f_ / 132)))); }")

_ERFINV_C = _d(
    "if (x_ <= -1 || x_ >= 1) r_ = x_ == -1 ? -INFINITY : x_ == 1 ? INFINITY : NAN; else { "
    "double w_ = -log((1 - x_) * (1 + x_)), p_; "
    "if (w_ < 5) { w_ -= 2.5; p_ = 2.81022636e-08; p_ = 3.43273939e-07 + p_ * w_; p_ = -3.5233877e-06 + p_ * w_; "
    "p_ = -4.39150654e-06 + p_ * w_; p_ = 0.00021858087 + p_ * w_; p_ = -0.00125372503 + p_ * w_; "
    "p_ = -0.00417768164 + p_ * w_; p_ = 0.246640727 + p_ * w_; p_ = 1.50140941 + p_ * w_; } "
    "else { w_ = sqrt(w_) - 3; p_ = -0.000200214257; p_ = 0.000100950558 + p_ * w_; p_ = 0.00134934322 + p_ * w_; "
    "p_ = -0.00367342844 + p_ * w_; p_ = 0.00573950773 + p_ * w_; p_ = -0.0076224613 + p_ * w_; "
    "p_ = 0.00943887047 + p_ * w_; p_ = 1.00167406 + p_ * w_; p_ = 2.83297682 + p_ * w_; } "
    "r_ = p_ * x_; "
    "for (int i_ = 0; i_ < 2; i_++) r_ -= (erf(r_) - x_) / (1.1283791670955126 * exp(-r_ * r_)); }")


def _bessel_i_c(order: int, scaled: bool) -> str:
    """I0 / I1 (``order``), times ``exp(-|x|)`` when ``scaled``: series up to 30, asymptotic beyond."""
    series_step = "t_ / ((double)k_ * k_)" if order == 0 else "t_ / ((double)k_ * (k_ + 1))"
    first = "1.0" if order == 0 else "a_ / 2"
    asym_factor = "(2.0 * k_ - 1) * (2.0 * k_ - 1)" if order == 0 else "((2.0 * k_ - 1) * (2.0 * k_ - 1) - 4)"
    sign = "" if order == 0 else "if (x_ < 0) r_ = -r_; "
    return _d(
        "const double a_ = fabs(x_); "
        f"if (a_ <= 30) {{ const double t_ = a_ * a_ / 4; double term_ = {first}, s_ = term_; "
        f"for (int k_ = 1; k_ < 500 && term_ > 1e-17 * s_; k_++) {{ term_ *= {series_step}; s_ += term_; }} "
        f"r_ = {'s_ * exp(-a_)' if scaled else 's_'}; }} "
        "else { double c_ = 1, s_ = 1; "
        f"for (int k_ = 1; k_ < 20; k_++) {{ c_ *= {asym_factor} / (8.0 * k_ * a_); s_ += c_; }} "
        f"r_ = s_ / sqrt(2 * M_PI * a_){'' if scaled else ' * exp(a_)'}; }} "
        f"{sign}")


def _bessel_k_c(order: int, scaled: bool) -> str:
    """K0 / K1 (``order``), times ``exp(x)`` when ``scaled``: the trapezoid rule on ``exp(-x (cosh t - 1))
    cosh(order t)`` over t >= 0 (spectrally accurate: the integrand is analytic in a strip), with a step small
    enough for the integrand's width at large x; +inf for x <= 0."""
    weight = "1.0" if order == 0 else "cosh(t_)"
    return _d(
        "if (!(x_ > 0)) r_ = INFINITY; else { "
        "const double h_ = fmin(0.1, 0.28 / sqrt(x_)); double s_ = 0.5, t_ = 0; "
        f"for (int k_ = 1; k_ < 100000; k_++) {{ t_ = k_ * h_; const double f_ = exp(-x_ * (cosh(t_) - 1)) * {weight}; "
        "s_ += f_; if (f_ < 1e-18 * s_) break; } "
        f"r_ = h_ * s_{'' if scaled else ' * exp(-x_)'}; }} ")


def _bessel_k_scalar(order: int, scaled: bool, x: float) -> float:
    if not x > 0:
        return math.inf
    h = min(0.1, 0.28 / math.sqrt(x))
    s, k = 0.5, 1
    while True:
        t = k * h
        f = math.exp(-x * (math.cosh(t) - 1)) * (math.cosh(t) if order else 1.0)
        s += f
        k += 1
        if f < 1e-18 * s or k > 100000:
            break
    return h * s if scaled else h * s * math.exp(-x)


# ---- NumPy references (float64, the same algorithms where libm has no function) ------------------------

def _digamma_scalar(x: float) -> float:
    if x <= 0 and math.floor(x) == x:
        return -math.inf if x == 0 else math.nan
    r = 0.0
    if x < 0:
        r, x = -math.pi / math.tan(math.pi * x), 1 - x
    while x < 6:
        r, x = r - 1 / x, x + 1
    f = 1 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))))


def _polygamma_scalar(n: int, x: float) -> float:
    if n == 0:
        return _digamma_scalar(x)
    s, p = 0.0, n + 1
    if x <= 0 and math.floor(x) == x:
        return math.inf
    while x < 20:
        s, x = s + x ** -p, x + 1
    s += x ** (1 - p) / (p - 1) + 0.5 * x ** -p
    rising, fact = float(p), 2.0
    for j, b in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66), start=1):
        s += b / fact * rising * x ** (-p - 2 * j + 1)
        rising *= (p + 2 * j - 1) * (p + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
    return (-1) ** (n + 1) * math.factorial(n) * s


def _erfinv_scalar(y: float) -> float:
    if y <= -1 or y >= 1:
        return -math.inf if y == -1 else math.inf if y == 1 else math.nan
    lo, hi = -10.0, 10.0
    for _ in range(200):  # bisection to double precision (the reference need not be fast)
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return (lo + hi) / 2


def _bessel_i_scalar(order: int, scaled: bool, x: float) -> float:
    a = abs(x)
    t, term = a * a / 4, (1.0 if order == 0 else a / 2)
    s, k = term, 1
    while term > 1e-17 * s and k < 2000:
        term *= t / (k * (k + order))
        s += term
        k += 1
    r = s * math.exp(-a) if scaled else s
    return -r if order == 1 and x < 0 else r


def _vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


def _sinc(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where(x == 0, 1.0, np.sin(np.pi * x) / (np.pi * x))


SPECIAL: dict[str, Unary] = {
    "Lgamma": Unary("(TYPE)lgamma((double)x)", ALL_FLOATS, _vec(lambda v: math.inf if v <= 0 and v == math.floor(v)
                                                           else math.lgamma(v))),
    "Digamma": Unary(_DIGAMMA_C, ALL_FLOATS, _vec(_digamma_scalar)),
    "Erfinv": Unary(_ERFINV_C, ALL_FLOATS, _vec(_erfinv_scalar)),
    "Sinc": Unary("(x == 0 ? (TYPE)1 : sin((TYPE)M_PI * x) / ((TYPE)M_PI * x))", ALL_FLOATS, _sinc),
    "BesselJ0": Unary("(TYPE)j0((double)x)", ALL_FLOATS, _libm("j0")),
    "BesselJ1": Unary("(TYPE)j1((double)x)", ALL_FLOATS, _libm("j1")),
    "BesselY0": Unary("(TYPE)y0((double)x)", ALL_FLOATS, _libm("y0")),
    "BesselY1": Unary("(TYPE)y1((double)x)", ALL_FLOATS, _libm("y1")),
    "BesselI0": Unary(_bessel_i_c(0, False), ALL_FLOATS, _vec(lambda v: _bessel_i_scalar(0, False, v))),
    "BesselI0e": Unary(_bessel_i_c(0, True), ALL_FLOATS, _vec(lambda v: _bessel_i_scalar(0, True, v))),
    "BesselI1": Unary(_bessel_i_c(1, False), ALL_FLOATS, _vec(lambda v: _bessel_i_scalar(1, False, v))),
    "BesselI1e": Unary(_bessel_i_c(1, True), ALL_FLOATS, _vec(lambda v: _bessel_i_scalar(1, True, v))),
    **{f"BesselK{o}{'e' if sc else ''}": Unary(_bessel_k_c(o, sc), ALL_FLOATS,
                                                _vec(lambda v, o=o, sc=sc: _bessel_k_scalar(o, sc, v)))
       for o in (0, 1) for sc in (False, True)},
}

PRIMITIVES: dict[str, type[Primitive]] = {name: declare(_unary_def(name, u)) for name, u in SPECIAL.items()}


# ---- Polygamma (n an attribute: the order shapes the kernel) -------------------------------------------

def polygamma_c(n: int) -> str:
    """C expression of ``polygamma(n, x)`` for n >= 1 (see the module docstring)."""
    p = n + 1
    terms = []
    rising, fact = float(p), 2.0
    for j, b in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66), start=1):
        terms.append(f"s_ += {b / fact * rising!r} * pow(x_, {-p - 2 * j + 1});")
        rising *= (p + 2 * j - 1) * (p + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
    return _d(
        f"if (x_ <= 0 && floor(x_) == x_) r_ = INFINITY; else {{ double s_ = 0; "
        f"while (x_ < 20) {{ s_ += pow(x_, {-p}); x_ += 1; }} "
        f"s_ += pow(x_, {1 - p}) / {p - 1} + 0.5 * pow(x_, {-p}); {' '.join(terms)} "
        f"r_ = {(-1) ** (n + 1) * math.factorial(n)!r} * s_; }}")


def _poly_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    n = attrs.get("n")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ShapeError("Polygamma", f"n must be an int >= 0, got {n!r}", list(ins))
    return {"n": int(n)}


def _poly_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    return [TensorType(ins[0].shape, same_dtype("Polygamma", ins, ALL_FLOATS))]


def _poly_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    fn = half_ref(_vec(lambda v: _polygamma_scalar(attrs["n"], v)))
    with np.errstate(all="ignore"):
        return np.asarray(fn(x)).astype(x.dtype)


def polygamma_order(n: Any) -> int:
    """The order of ``polygamma`` from an int or a one-element int32/int64 Tensor whose value is known (it
    selects the kernel)."""
    if isinstance(n, Tensor):
        if n._type.dtype not in ("int32", "int64") or n._type.size != 1:
            raise TypeError(f"polygamma: n must be a one-element int32 or int64 Tensor, got {n._type}")
        try:
            return int(np.asarray(n.asnumpy()).reshape(()))
        except Exception as e:  # a symbolic Tensor inside a trace has no value yet
            raise TypeError("polygamma: n must be a constant (its value selects the kernel), not a value "
                            "computed inside the graph") from e
    return n


Polygamma = declare(OpDef("Polygamma", _poly_infer, _poly_ref, normalize=_poly_normalize, n_inputs=1,
                          reuse_input=True),
                    "``Polygamma()(a, x)``: the a-th derivative of digamma at x (``a`` a 0-D int Tensor whose "
                    "value is known; it is the kernel's attribute ``n``).",
                    call=lambda self, a, x: apply("Polygamma", {"n": polygamma_order(a)}, [as_tensor(x)]))
PRIMITIVES["Polygamma"] = Polygamma


# ---- Zeta (Hurwitz): a broadcasting binary row ------------------------------------------------------------

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)
ZETA_C = (
    "({ double s_ = (double)a, q_ = (double)b, r_; "
    "if (s_ == 1) r_ = INFINITY; else if (s_ < 1) r_ = NAN; "
    "else if (q_ <= 0 && floor(q_) == q_) r_ = INFINITY; "
    "else if (q_ < 0 && floor(s_) != s_) r_ = NAN; "
    "else { r_ = 0; while (q_ < 20) { r_ += pow(q_, -s_); q_ += 1; } "
    "r_ += pow(q_, 1 - s_) / (s_ - 1) + 0.5 * pow(q_, -s_); "
    "double fact_ = 2, rise_ = s_, p_ = pow(q_, -s_ - 1); "
    f"static const double bern_[] = {{{', '.join(repr(b) for b in _BERNOULLI)}}}; "
    "for (int j_ = 1; j_ <= 7; j_++) { r_ += bern_[j_ - 1] / fact_ * rise_ * p_; "
    "rise_ *= (s_ + 2 * j_ - 1) * (s_ + 2 * j_); fact_ *= (2.0 * j_ + 1) * (2.0 * j_ + 2); p_ /= q_ * q_; } } "
    "(TYPE)r_; })")


def _zeta_scalar(s: float, q: float) -> float:
    if s == 1:
        return math.inf
    if s < 1:
        return math.nan
    if q <= 0 and math.floor(q) == q:
        return math.inf
    if q < 0 and math.floor(s) != s:
        return math.nan
    r = 0.0
    while q < 20:
        r, q = r + q ** -s, q + 1
    r += q ** (1 - s) / (s - 1) + 0.5 * q ** -s
    fact, rise, p = 2.0, s, q ** (-s - 1)
    for j, b in enumerate(_BERNOULLI, start=1):
        r += b / fact * rise * p
        rise *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        p /= q * q
    return r


ZETA = Binary(ZETA_C, ALL_FLOATS, np.vectorize(_zeta_scalar, otypes=[np.float64]))
PRIMITIVES["Zeta"] = declare(_binary_def("Zeta", ZETA), "``Zeta()(x, q)``: the Hurwitz zeta function.")


# ---- gradient rules ---------------------------------------------------------------------------------------

def _unary(name: str):
    def attach(fn):
        grad_rule(name)(lambda attrs, ins, outs, douts: [fn(ins[0], outs[0], douts[0])])
        return fn

    return attach


def _zero_safe(x, value_at_zero: float, expr):
    """``expr`` where x != 0, ``value_at_zero`` at 0 (the limit), without dividing by zero there."""
    zero = apply("Equal", {}, [x, G.const(0.0, x)])
    safe = G.select(zero, G.add(G.zeros_like(x), 1.0), x)
    return G.select(zero, G.add(G.zeros_like(x), value_at_zero), expr(safe))


def _sign(x):
    return G.unary("Sign", x)


_unary("Lgamma")(lambda x, y, dy: G.mul(dy, G.unary("Digamma", x)))
_unary("Digamma")(lambda x, y, dy: G.mul(dy, apply("Polygamma", {"n": 1}, [x])))
_unary("Erfinv")(lambda x, y, dy: G.mul(dy, G.mul(G.unary("Exp", G.mul(y, y)), math.sqrt(math.pi) / 2)))
_unary("Sinc")(lambda x, y, dy: G.mul(dy, _zero_safe(
    x, 0.0, lambda s: G.div(G.sub(G.unary("Cos", G.mul(s, math.pi)), G.unary("Sinc", s)), s))))
_unary("BesselJ0")(lambda x, y, dy: G.neg(G.mul(dy, G.unary("BesselJ1", x))))
_unary("BesselJ1")(lambda x, y, dy: G.mul(dy, _zero_safe(
    x, 0.5, lambda s: G.sub(G.unary("BesselJ0", s), G.div(G.unary("BesselJ1", s), s)))))
_unary("BesselY0")(lambda x, y, dy: G.neg(G.mul(dy, G.unary("BesselY1", x))))
_unary("BesselY1")(lambda x, y, dy: G.mul(dy, G.sub(G.unary("BesselY0", x), G.div(y, x))))
_unary("BesselI0")(lambda x, y, dy: G.mul(dy, G.unary("BesselI1", x)))
_unary("BesselI0e")(lambda x, y, dy: G.mul(dy, G.sub(G.unary("BesselI1e", x), G.mul(_sign(x), y))))
_unary("BesselI1")(lambda x, y, dy: G.mul(dy, _zero_safe(
    x, 0.5, lambda s: G.sub(G.unary("BesselI0", s), G.div(G.unary("BesselI1", s), s)))))
_unary("BesselI1e")(lambda x, y, dy: G.mul(dy, _zero_safe(
    x, 0.5, lambda s: G.sub(G.unary("BesselI0e", s),
                            G.mul(G.unary("BesselI1e", s), G.add(_sign(s), G.div(G.add(G.zeros_like(s), 1.0), s)))))))


_unary("BesselK0")(lambda x, y, dy: G.neg(G.mul(dy, G.unary("BesselK1", x))))
_unary("BesselK1")(lambda x, y, dy: G.neg(G.mul(dy, G.add(G.unary("BesselK0", x), G.div(y, x)))))
_unary("BesselK0e")(lambda x, y, dy: G.mul(dy, G.sub(y, G.unary("BesselK1e", x))))
_unary("BesselK1e")(lambda x, y, dy: G.mul(dy, G.sub(G.sub(y, G.unary("BesselK0e", x)), G.div(y, x))))


@grad_rule("Zeta")
def _zeta_grad(attrs, ins, outs, douts):
    """MindSpore's rule: nothing for x (its derivative in x is not defined there), ``-x * zeta(x + 1, q)`` for
    q."""
    x, q = ins
    dq = G.mul(douts[0], G.neg(G.mul(x, apply("Zeta", {}, [G.add(x, 1.0), q]))))
    return [G.unbroadcast(G.mul(douts[0], 0.0), x._type.shape), G.unbroadcast(dq, q._type.shape)]


@grad_rule("Polygamma")
def _polygamma_grad(attrs, ins, outs, douts):
    return [G.mul(douts[0], apply("Polygamma", {"n": attrs["n"] + 1}, [ins[0]]))]


__all__ = ["PRIMITIVES", "SPECIAL", "polygamma_c", "polygamma_order"]
