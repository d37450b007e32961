"""``mindspore.numpy`` elementwise math: arithmetic, powers and logarithms, trigonometry, rounding and the
bitwise functions, each ``f(x[, x2], dtype=None)`` as MindSpore's NumPy layer has them.

Operands are promoted to one dtype first (a Python int counts as int32 and a float as float32, as in
MindSpore); the transcendental functions compute integer input in float32. All are compositions of
opbuild's ops, so they trace in GRAPH_MODE.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import as_float, binary, cast_out, is_float, promote, to_tensor

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "float_power",
           "remainder", "mod", "fmod", "divmod", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
           "cbrt", "square", "absolute", "abs", "fabs", "sign", "negative", "positive", "reciprocal", "sin", "cos",
           "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2",
           "deg2rad", "rad2deg", "radians", "ceil", "floor", "trunc", "fix", "rint", "clip", "maximum", "minimum",
           "heaviside", "hypot", "logaddexp", "logaddexp2", "gcd", "lcm", "copysign", "signbit", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "invert"]


def _binary(op, floats: bool = False):
    def fn(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
        a, b = binary(x1, x2)
        if floats:
            a, b = as_float(a), as_float(b)
        return cast_out(op(a, b), dtype)
    return fn


def _unary(op, floats: bool = False):
    def fn(x: Any, dtype: Any = None) -> Tensor:
        t = to_tensor(x)
        return cast_out(op(as_float(t) if floats else t), dtype)
    return fn


def _named(fn, name: str, doc: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``mindspore.numpy.{name}``: {doc}"
    return fn


add = _named(_binary(F.add), "add", "``x1 + x2`` elementwise, after promotion to one dtype.")
subtract = _named(_binary(F.sub), "subtract", "``x1 - x2`` elementwise.")
multiply = _named(_binary(F.mul), "multiply", "``x1 * x2`` elementwise.")
divide = _named(_binary(F.div, floats=True), "divide", "true division; integer operands give float32.")
true_divide = _named(_binary(F.div, floats=True), "true_divide", "the same as :func:`divide`.")
floor_divide = _named(_binary(F.floor_divide), "floor_divide", "the largest integer not above ``x1 / x2``.")
power = _named(_binary(F.pow), "power", "``x1 ** x2`` elementwise.")
float_power = _named(_binary(F.pow, floats=True), "float_power", "``x1 ** x2`` computed in floating point "
                     "(float32 for integer operands: MindSpore's NumPy layer has no float64 default).")
remainder = _named(_binary(F.remainder), "remainder", "the remainder with the divisor's sign (Python's ``%``).")
mod = _named(_binary(F.remainder), "mod", "the same as :func:`remainder`.")
fmod = _named(_binary(F.fmod), "fmod", "the remainder with the dividend's sign (C's ``fmod``).")


def divmod(x1: Any, x2: Any, dtype: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A001 - NumPy's name
    """``mindspore.numpy.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2, dtype), remainder(x1, x2, dtype)


exp = _named(_unary(F.exp, True), "exp", "``e ** x``.")
exp2 = _named(_unary(F.exp2, True), "exp2", "``2 ** x``.")
expm1 = _named(_unary(F.expm1, True), "expm1", "``exp(x) - 1``.")
log = _named(_unary(F.log, True), "log", "the natural logarithm.")
log2 = _named(_unary(F.log2, True), "log2", "the base-2 logarithm.")
log10 = _named(_unary(F.log10, True), "log10", "the base-10 logarithm.")
log1p = _named(_unary(F.log1p, True), "log1p", "``log(1 + x)``.")
sqrt = _named(_unary(F.sqrt, True), "sqrt", "the square root.")
square = _named(_unary(F.square), "square", "``x * x``.")
absolute = _named(_unary(F.abs), "absolute", "the absolute value.")
abs = _named(_unary(F.abs), "abs", "the absolute value.")  # noqa: A001 - NumPy's name
fabs = _named(_unary(F.abs, True), "fabs", "the absolute value as a float.")
sign = _named(_unary(F.sign, True), "sign", "-1, 0 or 1 by the sign of x (as a float, integers too).")
negative = _named(_unary(F.neg), "negative", "``-x``.")
positive = _named(_unary(lambda t: t), "positive", "``+x`` (x itself).")
reciprocal = _named(_unary(F.reciprocal), "reciprocal", "``1 / x``.")
sin = _named(_unary(F.sin, True), "sin", "the sine.")
cos = _named(_unary(F.cos, True), "cos", "the cosine.")
tan = _named(_unary(F.tan, True), "tan", "the tangent.")
arcsin = _named(_unary(F.asin, True), "arcsin", "the inverse sine.")
arccos = _named(_unary(F.acos, True), "arccos", "the inverse cosine.")
arctan = _named(_unary(F.atan, True), "arctan", "the inverse tangent.")
sinh = _named(_unary(F.sinh, True), "sinh", "the hyperbolic sine.")
cosh = _named(_unary(F.cosh, True), "cosh", "the hyperbolic cosine.")
tanh = _named(_unary(F.tanh, True), "tanh", "the hyperbolic tangent.")
arcsinh = _named(_unary(F.asinh, True), "arcsinh", "the inverse hyperbolic sine.")
arccosh = _named(_unary(F.acosh, True), "arccosh", "the inverse hyperbolic cosine.")
arctanh = _named(_unary(F.atanh, True), "arctanh", "the inverse hyperbolic tangent.")
arctan2 = _named(_binary(F.atan2, floats=True), "arctan2", "the angle of the point (x2, x1), in radians.")
deg2rad = _named(_unary(lambda t: t * (math.pi / 180.0), True), "deg2rad", "degrees to radians.")
radians = _named(_unary(lambda t: t * (math.pi / 180.0), True), "radians", "degrees to radians.")
rad2deg = _named(_unary(lambda t: t * (180.0 / math.pi), True), "rad2deg", "radians to degrees.")
ceil = _named(_unary(F.ceil, True), "ceil", "the smallest integer not below x (as a float).")
floor = _named(_unary(F.floor, True), "floor", "the largest integer not above x (as a float).")
trunc = _named(_unary(F.trunc, True), "trunc", "x rounded towards zero (as a float).")
fix = _named(_unary(F.trunc, True), "fix", "x rounded towards zero (as a float).")
rint = _named(_unary(F.round, True), "rint", "x rounded to the nearest integer, halves to even.")


