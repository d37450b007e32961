"""Gradient rules of the elementwise math rows (Sign, Tan, Asin, ACos, ..., Atan2, the bitwise ops) of
ops/elementwise.py, kept here so that module stays within its size budget."""

from __future__ import annotations

from . import gradlib as G
from .elementwise import _binary_rule, _unary_rule
from .registry import no_grad

no_grad("Sign", "Trunc", "IsInf", "Invert", "BitwiseAnd", "BitwiseOr", "BitwiseXor")

_unary_rule("Tan")(lambda x, y, dy: G.mul(dy, G.add(G.mul(y, y), 1.0)))
_unary_rule("Asin")(lambda x, y, dy: G.mul(dy, G.unary("Rsqrt", G.sub(G.const(1, x), G.mul(x, x)))))
_unary_rule("ACos")(lambda x, y, dy: G.neg(G.mul(dy, G.unary("Rsqrt", G.sub(G.const(1, x), G.mul(x, x))))))
_unary_rule("Atan")(lambda x, y, dy: G.div(dy, G.add(G.mul(x, x), 1.0)))
_unary_rule("Sinh")(lambda x, y, dy: G.mul(dy, G.unary("Cosh", x)))
_unary_rule("Cosh")(lambda x, y, dy: G.mul(dy, G.unary("Sinh", x)))
_unary_rule("Asinh")(lambda x, y, dy: G.mul(dy, G.unary("Rsqrt", G.add(G.mul(x, x), 1.0))))
_unary_rule("Acosh")(lambda x, y, dy: G.mul(dy, G.unary("Rsqrt", G.sub(G.mul(x, x), 1.0))))
_unary_rule("Atanh")(lambda x, y, dy: G.div(dy, G.sub(G.const(1, x), G.mul(x, x))))
_unary_rule("Expm1")(lambda x, y, dy: G.mul(dy, G.add(y, 1.0)))
_unary_rule("Log1p")(lambda x, y, dy: G.div(dy, G.add(x, 1.0)))

# atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2)
_binary_rule("Atan2")(lambda a, b, out, dy: (G.div(G.mul(dy, b), G.add(G.mul(a, a), G.mul(b, b))),
                                             G.neg(G.div(G.mul(dy, a), G.add(G.mul(a, a), G.mul(b, b))))))
