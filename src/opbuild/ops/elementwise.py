"""Elementwise operators: unary maps, broadcasting binary maps, Select, Cast and clip_by_value.

Each op is one row of a table: its scalar expression in C syntax (``x``, or ``a`` and ``b``: target-neutral
data, which the CPU's kernels, targets/cpu/kernels/elementwise.py, wrap in loops), the dtypes it accepts, its
output dtype rule and its NumPy reference.

Narrow types (docs/dtypes.md): float16 and bfloat16 operands are computed in float32 and the result rounds
once; the reference does the same in NumPy (float32, then a cast). Integer expressions wrap as NumPy's do.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.dtypes import (
    ALL_FLOATS,
    ALL_INTS,
    ALL_NUMERIC,
    ANY,
    BY_NAME,
    COMPLEX,
    LOWP,
    NUMERIC_C,
    complex_of,
    dtype_of,
    promote_types,
    real_of,
)
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import as_tensor
from . import lowp
from .api.base import binary  # MindSpore's implicit promotion for the binary primitive classes
from .primitive import Primitive, apply, declare, primitive_class
from .registry import OpDef, allow_complex, broadcast_shapes, same_dtype

_FC = ALL_FLOATS + COMPLEX  # the float rows that also compute complex numbers
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


@dataclass(frozen=True)
class Unary:
    """A unary op: ``expr`` in ``x`` for floats, ``int_expr`` for ints (defaults to ``expr``), ``f32_expr`` for
    float32 (defaults to ``expr``; a prelude helper where libm's function does not vectorise well); ``TYPE`` in
    any of them stands for the input's C type."""

    expr: str
    dtypes: tuple[str, ...]
    ref: Callable[[np.ndarray], np.ndarray]
    int_expr: str | None = None
    out: str | None = None  # fixed output dtype (e.g. "bool"), "real"/"complex" (real_of/complex_of); None: the input's
    f32_expr: str | None = None
    c_expr: str | None = None  # for complex64/complex128 (defaults to ``expr``; <tgmath.h> picks cexp, ...)


def _gelu(x):
    # erfc form: 1 + erf(z) cancels catastrophically for z << 0, erfc(-z) does not.
    return 0.5 * x * _erfc(-x / np.sqrt(2.0))


UNARY: dict[str, Unary] = {
    "Square": Unary("x * x", NUMERIC_C, np.square),
    "Sqrt": Unary("sqrt(x)", _FC, np.sqrt),
    "Rsqrt": Unary("1 / sqrt(x)", ALL_FLOATS, lambda x: 1 / np.sqrt(x)),
    "Exp": Unary("exp(x)", _FC, np.exp),
    "Log": Unary("log(x)", _FC, np.log),
    # A complex input keeps its dtype (|z| + 0j), as MindSpore's ops.abs gives; ops.ComplexAbs is real.
    "Abs": Unary("fabs(x)", NUMERIC_C, np.abs, int_expr="(x < 0 ? -x : x)"),
    "Neg": Unary("-x", NUMERIC_C, np.negative),
    "Reciprocal": Unary("1 / x", _FC, np.reciprocal),
    "Sin": Unary("sin(x)", _FC, np.sin),
    "Cos": Unary("cos(x)", _FC, np.cos),
    # codegen's ob_tanhf / ob_tanh (within 5.7 / 2.6 ulp): vectorised, and faster than libmvec's and NumPy's.
    "Tanh": Unary("ob_tanh(x)", _FC, np.tanh, f32_expr="ob_tanhf(x)", c_expr="tanh(x)"),
    "Sigmoid": Unary("1 / (1 + exp(-x))", _FC, lambda x: 1 / (1 + np.exp(-x))),
    # Written so that NaN fails every comparison and passes through, as np.maximum/np.minimum propagate it.
    "ReLU": Unary("(x < 0 ? 0 : x)", ALL_NUMERIC, lambda x: np.maximum(x, 0)),
    "ReLU6": Unary("(x < 0 ? 0 : (x > 6 ? 6 : x))", ALL_NUMERIC, lambda x: np.minimum(np.maximum(x, 0), 6)),
    # In the input's precision ((TYPE) casts keep float32 in float, so it vectorises with erfcf), and in the
    # erfc form, accurate in the negative tail where 1 + erf(z) would cancel.
    "GeLU": Unary("x * (TYPE)0.5 * erfc(x * (TYPE)-0.70710678118654752440)", ALL_FLOATS, _gelu),
    "Erf": Unary("erf(x)", ALL_FLOATS, _erf),
    # log(1 + e^x) without overflow: x + log1p(e^-x) for large x.
    "Softplus": Unary("(x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)))", ALL_FLOATS, lambda x: np.logaddexp(0, x)),
    "Floor": Unary("floor(x)", ALL_FLOATS, np.floor),
    "Ceil": Unary("ceil(x)", ALL_FLOATS, np.ceil),
    "Round": Unary("rint(x)", ALL_FLOATS, np.round),  # rint rounds half to even, as NumPy does
    "IsNan": Unary("isnan(x)", ALL_FLOATS, np.isnan, out="bool"),
    # Neither inf nor NaN: the overflow check of loss-scaled training (nn/loss_scale.py, amp.all_finite).
    "IsFinite": Unary("isfinite(x)", ALL_FLOATS, np.isfinite, out="bool"),
    "LogicalNot": Unary("!x", ("bool",), np.logical_not),
    # MindSpore's math primitives (and ONNX's Sign, Tan, Asin, ..., IsInf).
    "Sign": Unary("(x > 0 ? (TYPE)1 : (x < 0 ? (TYPE)-1 : (x == 0 ? (TYPE)0 : x)))", NUMERIC_C, np.sign,
                  int_expr="(TYPE)((x > 0) - (x < 0))", c_expr="(x == 0 ? x : x / fabs(x))"),
    **{name: Unary(f"{fn}(x)", ALL_FLOATS, ref) for name, fn, ref in (
        ("Tan", "tan", np.tan), ("Asin", "asin", np.arcsin), ("ACos", "acos", np.arccos), ("Atan", "atan", np.arctan),
        ("Sinh", "sinh", np.sinh), ("Cosh", "cosh", np.cosh), ("Asinh", "asinh", np.arcsinh),
        ("Acosh", "acosh", np.arccosh), ("Atanh", "atanh", np.arctanh), ("Expm1", "expm1", np.expm1),
        ("Log1p", "log1p", np.log1p))},
    "Trunc": Unary("trunc(x)", ALL_FLOATS, np.trunc),
    "IsInf": Unary("isinf(x)", ALL_FLOATS, np.isinf, out="bool"),
    "Invert": Unary("~x", ALL_INTS, np.invert),
    # The complex family (docs/fft.md); on a real input Real and Conj are the identity and Imag is zero, as in
    # MindSpore. <tgmath.h>'s creal/cimag/conj/carg accept both.
    "Real": Unary("creal(x)", _FC, np.real, out="real"),
    "Imag": Unary("cimag(x)", _FC, np.imag, out="real"),
    "Conj": Unary("conj(x)", _FC, np.conj),
    "Angle": Unary("carg(x)", COMPLEX, np.angle, out="real"),
    "ComplexAbs": Unary("cabs(x)", COMPLEX, np.abs, out="real"),
}


@dataclass(frozen=True)
class Binary:
    """A broadcasting binary op: ``expr`` in ``a`` and ``b`` (``int_expr`` for ints)."""

    expr: str
    dtypes: tuple[str, ...]
    ref: Callable[[np.ndarray, np.ndarray], np.ndarray]
    int_expr: str | None = None
    out: str | None = None


def out_dtype(out: str | None, dt: str) -> str:
    """The output dtype of a table row whose rule is ``out`` for input dtype ``dt``."""
    if out == "real":
        return real_of(dt)
    if out == "complex":
        return complex_of(dt)
    return out or dt


def _complex_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # Parts assigned, not a + 1j * b: an infinite imaginary part would make the real part NaN (inf * 0).
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape, np.complex128 if a.dtype == np.float64 else np.complex64)
    out.real, out.imag = a, b
    return out


