"""ONNX math and activation operators: the elementwise math rows (Sign, Tan, Asin, ..., IsInf, the bitwise
ops) and compositions of primitives (Elu, Celu, Selu, Softsign, ThresholdedRelu, Shrink, Mish, PRelu,
Hardmax, Trilu, OneHot, EyeLike, SpaceToDepth, DepthToSpace, NonZero of a constant, BitShift)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .core import Ctx, StaticValueError, Value, const, converter, dtype, is_const, one_of, prim, reshape, shape
from .elementwise import onnx_dtype

_UNARY = {"Sign": ("Sign", (9, 13)), "Tan": ("Tan", (7, 22)), "Asin": ("Asin", (7, 22)), "Acos": ("ACos", (7, 22)),
          "Atan": ("Atan", (7, 22)), "Sinh": ("Sinh", (9, 22)), "Cosh": ("Cosh", (9, 22)),
          "Asinh": ("Asinh", (9, 22)), "Acosh": ("Acosh", (9, 22)), "Atanh": ("Atanh", (9, 22)),
          "BitwiseNot": ("Invert", (18,))}
_BINARY = {"BitwiseAnd": ("BitwiseAnd", (18,)), "BitwiseOr": ("BitwiseOr", (18,)),
           "BitwiseXor": ("BitwiseXor", (18,))}


def _unary(op: str) -> Callable[..., Value]:
    return lambda ctx, x: prim(op, {}, x)


def _binary(op: str) -> Callable[..., Value]:
    return lambda ctx, a, b: prim(op, {}, a, b)


for _onnx, (_op, _versions) in _UNARY.items():
    converter(_onnx, _versions)(_unary(_op))
for _onnx, (_op, _versions) in _BINARY.items():
    converter(_onnx, _versions)(_binary(_op))


@converter("IsInf", (10, 20), attrs=("detect_negative", "detect_positive"))
def _is_inf(ctx: Ctx, x: Value) -> Value:
    inf = prim("IsInf", {}, x)
    neg, pos = ctx.attr("detect_negative", 1), ctx.attr("detect_positive", 1)
    if neg and pos:
        return inf
    if not neg and not pos:
        return np.zeros(shape(x), bool) if is_const(x) else prim("LogicalAnd", {}, inf, np.zeros((), bool))
    side = prim("Greater" if pos else "Less", {}, x, const(0, dtype(x)))
    return prim("LogicalAnd", {}, inf, side)


# ---- activations ----------------------------------------------------------------------------------------

def _where_positive(x: Value, neg: Value) -> Value:
    return prim("Select", {}, prim("Greater", {}, x, const(0, dtype(x))), x, neg)


@converter("Elu", (6, 22), attrs=("alpha",))
def _elu(ctx: Ctx, x: Value) -> Value:
    return _where_positive(x, prim("Mul", {}, prim("Expm1", {}, x), const(ctx.attr("alpha", 1.0), dtype(x))))


@converter("Celu", (12, 28), attrs=("alpha",))
def _celu(ctx: Ctx, x: Value) -> Value:
    dt, alpha = dtype(x), float(ctx.attr("alpha", 1.0))
    neg = prim("Mul", {}, prim("Expm1", {}, prim("RealDiv", {}, x, const(alpha, dt))), const(alpha, dt))
    return prim("Add", {}, prim("Maximum", {}, x, const(0, dt)), prim("Minimum", {}, neg, const(0, dt)))


@converter("Selu", (6, 22), attrs=("alpha", "gamma"))
def _selu(ctx: Ctx, x: Value) -> Value:
    dt = dtype(x)
    alpha, gamma = ctx.attr("alpha", 1.67326319217681884765625), ctx.attr("gamma", 1.05070102214813232421875)
    y = _where_positive(x, prim("Mul", {}, prim("Expm1", {}, x), const(alpha, dt)))
    return prim("Mul", {}, y, const(gamma, dt))


@converter("Softsign", (1, 22))
def _softsign(ctx: Ctx, x: Value) -> Value:
    return prim("RealDiv", {}, x, prim("Add", {}, prim("Abs", {}, x), const(1, dtype(x))))


@converter("ThresholdedRelu", (10, 22), attrs=("alpha",))
def _thresholded_relu(ctx: Ctx, x: Value) -> Value:
    dt = dtype(x)
    return prim("Select", {}, prim("Greater", {}, x, const(ctx.attr("alpha", 1.0), dt)), x, const(0, dt))


@converter("Shrink", (9,), attrs=("bias", "lambd"))
def _shrink(ctx: Ctx, x: Value) -> Value:
    dt = dtype(x)
    bias, lambd = const(ctx.attr("bias", 0.0), dt), const(ctx.attr("lambd", 0.5), dt)
    low = prim("Select", {}, prim("Less", {}, x, prim("Neg", {}, lambd)), prim("Add", {}, x, bias), const(0, dt))
    return prim("Select", {}, prim("Greater", {}, x, lambd), prim("Sub", {}, x, bias), low)


@converter("Mish", (18, 22))
def _mish(ctx: Ctx, x: Value) -> Value:
    return prim("Mul", {}, x, prim("Tanh", {}, prim("Softplus", {}, x)))


@converter("PRelu", (9, 16))
def _prelu(ctx: Ctx, x: Value, slope: Value) -> Value:
    return prim("Select", {}, prim("Less", {}, x, const(0, dtype(x))), prim("Mul", {}, x, slope), x)


@converter("Hardmax", (13,), attrs=("axis",))
def _hardmax(ctx: Ctx, x: Value) -> Value:
    dims, dt = shape(x), dtype(x)
    axis = ctx.axis(ctx.attr("axis", -1), len(dims))
    first = prim("ArgMax", {"axis": axis, "output_type": "int64"}, x)  # the first maximum
    first = reshape(first, [1 if d == axis else n for d, n in enumerate(dims)])
    iota = np.arange(dims[axis], dtype=np.int64).reshape([-1 if d == axis else 1 for d in range(len(dims))])
    return prim("Cast", {"dtype": dt}, prim("Equal", {}, first, iota))


# ---- shapes and constants -------------------------------------------------------------------------------

@converter("Trilu", (14,), attrs=("upper",), static=(1,))
def _trilu(ctx: Ctx, x: Value, k: Value = None) -> Value:
    dims = shape(x)
    kk = 0 if k is None else int(ctx.static(k, "k").reshape(-1)[0])
    rows, cols = dims[-2], dims[-1]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    keep = (j - i >= kk) if ctx.attr("upper", 1) else (j - i <= kk)
    return prim("Select", {}, keep, x, np.zeros((), dtype(x)))


@converter("OneHot", (11, 28), attrs=("axis",), static=(1, 2))
def _one_hot(ctx: Ctx, indices: Value, depth: Value, values: Value) -> Value:
    d = int(ctx.static(depth, "depth").reshape(-1)[0])
    vals = ctx.static(values, "values").reshape(-1)
    rank = len(shape(indices)) + 1
    axis = ctx.axis(ctx.attr("axis", -1), rank)
    idx = prim("Cast", {"dtype": "int64"}, indices)
    idx = prim("Select", {}, prim("Less", {}, idx, np.zeros((), np.int64)), prim("Add", {}, idx, np.asarray(d)), idx)
    idx = reshape(idx, [*shape(indices)[:axis], 1, *shape(indices)[axis:]])
    iota = np.arange(d, dtype=np.int64).reshape([-1 if a == axis else 1 for a in range(rank)])
    return prim("Select", {}, prim("Equal", {}, idx, iota), vals[1], vals[0])


@converter("EyeLike", (9, 22), attrs=("dtype", "k"))
def _eye_like(ctx: Ctx, x: Value) -> Value:
    rows, cols = shape(x)
    dt = onnx_dtype(ctx.attr("dtype")) if ctx.attr("dtype") is not None else dtype(x)
    return np.eye(rows, cols, int(ctx.attr("k", 0)), dtype=dt)


def _check_mode(ctx: Ctx) -> list[str]:
    return one_of("mode", ("DCR", "CRD"), "DCR")(ctx)


@converter("DepthToSpace", (11, 13, 28), attrs=("blocksize", "mode"), check=_check_mode)
def _depth_to_space(ctx: Ctx, x: Value) -> Value:
    n, c, h, w = shape(x)
    b = int(ctx.attr("blocksize"))
    if ctx.attr("mode", "DCR") == "DCR":
        y = prim("Transpose", {"perm": [0, 3, 4, 1, 5, 2]}, reshape(x, [n, b, b, c // (b * b), h, w]))
    else:
        y = prim("Transpose", {"perm": [0, 1, 4, 2, 5, 3]}, reshape(x, [n, c // (b * b), b, b, h, w]))
    return reshape(y, [n, c // (b * b), h * b, w * b])


@converter("SpaceToDepth", (1, 13, 28), attrs=("blocksize", "mode"), check=_check_mode)
def _space_to_depth(ctx: Ctx, x: Value) -> Value:
    n, c, h, w = shape(x)
    b = int(ctx.attr("blocksize"))
    perm = [0, 3, 5, 1, 2, 4] if ctx.attr("mode", "DCR") == "DCR" else [0, 1, 3, 5, 2, 4]
    y = prim("Transpose", {"perm": perm}, reshape(x, [n, c, h // b, b, w // b, b]))
    return reshape(y, [n, c * b * b, h // b, w // b])


@converter("NonZero", (9, 13))
def _non_zero(ctx: Ctx, x: Value) -> Value:
    if not is_const(x):
        raise StaticValueError(f"NonZero (ONNX node {ctx.name!r}): its output shape depends on the input's values, "
                               f"which opbuild needs when the model is traced; only a NonZero of a constant (an "
                               f"initializer or a value computed from one) is supported")
    return np.asarray(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


@converter("BitShift", (11, 28), attrs=("direction",), check=one_of("direction", ("LEFT", "RIGHT"), None))
def _bit_shift(ctx: Ctx, x: Value, y: Value) -> Value:
    """Shifts as arithmetic: ``x * 2**y`` (wrapping) or ``floor(x / 2**y)`` (a sign-extending right shift).
    A shift by a negative amount or by the width or more gives 0 (-1 for a right shift of a negative x), as
    BitShift-28 defines."""
    dt = dtype(x)
    bits = np.iinfo(dt).bits
    power = prim("Pow", {}, np.asarray(2, dt), y)
    right = ctx.attr("direction") == "RIGHT"
    shifted = prim("FloorDiv" if right else "Mul", {}, x, power)
    valid = prim("LogicalAnd", {}, prim("GreaterEqual", {}, y, np.zeros((), dt)),
                 prim("Less", {}, y, np.asarray(bits, dt)))
    fill = np.zeros((), dt)
    if right and np.iinfo(dt).min < 0:
        fill = prim("Select", {}, prim("Less", {}, x, np.zeros((), dt)), np.asarray(-1, dt), np.zeros((), dt))
    return prim("Select", {}, valid, shifted, fill)