def cbrt(x: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.cbrt``: the real cube root (negative for negative x)."""
    t = as_float(to_tensor(x))
    return cast_out(F.sign(t) * F.pow(F.abs(t), 1.0 / 3.0), dtype)


def clip(a: Any, a_min: Any, a_max: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.clip``: ``a`` limited to [a_min, a_max] (either may be None, not both)."""
    if a_min is None and a_max is None:
        raise ValueError("clip: a_min and a_max cannot both be None")
    t = to_tensor(a)
    if a_min is not None:
        t = F.maximum(*promote(t, to_tensor(a_min)))
    if a_max is not None:
        t = F.minimum(*promote(t, to_tensor(a_max)))
    return cast_out(t, dtype)


maximum = _named(_binary(F.maximum), "maximum", "the larger of x1 and x2 elementwise (NaN propagates).")
minimum = _named(_binary(F.minimum), "minimum", "the smaller of x1 and x2 elementwise (NaN propagates).")


def heaviside(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.heaviside``: 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0."""
    a, b = binary(x1, x2)
    a, b = F.broadcast_to(a, _bshape(a, b)), F.broadcast_to(b, _bshape(a, b))
    zero, one = F.zeros_like(a), F.ones_like(a)
    return cast_out(F.select(F.less(a, zero), zero, F.select(F.greater(a, zero), one, b)), dtype)


def _bshape(a: Tensor, b: Tensor) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(a.shape, b.shape))


hypot = _named(_binary(F.hypot, floats=True), "hypot", "``sqrt(x1**2 + x2**2)``.")
logaddexp = _named(_binary(F.logaddexp, floats=True), "logaddexp", "``log(exp(x1) + exp(x2))``, without "
                   "overflow.")
logaddexp2 = _named(_binary(F.logaddexp2, floats=True), "logaddexp2", "``log2(2**x1 + 2**x2)``, without "
                    "overflow.")
gcd = _named(_binary(F.gcd), "gcd", "the greatest common divisor of integer tensors.")
lcm = _named(_binary(F.lcm), "lcm", "the least common multiple of integer tensors.")


def copysign(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.copysign``: the magnitude of x1 with the sign of x2."""
    a, b = binary(x1, x2)
    mag = F.abs(a)
    neg = F.signbit(b) if is_float(b) else F.less(b, F.zeros_like(b))
    mag = F.broadcast_to(mag, _bshape(mag, b))
    return cast_out(F.select(F.broadcast_to(neg, mag.shape), F.neg(mag), mag), dtype)


def signbit(x: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.signbit``: True where the sign bit is set (x < 0, and -0.0)."""
    t = to_tensor(x)
    out = F.signbit(t) if is_float(t) else F.less(t, F.zeros_like(t))
    return cast_out(out, dtype)


bitwise_and = _named(_binary(F.bitwise_and), "bitwise_and", "bitwise AND of integer or bool tensors.")
bitwise_or = _named(_binary(F.bitwise_or), "bitwise_or", "bitwise OR of integer or bool tensors.")
bitwise_xor = _named(_binary(F.bitwise_xor), "bitwise_xor", "bitwise XOR of integer or bool tensors.")
invert = _named(_unary(F.invert), "invert", "bitwise NOT of integer or bool tensors.")
bitwise_not = _named(_unary(F.invert), "bitwise_not", "bitwise NOT of integer or bool tensors.")