_NAN_MAX = "((a > b || a != a) ? a : b)"  # NaN-propagating, like np.maximum
_NAN_MIN = "((a < b || a != a) ? a : b)"
_CMP = ANY
# Integer division must never trap (SIGFPE kills the whole process): x / 0 and MIN / -1 are guarded and give
# what NumPy gives (0 for a zero divisor; MIN // -1 wraps to MIN, computed in unsigned arithmetic).
_INT_FLOORDIV = "(b == 0 ? (TYPE)0 : b == -1 ? (TYPE)(0 - (uint64_t)a) : (TYPE)ob_floordiv_i64(a, b))"
# Float floor division as NumPy (and Python) define it: from fmod, so that a == (a // b) * b + a % b holds
# with FloorMod, rather than floor(a / b), whose rounded quotient differs (floor(1 / 0.1) = 10, but
# 1 // 0.1 = 9) and which gives inf for inf // 2 where NumPy gives nan. A port of npy_divmod (GNU statement
# expression).
_FLOAT_FLOORDIV = (
    "({ const TYPE m_ = fmod(a, b); TYPE d_ = (a - m_) / b; "
    "if (m_ != 0 && ((b < 0) != (m_ < 0))) d_ -= 1; "
    "TYPE f_ = floor(d_); if (d_ - f_ > (TYPE)0.5) f_ += 1; "
    "b == 0 ? a / b : (d_ != 0 ? f_ : copysign((TYPE)0, a / b)); })"
)
# Integer power by squaring in uint64 arithmetic: exact, and wrapping on overflow as NumPy's integer power
# does (pow() through double lost the low bits above 2**53). NumPy rejects negative exponents; a kernel cannot
# raise, so they give the integer part of the exact result: 1 ** -n = 1, (-1) ** -n = +-1, otherwise 0.
_INT_POW = (
    "({ uint64_t r_ = 1, x_ = (uint64_t)a; int64_t e_ = b; "
    "while (e_ > 0) { if (e_ & 1) r_ *= x_; x_ *= x_; e_ >>= 1; } "
    "b >= 0 ? (TYPE)r_ : (a == 1 ? (TYPE)1 : a == -1 ? (TYPE)((b & 1) ? -1 : 1) : (TYPE)0); })"
)


