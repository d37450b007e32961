"""Elementwise, activation, comparison, logical and reduction functions (``ops.exp``, ``ops.add``,
``ops.sum``, ...) with MindSpore 2.x's names, argument names and defaults.

Python scalars are weakly typed: ``ops.add(x, 1)`` takes x's dtype (see ``base.binary``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.dtypes import DType, dtype_of
from ...core.tensor import Tensor, as_tensor
from .. import compose
from ..primitive import apply
from .base import binary, bool_binary, compare, negative_for_unsigned, promote, true_divide, unary
from .int_inputs import int_unary

Axis = int | Sequence[int] | None


def _cast(x: Tensor, dtype: DType | str) -> Tensor:
    """x as ``dtype`` (no node when it already has it)."""
    name = dtype_of(dtype).name
    return x if x.dtype.name == name else apply("Cast", {"dtype": name}, [x])


def cast(input, dtype: DType | str) -> Tensor:
    """``ops.cast(input, dtype)``: elementwise conversion (no node when the dtype already matches)."""
    return _cast(as_tensor(input), dtype)


def _float(x: Tensor) -> Tensor:
    """x itself if floating (or complex), else x cast to float32 (MindSpore's promotion for float-only math)."""
    return x if x.dtype.is_float or x.dtype.is_complex else _cast(x, "float32")


def _unary_fn(op: str, pyname: str, arg: str = "input", ints: str | None = None):
    # The parameter's name is MindSpore's (``input``, or ``x`` where it documents that), so keyword calls work;
    # ``ints`` says how an integer/bool input is met (int_inputs.MODES).
    def fn(input) -> Tensor:
        return int_unary(op, as_tensor(input), ints)

    def fn_x(x) -> Tensor:
        return int_unary(op, as_tensor(x), ints)

    fn = fn if arg == "input" else fn_x

    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = f"``ops.{pyname}({arg})``: elementwise, the {op} primitive."
    return fn


abs = _unary_fn("Abs", "abs", ints="bool_same")  # noqa: A001 - MindSpore's name
exp = _unary_fn("Exp", "exp")
log = _unary_fn("Log", "log")
sqrt = _unary_fn("Sqrt", "sqrt", "x", ints="float")
rsqrt = _unary_fn("Rsqrt", "rsqrt")
sin = _unary_fn("Sin", "sin")
cos = _unary_fn("Cos", "cos")
tanh = _unary_fn("Tanh", "tanh")
sigmoid = _unary_fn("Sigmoid", "sigmoid")
relu = _unary_fn("ReLU", "relu", ints="bool_same")
relu6 = _unary_fn("ReLU6", "relu6", "x")
erf = _unary_fn("Erf", "erf")
floor = _unary_fn("Floor", "floor")
ceil = _unary_fn("Ceil", "ceil")
neg = _unary_fn("Neg", "neg")
negative = neg
square = _unary_fn("Square", "square")
reciprocal = _unary_fn("Reciprocal", "reciprocal", ints="float")
isnan = _unary_fn("IsNan", "isnan", ints="float")
isfinite = _unary_fn("IsFinite", "isfinite", ints="float")


def round(input, *, decimals: int = 0) -> Tensor:  # noqa: A001 - MindSpore's name
    """``ops.round(input, *, decimals=0)``: round half to even (NumPy's and MindSpore's rule); ``decimals``
    scales by 10**decimals around the rounding."""
    x = as_tensor(input)
    if decimals == 0:
        return int_unary("Round", x, "int_same")
    scale = 10.0 ** decimals
    return binary("RealDiv", unary("Round", binary("Mul", x, scale)), scale)


def gelu(input_x, approximate: str = "none") -> Tensor:
    """``ops.gelu(input_x, approximate='none')``: x * Phi(x) exactly ('none', the GeLU primitive) or with
    the tanh approximation ('tanh': 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))))."""
    x = as_tensor(input_x)
    if approximate == "none":
        return unary("GeLU", x)
    if approximate != "tanh":
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return compose.gelu_tanh(compose.TENSORS, x)


def silu(input) -> Tensor:
    """``ops.silu(input)``: x * sigmoid(x)."""
    x = as_tensor(input)
    return binary("Mul", x, unary("Sigmoid", x))


def softplus(input, beta: float = 1, threshold: float = 20) -> Tensor:
    """``ops.softplus(input, beta=1, threshold=20)``: log(1 + exp(beta x)) / beta, and x itself where
    beta * x > threshold (where the two agree to float precision)."""
    x = as_tensor(input)
    bx = x if beta == 1 else binary("Mul", x, beta)
    soft = unary("Softplus", bx)
    soft = soft if beta == 1 else binary("RealDiv", soft, beta)
    return where(binary("Greater", bx, threshold), x, soft)


# ---- binary arithmetic ---------------------------------------------------------------------------------

def add(input, other) -> Tensor:
    """``ops.add(input, other)``: input + other with broadcasting."""
    return binary("Add", input, other)


def sub(input, other) -> Tensor:
    """``ops.sub(input, other)``: input - other with broadcasting."""
    return binary("Sub", input, other)


def mul(input, other) -> Tensor:
    """``ops.mul(input, other)``: input * other with broadcasting; of two bool tensors, their logical and (as
    MindSpore 2.10's, whose ``ops.add`` refuses bools, as opbuild's)."""
    return bool_binary("Mul", "LogicalAnd", input, other)


def div(input, other, *, rounding_mode: str | None = None) -> Tensor:
    """``ops.div(input, other, *, rounding_mode=None)``: true division (integers give float32), or rounded
    toward minus infinity ('floor') or toward zero ('trunc'), keeping integer dtypes integer."""
    if rounding_mode is None:
        return true_divide(input, other)
    if rounding_mode == "floor":
        return binary("FloorDiv", input, other)
    if rounding_mode != "trunc":
        raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")
    negative_for_unsigned("div", input, other)
    a, b = promote(input, other)  # the result's dtype is the promoted one (bool with an int: int64)
    q = true_divide(a, b)
    t = where(binary("Less", q, 0.0), unary("Ceil", q), unary("Floor", q))
    return t if a.dtype.is_float else _cast(t, a.dtype)


divide = div


def pow(input, exponent) -> Tensor:  # noqa: A001 - MindSpore's name
    """``ops.pow(input, exponent)``: input ** exponent with broadcasting."""
    return binary("Pow", input, exponent)


def maximum(input, other) -> Tensor:
    """``ops.maximum(input, other)``: elementwise max (NaN propagates); of two bool tensors, their logical or
    (MindSpore 2.10 takes bools; its ``minimum`` refuses them, as opbuild's)."""
    return bool_binary("Maximum", "LogicalOr", input, other)


def minimum(input, other) -> Tensor:
    """``ops.minimum(input, other)``: elementwise min (NaN propagates)."""
    return binary("Minimum", input, other)


def _cmp(op: str, pyname: str):
    def fn(input, other) -> Tensor:
        return compare(op, input, other)

    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = f"``ops.{pyname}(input, other)``: elementwise {op} with broadcasting (bool result)."
    return fn


equal = _cmp("Equal", "equal")
not_equal = ne = _cmp("NotEqual", "not_equal")
greater = gt = _cmp("Greater", "greater")
greater_equal = ge = _cmp("GreaterEqual", "greater_equal")
less = lt = _cmp("Less", "less")
less_equal = le = _cmp("LessEqual", "less_equal")


def _as_bool(x) -> Tensor:
    """x as bool: non-bool tensors compare != 0 (MindSpore's logical ops accept any dtype)."""
    t = as_tensor(x)
    return t if t.dtype.name == "bool" else binary("NotEqual", t, 0)


def logical_and(input, other) -> Tensor:
    """``ops.logical_and(input, other)``: elementwise AND of the truth values."""
    return apply("LogicalAnd", {}, [_as_bool(input), _as_bool(other)])


def logical_or(input, other) -> Tensor:
    """``ops.logical_or(input, other)``: elementwise OR of the truth values."""
    return apply("LogicalOr", {}, [_as_bool(input), _as_bool(other)])


def logical_not(input) -> Tensor:
    """``ops.logical_not(input)``: elementwise NOT of the truth values."""
    return apply("LogicalNot", {}, [_as_bool(input)])


def logical_xor(input, other) -> Tensor:
    """``ops.logical_xor(input, other)``: (a OR b) AND NOT (a AND b)."""
    a, b = _as_bool(input), _as_bool(other)
    return logical_and(logical_or(a, b), logical_not(logical_and(a, b)))


def where(condition, input, other) -> Tensor:
    """``ops.where(condition, input, other)``: input where condition else other (broadcasting; the two
    values meet at MindSpore's implicit promotion, as a binary operator's operands; two scalars give
    float32 for a float, int64 for ints)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor(input)
    x, y = promote(input, other)
    return apply("Select", {}, [_as_bool(condition), x, y])


def clamp(input, min=None, max=None) -> Tensor:  # noqa: A002 - MindSpore's argument names
    """``ops.clamp(input, min=None, max=None)`` (alias ``clip``): bound input below by ``min`` and above by
    ``max`` (scalars or broadcastable tensors; at least one must be given)."""
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    x = as_tensor(input)
    if min is not None:
        x = binary("Maximum", x, min)
    if max is not None:
        x = binary("Minimum", x, max)
    return x


clip = clamp


# ---- reductions ----------------------------------------------------------------------------------------

def _axis(axis: Axis) -> Any:
    """MindSpore's None (every axis) as the primitives' ()."""
    return () if axis is None else axis


def sum(input, dim: Axis = None, keepdim: bool = False, *, dtype: DType | str | None = None) -> Tensor:  # noqa: A001
    """``ops.sum(input, dim=None, keepdim=False, *, dtype=None)``: sum over ``dim`` (None: every axis);
    ``dtype`` casts the input first. Bool and integer input sums as int64 (MindSpore's rule: integer sums
    do not overflow their input's width)."""
    x = wide(as_tensor(input), dtype)
    if x.dtype.is_complex:
        return _complex_reduce("ReduceSum", x, {"keep_dims": bool(keepdim), "axis": _axis(dim)})
    return apply("ReduceSum", {"keep_dims": bool(keepdim), "axis": _axis(dim)}, [x])


def _complex_reduce(op: str, x: Tensor, attrs: dict) -> Tensor:
    """A sum or mean of a complex tensor: the real and imaginary parts reduced apart (the real reductions'
    kernels), put back together with ops.Complex."""
    parts = [apply(op, attrs, [apply(part, {}, [x])]) for part in ("Real", "Imag")]
    return apply("Complex", {}, parts)


def mean(input, axis: Axis = None, keep_dims: bool = False, *, dim: Axis = None, keepdim: bool | None = None,
         dtype: DType | str | None = None) -> Tensor:
    """``ops.mean(input, axis=None, keep_dims=False)`` (also ``dim=``/``keepdim=``, and ``dtype``): mean over
    ``axis`` (None: every axis). Integer input keeps its dtype, the mean truncated toward zero, as
    MindSpore's CPU kernel gives it (``ops.mean`` of int32 [1, 2, 4] is 2)."""
    axis = dim if dim is not None else axis
    keep_dims = keepdim if keepdim is not None else keep_dims
    x = as_tensor(input)
    if dtype is not None:
        x = _cast(x, dtype)
    if x.dtype.is_float:
        return apply("ReduceMean", {"keep_dims": bool(keep_dims), "axis": _axis(axis)}, [x])
    if x.dtype.is_complex:
        return _complex_reduce("ReduceMean", x, {"keep_dims": bool(keep_dims), "axis": _axis(axis)})
    total = apply("ReduceSum", {"keep_dims": bool(keep_dims), "axis": _axis(axis)}, [_cast(x, "int64")])
    count = x.size if axis is None or axis == () else int(np.prod(
        [x.shape[a] for a in ((axis,) if isinstance(axis, int) else axis)]))
    q = div(total, Tensor(np.asarray(count, np.int64)), rounding_mode="trunc")
    return _cast(q, x.dtype)


def prod(input, axis: Axis = None, keep_dims: bool = False, dtype: DType | str | None = None, *,
         dim: Axis = None, keepdim: bool | None = None) -> Tensor:
    """``ops.prod(input, axis=None, keep_dims=False, dtype=None)`` (also ``dim=``/``keepdim=``): product over
    ``axis`` (None: every axis); ``dtype`` casts the input first. Bool and integer input multiplies as int64,
    as ``sum`` (MindSpore's rule: an int32 product does not overflow int32)."""
    axis = dim if dim is not None else axis
    keep_dims = keepdim if keepdim is not None else keep_dims
    x = wide(as_tensor(input), dtype)
    return apply("ReduceProd", {"keep_dims": bool(keep_dims), "axis": _axis(axis)}, [x])


def wide(x: Tensor, dtype: DType | str | None) -> Tensor:
    """The input of a sum or a (running) product: cast to ``dtype`` if given, else bool and integers widened to
    int64 (MindSpore's rule)."""
    if dtype is not None:
        return _cast(x, dtype)
    return _cast(x, "int64") if x.dtype.name == "bool" or x.dtype.is_int else x


def _extreme(is_max: bool, input, axis, keepdims, initial, where_):
    x = as_tensor(input)
    if where_ is not None and initial is None:
        raise ValueError(f"{'max' if is_max else 'min'}: where needs initial")
    if initial is not None and axis is not None:
        # MindSpore's order: every element meets ``initial`` first, then ``where`` selects, then the
        # reduction runs with its index (so an index points at ``initial``'s winner, the first one).
        init = Tensor(np.asarray(initial, x.dtype.np_dtype))  # as MindSpore fills it: in the input's dtype
        x = apply("Maximum" if is_max else "Minimum", {}, [x, init])
        if where_ is not None:
            x = where(where_, x, init)
        initial = None
    elif where_ is not None:
        x = where(where_, x, initial)
    red, arg = ("ReduceMax", "ArgMax") if is_max else ("ReduceMin", "ArgMin")
    if axis is None:
        # MindSpore: every element, keepdims ignored, and the index is always 0.
        values = apply(red, {"keep_dims": False, "axis": ()}, [x])
        index = Tensor(np.array(0, dtype=np.int64))
    else:
        values = apply(red, {"keep_dims": bool(keepdims), "axis": axis}, [x])
        index = apply(arg, {"axis": axis, "output_type": "int64"}, [x])
        if keepdims:
            index = apply("ExpandDims", {"axis": axis % x.ndim}, [index])
    if initial is not None:
        values = binary("Maximum" if is_max else "Minimum", values, initial)
    return values, index


def max(input, axis: int | None = None, keepdims: bool = False, *, initial=None, where=None):  # noqa: A001
    """``ops.max(input, axis=None, keepdims=False, *, initial=None, where=None)`` -> (values, indices):
    the maximum along ``axis`` and its first index (int64). ``axis`` None: the maximum of every element and
    index 0 (MindSpore's rule). ``where`` (with ``initial``) replaces masked-out elements by ``initial``."""
    return _extreme(True, input, axis, keepdims, initial, where)


def min(input, axis: int | None = None, keepdims: bool = False, *, initial=None, where=None):  # noqa: A001
    """``ops.min(input, axis=None, keepdims=False, *, initial=None, where=None)`` -> (values, indices),
    as :func:`max` for the minimum."""
    return _extreme(False, input, axis, keepdims, initial, where)


def _reduce_initial(op: str, combine: str, x: Tensor, axis, keepdims, initial, where) -> Tensor:
    """A max/min reduction with NumPy's ``initial`` (a value that joins every reduction) and ``where`` (elements
    left out, which then need ``initial``)."""
    if where is not None:
        if initial is None:
            raise ValueError(f"{op}: where needs initial (the value of a reduction with no element)")
        fill = apply("Add", {}, [apply("ZerosLike", {}, [x]), Tensor(np.asarray(initial, x.dtype.np_dtype))])
        w = as_tensor(where)
        shape = tuple(np.broadcast_shapes(tuple(w.shape), tuple(x.shape)))
        w = w if tuple(w.shape) == shape else apply("BroadcastTo", {"shape": shape}, [w])
        x = apply("Select", {}, [w, x, fill])
    out = apply(op, {"keep_dims": bool(keepdims), "axis": _axis(axis)}, [x])
    if initial is not None:
        out = apply(combine, {}, [out, Tensor(np.asarray(initial, x.dtype.np_dtype))])
    return out


def amax(input, axis: Axis = None, keepdims: bool = False, *, initial=None, where=None, dim: Axis = None,
         keepdim: bool | None = None) -> Tensor:
    """``ops.amax(input, axis=None, keepdims=False, *, initial=None, where=None)`` (also
    ``dim=``/``keepdim=``): the maximum over ``axis`` (values only)."""
    axis = dim if dim is not None else axis
    keepdims = keepdim if keepdim is not None else keepdims
    return _reduce_initial("ReduceMax", "Maximum", as_tensor(input), axis, keepdims, initial, where)


def amin(input, axis: Axis = None, keepdims: bool = False, *, initial=None, where=None, dim: Axis = None,
         keepdim: bool | None = None) -> Tensor:
    """``ops.amin(input, axis=None, keepdims=False, *, initial=None, where=None)`` (also
    ``dim=``/``keepdim=``): the minimum over ``axis`` (values only)."""
    axis = dim if dim is not None else axis
    keepdims = keepdim if keepdim is not None else keepdims
    return _reduce_initial("ReduceMin", "Minimum", as_tensor(input), axis, keepdims, initial, where)


def _arg(op: str, input, axis, keep, out_type: str = "int64") -> Tensor:
    x = as_tensor(input)
    if x.dtype.name == "bool":  # MindSpore takes bool input (True above False); the kernels have no bool type
        x = _cast(x, "int32")
    if axis is None:  # over the flattened input; keepdims then keeps every axis with size 1
        out = apply(op, {"axis": 0, "output_type": out_type}, [apply("Reshape", {"shape": (-1,)}, [x])])
        return apply("Reshape", {"shape": (1,) * x.ndim}, [out]) if keep else out
    out = apply(op, {"axis": axis, "output_type": out_type}, [x])
    return apply("ExpandDims", {"axis": axis % x.ndim}, [out]) if keep else out


def argmax(input, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """``ops.argmax(input, dim=None, keepdim=False)``: index (int64, as MindSpore) of the first maximum along
    ``dim`` (None: of the flattened input)."""
    return _arg("ArgMax", input, dim, keepdim)


def argmin(input, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """``ops.argmin(input, axis=None, keepdims=False)``: index of the first minimum along ``axis`` (None: of
    the flattened input); int32, as MindSpore 2.10's ``ops.argmin`` gives it (``argmax`` is int64)."""
    return _arg("ArgMin", input, axis, keepdims, "int32")


__all__ = [
    "cast", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "relu6", "gelu", "silu",
    "softplus", "erf", "floor", "ceil", "round", "neg", "negative", "square", "reciprocal", "isnan", "isfinite", "add",
    "sub", "mul", "div", "divide", "pow", "maximum", "minimum", "equal", "not_equal", "ne", "greater", "gt",
    "greater_equal", "ge", "less", "lt", "less_equal", "le", "logical_and", "logical_or", "logical_not",
    "logical_xor", "where", "clamp", "clip", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax",
    "argmin",
]
