"""ONNX elementwise operators and casts: one opbuild primitive each (tables of unary and binary maps), or a
short composition of primitives (integer Div, HardSigmoid, tanh Gelu, LeakyRelu, variadic Max/Min/Sum/Mean).
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from ...core.dtypes import ALL_FLOATS
from ...core.tensor import Tensor
from ...ops.compose import gelu_tanh
from .core import (
    Ctx,
    StaticValueError,
    Value,
    cast,
    const,
    converter,
    dtype,
    is_const,
    limits,
    numel,
    one_of,
    prim,
    shape,
)

# ---- elementwise ----------------------------------------------------------------------------------------

_UNARY = {
    "Sqrt": ("Sqrt", (6, 13)), "Exp": ("Exp", (6, 13)), "Log": ("Log", (6, 13)), "Erf": ("Erf", (9, 13)),
    "Tanh": ("Tanh", (6, 13)), "Sigmoid": ("Sigmoid", (6, 13)), "Relu": ("ReLU", (6, 13, 14)),
    "Neg": ("Neg", (6, 13)), "Abs": ("Abs", (6, 13)), "Reciprocal": ("Reciprocal", (6, 13)),
    "Floor": ("Floor", (6, 13)), "Ceil": ("Ceil", (6, 13)), "Round": ("Round", (11, 22)), "Sin": ("Sin", (7, 22)),
    "Cos": ("Cos", (7, 22)), "Softplus": ("Softplus", (1, 22)), "IsNaN": ("IsNan", (9, 13, 20)),
    "Not": ("LogicalNot", (1,)),
}
_BINARY = {
    "Add": ("Add", (7, 13, 14)), "Sub": ("Sub", (7, 13, 14)), "Mul": ("Mul", (7, 13, 14)),
    "Equal": ("Equal", (11, 13, 19)), "Less": ("Less", (9, 13)), "Greater": ("Greater", (9, 13)),
    "LessOrEqual": ("LessEqual", (12, 16)), "GreaterOrEqual": ("GreaterEqual", (12, 16)),
    "And": ("LogicalAnd", (7,)), "Or": ("LogicalOr", (7,)), "Xor": ("NotEqual", (7,)),
}


def _unary(op: str) -> Callable[..., Value]:
    return lambda ctx, x: prim(op, {}, x)


def _binary(op: str) -> Callable[..., Value]:
    return lambda ctx, a, b: prim(op, {}, a, b)


for _onnx, (_op, _versions) in _UNARY.items():
    converter(_onnx, _versions)(_unary(_op))
for _onnx, (_op, _versions) in _BINARY.items():
    converter(_onnx, _versions)(_binary(_op))


@converter("Div", (7, 13, 14))
def _div(ctx: Ctx, a: Value, b: Value) -> Value:
    if dtype(a).startswith(("float", "bfloat")):  # bfloat16 divides as a float, not with the integer rule
        return prim("RealDiv", {}, a, b)
    # Integer division truncates toward zero in ONNX (C's rule): a - a % b is an exact multiple of b
    # (Mod is C's remainder, the sign of the dividend), so flooring it divides exactly.
    return prim("FloorDiv", {}, prim("Sub", {}, a, prim("Mod", {}, a, b)), b)


@converter("Pow", (7, 12, 13, 15))
def _pow(ctx: Ctx, x: Value, y: Value) -> Value:
    known = is_const(y) or (isinstance(y, Tensor) and y._data is not None)  # a constant or an initializer
    if dtype(x).startswith("float") and known and numel(y) == 1:
        e = float(ctx.static(y, "Y").reshape(-1)[0])
        if e in (2.0, 3.0):
            # x**2 and x**3 (tanh GELU, variance) as products: pow() of a negative base leaves libmvec's fast
            # path (GPT-2's Pow took more time than its attention); products are exact to 1 ulp.
            sq = prim("Mul", {}, x, x)
            return sq if e == 2.0 else prim("Mul", {}, sq, x)
    if dtype(x).startswith("float") or not dtype(y).startswith("float"):
        return prim("Pow", {}, x, cast(y, dtype(x)))
    # An integer base with a float exponent: computed in the exponent's type, then cast back (the output
    # has the base's type).
    return cast(prim("Pow", {}, cast(x, dtype(y)), y), dtype(x))


@converter("Mod", (10, 13, 28), attrs=("fmod",))
def _mod(ctx: Ctx, a: Value, b: Value) -> Value:
    # fmod=0: the sign of the divisor (Python's %, FloorMod); fmod=1: the sign of the dividend (C's fmod).
    return prim("Mod" if ctx.attr("fmod", 0) else "FloorMod", {}, a, b)


def _variadic(op: str) -> Callable[..., Value]:
    def fn(ctx: Ctx, *xs: Value) -> Value:
        out = xs[0]
        for x in xs[1:]:
            out = prim(op, {}, out, x)
        return out

    return fn


converter("Max", (8, 12, 13))(_variadic("Maximum"))
converter("Min", (8, 12, 13))(_variadic("Minimum"))
converter("Sum", (8, 13))(_variadic("Add"))


@converter("Mean", (8, 13))
def _mean(ctx: Ctx, *xs: Value) -> Value:
    total = _variadic("Add")(ctx, *xs)
    return total if len(xs) == 1 else prim("RealDiv", {}, total, const(len(xs), dtype(total)))


@converter("Identity", (1, 13, 14, 16, 19, 21, 23, 24, 25))
def _identity(ctx: Ctx, x: Value) -> Value:
    return x


@converter("Dropout", (10, 12, 13, 22), attrs=("ratio", "seed"), outputs=2, static=(2,))
def _dropout(ctx: Ctx, x: Value, ratio: Value = None, training_mode: Value = None) -> Value:
    # Inference: the identity, and a mask of ones. Training mode would need random numbers.
    if training_mode is not None and bool(ctx.static(training_mode, "training_mode")):
        raise StaticValueError(f"Dropout (ONNX node {ctx.name!r}): training_mode=True is not supported "
                               f"(inference only)")
    return (x, np.ones(shape(x), dtype=bool)) if ctx.wants(1) else x


@converter("Clip", (11, 12, 13))
def _clip(ctx: Ctx, x: Value, lo: Value = None, hi: Value = None) -> Value:
    if lo is None and hi is None:
        return x
    low, high = limits(dtype(x))
    lo = const(low, dtype(x)) if lo is None else lo
    hi = const(high, dtype(x)) if hi is None else hi
    return prim("ClipByValue", {}, x, lo, hi)


def _hard_sigmoid(x: Value, alpha: float, beta: float) -> Value:
    dt = dtype(x)
    y = prim("Add", {}, prim("Mul", {}, x, const(alpha, dt)), const(beta, dt))
    return prim("ClipByValue", {}, y, const(0, dt), const(1, dt))


@converter("HardSigmoid", (6, 22), attrs=("alpha", "beta"))
def _hardsigmoid(ctx: Ctx, x: Value) -> Value:
    return _hard_sigmoid(x, ctx.attr("alpha", 0.2), ctx.attr("beta", 0.5))


@converter("HardSwish", (14, 22))
def _hardswish(ctx: Ctx, x: Value) -> Value:
    return prim("Mul", {}, x, _hard_sigmoid(x, 1 / 6, 0.5))


@converter("Gelu", (20,), attrs=("approximate",), check=one_of("approximate", ("none", "tanh"), "none"))
def _gelu(ctx: Ctx, x: Value) -> Value:
    if ctx.attr("approximate", "none") == "none":
        return prim("GeLU", {}, x)
    return gelu_tanh(GRAPH, x)  # the composition MindSpore's ops.gelu(approximate='tanh') uses too


class _GraphBuilder:
    """Builds compositions (ops/compose) as nodes of the imported graph; constants of the operand's dtype."""

    def op(self, name: str, attrs: dict, *args: Value) -> Value:
        return prim(name, attrs, *args)

    def const(self, value: float, like: Value) -> Value:
        return const(value, dtype(like))