def _pow_ref(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.power, with the kernel's rule for negative integer exponents (where NumPy raises).

    Float exponents are copied out to full arrays first: given a scalar (or stride-0 broadcast) exponent of
    0.5, 2 or -1, NumPy switches to sqrt, square or reciprocal, and sqrt(-inf) is NaN where C's (and NumPy's
    own elementwise) pow(-inf, 0.5) is +inf. The kernel computes pow for every element. 0-d operands are made
    1-d for the call: NumPy takes the same scalar shortcut when both are 0-d."""
    a, b = np.broadcast_arrays(a, b)
    if a.dtype.kind != "i":
        return np.power(np.atleast_1d(a), np.atleast_1d(np.array(b))).reshape(a.shape)
    out = np.power(a, np.maximum(b, 0))
    neg = b < 0
    neg_result = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 1, -1, 1), 0))
    return np.where(neg, neg_result, out).astype(a.dtype)


_INT_MOD = "((b == 0 || b == -1) ? (TYPE)0 : (TYPE)(a % b))"
_INT_FLOORMOD = "((b == 0 || b == -1) ? (TYPE)0 : (TYPE)ob_mod_i64(a, b))"

BINARY: dict[str, Binary] = {
    "Add": Binary("a + b", NUMERIC_C, np.add),
    "Sub": Binary("a - b", NUMERIC_C, np.subtract),
    "Mul": Binary("a * b", NUMERIC_C, np.multiply),
    "RealDiv": Binary("a / b", _FC, np.true_divide),
    "Pow": Binary("pow(a, b)", NUMERIC_C, _pow_ref, int_expr=_INT_POW),
    "Maximum": Binary(_NAN_MAX, ALL_NUMERIC, np.maximum, int_expr="(a > b ? a : b)"),
    "Minimum": Binary(_NAN_MIN, ALL_NUMERIC, np.minimum, int_expr="(a < b ? a : b)"),
    "FloorDiv": Binary(_FLOAT_FLOORDIV, ALL_NUMERIC, np.floor_divide, int_expr=_INT_FLOORDIV),
    # Mod: remainder with the sign of the dividend (C fmod, NumPy fmod); FloorMod: sign of the divisor (%).
    "Mod": Binary("fmod(a, b)", ALL_NUMERIC, np.fmod, int_expr=_INT_MOD),
    # A zero remainder takes the divisor's sign (-4.0 % 2.0 is 0.0, not fmod's -0.0), as NumPy's and MindSpore's.
    "FloorMod": Binary("(fmod(a, b) == 0 ? copysign(0.0, b) : ((fmod(a, b) < 0) != (b < 0)) ? fmod(a, b) + b "
                       ": fmod(a, b))",
                       ALL_NUMERIC, np.mod, int_expr=_INT_FLOORMOD),
    "Equal": Binary("a == b", _CMP + COMPLEX, np.equal, out="bool"),
    "NotEqual": Binary("a != b", _CMP + COMPLEX, np.not_equal, out="bool"),
    "Less": Binary("a < b", ALL_NUMERIC, np.less, out="bool"),
    "LessEqual": Binary("a <= b", ALL_NUMERIC, np.less_equal, out="bool"),
    "Greater": Binary("a > b", ALL_NUMERIC, np.greater, out="bool"),
    "GreaterEqual": Binary("a >= b", ALL_NUMERIC, np.greater_equal, out="bool"),
    "LogicalAnd": Binary("a && b", ("bool",), np.logical_and),
    "LogicalOr": Binary("a || b", ("bool",), np.logical_or),
    "Atan2": Binary("atan2(a, b)", ALL_FLOATS, np.arctan2),
    "BitwiseAnd": Binary("a & b", ALL_INTS, np.bitwise_and),
    "BitwiseOr": Binary("a | b", ALL_INTS, np.bitwise_or),
    "BitwiseXor": Binary("a ^ b", ALL_INTS, np.bitwise_xor),
    # ops.Complex(real, imag): gcc's __builtin_complex builds it from the parts (x + y * I would give a NaN real
    # part for an infinite y).
    "Complex": Binary("__builtin_complex((TYPE)a, (TYPE)b)", ("float32", "float64"), _complex_ref, out="complex"),
}


# ---- C expressions: one per op and input dtype, shared by the op's own kernel and by fused kernels -------


# ---- unary ----------------------------------------------------------------------------------------


def half_ref(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The reference of a kernel that computes half types in float32: float16/bfloat16 arrays are widened
    to float32 before ``fn`` and the float results rounded back once, exactly the kernels' rule."""

    def ref(*arrays: np.ndarray) -> np.ndarray:
        halfs = [a.dtype for a in arrays if isinstance(a, np.ndarray) and BY_NAME.get(a.dtype.name, None)
                 and BY_NAME[a.dtype.name].is_half]
        if not halfs:
            return fn(*arrays)
        wide = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == halfs[0] else a for a in arrays]
        out = np.asarray(fn(*wide))
        return out.astype(halfs[0]) if out.dtype.kind == "f" else out

    return ref


def _unary_def(name: str, u: Unary) -> OpDef:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(name, ins, u.dtypes)
        return [TensorType(ins[0].shape, out_dtype(u.out, dt))]

    ref = half_ref(u.ref)

    def reference(attrs: dict, x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return ref(x)

    return OpDef(name, infer, reference, n_inputs=1, reuse_input=True)


# ---- n-ary broadcasting maps ----------------------------------------------------------------------


def _binary_def(name: str, b: Binary) -> OpDef:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(name, ins, b.dtypes)
        return [TensorType(broadcast_shapes(name, ins), out_dtype(b.out, dt))]

    ref = half_ref(b.ref)

    def reference(attrs: dict, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            return ref(x, y)

    return OpDef(name, infer, reference, n_inputs=2, reuse_input=True)


def _select_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    if ins[0].dtype != "bool":
        raise ShapeError("Select", "condition (input 0) must be bool", list(ins))
    dt = same_dtype("Select", ins[1:], ANY)
    return [TensorType(broadcast_shapes("Select", ins), dt)]


def _clip_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("ClipByValue", ins, ALL_NUMERIC)
    return [TensorType(broadcast_shapes("ClipByValue", ins), dt)]


def _cast_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    try:
        dst = dtype_of(attrs.get("dtype")).name
    except TypeError as e:
        raise ShapeError("Cast", str(e), list(ins)) from None
    if (dst in COMPLEX and ins[0].dtype in LOWP) or (ins[0].dtype in COMPLEX and dst in LOWP):
        raise ShapeError("Cast", f"no cast between {ins[0].dtype} and {dst}; cast through float32", list(ins))
    return {"dtype": dst}


def cast_reference(x: np.ndarray, dtype: str) -> np.ndarray:
    """NumPy's astype with the kernel's defined float -> integer rule: NaN -> 0, out of range (and +-inf)
    saturating to the integer type's limits, the rest truncated toward zero (NumPy leaves those undefined)."""
    dst = dtype_of(dtype)
    if x.dtype.kind == "c" and not dst.is_complex:
        x = np.real(x)  # the kernel's rule: the real part, then the real type's conversion
    if dst.storage_only or x.dtype.name in LOWP:
        return lowp.cast_reference(x, dst.name, cast_reference)
    if not (dst.is_int and x.dtype.kind in "fV"):
        return x.astype(dst.np_dtype)
    info = np.iinfo(dst.np_dtype)
    w = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(np.isnan(w), 0.0, w))
        inside = (t >= float(info.min)) & (t < 2.0 ** (info.bits - (0 if dst.is_unsigned else 1)))
        # float64 cannot hold every int64, so the in-range values are converted from the float directly
        out = np.where(inside, np.where(inside & ~np.isnan(w), w, 0).astype(dst.np_dtype), 0).astype(dst.np_dtype)
    out[~inside & (t < 0)] = info.min
    out[~inside & (t > 0)] = info.max
    return out


# ---- declarations: each table row, and each op below, is one OpDef plus its primitive class ----------------

def _binary_call(self, x, y):
    return binary(self.op_name, x, y)


def _cast_call(self, x, dtype):
    return apply("Cast", {"dtype": dtype}, [x])


def _select_call(self, cond, x, y):
    x = as_tensor(x, y if not isinstance(y, (int, float, bool)) else None)
    y = as_tensor(y, x)
    if x.dtype != y.dtype:  # MindSpore promotes the branches to their common type (int64 with int32: int64)
        dt = promote_types(x.dtype, y.dtype).name
        x, y = (t if t.dtype.name == dt else apply("Cast", {"dtype": dt}, [t]) for t in (x, y))
    return apply("Select", {}, [cond, x, y])


PRIMITIVES: dict[str, type[Primitive]] = {name: declare(_unary_def(name, u)) for name, u in UNARY.items()}
PRIMITIVES.update({name: declare(_binary_def(name, b), call=_binary_call) for name, b in BINARY.items()})
PRIMITIVES["Div"] = primitive_class("RealDiv", "Division (alias of RealDiv).", call=_binary_call)
PRIMITIVES["Select"] = declare(
    OpDef("Select", _select_infer, lambda attrs, c, a, b: np.where(c, a, b), n_inputs=3, reuse_input=True),
    "Select(cond, x, y): x where cond else y (np.where).", call=_select_call)
# Not exported: MindSpore has no ops.ClipByValue primitive; users call ops.clip_by_value (functional.py).
declare(OpDef("ClipByValue", _clip_infer,
              lambda attrs, x, lo, hi: half_ref(lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi))(x, lo, hi),
              n_inputs=3, reuse_input=True),
        "ClipByValue(x, lo, hi): x clamped to [lo, hi] (ops.clip_by_value).")