GRAPH = _GraphBuilder()


@converter("LeakyRelu", (6, 16), attrs=("alpha",))
def _leaky_relu(ctx: Ctx, x: Value) -> Value:
    neg = prim("Less", {}, x, const(0, dtype(x)))
    return prim("Select", {}, neg, prim("Mul", {}, x, const(ctx.attr("alpha", 0.01), dtype(x))), x)


@converter("Where", (9, 16))
def _where(ctx: Ctx, cond: Value, x: Value, y: Value) -> Value:
    return prim("Select", {}, cond, x, y)


# ---- types ----------------------------------------------------------------------------------------------

# ONNX TensorProto element types opbuild has, by enum value (every standard one but STRING, the complex types,
# FLOAT8E8M0 and the 6-bit floats). The 8-bit floats, FLOAT4E2M1 and the 4-/2-bit integers are storage-only
# dtypes (dtypes.LOWP): Cast, CastLike, QuantizeLinear, DequantizeLinear and Identity take them.
ONNX_DTYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
               10: "float16", 11: "float64", 12: "uint32", 13: "uint64", 16: "bfloat16", 17: "float8_e4m3fn",
               18: "float8_e4m3fnuz", 19: "float8_e5m2", 20: "float8_e5m2fnuz", 21: "uint4", 22: "int4",
               23: "float4_e2m1fn", 25: "uint2", 26: "int2"}


def onnx_dtype(elem_type: int) -> str | None:
    """The opbuild dtype of an ONNX element type, or None if opbuild has none."""
    return ONNX_DTYPES.get(int(elem_type))


def supported_onnx_types() -> str:
    """The ONNX names of the element types opbuild has, for error messages."""
    from onnx import TensorProto

    return ", ".join(TensorProto.DataType.Name(t) for t in ONNX_DTYPES)


def _check_cast(ctx: Ctx) -> list[str]:
    to = ctx.attr("to")
    if onnx_dtype(to) is None:
        from onnx import TensorProto

        return [f"attribute to={TensorProto.DataType.Name(to)}: a dtype which opbuild does not support "
                f"(supported: {supported_onnx_types()})"]
    return []


FLOAT8 = ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz")


def saturating_cast(x: Value, dt: str, saturate: bool = True) -> Value:
    """ONNX's Cast of ``x`` to ``dt``. To an 8-bit float with ``saturate`` (ONNX's default), values beyond the
    format's range, infinities included, become its largest value of that sign (a clamp before the cast; NaN
    stays NaN); without it they become infinity or NaN (the Cast kernel's rule, ml_dtypes')."""
    if saturate and dt in FLOAT8 and dtype(x) != dt:
        if dtype(x) not in ALL_FLOATS:
            x = cast(x, "float32")  # integers and other small formats: clamped as float32
        top = float(ml_dtypes.finfo(np.dtype(dt)).max)
        x = prim("ClipByValue", {}, x, const(-top, dtype(x)), const(top, dtype(x)))
    return cast(x, dt)


_CAST_VERSIONS = (9, 13, 19, 21, 23, 24, 25, 28)


@converter("Cast", _CAST_VERSIONS, attrs=("to", "saturate", "round_mode"), check=_check_cast)
def _cast(ctx: Ctx, x: Value) -> Value:
    # round_mode only applies to FLOAT8E8M0, which opbuild does not have.
    return saturating_cast(x, onnx_dtype(ctx.attr("to")), bool(ctx.attr("saturate", 1)))


@converter("CastLike", (15, 19, 21, 23, 24, 25), attrs=("saturate", "round_mode"))
def _cast_like(ctx: Ctx, x: Value, like: Value) -> Value:
    return saturating_cast(x, dtype(like), bool(ctx.attr("saturate", 1)))