PRIMITIVES["Cast"] = declare(
    OpDef("Cast", lambda attrs, ins: [TensorType(ins[0].shape, attrs["dtype"])],
          lambda attrs, x: cast_reference(x, attrs["dtype"]), normalize=_cast_normalize, n_inputs=1,
          reuse_input=True),
    "Cast(x, dtype).", call=_cast_call)


# ---- backward ops and gradient rules --------------------------------------------------------------------
# The backward maps MindSpore has as primitives of their own (ReluGrad, SigmoidGrad, ...), one fused kernel
# each instead of three or four elementwise nodes. Registered (so they build and cache like any op) but not
# exported: MindSpore keeps them in its internal _grad_ops, not in ``ops``.

_INV_SQRT_2PI = "(TYPE)0.39894228040143267794"
GRAD_BINARY: dict[str, Binary] = {
    # ReluGrad(dy, y): y is the forward output (y > 0 exactly where x > 0); NaN in y gives 0 as in MindSpore.
    "ReluGrad": Binary("(b > 0 ? a : (TYPE)0)", ALL_FLOATS, lambda dy, y: np.where(y > 0, dy, 0).astype(dy.dtype)),
    # ReLU6Grad(dy, x): dy on 0 < x <= 6 (MindSpore 2.10's CPU kernel passes the gradient at x == 6).
    "ReLU6Grad": Binary("((b > 0 && b <= 6) ? a : (TYPE)0)", ALL_FLOATS,
                        lambda dy, x: np.where((x > 0) & (x <= 6), dy, 0).astype(dy.dtype)),
    # SigmoidGrad(y, dy) = dy * y * (1 - y); TanhGrad(y, dy) = dy * (1 - y^2): MindSpore's operand order.
    "SigmoidGrad": Binary("b * a * ((TYPE)1 - a)", ALL_FLOATS, lambda y, dy: dy * y * (1 - y)),
    "TanhGrad": Binary("b * ((TYPE)1 - a * a)", ALL_FLOATS, lambda y, dy: dy * (1 - y * y)),
    # GeLUGrad(dy, x) = dy * (Phi(x) + x * phi(x)), the exact (erf) GeLU's derivative.
    "GeLUGrad": Binary(f"a * ((TYPE)0.5 * erfc(b * (TYPE)-0.70710678118654752440) + b * {_INV_SQRT_2PI} * "
                       "exp((TYPE)-0.5 * b * b))", ALL_FLOATS,
                       lambda dy, x: dy * (0.5 * _erfc(-x / np.sqrt(2.0)) + x * np.exp(-0.5 * x * x)
                                           / np.sqrt(2 * np.pi))),
}
for _name, _b in GRAD_BINARY.items():
    _def = _binary_def(_name, _b)
    _def.scenario = "backward"  # `opbuild cache ls` shows these kernels as the backward of a train step
    declare(_def, f"{_name}: a backward map (internal, as in MindSpore's _grad_ops).")

allow_complex(*(n for n, r in {**UNARY, **BINARY}.items() if set(r.dtypes) & set(COMPLEX)), "Complex", "Cast")

# The ops a fusion pass may merge into one kernel (passes/fusion.py): every op a target can evaluate as one
# member expression of a fused loop (the CPU's: targets/cpu/kernels/elementwise.py member_expr).
FUSIBLE: frozenset[str] = frozenset({*UNARY, *BINARY, *GRAD_BINARY, "Select", "ClipByValue", "Cast"})

from . import gradlib as G  # noqa: E402  (gradlib applies the primitives declared above)
from .registry import grad_rule, no_grad  # noqa: E402

no_grad("Floor", "Ceil", "Round", "IsNan", "IsFinite", "LogicalNot", "FloorDiv", "Equal", "NotEqual", "Less",
        "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr")
# GRAD_BINARY's rules (second-order derivatives): ops/backward_grads.py.


def _unary_rule(name: str):
    """Register ``fn(x, y, dy) -> dx`` as the rule of unary op ``name``."""

    def attach(fn):
        grad_rule(name)(lambda attrs, ins, outs, douts: [fn(ins[0], outs[0], douts[0])])
        return fn

    return attach


_unary_rule("Square")(lambda x, y, dy: G.mul(dy, G.mul(x, 2.0)))
_unary_rule("Sqrt")(lambda x, y, dy: G.div(G.mul(dy, 0.5), y))
_unary_rule("Rsqrt")(lambda x, y, dy: G.mul(dy, G.mul(G.mul(y, G.mul(y, y)), -0.5)))
_unary_rule("Exp")(lambda x, y, dy: G.mul(dy, y))
_unary_rule("Log")(lambda x, y, dy: G.div(dy, x))
_unary_rule("Neg")(lambda x, y, dy: G.neg(dy))
_unary_rule("Reciprocal")(lambda x, y, dy: G.neg(G.mul(dy, G.mul(y, y))))
_unary_rule("Sin")(lambda x, y, dy: G.mul(dy, G.unary("Cos", x)))
_unary_rule("Cos")(lambda x, y, dy: G.neg(G.mul(dy, G.unary("Sin", x))))
_unary_rule("Tanh")(lambda x, y, dy: apply("TanhGrad", {}, [y, dy]))
_unary_rule("Sigmoid")(lambda x, y, dy: apply("SigmoidGrad", {}, [y, dy]))
_unary_rule("ReLU")(lambda x, y, dy: apply("ReluGrad", {}, [dy, y]))
_unary_rule("ReLU6")(lambda x, y, dy: apply("ReLU6Grad", {}, [dy, x]))
_unary_rule("GeLU")(lambda x, y, dy: apply("GeLUGrad", {}, [dy, x]))
_unary_rule("Softplus")(lambda x, y, dy: G.mul(dy, G.unary("Sigmoid", x)))
# d erf(x) = 2 / sqrt(pi) * exp(-x^2)
_unary_rule("Erf")(lambda x, y, dy: G.mul(dy, G.mul(G.unary("Exp", G.neg(G.mul(x, x))), 2 / math.sqrt(math.pi))))


@_unary_rule("Abs")
def _abs_grad(x, y, dy):
    if x._type.dtype in COMPLEX:
        # y = |z| + 0j: the real part of the cotangent times conj(z) / |z| (ops/complex_grads.py's convention)
        mag = apply("Real", {}, [y])
        safe = G.select(apply("Equal", {}, [mag, G.const(0, mag)]), G.add(G.zeros_like(mag), 1.0), mag)
        scale = apply("Complex", {}, [G.div(apply("Real", {}, [dy]), safe), G.zeros_like(mag)])
        return G.mul(apply("Conj", {}, [x]), scale)
    # sign(x) (0 at 0, as MindSpore's AbsGrad): (x > 0) - (x < 0)
    zero = G.const(0, x)
    return G.mul(dy, G.sub(G.mask(apply("Greater", {}, [x, zero]), x), G.mask(apply("Less", {}, [x, zero]), x)))


def _binary_rule(name: str):
    """Register ``fn(a, b, out, dy) -> (da, db)`` at the broadcast shape; each is then summed back to its
    operand's shape (:func:`gradlib.unbroadcast`)."""

    def attach(fn):
        def rule(attrs, ins, outs, douts):
            da, db = fn(ins[0], ins[1], outs[0], douts[0])
            return [None if g is None else G.unbroadcast(g, t.shape) for g, t in zip((da, db), ins, strict=True)]

        grad_rule(name)(rule)
        return fn

    return attach


_binary_rule("Add")(lambda a, b, out, dy: (dy, dy))
_binary_rule("Sub")(lambda a, b, out, dy: (dy, G.neg(dy)))
_binary_rule("Mul")(lambda a, b, out, dy: (G.mul(dy, b), G.mul(dy, a)))
_binary_rule("RealDiv")(lambda a, b, out, dy: (G.div(dy, b), G.neg(G.div(G.mul(dy, out), b))))
# FloorMod: a - floor(a / b) * b, so d/da = 1 and d/db = -floor(a / b) (MindSpore's bprop).
_binary_rule("FloorMod")(lambda a, b, out, dy: (dy, G.neg(G.mul(dy, apply("FloorDiv", {}, [a, b])))))
# Mod (fmod): a - trunc(a / b) * b, so d/da = 1 and d/db = -trunc(a / b) = -(a - out) / b (a - out is an
# exact multiple of b, so the quotient is the integer the kernel truncated to).
_binary_rule("Mod")(lambda a, b, out, dy: (dy, G.neg(G.mul(dy, G.div(G.sub(a, out), b)))))


@_binary_rule("Pow")
def _pow_grad(a, b, out, dy):
    da = G.mul(dy, G.mul(b, apply("Pow", {}, [a, G.sub(b, 1.0)])))
    # d/db a^b = a^b log(a), taken as 0 where a <= 0 (log undefined; MindSpore's bprop also masks a < 0).
    safe = G.select(apply("Greater", {}, [a, G.const(0, a)]), a, 1.0)
    return da, G.mul(dy, G.mul(out, G.unary("Log", safe)))


def _share_of_a(a, b, dy, cmp: str):
    """The share of the cotangent a gets from Maximum/Minimum(a, b): 1 where a wins, 0 where b does and
    one half where they tie, as MindSpore 2.10's MaximumGrad/MinimumGrad split it (integers: all to a)."""
    if not G.is_float(dy):
        return G.broadcast_to(G.mask(apply(cmp + "Equal", {}, [a, b]), dy), dy.shape)
    win, tie = G.mask(apply(cmp, {}, [a, b]), dy), G.mask(apply("Equal", {}, [a, b]), dy)
    return G.broadcast_to(G.add(win, G.mul(tie, 0.5)), dy.shape)


def _minmax_rule(name: str, cmp: str):
    @_binary_rule(name)
    def rule(a, b, out, dy):
        share = _share_of_a(a, b, dy, cmp)
        return G.mul(dy, share), G.mul(dy, G.sub(G.const(1, dy), share))


_minmax_rule("Maximum", "Greater")
_minmax_rule("Minimum", "Less")


@grad_rule("Select")
def _select_grad(attrs, ins, outs, douts):
    cond, a, b = ins
    dy = douts[0]
    zero = G.zeros_like(dy)
    return [None, G.unbroadcast(G.select(cond, dy, zero), a.shape), G.unbroadcast(G.select(cond, zero, dy), b.shape)]


@grad_rule("ClipByValue")
def _clip_grad(attrs, ins, outs, douts):
    # As the forward's min(max(x, lo), hi) with Maximum's and Minimum's rules: at a bound the gradient is
    # shared between x and the bound (MindSpore 2.10); where lo > hi the result is hi, whose gradient it all is.
    x, lo, hi = ins
    dy = douts[0]
    one = G.const(1, dy)
    to_x = _share_of_a(x, lo, dy, "Greater")
    to_max = _share_of_a(apply("Maximum", {}, [x, lo]), hi, dy, "Less")
    return [G.unbroadcast(G.mul(dy, G.mul(to_max, to_x)), x.shape),
            G.unbroadcast(G.mul(dy, G.mul(to_max, G.sub(one, to_x))), lo.shape),
            G.unbroadcast(G.mul(dy, G.sub(one, to_max)), hi.shape)]


@grad_rule("Cast")
def _cast_grad(attrs, ins, outs, douts):
    # Only a float input has a cotangent: cast back to its dtype. Casting to an integer or bool is a step
    # function (gradient zero).
    x, dy = ins[0], douts[0]
    src, dst = x._type.dtype, outs[0]._type.dtype
    if src in COMPLEX and dst not in COMPLEX:
        # the real part was kept: its transpose puts the cotangent back as a real part (ops/complex_grads.py)
        if not G.is_float(outs[0]):
            return [None]
        dy = G.cast(dy, real_of(src))
        return [apply("Complex", {}, [dy, G.zeros_like(dy)])]
    if dst in COMPLEX and src not in COMPLEX:
        return [G.cast(apply("Real", {}, [dy]), src) if G.is_float(x) else None]
    if not (G.is_float(x) or src in COMPLEX) or not (G.is_float(outs[0]) or dst in COMPLEX):
        return [None]
    return [G.cast(dy, src)]

